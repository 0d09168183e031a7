package ui

import (
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ChoiceReply is the Answer.Choice of a free-text reply sent with Enter.
const ChoiceReply = "reply"

// BubbleWidth is the bubble's fixed width in Fyne units; its height follows
// the message.
const BubbleWidth = 340

// MaxChoices is how many buttons a bubble shows at most.
const MaxChoices = 3

// Choice is one button in a bubble.
type Choice struct {
	ID    string // returned in Answer.Choice
	Label string
}

// Prompt is what a bubble asks.
type Prompt struct {
	Title       string // small heading, e.g. "Reminder"; empty shows "Spirit"
	Message     string
	Placeholder string   // hint in the response box
	Choices     []Choice // at most MaxChoices; the first is the default for Enter on an empty box
	Cancel      string   // the choice Esc returns; "dismiss" when empty
}

// Answer is what the lawyer chose or typed.
type Answer struct {
	Choice string // a Choice.ID, ChoiceReply for typed text, or Prompt.Cancel on Esc
	Text   string // the response box's text, trimmed
}

// Bubble shows a message, a response box and up to three buttons, and reports
// exactly one Answer.
type Bubble struct {
	widget.BaseWidget

	prompt   Prompt
	entry    *responseEntry
	onAnswer func(Answer)
	once     sync.Once
}

// NewBubble builds a bubble for p; onAnswer runs once, with the first answer.
func NewBubble(p Prompt, onAnswer func(Answer)) *Bubble {
	if len(p.Choices) > MaxChoices {
		p.Choices = p.Choices[:MaxChoices]
	}
	if p.Cancel == "" {
		p.Cancel = "dismiss"
	}
	if p.Placeholder == "" {
		p.Placeholder = "Reply, or tell Spirit what to do…"
	}
	b := &Bubble{prompt: p, onAnswer: onAnswer}
	b.entry = newResponseEntry(b)
	b.ExtendBaseWidget(b)
	return b
}

// Entry is the response box, for focusing it when the lawyer asks.
func (b *Bubble) Entry() fyne.Focusable { return b.entry }

// answer delivers the first answer only: a bubble answers once.
func (b *Bubble) answer(a Answer) {
	a.Text = strings.TrimSpace(a.Text)
	b.once.Do(func() {
		if b.onAnswer != nil {
			b.onAnswer(a)
		}
	})
}

// Choose answers as if the button with id were pressed.
func (b *Bubble) Choose(id string) { b.answer(Answer{Choice: id, Text: b.entry.Text}) }

// Submit answers as Enter does: the typed text, or the default choice when
// the box is empty.
func (b *Bubble) Submit() {
	text := strings.TrimSpace(b.entry.Text)
	switch {
	case text != "":
		b.answer(Answer{Choice: ChoiceReply, Text: text})
	case len(b.prompt.Choices) > 0:
		b.Choose(b.prompt.Choices[0].ID)
	}
}

// Cancel answers as Esc does.
func (b *Bubble) Cancel() { b.Choose(b.prompt.Cancel) }

// TypedKey lets Esc dismiss the bubble when the response box is not focused.
func (b *Bubble) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		b.Cancel()
	}
}

// CreateRenderer implements fyne.Widget.
func (b *Bubble) CreateRenderer() fyne.WidgetRenderer {
	p := PaletteFor(fyne.CurrentApp().Settings().ThemeVariant())
	title := b.prompt.Title
	if title == "" {
		title = "Spirit"
	}
	heading := canvas.NewText(strings.ToUpper(title), p.Muted)
	heading.TextSize = theme.CaptionTextSize()
	heading.TextStyle = fyne.TextStyle{Bold: true}

	msg := widget.NewLabel(b.prompt.Message)
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.MediumImportance

	buttons := container.NewHBox(layout.NewSpacer())
	for i, c := range b.prompt.Choices {
		id := c.ID
		btn := widget.NewButton(c.Label, func() { b.Choose(id) })
		if i == 0 {
			btn.Importance = widget.HighImportance
		}
		buttons.Add(btn)
	}

	card := canvas.NewRectangle(p.Surface)
	card.CornerRadius = 12
	card.StrokeColor = p.Separator
	card.StrokeWidth = 1
	// Indent the heading like the label's text below it.
	head := container.New(layout.NewCustomPaddedLayout(theme.Padding(), 0, theme.InnerPadding(), 0), heading)
	body := container.NewPadded(container.NewVBox(head, msg, b.entry, buttons))
	return widget.NewSimpleRenderer(container.NewStack(card, body))
}

// MinSize fixes the width so the message wraps to a readable measure.
func (b *Bubble) MinSize() fyne.Size {
	b.ExtendBaseWidget(b)
	min := b.BaseWidget.MinSize()
	return fyne.NewSize(fyne.Max(min.Width, BubbleWidth), min.Height)
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
