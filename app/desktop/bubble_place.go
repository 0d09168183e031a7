package desktop

import "image"

// Where the bubble goes on screen: pure geometry in screen pixels, so the
// choice is table-tested without a display (bubble_place_test.go).

// bubbleGap is the space between the bubble and the orb, and the bubble's
// distance from the screen edges.
const (
	bubbleGap    = 8
	bubbleMargin = dockMargin
)

// edge says which side of a spot stays put when the bubble grows from its
// one line to the full bubble, so the full bubble covers the line (and the
// pointer hovering it) and the orb stays uncovered.
type edge int

const (
	growLeft   edge = 1 << iota // the right side stays: the bubble grows leftwards
	growRight                   // the left side stays
	growUp                      // the bottom stays
	growDown                    // the top stays
	growAround                  // the vertical centre stays
)

// spot is where the bubble sits and how it grows from there.
type spot struct {
	rect image.Rectangle
	grow edge
}

// placeInput is what the placement knows of the screen.
type placeInput struct {
	work     image.Rectangle   // the work area (the screen less panels)
	monitors []image.Rectangle // the monitors; none means the work area is one
	orb      image.Rectangle   // the orb's window
	// active is the frame of the lawyer's window in front; empty when there
	// is none or it cannot be read.
	active image.Rectangle
}

// area is where the bubble may go: the work area on the orb's monitor, so
// the bubble never straddles two screens or lands on the other one.
func (in placeInput) area() image.Rectangle {
	c := image.Pt((in.orb.Min.X+in.orb.Max.X)/2, (in.orb.Min.Y+in.orb.Max.Y)/2)
	for _, m := range in.monitors {
		if c.In(m) {
			if a := m.Intersect(in.work); !a.Empty() {
				return a
			}
		}
	}
	return in.work
}

// candidates are the spots a bubble of size can take, in order of
// preference when none covers more of the lawyer's window than another:
// beside the orb first (where the lawyer looks when the orb calls), then
// in the margin at the orb's edge, above and below it, then that edge's
// corners, then the far edge of the orb's monitor.
func (in placeInput) candidates(size image.Point) []spot {
	a := in.area()
	w, h := size.X, size.Y
	midY := (in.orb.Min.Y+in.orb.Max.Y)/2 - h/2
	right := a.Max.X - bubbleMargin - w // flush with the orb's edge
	left := a.Min.X + bubbleMargin
	return []spot{
		{image.Rect(in.orb.Min.X-bubbleGap-w, midY, in.orb.Min.X-bubbleGap, midY+h), growLeft | growAround},
		{image.Rect(right, in.orb.Min.Y-bubbleGap-h, right+w, in.orb.Min.Y-bubbleGap), growLeft | growUp},
		{image.Rect(right, in.orb.Max.Y+bubbleGap, right+w, in.orb.Max.Y+bubbleGap+h), growLeft | growDown},
		{image.Rect(right, a.Max.Y-bubbleMargin-h, right+w, a.Max.Y-bubbleMargin), growLeft | growUp},
		{image.Rect(right, a.Min.Y+bubbleMargin, right+w, a.Min.Y+bubbleMargin+h), growLeft | growDown},
		{image.Rect(left, midY, left+w, midY+h), growRight | growAround},
		{image.Rect(left, a.Max.Y-bubbleMargin-h, left+w, a.Max.Y-bubbleMargin), growRight | growUp},
	}
}

// chooseSpot is where a bubble of size covers least of the lawyer's
// window (and never the orb, where it can help it). Between spots that
// cover as much, the one nearer the window's bottom-right corner wins: a
// window's text starts at its top left, lines end ragged on the right and
// a message rarely fills the window, so that corner holds the least to
// read. Between spots that cover nothing, the order of candidates decides.
func chooseSpot(in placeInput, size image.Point) spot {
	a := in.area()
	best, bestCover, bestText := spot{}, -1, 0
	for _, c := range in.candidates(size) {
		c.rect = clampRect(c.rect, a)
		cover := overlap(c.rect, in.active) + overlap(c.rect, in.orb)
		text := textCost(c.rect, in.active)
		if bestCover < 0 || cover < bestCover || (cover == bestCover && text < bestText) {
			best, bestCover, bestText = c, cover, text
		}
	}
	return best
}

// growFrom is where the bubble goes at size when it grows (or shrinks) from
// s: the sides s keeps stay put, so the line the lawyer hovered stays
// under the pointer; the result is kept inside area.
func growFrom(s spot, size image.Point, area image.Rectangle) image.Rectangle {
	r := s.rect
	var x, y int
	switch {
	case s.grow&growRight != 0:
		x = r.Min.X
	default:
		x = r.Max.X - size.X
	}
	switch {
	case s.grow&growDown != 0:
		y = r.Min.Y
	case s.grow&growUp != 0:
		y = r.Max.Y - size.Y
	default:
		y = (r.Min.Y+r.Max.Y)/2 - size.Y/2
	}
	return clampRect(image.Rect(x, y, x+size.X, y+size.Y), area)
}

// clampRect moves r inside area; when r is larger than area its top left
// corner shows.
func clampRect(r, area image.Rectangle) image.Rectangle {
	d := image.Point{}
	if r.Max.X > area.Max.X {
		d.X = area.Max.X - r.Max.X
	}
	if r.Min.X+d.X < area.Min.X {
		d.X = area.Min.X - r.Min.X
	}
	if r.Max.Y > area.Max.Y {
		d.Y = area.Max.Y - r.Max.Y
	}
	if r.Min.Y+d.Y < area.Min.Y {
		d.Y = area.Min.Y - r.Min.Y
	}
	return r.Add(d)
}

// overlap is the area a and b share, in pixels.
func overlap(a, b image.Rectangle) int {
	o := a.Intersect(b)
	return o.Dx() * o.Dy()
}

// textCost ranks spots that cover the window alike: how far the covered
// part lies from the window's bottom-right corner; 0 when nothing is
// covered.
func textCost(r, active image.Rectangle) int {
	o := r.Intersect(active)
	if o.Empty() {
		return 0
	}
	return (active.Max.X - o.Max.X) + (active.Max.Y - o.Max.Y)
}
