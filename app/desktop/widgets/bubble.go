package widgets

import (
	"strings"
	"sync"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/nudge"
)

// ChoiceReply is the Answer.Choice of a free-text reply sent with Enter:
// the nudge contract's own name, so the core reads it as the lawyer meant.
const ChoiceReply = nudge.Reply

// ChoiceEdit is a button that opens the prompt's Body for editing in place
// (when the prompt has one); Save then answers ChoiceEdit with the edited text.
const ChoiceEdit = nudge.Edit

// BubbleWidth is the bubble's fixed width in Fyne units; its height follows
// the message.
const BubbleWidth = 340

// MaxChoices is how many buttons a bubble shows at most in its button row.
const MaxChoices = 3

// MaxOptions is how many answer buttons (Prompt.Options) a bubble stacks.
const MaxOptions = 4

// BodyMaxHeight caps the body box; longer text scrolls.
const BodyMaxHeight = 320

// CompactMaxWidth caps the compact bubble's width in Fyne units: its one
// line is cut with "…" beyond. It is no wider than the whole bubble, which
// grows from the line and so covers it, and the pointer that opened it,
// wherever on the line the pointer was. CompactMinWidth keeps a short line
// easy to point at.
const (
	CompactMaxWidth = BubbleWidth
	CompactMinWidth = 140
)

// Choice is one button in a bubble: its ID is returned in Answer.Choice.
// It is the nudge contract's choice, so a kind's buttons (nudge.SpecFor)
// go into a bubble as they are.
type Choice = nudge.Choice

// Field is one labelled line above the body, e.g. To: Marcy Howard.
type Field struct {
	Label, Value string
}

// Prompt is what a bubble asks.
type Prompt struct {
	Title       string // small heading, e.g. "Reminder"; empty shows "Spirit"
	Message     string
	Placeholder string   // hint in the response box
	Choices     []Choice // at most MaxChoices; the first is the default for Enter on an empty box
	Cancel      string   // the choice Esc returns; nudge.Dismiss when empty

	// Options are answers stacked as full-width buttons under the message
	// (a question's options), at most MaxOptions.
	Options []Choice
	// Fields are labelled lines (an approval's To, Subject…); empty values
	// are not shown.
	Fields []Field
	// Body is long text shown whole in a scrollable, selectable box (an
	// approval's draft). A ChoiceEdit button edits it in place.
	Body string
	// Document is a kept document's Markdown (a meeting brief), shown
	// rendered in a scrollable box with a Copy button that puts the
	// Markdown on the clipboard.
	Document string
	// NoDefault keeps Enter on an empty box from choosing the first choice:
	// approvals are given with a click, never by a stray Enter.
	NoDefault bool
	// Summary is the compact bubble's one line (who or what, e.g. "Marcy
	// Howard asks about §4.2(b)"); empty uses the message's first sentence.
	Summary string
}

// SummaryLine is the one line a compact bubble shows for message: its first
// sentence (a question keeps its "?"), on one line.
func SummaryLine(message string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
	line = strings.TrimSpace(line)
	// A sentence ends at ". ", "? " or "! " — not inside "§4.2(b)" or
	// "Inc." followed by a lowercase word — and not within its first
	// few words, where "Re. " or "Mr. " stand.
	const minSentence = 12
	for i, r := range line {
		if i < minSentence || (r != '.' && r != '?' && r != '!') {
			continue
		}
		rest := line[i+1:]
		if !strings.HasPrefix(rest, " ") {
			continue
		}
		next, _ := utf8.DecodeRuneInString(strings.TrimLeft(rest, " "))
		if next == utf8.RuneError || strings.ToUpper(string(next)) != string(next) {
			continue // "Inc. merger": not a sentence's end
		}
		if r == '.' {
			return line[:i]
		}
		return line[:i+1]
	}
	return strings.TrimSuffix(line, ".")
}

// Answer is what the lawyer chose or typed.
type Answer struct {
	Choice string // a Choice.ID, ChoiceReply for typed text, or Prompt.Cancel on Esc
	Text   string // the response box's text (or the edited body), trimmed
}

