package widgets

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// walkShown visits what is on screen: hidden objects and their children are skipped.
func walkShown(o fyne.CanvasObject, visit func(fyne.CanvasObject)) {
	walk(o, func(o fyne.CanvasObject) bool {
		if !o.Visible() {
			return false
		}
		visit(o)
		_, isEntry := o.(*responseEntry)
		return !isEntry
	})
}

func shownButtons(o fyne.CanvasObject) (labels []string, byLabel map[string]*widget.Button) {
	byLabel = map[string]*widget.Button{}
	walkShown(o, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok {
			labels = append(labels, b.Text)
			byLabel[b.Text] = b
		}
	})
	return
}

func shownLabels(o fyne.CanvasObject) []string {
	var out []string
	walkShown(o, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok {
			out = append(out, l.Text)
		}
	})
	return out
}

func fit(w fyne.Window, b *Bubble) {
	w.Resize(fyne.NewSize(BubbleWidth, b.MinSize().Height))
	for range 3 {
		w.Resize(b.MinSize())
	}
}

var question = Prompt{
	Title:   "Question",
	Message: "Which draft should I send to Marcy?",
	Options: []Choice{
		{ID: "answer:The short one", Label: "The short one"}, {ID: "answer:The long one", Label: "The long one"},
		{ID: "answer:Neither", Label: "Neither"}, {ID: "answer:Ask Priya", Label: "Ask Priya"}, {ID: "answer:Fifth", Label: "Fifth"},
	},
	Choices:   []Choice{{ID: "dismiss", Label: "Dismiss"}},
	NoDefault: true,
}

func TestQuestionShowsOptionsAsButtons(t *testing.T) {
	b, got, _ := newTestBubble(t, question)
	labels, byLabel := shownButtons(b)
	want := []string{"The short one", "The long one", "Neither", "Ask Priya", "Dismiss"}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("buttons %q, want %q (at most %d options)", labels, want, MaxOptions)
	}
	if !contains(shownLabels(b), question.Message) {
		t.Errorf("question not shown: %q", shownLabels(b))
	}
	test.Tap(byLabel["The long one"])
	if want := []Answer{{Choice: "answer:The long one"}}; !slices.Equal(*got, want) {
		t.Fatalf("answers = %+v, want %+v", *got, want)
	}
}

func TestQuestionTypedAnswerAndNoDefaultOnEnter(t *testing.T) {
	b, got, w := newTestBubble(t, question)
	w.Canvas().Focus(b.Entry())
	// Enter on an empty box must not dismiss a question.
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(*got) != 0 {
		t.Fatalf("empty Enter answered %+v", *got)
	}
	test.Type(b.Entry(), "the one from Tuesday")
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	want := []Answer{{Choice: ChoiceReply, Text: "the one from Tuesday"}}
	if !slices.Equal(*got, want) {
		t.Fatalf("answers = %+v, want %+v", *got, want)
	}
}

func TestQuestionEscDismisses(t *testing.T) {
	b, got, _ := newTestBubble(t, question)
	b.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(*got) != 1 {
		t.Fatalf("answers = %+v, want one", *got)
	}
	if c := (*got)[0].Choice; c != "dismiss" {
		t.Fatalf("answer choice = %q, want dismiss", c)
	}
}

func longBody() string {
	var sb strings.Builder
	sb.WriteString("Hi Marcy,\n\n")
	for i := range 40 {
		sb.WriteString("Paragraph ")
		sb.WriteString(strings.Repeat("x", i%7+1))
		sb.WriteString(" of the SNDA reply: the tenant agrees to attorn to any successor landlord.\n")
	}
	sb.WriteString("\nBest,\nDana — THE END")
	return sb.String()
}

func approval() Prompt {
	return Prompt{
		Title:   "Approval",
		Message: "Save this reply in Drafts?",
		Fields: []Field{
			{"To", "Marcy Howard <marcy@x.com>"}, {"Cc", ""}, {"Subject", "Re: SNDA"},
		},
		Body:      longBody(),
		Choices:   []Choice{{ID: "accept", Label: "Approve"}, {ID: ChoiceEdit, Label: "Edit"}, {ID: "dismiss", Label: "Deny"}},
		NoDefault: true,
	}
}

