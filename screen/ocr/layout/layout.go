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

// Core is l's box with the height of its typical word: from the median
// of its words' tops to the median of their bottoms. OCR makes words of
// an icon, a border or a button's outline beside the text, taller than
// the text; they stretch Box over the rows above and below, but not Core.
func (l Line) Core() image.Rectangle {
	if len(l.Words) < 3 {
		return l.Box
	}
	tops := make([]int, len(l.Words))
	bottoms := make([]int, len(l.Words))
	for i, w := range l.Words {
		tops[i], bottoms[i] = w.Box.Min.Y, w.Box.Max.Y
	}
	slices.Sort(tops)
	slices.Sort(bottoms)
	return image.Rect(l.Box.Min.X, tops[len(tops)/2], l.Box.Max.X, bottoms[len(bottoms)/2])
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

// Row is a visual row: the lines whose cores share most of their
// height, left to right. Box is the union of their cores, but for lines
// much taller than the window's text that were set into the row (see
// Rows).
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
// left to right. A line joins a row when their vertical extents (cores)
// overlap by at least half the shorter one: a label and its value, or a
// sender and the date at the far right, are one row even when the
// recogniser put them in different blocks. A line more than half again
// as tall as the median line is set into the row it overlaps most
// without stretching it, as a recogniser's line run across two rows of
// small text (a date over a folder name) would join them; alone, as a
// heading is, it makes a row of its own. Empty lines are dropped.
func Rows(lines []Line) []Row {
	var ls []coredLine
	var hs []int
	for _, l := range lines {
		if strings.TrimSpace(l.Text) != "" && !l.Box.Empty() {
			c := coredLine{l, l.Core()}
			ls = append(ls, c)
			hs = append(hs, c.core.Dy())
		}
	}
	if len(ls) == 0 {
		return nil
	}
	slices.Sort(hs)
	tallH := hs[len(hs)/2] * 3 / 2
	slices.SortStableFunc(ls, func(a, b coredLine) int {
		if c := a.core.Min.Y - b.core.Min.Y; c != 0 {
			return c
		}
		return a.core.Min.X - b.core.Min.X
	})
	var normal, tall []coredLine
	for _, l := range ls {
		if l.core.Dy() > tallH {
			tall = append(tall, l)
		} else {
			normal = append(normal, l)
		}
	}
	rows := groupRows(normal)
	var alone []coredLine
	for _, l := range tall {
		best, most := -1, 0
		for i, r := range rows {
			overlap := min(r.Box.Max.Y, l.core.Max.Y) - max(r.Box.Min.Y, l.core.Min.Y)
			if overlap > most && 2*overlap >= r.Box.Dy() {
				best, most = i, overlap
			}
		}
		if best < 0 {
			alone = append(alone, l)
			continue
		}
		rows[best].Lines = append(rows[best].Lines, l.Line)
	}
	rows = append(rows, groupRows(alone)...)
	slices.SortStableFunc(rows, func(a, b Row) int { return a.Box.Min.Y - b.Box.Min.Y })
	for i := range rows {
		slices.SortStableFunc(rows[i].Lines, func(a, b Line) int { return a.Box.Min.X - b.Box.Min.X })
	}
	return rows
}

// coredLine is a line and its core.
type coredLine struct {
	Line
	core image.Rectangle
}

// groupRows groups lines sorted by the top of their cores into rows.
func groupRows(ls []coredLine) []Row {
	var rows []Row
	for _, l := range ls {
		joined := false
		// Only the last rows can overlap a line that starts lower than
		// every earlier one.
		for i := len(rows) - 1; i >= 0 && i >= len(rows)-3; i-- {
			if sameRow(rows[i].Box, l.core) {
				rows[i].Lines = append(rows[i].Lines, l.Line)
				rows[i].Box = rows[i].Box.Union(l.core)
				joined = true
				break
			}
		}
		if !joined {
			rows = append(rows, Row{Lines: []Line{l.Line}, Box: l.core})
		}
	}
	return rows
}

func sameRow(a, b image.Rectangle) bool {
	overlap := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
	return overlap > 0 && 2*overlap >= min(a.Dy(), b.Dy())
}
