package screen

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"slices"
	"time"

	"github.com/spirit-app/spirit/platform"
)

// DefaultPaneInterval is how often the reading pane of a mail client's main
// window is sampled while it is in front.
const DefaultPaneInterval = time.Second

// The pane sample: a few columns of the window, read with one small
// GetImage each and cut into cells whose mean luminance is kept. A column
// crosses every line at its place: the list's selection (a highlighted row
// spans the list), the header's sender and subject, the body. A new
// message in the reading pane moves the selection and changes the header
// and body, so dozens of cells change; a blinking caret or a clock changes
// a few. The columns skip the left fifth, where the folder pane's unread
// counts change with every arriving message, and sit where the list and
// the reading pane are in both three-pane layouts (list above the pane,
// or list beside it) and in webmail.
//
// What costs is the number of requests more than pixels: measured on the
// 2-core build machine, each column costs about 0.2 ms of CPU (two round
// trips to the X server and 15,000 pixels for a 960-pixel-tall window), so
// four columns make about 0.9 ms a second. 32 bands of 3 rows, tried
// first, cost 7.7 ms a second.
//
// Why not HashImage of the columns: its 64 bits fold thousands of
// comparisons, so a change of a few words is diluted; measured on a
// three-pane window, another message whose body was the same moved it by
// 4 bits, below any threshold that ignores a caret. Counting changed cells
// does not dilute.
const (
	// paneColumns columns are sampled, at 30 %, 50 %, 70 % and 90 % of
	// the window's width (in ‰).
	paneColumns                     = 4
	paneFirstColumn, paneColumnStep = 300, 200
	paneColumnW                     = 16 // a column's width in pixels
	// Cells are paneCellW×paneCellH pixels.
	paneCellW, paneCellH = paneColumnW, 4
	// paneCellDelta is how many luminance levels (of 255) a cell's mean
	// must move by to count as changed: more than a 1-pixel caret moves a
	// 16×4 cell (16), less than a glyph.
	paneCellDelta = 20
	// paneThreshold is how many changed cells are still the same pane: a
	// clock, a spinner or an icon spans a few.
	paneThreshold = 4
)

// paneSig is a pane sample: the mean luminance of each cell, strip by
// strip.
type paneSig []uint8

// distance counts the cells of a and b that differ by more than
// paneCellDelta; samples of different layouts differ in every cell.
func (a paneSig) distance(b paneSig) int {
	if len(a) != len(b) {
		return max(len(a), len(b))
	}
	n := 0
	for i := range a {
		if d := int(a[i]) - int(b[i]); d > paneCellDelta || d < -paneCellDelta {
			n++
		}
	}
	return n
}

// paneSettleTicks is how many consecutive samples must agree on a new pane
// before it is reported: the changed sample and one more, so a message
// still being drawn, or a list scrolling, is not glanced at half-way.
const paneSettleTicks = 2

// Once a sample differs from the pane the glance saw, the next samples
// come every paneSettleInterval instead of the whole interval, for at most
// paneFastTicks samples: a new message is reported a fifth of a second
// after it is drawn rather than a second, and a pane that keeps changing
// (a video, an animation) costs the usual rate again after that.
const (
	paneSettleInterval = 200 * time.Millisecond
	paneFastTicks      = 4
)

// paneTracker decides, from one pane sample a tick, when the pane has
// changed and settled. It is a pure state machine; start it with
// newPaneTracker.
type paneTracker struct {
	threshold int // samples at most this far apart are the same pane
	settle    int // consecutive samples that must agree, ≥ 1

	base   paneSig // the pane the glance last saw
	last   paneSig // the previous sample
	stable int     // consecutive samples equal to last, last included
}

func newPaneTracker(first paneSig) *paneTracker {
	t := &paneTracker{threshold: paneThreshold, settle: paneSettleTicks}
	t.reset(first)
	return t
}

// reset makes s the pane the glance has seen, without reporting it: the
// start, and a window moved or resized, whose pane is laid out anew.
func (t *paneTracker) reset(s paneSig) {
	t.base, t.last, t.stable = s, s, 1
}

// adopt takes the cells of s under mask as they are, in the pane the
// glance saw and in the previous sample: a window above the pane came,
// went or moved there (Spirit's bubble or tooltip, a notification), which
// is not the pane's change. The other cells are judged as before, so a
// message opened as the window above appeared is still reported: resetting
// the whole pane then lost it until the next one.
func (t *paneTracker) adopt(s paneSig, mask []bool) {
	if len(s) != len(t.base) || len(s) != len(t.last) || len(mask) != len(s) {
		t.reset(s) // another layout: nothing to compare cell by cell
		return
	}
	base, last := slices.Clone(t.base), slices.Clone(t.last)
	for i, m := range mask {
		if m {
			base[i], last[i] = s[i], s[i]
		}
	}
	t.base, t.last = base, last
}

