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
					shot(t, d.disp, w.Frame, filepath.Join(shots, fmt.Sprintf("first-run-%d.png", i+1)))
				}
				// The main button sits at the window's bottom right.
				x, y := w.Rect.Max.X-30, w.Rect.Max.Y-24
				if err := d.disp.Xdotool(ctx, "mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1"); err != nil {
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

// shot saves the part r of the screen as a PNG; a failure is only logged.
func shot(t *testing.T, disp *xtest.Display, r image.Rectangle, path string) {
	img, err := disp.Screenshot()
	if err == nil {
		if s, ok := img.(interface {
			SubImage(image.Rectangle) image.Image
		}); ok {
			img = s.SubImage(r)
		}
		err = xtest.WritePNG(path, img)
	}
	if err != nil {
		t.Logf("screenshot %s: %v", path, err)
	}
}