// Bubble shows a message, a response box and a few buttons, and reports
// exactly one Answer.
type Bubble struct {
	widget.BaseWidget

	// OnInteract, when set, runs on the main thread whenever the lawyer
	// clicks into the bubble or types in it: the app gives the bubble the
	// keyboard then, and keeps it open.
	OnInteract func()
	// OnResize, when set, runs after the bubble's content changed size
	// (editing the body opens a taller box, the compact bubble opens).
	OnResize func()
	// OnHover, when set, runs on the main thread when the pointer comes
	// over the bubble.
	OnHover func()

	prompt   Prompt
	entry    *responseEntry
	onAnswer func(Answer)
	once     sync.Once

	// compact shows one line instead of the whole bubble; see SetCompact.
	compact     bool
	full        fyne.CanvasObject // the whole bubble: message, box, buttons
	compactView fyne.CanvasObject // the one line

	// Editing the body in place.
	editing   bool
	bodyEdit  *bodyEntry
	bodyView  fyne.CanvasObject
	buttons   *fyne.Container
	editBar   *fyne.Container
	editParts []fyne.CanvasObject // shown only while editing
	viewParts []fyne.CanvasObject // hidden while editing

	copyBtn *widget.Button // the document's Copy; nil without one
}

// CopyButton is the document's Copy button, nil when the bubble shows no
// document.
func (b *Bubble) CopyButton() *widget.Button { return b.copyBtn }

// NewBubble builds a bubble for p; onAnswer runs once, with the first answer.
func NewBubble(p Prompt, onAnswer func(Answer)) *Bubble {
	if len(p.Choices) > MaxChoices {
		p.Choices = p.Choices[:MaxChoices]
	}
	if len(p.Options) > MaxOptions {
		p.Options = p.Options[:MaxOptions]
	}
	if p.Cancel == "" {
		p.Cancel = nudge.Dismiss
	}
	if p.Placeholder == "" {
		p.Placeholder = "Reply, or tell Spirit what to do…"
	}
	b := &Bubble{prompt: p, onAnswer: onAnswer}
	b.entry = newResponseEntry(b)
	if p.Body != "" {
		b.bodyEdit = newBodyEntry(b)
	}
	b.ExtendBaseWidget(b)
	return b
}

// Entry is the response box, for focusing it when the lawyer asks.
func (b *Bubble) Entry() fyne.Focusable { return b.entry }

// BodyEntry is the box that edits the body, or nil when there is no body.
func (b *Bubble) BodyEntry() *widget.Entry {
	if b.bodyEdit == nil {
		return nil
	}
	return &b.bodyEdit.Entry
}

// Editing reports whether the body is open for editing.
func (b *Bubble) Editing() bool { return b.editing }

// Prompt is what the bubble asks.
func (b *Bubble) Prompt() Prompt { return b.prompt }

// Compact reports whether the bubble shows only its one line.
func (b *Bubble) Compact() bool { return b.compact }

// SetCompact shows the bubble as one line (compact) or whole. The line is
// small enough to sit at the screen's edge over little of the lawyer's
// work; pointing at it or clicking it opens the whole bubble. Nothing typed
// is lost: the response box keeps its text while folded.
func (b *Bubble) SetCompact(compact bool) {
	if b.compact == compact {
		return
	}
	b.compact = compact
	b.applyForm()
	b.Refresh()
	if b.OnResize != nil {
		b.OnResize()
	}
}

// Typed reports whether folding the bubble would hide the lawyer's work:
// text in the response box, or the body open for editing.
func (b *Bubble) Typed() bool {
	return strings.TrimSpace(b.entry.Text) != "" || b.editing
}

// Line is the compact bubble's one line.
func (b *Bubble) Line() string {
	if s := strings.TrimSpace(b.prompt.Summary); s != "" {
		return s
	}
	return SummaryLine(b.prompt.Message)
}

