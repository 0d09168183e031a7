//go:build darwin || windows

package platform

// macOS and Windows go through robotgo. UNTESTED HERE: this code is built
// and run on neither system in Spirit's CI (cgo cross-compilation is not
// set up); it was type-checked against robotgo v1.0.2's signatures only.
//
// robotgo keeps the "current window" in C globals and re-reads the
// foreground window inside each call, so GetTitle, GetPid and GetHandle
// may describe different windows, and concurrent calls trample each other.
// Display serialises all robotgo calls and re-reads the handle after a
// snapshot to catch a switch in between.
//
// What robotgo lacks is per system: macOS has no VisibleWindows (no
// redaction of excluded windows that are visible but not in front) and
// polls the foreground window (window_darwin.go); Windows lists windows
// with EnumWindows and is told of foreground changes by a WinEvent hook
// (window_windows.go).

import (
	"context"
	"fmt"
	"image"
	"sync"

	"github.com/go-vgo/robotgo"
)

// Display is the window system as Spirit's sight needs it: which window is
// in front, when that changes, which monitors exist and what they show.
// Its methods are safe for concurrent use.
type Display struct {
	mu sync.Mutex // robotgo's C state is global and not thread-safe
	os osDisplay  // per-system helpers (window_darwin.go, window_windows.go)
}

// OpenDisplay prepares robotgo; name is ignored (there is one desktop).
func OpenDisplay(string) (*Display, error) {
	d := &Display{}
	if err := d.os.init(); err != nil {
		return nil, err
	}
	return d, nil
}

// Close releases nothing: robotgo holds no connection.
func (d *Display) Close() error { return nil }

// Monitors returns the displays' bounds.
func (d *Display) Monitors(ctx context.Context) ([]image.Rectangle, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := robotgo.DisplaysNum()
	out := make([]image.Rectangle, 0, n)
	for i := range n {
		x, y, w, h := robotgo.GetDisplayBounds(i)
		if w > 0 && h > 0 {
			out = append(out, image.Rect(x, y, x+w, y+h))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no displays found: %w", ErrUnsupported)
	}
	return out, nil
}

// Grab reads the screen inside r as an opaque RGBA image with bounds at
// (0, 0). On macOS this needs the Screen Recording permission; without it
// the system returns the wallpaper only.
func (d *Display) Grab(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.Empty() {
		return nil, fmt.Errorf("grab %v: empty rectangle", r)
	}
	d.mu.Lock()
	img, err := robotgo.Capture(r.Min.X, r.Min.Y, r.Dx(), r.Dy())
	d.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("capture %v: %w", r, err)
	}
	// Some capture paths leave alpha at 0; a transparent screenshot
	// encodes as nothing.
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 0xff
	}
	if img.Rect.Min != (image.Point{}) {
		img.Rect = img.Rect.Sub(img.Rect.Min)
	}
	return img, nil
}

// snapshotAttempts bounds how often Foreground looks again when the
// foreground window changes while it reads it.
const snapshotAttempts = 5