// changedSince reports whether s differs from the previous sample.
func (t *paneTracker) changedSince(s paneSig) bool { return s.distance(t.last) > t.threshold }

// pending reports whether the last sample shows something else than the
// pane the glance last saw, not yet reported (it has not settled).
func (t *paneTracker) pending() bool { return t.last.distance(t.base) > t.threshold }

// next takes the tick's sample and reports whether the pane now shows
// something else than the glance last saw, and has stayed so for settle
// samples. It reports each such change once; a pane that changes and comes
// back (a tooltip, a hover) is not reported, nor one that never settles (a
// video, an animation).
func (t *paneTracker) next(s paneSig) bool {
	if t.changedSince(s) {
		t.stable = 1
	} else {
		t.stable++
	}
	t.last = s
	if t.stable < t.settle || s.distance(t.base) <= t.threshold {
		return false
	}
	t.base = s
	return true
}

// paneSource is what the pane watcher reads; *platform.Display provides it.
type paneSource interface {
	Foreground(ctx context.Context) (platform.Window, error)
	// VisibleWindows may return platform.ErrUnsupported: nothing above
	// the window is then blacked out.
	VisibleWindows(ctx context.Context) ([]platform.Window, error)
	Grab(ctx context.Context, r image.Rectangle) (*image.RGBA, error)
}

// errPaneGone means the watched window is no longer in front as it was
// reported: the switch watcher reports what is in front now.
var errPaneGone = errors.New("the watched window is no longer in front")

// paneWatch watches the reading pane of one switch's window. It keeps only
// cell means and rectangles: no pixels outlive a tick, nothing is written.
type paneWatch struct {
	src paneSource
	sw  Switch
	ex  *Exclusions

	frame  image.Rectangle   // the window's frame when covers were read
	covers []image.Rectangle // windows above it, blacked out of samples
	areas  []image.Rectangle // the screen areas the last sample read
	track  *paneTracker
}

// startPane takes the first sample of sw's pane: the pane the glance of sw
// sees.
func startPane(ctx context.Context, src paneSource, sw Switch, ex *Exclusions) (*paneWatch, error) {
	p := &paneWatch{src: src, sw: sw, ex: ex}
	fg, err := p.foreground(ctx)
	if err != nil {
		return nil, err
	}
	sig, err := p.rebase(ctx, fg)
	if err != nil {
		return nil, err
	}
	p.track = newPaneTracker(sig)
	return p, nil
}

// tick samples the pane once and reports whether it changed and settled.
// Errors skip the tick; errPaneGone says the window is not in front.
//
// While the samples stay the same nothing else is read: the window in
// front, its frame and the windows above it are read only when a sample
// differs from the one before, and before a change is reported.
func (p *paneWatch) tick(ctx context.Context) (bool, error) {
	sig, err := p.sample(ctx)
	if err != nil {
		return false, err
	}
	if !p.track.changedSince(sig) {
		if !p.track.next(sig) {
			return false, nil
		}
		if _, err := p.foreground(ctx); err != nil {
			return false, err
		}
		return true, nil
	}
	fg, err := p.foreground(ctx)
	if err != nil {
		return false, err
	}
	if fg.Frame != p.frame {
		// Moved or resized: the pane is laid out anew, not another
		// message.
		sig, err := p.rebase(ctx, fg)
		if err == nil {
			p.track.reset(sig)
		}
		return false, err
	}
	// If a window above this one came, went or moved (Spirit's bubble, a
	// notification), black out the new set; the cells under the old and
	// new ones start from what they show now, and the rest still count.
	covers, err := p.coversOf(ctx, fg)
	if err != nil {
		return false, err
	}
	if !sameRects(covers, p.covers) {
		hidden := slices.Concat(p.covers, covers)
		p.covers = covers
		if sig, err = p.sample(ctx); err != nil {
			return false, err
		}
		p.track.adopt(sig, cellsUnder(p.areas, hidden))
	}
	return p.track.next(sig), nil
}

// pending reports whether the pane was seen changing and has not yet
// settled: the watcher then samples again sooner.
func (p *paneWatch) pending() bool { return p.track.pending() }

// changed is the switch reported for a settled change of the pane.
func (p *paneWatch) changed() Switch {
	sw := p.sw
	sw.PaneChanged = true
	sw.At = time.Now()
	return sw
}

// foreground reads the window in front and checks it is still the watched
// one, showing the same title, and not excluded.
func (p *paneWatch) foreground(ctx context.Context) (platform.Window, error) {
	fg, err := p.src.Foreground(ctx)
	if err != nil {
		return platform.Window{}, fmt.Errorf("pane: %w", err)
	}
	if fg.ID != p.sw.Window || fg.Title != p.sw.Title {
		return platform.Window{}, errPaneGone
	}
	if ex, _ := p.ex.Match(fg); ex {
		return platform.Window{}, errPaneGone
	}
	return fg, nil
}

