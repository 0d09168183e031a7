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
