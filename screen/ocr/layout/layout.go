// Package layout holds text read off a screen with its positions: words
// grouped into lines, each with its bounding box. It is pure Go, apart
// from screen/ocr which fills it with Tesseract, so that packages reading
// a layout (the glance's header reader) build without the C libraries.
package layout

import (
	"image"
	"slices"
	"strings"
)

// Word is one recognised word and where it is, in the pixels of the image
// that was read.
type Word struct {
	Text string
	Box  image.Rectangle
	// Confidence is the recogniser's, 0 to 100.
	Confidence float64
}

// Line is one line of text as the recogniser segmented it: its words in
// reading order, joined by single spaces in Text, and the union of their
// boxes. Two lines may sit on the same visual row (a label column and its
// value, a date at the right edge): Rows groups them.
type Line struct {
	Text  string
	Box   image.Rectangle
	Words []Word
}

// NewLine builds a line from its words, in the order given.
func NewLine(words []Word) Line {
	var l Line
	texts := make([]string, 0, len(words))
	for _, w := range words {
		if strings.TrimSpace(w.Text) == "" {
			continue
		}
		texts = append(texts, strings.TrimSpace(w.Text))
		l.Box = l.Box.Union(w.Box)
		l.Words = append(l.Words, w)
	}
	l.Text = strings.Join(texts, " ")
	return l
}

// SplitAtGaps cuts l where the space between two words is wider than
// twice the line's height: that is no word space but a gap between
// columns (a sender and the buttons at the far right of the same row, a
// label and its value), which a recogniser may read as one line.
func SplitAtGaps(l Line) []Line {
	if len(l.Words) < 2 {
		return []Line{l}
	}
	var out []Line
	start := 0
	for i := 1; i < len(l.Words); i++ {
		prev, w := l.Words[i-1].Box, l.Words[i].Box
		h := max(prev.Dy(), w.Dy())
		if w.Min.X-prev.Max.X > 2*h {
			out = append(out, NewLine(l.Words[start:i]))
			start = i
		}
	}
	return append(out, NewLine(l.Words[start:]))
}

// Row is a visual row: the lines whose boxes share most of their height,
// left to right.
type Row struct {
	Lines []Line
	Box   image.Rectangle
}

// Text joins the row's lines with two spaces, the way a flat OCR text
// keeps columns apart.
func (r Row) Text() string {
	parts := make([]string, len(r.Lines))
	for i, l := range r.Lines {
		parts[i] = l.Text
	}
	return strings.Join(parts, "  ")
}

// Rows groups lines into visual rows, top to bottom, each row's lines
// left to right. A line joins a row when their vertical extents overlap
// by at least half the shorter one: a label and its value, or a sender
// and the date at the far right, are one row even when the recogniser
// put them in different blocks. Empty lines are dropped.
func Rows(lines []Line) []Row {
	ls := make([]Line, 0, len(lines))
	for _, l := range lines {
		if strings.TrimSpace(l.Text) != "" && !l.Box.Empty() {
			ls = append(ls, l)
		}
	}
	slices.SortStableFunc(ls, func(a, b Line) int {
		if c := a.Box.Min.Y - b.Box.Min.Y; c != 0 {
			return c
		}
		return a.Box.Min.X - b.Box.Min.X
	})
	var rows []Row
	for _, l := range ls {
		joined := false
		// Only the last rows can overlap a line that starts lower than
		// every earlier one.
		for i := len(rows) - 1; i >= 0 && i >= len(rows)-3; i-- {
			if sameRow(rows[i].Box, l.Box) {
				rows[i].Lines = append(rows[i].Lines, l)
				rows[i].Box = rows[i].Box.Union(l.Box)
				joined = true
				break
			}
		}
		if !joined {
			rows = append(rows, Row{Lines: []Line{l}, Box: l.Box})
		}
	}
	for i := range rows {
		slices.SortStableFunc(rows[i].Lines, func(a, b Line) int { return a.Box.Min.X - b.Box.Min.X })
	}
	return rows
}

func sameRow(a, b image.Rectangle) bool {
	overlap := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
	return overlap > 0 && 2*overlap >= min(a.Dy(), b.Dy())
}
