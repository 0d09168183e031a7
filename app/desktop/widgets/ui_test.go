package widgets

import (
	"image/color"
	"math"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

func newTestBubble(t *testing.T, p Prompt) (*Bubble, *[]Answer, fyne.Window) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(Theme{})
	var got []Answer
	b := NewBubble(p, func(ans Answer) { got = append(got, ans) })
	w := test.NewTempWindow(t, b)
	w.Resize(b.MinSize())
	return b, &got, w
}

var snda = Prompt{
	Title:   "Email",
	Message: "Marcy Howard is waiting on your reply about SNDA – Brooklyn Gardens. Draft a reply?",
	Choices: []Choice{{ID: "accept", Label: "Draft it"}, {ID: "snooze", Label: "Not now"}, {ID: "dismiss", Label: "Dismiss"}},
}

// walk visits every object the widget tree renders.
func walk(o fyne.CanvasObject, visit func(fyne.CanvasObject) bool) {
	if !visit(o) {
		return
	}
	if w, ok := o.(fyne.Widget); ok {
		for _, c := range test.WidgetRenderer(w).Objects() {
			walk(c, visit)
		}
	}
	if c, ok := o.(*fyne.Container); ok {
		for _, c := range c.Objects {
			walk(c, visit)
		}
	}
}

// collect returns the labels' text, button labels and response boxes rendered.
func collect(o fyne.CanvasObject) (texts, buttons []string, entries []*widget.Entry) {
	walk(o, func(o fyne.CanvasObject) bool {
		switch v := o.(type) {
		case *widget.Label:
			texts = append(texts, v.Text)
		case *widget.Button:
			buttons = append(buttons, v.Text)
		case *responseEntry:
			entries = append(entries, &v.Entry)
			return false
		}
		return true
	})
	return
}

func TestBubbleShowsMessageResponseBoxAndButtons(t *testing.T) {
	b, _, _ := newTestBubble(t, snda)
	texts, buttons, entries := collect(b)
	if !contains(texts, snda.Message) {
		t.Errorf("message not rendered; labels: %q", texts)
	}
	if len(entries) != 1 {
		t.Fatalf("want one response box, got %d", len(entries))
	}
	want := []string{"Draft it", "Not now", "Dismiss"}
	if len(buttons) != len(want) {
		t.Fatalf("buttons = %q, want %q", buttons, want)
	}
	for i := range want {
		if buttons[i] != want[i] {
			t.Errorf("button %d = %q, want %q", i, buttons[i], want[i])
		}
	}
	if b.MinSize().Width < BubbleWidth {
		t.Errorf("bubble narrower than %v: %v", BubbleWidth, b.MinSize())
	}
}

// The heading shows the prompt's title as written, in the lawyer's words,
// and "Spirit" when there is none.
func TestBubbleHeadingShowsTitleAsWritten(t *testing.T) {
	for _, tc := range []struct{ name, title, want string }{
		{"email", "Email", "Email"},
		{"reminder", "Reminder", "Reminder"},
		{"no title", "", "Spirit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := snda
			p.Title = tc.title
			b, _, _ := newTestBubble(t, p)
			var got []string
			walk(b, func(o fyne.CanvasObject) bool {
				if v, ok := o.(*canvas.Text); ok {
					got = append(got, v.Text)
				}
				return true
			})
			if !contains(got, tc.want) {
				t.Errorf("heading texts = %q, want %q among them", got, tc.want)
			}
		})
	}
}

func TestBubbleAtMostThreeButtons(t *testing.T) {
	p := snda
	p.Choices = append(append([]Choice{}, p.Choices...), Choice{ID: "x", Label: "Extra"})
	b, _, _ := newTestBubble(t, p)
	if _, buttons, _ := collect(b); len(buttons) != MaxChoices {
		t.Fatalf("buttons = %q, want %d", buttons, MaxChoices)
	}
}

func TestBubbleTypingAndEnterReturnsText(t *testing.T) {
	b, got, w := newTestBubble(t, snda)
	w.Canvas().Focus(b.Entry())
	test.Type(b.Entry(), "  draft it but cc Priya  ")
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	want := Answer{Choice: ChoiceReply, Text: "draft it but cc Priya"}
	if !slices.Equal(*got, []Answer{want}) {
		t.Fatalf("answers = %+v, want [%+v]", *got, want)
	}
}

func TestBubbleEnterOnEmptyBoxTakesDefaultChoice(t *testing.T) {
	b, got, w := newTestBubble(t, snda)
	w.Canvas().Focus(b.Entry())
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(*got) != 1 {
		t.Fatalf("answers = %+v, want one", *got)
	}
	if c := (*got)[0].Choice; c != "accept" {
		t.Fatalf("answer choice = %q, want accept, the first choice", c)
	}
}

func TestBubbleEscDismissesKeepingText(t *testing.T) {
	p := snda
	p.Cancel = "dismiss"
	b, got, w := newTestBubble(t, p)
	w.Canvas().Focus(b.Entry())
	test.Type(b.Entry(), "not this one")
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	want := Answer{Choice: "dismiss", Text: "not this one"}
	if !slices.Equal(*got, []Answer{want}) {
		t.Fatalf("answers = %+v, want [%+v]", *got, want)
	}
	// Esc with nothing focused dismisses too, but the bubble answers only once.
	b.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(*got) != 1 {
		t.Fatalf("second answer delivered: %+v", *got)
	}
}

func TestBubbleButtonReturnsItsChoice(t *testing.T) {
	b, got, _ := newTestBubble(t, snda)
	var snooze *widget.Button
	walk(b, func(o fyne.CanvasObject) bool {
		if btn, ok := o.(*widget.Button); ok && btn.Text == "Not now" {
			snooze = btn
		}
		return true
	})
	if snooze == nil {
		t.Fatal("no Not now button")
	}
	test.Type(b.Entry(), "after lunch")
	test.Tap(snooze)
	want := Answer{Choice: "snooze", Text: "after lunch"}
	if !slices.Equal(*got, []Answer{want}) {
		t.Fatalf("answers = %+v, want [%+v]", *got, want)
	}
}

func TestOrbTapped(t *testing.T) {
	test.NewTempApp(t)
	n := 0
	o := NewOrb(func() { n++ })
	test.NewTempWindow(t, o)
	test.Tap(o)
	if n != 1 {
		t.Fatalf("taps = %d", n)
	}
	if o.MinSize() != fyne.NewSquareSize(OrbSize) {
		t.Fatalf("orb min size %v", o.MinSize())
	}
}

// WCAG contrast: text must stay readable in both variants.
func TestThemeContrastBothVariants(t *testing.T) {
	for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		th := Theme{}
		pairs := []struct {
			name   string
			fg, bg fyne.ThemeColorName
			min    float64
		}{
			{"text on surface", theme.ColorNameForeground, theme.ColorNameBackground, 7},
			{"text in input", theme.ColorNameForeground, theme.ColorNameInputBackground, 7},
			{"placeholder", theme.ColorNamePlaceHolder, theme.ColorNameInputBackground, 4.5},
			{"on primary", theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary, 4.5},
			{"text on button", theme.ColorNameForeground, theme.ColorNameButton, 7},
		}
		for _, p := range pairs {
			c := contrast(th.Color(p.fg, v), th.Color(p.bg, v))
			if c < p.min {
				t.Errorf("variant %d %s: contrast %.2f < %.1f", v, p.name, c, p.min)
			}
		}
	}
}

func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