func (b *Bubble) applyForm() {
	if b.full == nil {
		return // not rendered yet: CreateRenderer applies it
	}
	if b.compact {
		b.full.Hide()
		b.compactView.Show()
	} else {
		b.compactView.Hide()
		b.full.Show()
	}
}

// MouseIn implements desktop.Hoverable: pointing at the compact bubble
// opens it.
func (b *Bubble) MouseIn(*desktop.MouseEvent) {
	if b.OnHover != nil {
		b.OnHover()
	}
	b.SetCompact(false)
}

// MouseMoved implements desktop.Hoverable.
func (b *Bubble) MouseMoved(*desktop.MouseEvent) {}

// MouseOut implements desktop.Hoverable. Fyne reports it when the pointer
// moves onto a button or the box inside the bubble too, so it folds
// nothing: the app folds the bubble once the pointer has left its window.
func (b *Bubble) MouseOut() {}

// interacted tells the app the lawyer is using the bubble.
func (b *Bubble) interacted() {
	if b.OnInteract != nil {
		b.OnInteract()
	}
}

// answer delivers the first answer only: a bubble answers once.
func (b *Bubble) answer(a Answer) {
	a.Text = strings.TrimSpace(a.Text)
	b.once.Do(func() {
		if b.onAnswer != nil {
			b.onAnswer(a)
		}
	})
}

// Choose answers as if the button with id were pressed. ChoiceEdit on a
// bubble with a body opens the body for editing instead.
func (b *Bubble) Choose(id string) {
	if id == ChoiceEdit && b.bodyEdit != nil {
		b.StartEdit()
		return
	}
	b.answer(Answer{Choice: id, Text: b.entry.Text})
}

// Submit answers as Enter does: the typed text, or the default choice when
// the box is empty.
func (b *Bubble) Submit() {
	text := strings.TrimSpace(b.entry.Text)
	switch {
	case text != "":
		b.answer(Answer{Choice: ChoiceReply, Text: text})
	case len(b.prompt.Choices) > 0 && !b.prompt.NoDefault:
		b.Choose(b.prompt.Choices[0].ID)
	}
}

// Cancel answers as Esc does; while the body is being edited Esc only
// closes the editor.
func (b *Bubble) Cancel() {
	if b.editing {
		b.CancelEdit()
		return
	}
	b.Choose(b.prompt.Cancel)
}

// StartEdit opens the body for editing, prefilled with it.
func (b *Bubble) StartEdit() {
	if b.bodyEdit == nil || b.editing {
		return
	}
	b.editing = true
	b.bodyEdit.SetText(b.prompt.Body)
	b.applyMode()
	b.interacted()
	if c := fyne.CurrentApp().Driver().CanvasForObject(b); c != nil {
		c.Focus(b.bodyEdit)
	}
}

// SaveEdit answers ChoiceEdit with the edited body.
func (b *Bubble) SaveEdit() {
	if !b.editing {
		return
	}
	b.answer(Answer{Choice: ChoiceEdit, Text: b.bodyEdit.Text})
}

// CancelEdit closes the editor, keeping the body as it was.
func (b *Bubble) CancelEdit() {
	if !b.editing {
		return
	}
	b.editing = false
	b.applyMode()
}

func (b *Bubble) applyMode() {
	for _, o := range b.editParts {
		if o == nil {
			continue
		}
		if b.editing {
			o.Show()
		} else {
			o.Hide()
		}
	}
	for _, o := range b.viewParts {
		if o == nil {
			continue
		}
		if b.editing {
			o.Hide()
		} else {
			o.Show()
		}
	}
	b.Refresh()
	if b.OnResize != nil {
		b.OnResize()
	}
}

// TypedKey lets Esc dismiss the bubble when the response box is not focused.
func (b *Bubble) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		b.Cancel()
	}
}

// Tapped implements fyne.Tappable: a click on the compact bubble opens it,
// and a click on the bubble's background puts the cursor in the response box.
func (b *Bubble) Tapped(*fyne.PointEvent) {
	b.SetCompact(false)
	b.interacted()
	if c := fyne.CurrentApp().Driver().CanvasForObject(b); c != nil {
		if b.editing {
			c.Focus(b.bodyEdit)
		} else {
			c.Focus(b.entry)
		}
	}
}