func TestApprovalShowsFieldsAndFullBody(t *testing.T) {
	b, got, w := newTestBubble(t, approval())
	fit(w, b)
	labels := shownLabels(b)
	for _, want := range []string{"To", "Marcy Howard <marcy@x.com>", "Subject", "Re: SNDA", approval().Body} {
		if !contains(labels, want) {
			t.Errorf("label %.40q not shown; labels: %.200q", want, labels)
		}
	}
	if contains(labels, "Cc") {
		t.Errorf("empty Cc shown: %q", labels)
	}
	buttons, _ := shownButtons(b)
	if strings.Join(buttons, "|") != "Approve|Edit|Deny" {
		t.Errorf("buttons %q", buttons)
	}
	// The long body scrolls inside a box of at most BodyMaxHeight.
	var scroll *container.Scroll
	walkShown(b, func(o fyne.CanvasObject) {
		if s, ok := o.(*container.Scroll); ok {
			scroll = s
		}
	})
	if scroll == nil {
		t.Fatal("no scrolling body box")
	}
	if h := scroll.Size().Height; h > BodyMaxHeight {
		t.Errorf("body box %v tall, want at most %v", h, BodyMaxHeight)
	}
	if h := scroll.Size().Height; h < BodyMaxHeight/2 {
		t.Errorf("body box %v tall, want at least %v, not squashed", h, BodyMaxHeight/2)
	}
	if h := scroll.Content.MinSize().Height; h <= BodyMaxHeight {
		t.Errorf("body content only %v tall: the test body should overflow", h)
	}
	if lbl, ok := scroll.Content.(*widget.Label); !ok {
		t.Errorf("body is a %T, want a *widget.Label", scroll.Content)
	} else {
		if !lbl.Selectable {
			t.Error("body label Selectable = false, want true")
		}
		if lbl.Wrapping != fyne.TextWrapWord {
			t.Errorf("body label wrapping = %v, want %v (word)", lbl.Wrapping, fyne.TextWrapWord)
		}
	}
	// Enter on the empty box does not approve.
	w.Canvas().Focus(b.Entry())
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(*got) != 0 {
		t.Fatalf("empty Enter answered %+v", *got)
	}
}

func TestApprovalApproveDenyAndChangeRequest(t *testing.T) {
	for _, c := range []struct{ button, want string }{{"Approve", "accept"}, {"Deny", "dismiss"}} {
		t.Run(c.button, func(t *testing.T) {
			b, got, _ := newTestBubble(t, approval())
			_, byLabel := shownButtons(b)
			test.Tap(byLabel[c.button])
			if want := []Answer{{Choice: c.want}}; !slices.Equal(*got, want) {
				t.Errorf("answers = %+v, want %+v", *got, want)
			}
		})
	}
	b, got, w := newTestBubble(t, approval())
	w.Canvas().Focus(b.Entry())
	test.Type(b.Entry(), "make it shorter")
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if want := []Answer{{Choice: ChoiceReply, Text: "make it shorter"}}; !slices.Equal(*got, want) {
		t.Fatalf("typed change request: answers = %+v, want %+v", *got, want)
	}
}

func TestApprovalEditInPlaceThenSave(t *testing.T) {
	b, got, w := newTestBubble(t, approval())
	fit(w, b)
	resized := 0
	b.OnResize = func() { resized++ }
	interacted := 0
	b.OnInteract = func() { interacted++ }
	_, byLabel := shownButtons(b)
	test.Tap(byLabel["Edit"])
	if len(*got) != 0 {
		t.Fatalf("Edit answered %+v, want no answer", *got)
	}
	if !b.Editing() {
		t.Fatal("Edit did not open the editor")
	}
	if resized == 0 {
		t.Error("editing did not report a resize")
	}
	if interacted == 0 {
		t.Error("editing did not report an interaction")
	}
	ed := b.BodyEntry()
	if !ed.Visible() {
		t.Fatal("editor hidden, want it visible")
	}
	if want := approval().Body; ed.Text != want {
		t.Fatalf("editor text = %.40q, want it prefilled with the body %.40q", ed.Text, want)
	}
	if !ed.MultiLine {
		t.Fatal("editor MultiLine = false, want true")
	}
	if w.Canvas().Focused() != fyne.Focusable(b.bodyEdit) {
		t.Errorf("editor not focused: %T", w.Canvas().Focused())
	}
	buttons, byLabel := shownButtons(b)
	if strings.Join(buttons, "|") != "Save|Cancel" {
		t.Fatalf("buttons while editing %q", buttons)
	}
	if b.entry.Visible() {
		t.Error("response box shown while editing")
	}
	// Enter is a new line in the editor, not an answer.
	ed.CursorRow, ed.CursorColumn = 0, 0
	test.Type(b.bodyEdit, "Dear Marcy,")
	b.bodyEdit.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(*got) != 0 {
		t.Fatalf("Enter in the editor answered %+v", *got)
	}
	edited := ed.Text
	if !strings.HasPrefix(edited, "Dear Marcy,\nHi Marcy,") {
		t.Fatalf("edited text %.40q", edited)
	}
	test.Tap(byLabel["Save"])
	want := []Answer{{Choice: ChoiceEdit, Text: strings.TrimSpace(edited)}}
	if !slices.Equal(*got, want) {
		t.Fatalf("Save answered %.80q, want %.80q", *got, want)
	}
}

