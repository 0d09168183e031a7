package layout

import (
	"image"
	"slices"
	"testing"
)

func line(text string, x0, y0, x1, y1 int) Line {
	return NewLine([]Word{{Text: text, Box: image.Rect(x0, y0, x1, y1)}})
}

func TestRows(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []Line
		want  []string
	}{
		{"label and value in two blocks are one row",
			[]Line{line("Dana Whitfield", 80, 40, 200, 54), line("To", 20, 41, 40, 53), line("Jane Doe", 20, 10, 100, 26)},
			[]string{"Jane Doe", "To  Dana Whitfield"}},
		{"date at the right edge joins the sender",
			[]Line{line("11:02", 800, 12, 840, 24), line("Jane Doe", 20, 10, 100, 26)},
			[]string{"Jane Doe  11:02"}},
		{"lines that touch but share less than half stay apart",
			[]Line{line("a", 0, 0, 10, 14), line("b", 0, 10, 10, 24)},
			[]string{"a", "b"}},
		{"empty lines are dropped",
			[]Line{line(" ", 0, 0, 10, 14), {Text: "x"}},
			nil},
		{"a line run over two rows of small text joins the one it overlaps most, and keeps them apart",
			[]Line{line("Elena Ortiz", 20, 70, 100, 82), line("Orion NDA", 20, 90, 120, 102), line("To: Dana", 20, 108, 90, 118),
				line("eee thet", 600, 72, 660, 97), line("date", 700, 71, 740, 81)},
			[]string{"Elena Ortiz  eee thet  date", "Orion NDA", "To: Dana"}},
		{"a heading alone makes its own row",
			[]Line{line("Subject heading", 20, 10, 300, 34), line("Jane Doe", 20, 50, 100, 62), line("to me", 20, 70, 60, 80)},
			[]string{"Subject heading", "Jane Doe", "to me"}},
		{"a word's tall box (an icon read in) does not stretch its line over the next row",
			[]Line{NewLine([]Word{{Text: "RE:", Box: image.Rect(20, 90, 40, 99)}, {Text: "—", Box: image.Rect(45, 78, 50, 109)},
				{Text: "list", Box: image.Rect(55, 90, 80, 99)}, {Text: "of", Box: image.Rect(85, 90, 95, 99)}}),
				line("To: Dana Whitfield", 20, 104, 140, 113), line("Marcus Webb", 20, 71, 100, 82)},
			[]string{"Marcus Webb", "RE: — list of", "To: Dana Whitfield"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range Rows(tc.lines) {
				got = append(got, r.Text())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSplitAtGaps(t *testing.T) {
	w := func(s string, x0, x1 int) Word { return Word{Text: s, Box: image.Rect(x0, 10, x1, 24)} }
	for _, tc := range []struct {
		name  string
		words []Word
		want  []string
	}{
		{"word spaces keep one line", []Word{w("Jane", 20, 50), w("Doe", 55, 80)}, []string{"Jane Doe"}},
		{"a column gap splits", []Word{w("Jane", 20, 50), w("Doe", 55, 80), w("Reply", 560, 600), w("Forward", 606, 660)},
			[]string{"Jane Doe", "Reply Forward"}},
		{"a label and its value split", []Word{w("To", 20, 36), w("Dana", 66, 100)}, []string{"To", "Dana"}},
		{"one word", []Word{w("x", 0, 5)}, []string{"x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range SplitAtGaps(NewLine(tc.words)) {
				got = append(got, l.Text)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCore(t *testing.T) {
	w := func(y0, y1 int) Word { return Word{Text: "w", Box: image.Rect(0, y0, 10, y1)} }
	for _, tc := range []struct {
		name  string
		words []Word
		want  image.Rectangle
	}{
		{"two words: the box", []Word{w(10, 20), w(5, 30)}, image.Rect(0, 5, 10, 30)},
		{"one tall word of three", []Word{w(10, 20), w(0, 40), w(11, 21)}, image.Rect(0, 10, 10, 21)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewLine(tc.words).Core(); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