// rebase reads the windows above fg and samples its pane afresh.
func (p *paneWatch) rebase(ctx context.Context, fg platform.Window) (paneSig, error) {
	covers, err := p.coversOf(ctx, fg)
	if err != nil {
		return nil, err
	}
	p.frame, p.covers = fg.Frame, covers
	return p.sample(ctx)
}

// coversOf lists the parts of fg's frame under windows stacked above it:
// Spirit's orb and bubble, notifications, always-on-top tools. Their
// pixels are not the pane's.
func (p *paneWatch) coversOf(ctx context.Context, fg platform.Window) ([]image.Rectangle, error) {
	wins, err := p.src.VisibleWindows(ctx) // bottom to top
	if errors.Is(err, platform.ErrUnsupported) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pane: %w", err)
	}
	var out []image.Rectangle
	above := false
	for _, w := range wins {
		if w.ID == fg.ID {
			above = true
			continue
		}
		if r := w.Frame.Intersect(fg.Frame); above && !r.Empty() {
			out = append(out, r)
		}
	}
	return out, nil
}

// sample reads the pane's bands and reduces them to a paneSig.
func (p *paneWatch) sample(ctx context.Context) (paneSig, error) {
	sig, areas, err := samplePane(ctx, p.src, p.frame, p.covers)
	if err == nil {
		p.areas = areas
	}
	return sig, err
}

// paneStrips are the columns of frame that are sampled.
func paneStrips(frame image.Rectangle) []image.Rectangle {
	out := make([]image.Rectangle, 0, paneColumns)
	for i := range paneColumns {
		x := frame.Min.X + (paneFirstColumn+i*paneColumnStep)*frame.Dx()/1000 - paneColumnW/2
		out = append(out, image.Rect(x, frame.Min.Y, x+paneColumnW, frame.Max.Y))
	}
	return out
}

// samplePane reads the columns of frame and reduces them to cells; covers
// (screen coordinates) count as black. It also returns the screen area
// each column was read from, which cellsUnder maps back to cells.
func samplePane(ctx context.Context, src paneSource, frame image.Rectangle, covers []image.Rectangle) (paneSig, []image.Rectangle, error) {
	if frame.Dx() < 2*paneColumnW*paneColumns || frame.Dy() < 4*paneCellH {
		return nil, nil, fmt.Errorf("pane: window frame %v too small", frame)
	}
	var sig paneSig
	areas := make([]image.Rectangle, 0, paneColumns)
	for _, strip := range paneStrips(frame) {
		img, err := src.Grab(ctx, strip)
		if err != nil {
			return nil, nil, fmt.Errorf("pane: %w", err)
		}
		// Grab clips to the screen, whose origin is (0,0), and returns
		// the pixels at (0,0): a window partly off screen yields a
		// smaller strip.
		origin := image.Pt(max(strip.Min.X, 0), max(strip.Min.Y, 0))
		at := image.Rectangle{Min: origin, Max: origin.Add(img.Rect.Size())}
		for _, c := range covers {
			if r := c.Intersect(at).Sub(at.Min); !r.Empty() {
				draw.Draw(img, r, image.Black, image.Point{}, draw.Src)
			}
		}
		sig = appendCells(sig, img)
		areas = append(areas, at)
	}
	return sig, areas, nil
}

// cellsUnder marks the cells of a sample read from areas (as samplePane
// returned them) that any of rs overlaps; cells are laid out as
// appendCells makes them.
func cellsUnder(areas, rs []image.Rectangle) []bool {
	var mask []bool
	for _, at := range areas {
		for y0 := at.Min.Y; y0 < at.Max.Y; y0 += paneCellH {
			for x0 := at.Min.X; x0 < at.Max.X; x0 += paneCellW {
				cell := image.Rect(x0, y0, min(x0+paneCellW, at.Max.X), min(y0+paneCellH, at.Max.Y))
				mask = append(mask, slices.ContainsFunc(rs, cell.Overlaps))
			}
		}
	}
	return mask
}

// appendCells appends the mean luminance (ITU-R BT.601) of each
// paneCellW×paneCellH cell of img, row by row; cells at the right and
// bottom edges may be smaller.
func appendCells(sig paneSig, img *image.RGBA) paneSig {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for y0 := 0; y0 < h; y0 += paneCellH {
		y1 := min(y0+paneCellH, h)
		for x0 := 0; x0 < w; x0 += paneCellW {
			x1 := min(x0+paneCellW, w)
			var r, g, b int
			for y := y0; y < y1; y++ {
				px := img.Pix[y*img.Stride+4*x0 : y*img.Stride+4*x1]
				for i := 0; i+3 < len(px); i += 4 {
					r += int(px[i])
					g += int(px[i+1])
					b += int(px[i+2])
				}
			}
			n := (y1 - y0) * (x1 - x0)
			sig = append(sig, uint8((299*r+587*g+114*b)/(1000*n)))
		}
	}
	return sig
}

func sameRects(a, b []image.Rectangle) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