func TestApprovalEditCancelAndEscKeepTheBubble(t *testing.T) {
	b, got, _ := newTestBubble(t, approval())
	b.Choose(ChoiceEdit)
	b.BodyEntry().SetText("thrown away")
	_, byLabel := shownButtons(b)
	test.Tap(byLabel["Cancel"])
	if b.Editing() {
		t.Fatal("Cancel: still editing, want the editor closed")
	}
	if len(*got) != 0 {
		t.Fatalf("Cancel: answers = %+v, want none", *got)
	}
	if buttons, _ := shownButtons(b); strings.Join(buttons, "|") != "Approve|Edit|Deny" {
		t.Fatalf("buttons after Cancel %q", buttons)
	}
	if !contains(shownLabels(b), approval().Body) {
		t.Error("original body not shown after Cancel")
	}
	// Esc in the editor closes the editor only; Esc again denies.
	b.Choose(ChoiceEdit)
	b.bodyEdit.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if b.Editing() {
		t.Fatal("Esc in editor: still editing, want the editor closed")
	}
	if len(*got) != 0 {
		t.Fatalf("Esc in editor: answers = %+v, want none", *got)
	}
	b.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(*got) != 1 {
		t.Fatalf("Esc: answers = %+v, want one", *got)
	}
	if c := (*got)[0].Choice; c != "dismiss" {
		t.Fatalf("Esc: answer choice = %q, want dismiss", c)
	}
}

func TestBubbleReportsInteraction(t *testing.T) {
	b, _, w := newTestBubble(t, snda)
	n := 0
	b.OnInteract = func() { n++ }
	test.Tap(b) // the background: the cursor goes to the response box
	if n == 0 {
		t.Fatal("tap: no interaction reported")
	}
	if got := w.Canvas().Focused(); got != fyne.Focusable(b.entry) {
		t.Fatalf("tap: focused %T, want the response box", got)
	}
	k := n
	test.Type(b.Entry(), "a")
	if n <= k {
		t.Fatal("typing not reported")
	}
}

func TestBubbleWithoutExtrasHasNoBodyBox(t *testing.T) {
	b, _, _ := newTestBubble(t, snda)
	if b.BodyEntry() != nil {
		t.Fatal("body editor without a body")
	}
	b.Choose(ChoiceEdit) // no body: an ordinary choice
	walkShown(b, func(o fyne.CanvasObject) {
		if _, ok := o.(*container.Scroll); ok {
			t.Error("body box without a body")
		}
	})
}

func TestSummaryLine(t *testing.T) {
	for _, tc := range []struct{ name, message, want string }{
		{"a glance: who and what, without the offer", "Marcy Howard is waiting on your reply about SNDA – Brooklyn Gardens. Draft a reply?",
			"Marcy Howard is waiting on your reply about SNDA – Brooklyn Gardens"},
		{"a question keeps its mark", "Which draft should I send to Marcy Howard?", "Which draft should I send to Marcy Howard?"},
		{"a question then more", "Should I copy Priya? She asked to be kept in the loop.", "Should I copy Priya?"},
		{"a section number is not a sentence's end", "Marcy Howard asks about §4.2(b). She needs it by Friday.", "Marcy Howard asks about §4.2(b)"},
		{"an abbreviation before a lowercase word", "Acme Holdings Inc. merger papers came back signed.", "Acme Holdings Inc. merger papers came back signed"},
		{"a title at the start", "Mr. Howard called twice today. Call him back?", "Mr. Howard called twice today"},
		{"only the first line", "Synced 12 new messages\nfrom Marcy Howard and Priya Shah", "Synced 12 new messages"},
		{"one sentence", "Remind you to call Marcy Howard — tomorrow 3:00 PM?", "Remind you to call Marcy Howard — tomorrow 3:00 PM?"},
		{"blank", "  ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SummaryLine(tc.message); got != tc.want {
				t.Errorf("SummaryLine(%q) = %q, want %q", tc.message, got, tc.want)
			}
		})
	}
}

