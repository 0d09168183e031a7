package desktop_test

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
)

// TestFirstRunWindowOnNewFolder runs the real binary on a new data folder:
// the setup window opens, and opens again at the next start while setup
// is not finished; clicking the main button five times (Next, Skip, Skip,
// Skip, Finish) goes through every step and closes it; the next start
// shows the orb alone. With SPIRIT_SHOTS=DIR, each step is saved there as
// a PNG to look at.
func TestFirstRunWindowOnNewFolder(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	const title = "Set up Spirit"
	visible := func(w xtest.WindowInfo) bool { return w.Viewable && w.Rect.Dx() > 400 }
	shots := os.Getenv("SPIRIT_SHOTS")

	for run := 1; run <= 2; run++ {
		p := xtest.Run(t, ctx, d.bin, []string{"--data-dir", dataDir}, d.env())
		w, err := d.disp.WaitWindow(ctx, title, visible)
		if err != nil {
			t.Fatalf("start %d: the setup window never showed: %v\n%s", run, err, p.Output())
		}
		if run == 2 {
			var last image.Image
			for i, step := range []string{"Your privacy", "Voice", "Mail", "AI service", "Start at login"} {
				err := xtest.Poll(ctx, func() (bool, error) {
					return strings.Contains(p.Output(), "msg=\"setup window\" step="+strconv.Quote(step)) ||
						strings.Contains(p.Output(), "msg=\"setup window\" step="+step), nil
				})
				if err != nil {
					t.Fatalf("step %q never shown: %v\n%s", step, err, p.Output())
				}
				if w, err = d.disp.WaitWindow(ctx, title, visible); err != nil {
					t.Fatal(err)
				}
				if shots != "" {
					last = shot(t, ctx, d.disp, w.Frame, last, filepath.Join(shots, fmt.Sprintf("first-run-%d.png", i+1)))
				}
				// The main button sits at the window's bottom right.
				x, y := w.Rect.Max.X-30, w.Rect.Max.Y-24
				// Then the pointer leaves, so no button is drawn hovered.
				if err := d.disp.Xdotool(ctx, "mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1",
					"mousemove", "2", "2"); err != nil {
					t.Fatal(err)
				}
			}
			err := xtest.Poll(ctx, func() (bool, error) {
				ws, err := d.disp.FindWindows(title)
				for _, w := range ws {
					if w.Viewable {
						return false, err
					}
				}
				return true, err
			})
			if err != nil {
				t.Fatalf("Finish did not close the setup window: %v\n%s", err, p.Output())
			}
		}
		if err := p.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code, err := p.Wait(ctx); err != nil || code != 0 {
			t.Fatalf("start %d: exit %d, %v\n%s", run, code, err, p.Output())
		}
	}

	p := xtest.Run(t, ctx, d.bin, []string{"--data-dir", dataDir}, d.env())
	if _, err := d.disp.WaitWindow(ctx, "Spirit", func(w xtest.WindowInfo) bool { return w.Viewable }); err != nil {
		t.Fatalf("no orb: %v\n%s", err, p.Output())
	}
	err := xtest.Poll(ctx, func() (bool, error) {
		return strings.Contains(p.Output(), "Spirit is set up: no setup window"), nil
	})
	if err != nil {
		t.Fatalf("Spirit never decided about the setup window: %v\n%s", err, p.Output())
	}
	if ws, err := d.disp.FindWindows(title); err != nil || len(ws) > 0 {
		t.Errorf("a set-up Spirit has a setup window: %+v (%v)", ws, err)
	}
}

// shot saves the part r of the screen as a PNG once it is drawn and
// differs from last (the step before), and returns it; a failure is only
// logged: the pictures are for people to look at.
func shot(t *testing.T, ctx context.Context, disp *xtest.Display, r image.Rectangle, last image.Image, path string) image.Image {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var img, prev image.Image
	err := xtest.Poll(ctx, func() (bool, error) {
		full, err := disp.Screenshot()
		if err != nil {
			return false, err
		}
		s, ok := full.(interface {
			SubImage(image.Rectangle) image.Image
		})
		if !ok {
			return false, fmt.Errorf("a %T cannot be cut", full)
		}
		prev, img = img, s.SubImage(r)
		// Drawn, new, and the same twice in a row: the step is painted whole.
		return drawn(img) && (last == nil || differs(img, last)) && prev != nil && !differs(img, prev), nil
	})
	if err == nil {
		err = xtest.WritePNG(path, img)
	}
	if err != nil {
		t.Logf("screenshot %s: %v", path, err)
	}
	return img
}

// drawn reports whether the window's middle is painted (not all black).
func drawn(img image.Image) bool {
	b := img.Bounds()
	for y := b.Min.Y + b.Dy()/4; y < b.Max.Y-b.Dy()/4; y += 7 {
		for x := b.Min.X + b.Dx()/4; x < b.Max.X-b.Dx()/4; x += 7 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl > 0 {
				return true
			}
		}
	}
	return false
}

func differs(a, b image.Image) bool {
	if a.Bounds().Size() != b.Bounds().Size() {
		return true
	}
	ab, bb := a.Bounds(), b.Bounds()
	for y := 0; y < ab.Dy(); y += 3 {
		for x := 0; x < ab.Dx(); x += 3 {
			if a.At(ab.Min.X+x, ab.Min.Y+y) != b.At(bb.Min.X+x, bb.Min.Y+y) {
				return true
			}
		}
	}
	return false
}