// CreateRenderer implements fyne.Widget.
func (b *Bubble) CreateRenderer() fyne.WidgetRenderer {
	p := PaletteFor(fyne.CurrentApp().Settings().ThemeVariant())
	title := b.prompt.Title
	if title == "" {
		title = "Spirit"
	}
	// The title as written: "Email", "Reminder" are words the lawyer
	// reads, not labels to shout.
	heading := canvas.NewText(title, p.Muted)
	heading.TextSize = theme.CaptionTextSize()
	heading.TextStyle = fyne.TextStyle{Bold: true}

	msg := widget.NewLabel(b.prompt.Message)
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.MediumImportance

	// Indent the heading like the label's text below it.
	head := container.New(layout.NewCustomPaddedLayout(theme.Padding(), 0, theme.InnerPadding(), 0), heading)
	parts := []fyne.CanvasObject{head, msg}

	if len(b.prompt.Options) > 0 {
		opts := container.NewVBox()
		for _, o := range b.prompt.Options {
			id := o.ID
			btn := widget.NewButton(o.Label, func() { b.Choose(id) })
			btn.Alignment = widget.ButtonAlignLeading
			opts.Add(btn)
		}
		parts = append(parts, opts)
		b.viewParts = append(b.viewParts, opts)
	}

	if fields := visibleFields(b.prompt.Fields); len(fields) > 0 {
		form := container.New(layout.NewFormLayout())
		for _, f := range fields {
			l := widget.NewLabel(f.Label)
			l.TextStyle = fyne.TextStyle{Bold: true}
			l.Importance = widget.LowImportance
			v := widget.NewLabel(f.Value)
			v.Wrapping = fyne.TextWrapWord
			v.Selectable = true
			form.Add(l)
			form.Add(v)
		}
		parts = append(parts, form)
	}

	if b.prompt.Body != "" {
		body := widget.NewLabel(b.prompt.Body)
		body.Wrapping = fyne.TextWrapWord
		body.Selectable = true
		scroll := container.NewVScroll(body)
		bg := canvas.NewRectangle(p.Input)
		bg.CornerRadius = 6
		b.bodyView = container.NewStack(bg, container.New(&capHeight{max: BodyMaxHeight, inner: body}, scroll))
		b.bodyEdit.Hide()
		parts = append(parts, b.bodyView, b.bodyEdit)
		b.viewParts = append(b.viewParts, b.bodyView)
		b.editParts = append(b.editParts, b.bodyEdit)
	}

	if b.prompt.Document != "" {
		doc, copyBtn := DocumentView(b.prompt.Document, BodyMaxHeight)
		b.copyBtn = copyBtn
		bg := canvas.NewRectangle(p.Input)
		bg.CornerRadius = 6
		parts = append(parts, container.NewStack(bg, doc), container.NewHBox(layout.NewSpacer(), copyBtn))
	}

	parts = append(parts, b.entry)
	b.viewParts = append(b.viewParts, b.entry)

	b.buttons = container.NewHBox(layout.NewSpacer())
	for i, c := range b.prompt.Choices {
		id := c.ID
		btn := widget.NewButton(c.Label, func() { b.Choose(id) })
		if i == 0 && id != b.prompt.Cancel { // never make Dismiss the primary button
			btn.Importance = widget.HighImportance
		}
		b.buttons.Add(btn)
	}
	parts = append(parts, b.buttons)
	b.viewParts = append(b.viewParts, b.buttons)

	if b.bodyEdit != nil {
		save := widget.NewButton("Save", b.SaveEdit)
		save.Importance = widget.HighImportance
		b.editBar = container.NewHBox(layout.NewSpacer(), save, widget.NewButton("Cancel", b.CancelEdit))
		b.editBar.Hide()
		parts = append(parts, b.editBar)
		b.editParts = append(b.editParts, b.editBar)
	}
	if b.editing { // StartEdit ran before the first render
		for _, o := range b.editParts {
			o.Show()
		}
		for _, o := range b.viewParts {
			o.Hide()
		}
	}

	card := canvas.NewRectangle(p.Surface)
	card.CornerRadius = 12
	card.StrokeColor = p.Separator
	card.StrokeWidth = 1
	b.full = container.NewPadded(container.NewVBox(parts...))

	// The compact form: the line, cut with "…" when long, and a mark
	// saying there is more.
	line := widget.NewLabel(b.Line())
	line.Truncation = fyne.TextTruncateEllipsis
	line.Importance = widget.MediumImportance
	more := widget.NewIcon(theme.MoreHorizontalIcon())
	b.compactView = container.NewBorder(nil, nil, nil,
		container.New(layout.NewCustomPaddedLayout(0, 0, 0, theme.InnerPadding()), container.NewCenter(more)), line)
	b.applyForm()
	return widget.NewSimpleRenderer(container.NewStack(card, b.full, b.compactView))
}