// newCompactBubble is snda's bubble shown compact, in a window fitted to it.
func newCompactBubble(t *testing.T) (*Bubble, *[]Answer, fyne.Window, fyne.Size) {
	t.Helper()
	b, got, w := newTestBubble(t, snda)
	fit(w, b)
	full := b.MinSize()
	b.SetCompact(true)
	fit(w, b)
	return b, got, w, full
}

func TestCompactBubbleShowsOneLine(t *testing.T) {
	b, _, _, full := newCompactBubble(t)
	if !b.Compact() {
		t.Fatal("Compact() = false after SetCompact(true)")
	}
	if got, want := shownLabels(b), []string{"Marcy Howard is waiting on your reply about SNDA – Brooklyn Gardens"}; !slices.Equal(got, want) {
		t.Errorf("compact labels = %q, want %q", got, want)
	}
	if got, _ := shownButtons(b); len(got) != 0 {
		t.Errorf("compact buttons = %q, want none", got)
	}
	walkShown(b, func(o fyne.CanvasObject) {
		if _, ok := o.(*responseEntry); ok {
			t.Error("compact bubble shows the response box")
		}
	})
	s := b.MinSize()
	if s.Width > CompactMaxWidth || s.Width < CompactMinWidth {
		t.Errorf("compact width %v, want within %v–%v", s.Width, CompactMinWidth, CompactMaxWidth)
	}
	if s.Height*3 > full.Height {
		t.Errorf("compact height %v, want under a third of the whole bubble's %v", s.Height, full.Height)
	}
	t.Logf("compact %v, whole %v (Fyne units)", s, full)
}

func TestCompactBubbleOpensOnHoverAndKeepsTypedText(t *testing.T) {
	b, got, w, full := newCompactBubble(t)
	resized, hovered := 0, 0
	b.OnResize = func() { resized++ }
	b.OnHover = func() { hovered++ }

	b.MouseIn(&desktop.MouseEvent{})
	if b.Compact() {
		t.Fatal("hover: still compact, want the whole bubble")
	}
	if resized != 1 || hovered != 1 {
		t.Errorf("hover: OnResize ran %d times, OnHover %d, want 1 and 1", resized, hovered)
	}
	if _, buttons := shownButtons(b); buttons["Draft it"] == nil {
		t.Error("hover: the whole bubble's buttons are not shown")
	}
	fit(w, b) // as the app does once the bubble changed size
	if s := b.MinSize(); s != full {
		t.Errorf("hover: size %v, want the whole bubble's %v", s, full)
	}
	if b.Typed() {
		t.Error("Typed() = true with an empty box")
	}

	test.Type(b.Entry(), "after lunch")
	if !b.Typed() {
		t.Error("Typed() = false with text in the box")
	}
	b.SetCompact(true) // the app never folds typed text; the widget keeps it anyway
	b.SetCompact(false)
	if got := b.entry.Text; got != "after lunch" {
		t.Errorf("text after folding and opening = %q, want %q", got, "after lunch")
	}
	b.Submit()
	if want := (Answer{Choice: ChoiceReply, Text: "after lunch"}); !slices.Equal(*got, []Answer{want}) {
		t.Fatalf("answers = %+v, want [%+v]", *got, want)
	}
}

func TestCompactBubbleOpensOnClick(t *testing.T) {
	b, _, w, _ := newCompactBubble(t)
	interacted := 0
	b.OnInteract = func() { interacted++ }
	test.Tap(b)
	if b.Compact() {
		t.Fatal("click: still compact, want the whole bubble")
	}
	if interacted == 0 {
		t.Error("click: no interaction reported")
	}
	if got := w.Canvas().Focused(); got != fyne.Focusable(b.entry) {
		t.Fatalf("click: focused %T, want the response box", got)
	}
	b.SetCompact(false) // already whole: nothing changes
	if b.Compact() {
		t.Fatal("SetCompact(false) twice folded the bubble")
	}
}

func TestBodyEditingCountsAsTyped(t *testing.T) {
	b, _, w := newTestBubble(t, approval())
	fit(w, b)
	b.StartEdit()
	if !b.Typed() {
		t.Error("Typed() = false while the body is open for editing")
	}
	b.CancelEdit()
	if b.Typed() {
		t.Error("Typed() = true after the editor closed with an empty box")
	}
}
