package glance

import (
	"image"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// Finding the open message's header in a whole mail window. A main
// window shows several things side by side or stacked: a folder list, a
// message list (whose rows have senders, subjects and dates too), the
// reading pane (to the right in a vertical three-pane layout, below the
// list in a classic one), toolbars and a webmail page's chrome. The
// header is found by layout: around each line that may be a sender (an
// address, a From label, a name), the column it sits in is bounded by
// the nearest gutters, blank strips running far up and down the window
// that the header's rows and the body's first lines do not cross; the
// rows of that column closely above and below the sender are read as a
// header block (ParseHeader). A block is refused when it is quoted
// history (prose or a reply marker right above it), a message list's row
// (dates aligned in the rows around it, no recipients), or a compose
// window's fields (Send, Attach or Bcc in view, no date).

var (
	// composeRe is a control of a compose window, read as a line of its
	// own: Send (not "Send / Receive", a ribbon tab of Outlook's main
	// window), Attach, Discard, Encrypt, Spelling, or the Bcc toggle.
	composeRe = regexp.MustCompile(`(?i)^\W*(?:send|attach|discard|encrypt|spelling)\W*$|\bbcc\W*$`)
	// fromWordRe is a From label.
	fromWordRe = regexp.MustCompile(`(?i)^from:?$`)
)

// FindHeader finds the open message's header among the lines OCR read
// off a whole mail window (screen/ocr's ReadLines). It returns the header
// block's lines (the sender, recipients, date and subject rows, not the
// body), which ParseHeader reads, and region, the rectangle they sit in
// (in the lines' coordinates) widened to their column and with a margin,
// so that the same region cropped from a later capture of the window
// reads the header of whichever message is open then. ok is false when
// the window shows no received message's header: a message list alone, an
// empty reading pane, a compose window, a dialog.
func FindHeader(lines []layout.Line) (header []layout.Line, region image.Rectangle, ok bool) {
	p := newPage(withinBudget(lines))
	if p.textH == 0 {
		return nil, image.Rectangle{}, false
	}
	var best *headerBlock
	seen := map[[3]int]bool{}
	for _, a := range p.anchors() {
		col := p.column(a)
		b, ok := p.block(col, a)
		if !ok {
			continue
		}
		key := [3]int{col.Min.X, col.Max.X, b.top}
		if seen[key] {
			continue
		}
		seen[key] = true
		if best == nil || b.better(*best) {
			best = &b
		}
	}
	if best == nil {
		return nil, image.Rectangle{}, false
	}
	return best.lines, best.region, true
}

// withinBudget cuts lines to the text ParseScreen and ParseHeader read
// (maxScreenRunes): more is not text off a screen.
func withinBudget(lines []layout.Line) []layout.Line {
	budget := maxScreenRunes
	for i, l := range lines {
		budget -= utf8.RuneCountInString(l.Text)
		if budget < 0 {
			return lines[:i]
		}
	}
	return lines
}

// page is a window's lines and what is measured on them once.
type page struct {
	lines []layout.Line
	// solid are the words that occupy space: not the strokes OCR makes of
	// borders and icons, which stand in the gutters between panes.
	solid  []image.Rectangle
	bounds image.Rectangle
	// textH is the median word height, the size of the window's text.
	textH int
	// minSpan is how far up and down a blank strip must run to part two
	// panes.
	minSpan int
	// compose is true when a compose window's controls are in view.
	compose bool
	// columns are the rows of the columns read so far.
	columns map[image.Rectangle][]headerRow
}

func newPage(lines []layout.Line) *page {
	p := &page{lines: lines, columns: map[image.Rectangle][]headerRow{}}
	var hs []int
	for _, l := range lines {
		for _, w := range l.Words {
			if composeRe.MatchString(w.Text) && (len(l.Words) == 1 || strings.EqualFold(strings.Trim(w.Text, ":"), "bcc")) {
				p.compose = true
			}
			p.bounds = p.bounds.Union(w.Box)
			if !isSolid(w) {
				continue
			}
			p.solid = append(p.solid, w.Box)
			hs = append(hs, w.Box.Dy())
		}
	}
	if len(hs) == 0 {
		return p
	}
	slices.Sort(hs)
	p.textH = max(hs[len(hs)/2], 1)
	// Panes run the height of the window; a gap between a sender and the
	// date at the right of its row runs only down to the body's first
	// long line.
	p.minSpan = max(15*p.textH, p.bounds.Dy()*60/100)
	return p
}

// minSolidConfidence is the recogniser's confidence under which a word
// is taken for a misread icon or border, not text.
const minSolidConfidence = 20

// isSolid reports whether w is text, not a border, an icon or a
// separator OCR read as a stroke ("|", "—") or a tall sliver.
func isSolid(w layout.Word) bool {
	if !strings.ContainsFunc(w.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return false
	}
	// What the recogniser hardly believes is no text either: a list's
	// icons and the body's first word read as one ("“form" across the
	// gutter between a message list and the reading pane).
	if w.Confidence < minSolidConfidence {
		return false
	}
	return w.Box.Dx() > 2 && w.Box.Dy() < 4*w.Box.Dx()+8
}

// anchor is a line that may be a sender, by the box its column is sought
// around: the address's word or the line's first word (a line OCR ran
// across two panes is wider than its column).
type anchor struct{ box image.Rectangle }

// anchors are the lines that may be a sender: an address, a From label, a
// person's name.
func (p *page) anchors() []anchor {
	var out []anchor
	for _, l := range p.lines {
		if len(l.Words) == 0 {
			continue
		}
		first := l.Words[0].Box
		for _, w := range l.Words {
			if strings.Contains(w.Text, "@") && bareAddrRe.MatchString(repairAt(w.Text)) {
				first = w.Box
				break
			}
		}
		switch {
		case bareAddrRe.MatchString(repairAt(l.Text)), lostAtRe.MatchString(strings.TrimSpace(l.Text)),
			fromWordRe.MatchString(l.Words[0].Text), looksLikeName(l.Text):
			out = append(out, anchor{box: first})
		}
	}
	return out
}

// looksLikeName reports whether s may be a person's name, a date or
// buttons after it: up to five words, the first capitalised, no digits
// before the date.
func looksLikeName(s string) bool {
	if d := headerDateRe.FindStringIndex(s); d != nil {
		s = s[:d[0]]
	}
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 5 {
		return false
	}
	r := []rune(f[0])
	return unicode.IsUpper(r[0]) && !strings.ContainsFunc(s, unicode.IsDigit)
}

// column returns the x extent of the pane around a (its y extent is the
// window's): bounded on each side by the nearest gutter, or the window's
// text. A gutter is a blank vertical strip that crosses neither a's row
// nor the rows under it down to the body's first lines, and runs at least
// minSpan up and down, as the border between two panes does.
func (p *page) column(a anchor) image.Rectangle {
	win := image.Rect(p.bounds.Min.X, a.box.Min.Y-p.textH, p.bounds.Max.X, a.box.Max.Y+12*p.textH)
	var xs [][2]int
	for _, b := range p.solid {
		if b.Overlaps(win) {
			xs = append(xs, [2]int{b.Min.X, b.Max.X})
		}
	}
	slices.SortFunc(xs, func(a, b [2]int) int { return a[0] - b[0] })
	// The blank stretches between the words of the rows around a.
	var gaps [][2]int
	end := p.bounds.Min.X
	for _, x := range xs {
		if x[0] > end {
			gaps = append(gaps, [2]int{end, x[0]})
		}
		end = max(end, x[1])
	}
	if end < p.bounds.Max.X {
		gaps = append(gaps, [2]int{end, p.bounds.Max.X})
	}
	col := image.Rect(p.bounds.Min.X-p.textH, p.bounds.Min.Y, p.bounds.Max.X+p.textH, p.bounds.Max.Y)
	for _, g := range gaps {
		switch {
		case g[1] <= a.box.Min.X && g[1] > col.Min.X:
			if x, ok := p.gutterIn(g, a.box, g[0] <= p.bounds.Min.X); ok {
				col.Min.X = max(col.Min.X, x)
			}
		case g[0] >= a.box.Max.X && g[0] < col.Max.X && g[1] < p.bounds.Max.X:
			if x, ok := p.gutterIn(g, a.box, false); ok && x < col.Max.X && p.textBeyond(g[1], a.box.Max.Y+3*p.textH, win.Max.Y) {
				col.Max.X = x
			}
		}
	}
	return col
}

// gutterIn returns a gutter's x in the blank stretch g beside box: its
// middle; or, for the stretch from the window's left edge (a folder pane
// whose text ends above the reading pane's header), the gutter nearest to
// box.
func (p *page) gutterIn(g [2]int, box image.Rectangle, edge bool) (int, bool) {
	if !edge {
		mid := (g[0] + g[1]) / 2
		return mid, g[1]-g[0] >= p.textH && p.isGutter(mid, box)
	}
	step := max(2, p.textH/3)
	for x := g[1] - step; x > g[0]; x -= step {
		if p.isGutter(x, box) {
			return x, true
		}
	}
	return 0, false
}

// textBeyond reports whether text lies right of x between y0 and y1. A
// pane to the right of a gutter runs down past a sender's rows; the date
// and buttons at the right of a header's rows do not, and a short body
// leaves a blank strip under them that is no border.
func (p *page) textBeyond(x, y0, y1 int) bool {
	for _, b := range p.solid {
		if b.Min.X >= x && b.Max.Y > y0 && b.Min.Y < y1 {
			return true
		}
	}
	return false
}

// isGutter reports whether the vertical line at x through the row of box
// is blank over at least minSpan.
func (p *page) isGutter(x int, box image.Rectangle) bool {
	top, bottom := p.bounds.Min.Y, p.bounds.Max.Y
	for _, b := range p.solid {
		if x < b.Min.X || x >= b.Max.X {
			continue
		}
		if b.Max.Y <= box.Min.Y {
			top = max(top, b.Max.Y)
		} else if b.Min.Y >= box.Max.Y {
			bottom = min(bottom, b.Min.Y)
		} else {
			return false
		}
	}
	return bottom-top >= p.minSpan
}

// headerBlock is a header found in a column.
type headerBlock struct {
	lines  []layout.Line
	region image.Rectangle
	top    int // y of the block's first row
	read   headerRead
	width  int
}

// better reports whether b is more likely the open message's header than
// o: one with recipients, then the one in the wider column (the reading
// pane is the widest), then the higher.
func (b headerBlock) better(o headerBlock) bool {
	if b.read.recipients != o.read.recipients {
		return b.read.recipients
	}
	if b.width != o.width {
		return b.width > o.width
	}
	return b.top < o.top
}

// block reads the header block around a in column col.
func (p *page) block(col image.Rectangle, a anchor) (headerBlock, bool) {
	rows, ok := p.columns[col]
	if !ok {
		// Most anchors share their column with others: its rows are
		// grouped once.
		rows = headerRowsOf(p.clip(col))
		p.columns[col] = rows
	}
	at := -1
	for i, r := range rows {
		if cy := (a.box.Min.Y + a.box.Max.Y) / 2; cy >= r.Box.Min.Y && cy < r.Box.Max.Y {
			at = i
			break
		}
	}
	if at < 0 {
		return headerBlock{}, false
	}
	// Up from the anchor to the block's first row: a subject heading, a
	// date or buttons closely above. A wider gap parts the header from a
	// message list or a toolbar above it.
	top := at
	for top > 0 && at-top < 4 && !p.isListRow(rows, top-1) && !isQuoteOrProse(rows[top-1], p.textH) {
		gap := rows[top].Box.Min.Y - rows[top-1].Box.Max.Y
		// A subject heading (Gmail, Outlook) sits further above.
		if gap > 5*p.textH/2 && (gap > 4*p.textH || wordHeight(rows[top-1]) <= p.textH*13/10) {
			break
		}
		top--
	}
	// Icons OCR read as glyphs (a search bar's, a toolbar's drawn
	// without labels) open no header: the block and its region start
	// below them.
	for top < at && isGlyphRow(rows[top]) {
		top++
	}
	if p.quoted(rows, top) {
		return headerBlock{}, false
	}
	// The sender must be the anchor's row or next to it, and a header
	// ends within a dozen rows of it: no need to read further.
	end := min(len(rows), at+12)
	h := readHeader(rows[top:end], p.textH)
	if h.found && h.info.Subject == "" {
		// A Gmail thread folds the earlier messages to a line each
		// between the subject and the open message: take the heading
		// above them in.
		if k, ok := p.headingOver(rows, top); ok {
			if hk := readHeader(rows[k:end], p.textH); hk.found && hk.info.Subject != "" && k+hk.sender == top+h.sender {
				top, h = k, hk
			}
		}
	}
	// Buttons alone do not make a header: a folder pane's account
	// address over "Junk" and "Archive" is none.
	if !h.found || !h.info.Email || !h.recipients && !h.dated || top+h.sender < at-1 || top+h.start > at+1 {
		return headerBlock{}, false
	}
	if !h.recipients && p.isListRow(rows, top+h.sender) {
		return headerBlock{}, false
	}
	if !h.dated && p.compose {
		return headerBlock{}, false // a compose window's From, To and Subject fields
	}
	b := headerBlock{top: rows[top].Box.Min.Y, read: h, width: col.Dx()}
	var box image.Rectangle
	for _, r := range rows[top : top+h.last+1] {
		b.lines = append(b.lines, r.Lines...)
		box = box.Union(r.Box)
	}
	// The column's width, so that a longer name or subject of the next
	// message fits; a margin above, and room below for another row of
	// recipients or a subject on two lines.
	b.region = image.Rect(min(col.Min.X, box.Min.X), box.Min.Y-p.textH, max(col.Max.X, box.Max.X), box.Max.Y+3*p.textH)
	b.region = b.region.Intersect(p.bounds.Inset(-p.textH))
	if p.bounds.Min.X >= 0 && p.bounds.Min.Y >= 0 {
		b.region = b.region.Intersect(image.Rect(0, 0, b.region.Max.X, b.region.Max.Y))
	}
	return b, true
}

// clip returns the lines in column col. A line OCR ran across a gutter
// is cut there, between two words; one with a word across the column's
// edge is no neighbour's but the column's own (a subject heading over the
// sender's picture, whose blank column below looks like a gutter) and is
// kept whole when most of it is inside.
func (p *page) clip(col image.Rectangle) []layout.Line {
	var out []layout.Line
	for _, l := range p.lines {
		for _, piece := range cutAt(l, col.Min.X, col.Max.X) {
			if c := (piece.Box.Min.X + piece.Box.Max.X) / 2; c >= col.Min.X && c < col.Max.X {
				out = append(out, layout.SplitAtGaps(piece)...)
			}
		}
	}
	return out
}

// cutAt cuts l between words at each of xs that falls between two words.
func cutAt(l layout.Line, xs ...int) []layout.Line {
	var out []layout.Line
	start := 0
	for i := 1; i < len(l.Words); i++ {
		gapL, gapR := l.Words[i-1].Box.Max.X, l.Words[i].Box.Min.X
		for _, x := range xs {
			if x >= gapL && x <= gapR {
				out = append(out, layout.NewLine(l.Words[start:i]))
				start = i
				break
			}
		}
	}
	return append(out, layout.NewLine(l.Words[start:]))
}

// headingOver returns the row of a heading (text set larger than the
// window's) a few rows above row top, over rows that end with a date.
func (p *page) headingOver(rows []headerRow, top int) (int, bool) {
	for k := top - 1; k >= 0 && k >= top-4; k-- {
		if rows[k+1].Box.Min.Y-rows[k].Box.Max.Y > 4*p.textH {
			return 0, false
		}
		if wordHeight(rows[k]) > p.textH*13/10 && !isToolbar(rows[k].text) {
			return k, true
		}
		if !endsWithDate(rows[k]) {
			return 0, false
		}
	}
	return 0, false
}

// quoted reports whether the block starting at row top is quoted history:
// a reply marker or prose closely above it in its column.
func (p *page) quoted(rows []headerRow, top int) bool {
	for i := top - 1; i >= 0 && i >= top-6; i-- {
		if rows[i+1].Box.Min.Y-rows[i].Box.Max.Y > 4*p.textH {
			return false
		}
		if isQuoteOrProse(rows[i], p.textH) {
			return true
		}
	}
	return false
}

// isQuoteOrProse reports whether r is a reply marker or a line of a
// body.
func isQuoteOrProse(r headerRow, textH int) bool {
	return quoteStartRe.MatchString(r.text) || r.label == "" && isBody(r, textH)
}

// isListRow reports whether row i is a row of a message list: it ends
// with a date, and so do two of the rows around it, right-aligned with
// it.
func (p *page) isListRow(rows []headerRow, i int) bool {
	right, ok := dateRight(rows[i])
	if !ok {
		return false
	}
	n := 0
	for j := max(0, i-4); j < len(rows) && j <= i+4; j++ {
		if j == i {
			continue
		}
		if r, ok := dateRight(rows[j]); ok && abs(r-right) <= p.textH {
			n++
		}
	}
	return n >= 2
}

// dateRight returns the right edge of the date ending row r, if it ends
// with one.
func dateRight(r headerRow) (int, bool) {
	l := r.Lines[len(r.Lines)-1]
	if !isDateText(l.Text) {
		if d := headerDateRe.FindStringIndex(l.Text); d == nil || !isDateText(l.Text[d[0]:]) {
			return 0, false
		}
	}
	return l.Box.Max.X, true
}

func abs(v int) int { return max(v, -v) }