// compactWidth fits the line, within CompactMinWidth and CompactMaxWidth.
func (b *Bubble) compactWidth() float32 {
	text := fyne.MeasureText(b.Line(), theme.TextSize(), fyne.TextStyle{})
	w := text.Width + 2*theme.InnerPadding() + theme.IconInlineSize() + theme.InnerPadding() + theme.Padding()
	return fyne.Min(fyne.Max(w, CompactMinWidth), CompactMaxWidth)
}

func visibleFields(fs []Field) []Field {
	var out []Field
	for _, f := range fs {
		if strings.TrimSpace(f.Value) != "" {
			out = append(out, f)
		}
	}
	return out
}

// MinSize fixes the width so the message wraps to a readable measure; the
// compact bubble is as wide as its line needs, up to CompactMaxWidth.
func (b *Bubble) MinSize() fyne.Size {
	b.ExtendBaseWidget(b)
	min := b.BaseWidget.MinSize()
	if b.compact {
		return fyne.NewSize(b.compactWidth(), min.Height)
	}
	return fyne.NewSize(fyne.Max(min.Width, BubbleWidth), min.Height)
}

// capHeight lays out one scroller as tall as its content, up to max.
type capHeight struct {
	max   float32
	inner fyne.CanvasObject // the scrolled content
}

func (c *capHeight) MinSize([]fyne.CanvasObject) fyne.Size {
	s := c.inner.MinSize()
	return fyne.NewSize(0, fyne.Min(s.Height, c.max))
}

func (c *capHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// responseEntry is the bubble's text box: Enter sends, Esc dismisses.
type responseEntry struct {
	widget.Entry
	bubble *Bubble
}

func newResponseEntry(b *Bubble) *responseEntry {
	e := &responseEntry{bubble: b}
	e.ExtendBaseWidget(e)
	e.PlaceHolder = b.prompt.Placeholder
	e.OnSubmitted = func(string) { b.Submit() }
	e.OnChanged = func(string) { b.interacted() }
	return e
}

// TypedKey catches Esc before Entry would merely unfocus.
func (e *responseEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		e.bubble.Cancel()
		return
	}
	e.Entry.TypedKey(ev)
}

// FocusGained tells the app the lawyer clicked into the box.
func (e *responseEntry) FocusGained() {
	e.Entry.FocusGained()
	e.bubble.interacted()
}

// bodyEntry edits the body: Enter is a new line, Esc closes the editor.
type bodyEntry struct {
	widget.Entry
	bubble *Bubble
}

func newBodyEntry(b *Bubble) *bodyEntry {
	e := &bodyEntry{bubble: b}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	e.SetMinRowsVisible(10)
	e.OnChanged = func(string) { b.interacted() }
	return e
}

// TypedKey catches Esc: it closes the editor, keeping the body unchanged.
func (e *bodyEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		e.bubble.CancelEdit()
		return
	}
	e.Entry.TypedKey(ev)
}

// FocusGained tells the app the lawyer clicked into the editor.
func (e *bodyEntry) FocusGained() {
	e.Entry.FocusGained()
	e.bubble.interacted()
}
