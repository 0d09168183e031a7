package desktop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"testing"
	"time"

	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/xtest"
)

// TestHUDTooltipOnScreen runs the real binary: the lawyer works in a
// LibreOffice Writer window, the analysis loop writes the HUD line, and
// the pointer on the orb shows it in a tooltip beside the orb without
// taking the focus from the lawyer's window; the pointer leaving hides it.
func TestHUDTooltipOnScreen(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	p, c := runningSpirit(t, ctx, d, dataDir)
	// The shortest interval, so the test waits seconds, not half a minute.
	if _, err := c.SetAgentConfig(ctx, api.AgentConfigChange{Interval: json.RawMessage(`5`)}); err != nil {
		t.Fatal(err)
	}
	writer := mailWindow(t, ctx, d.disp, "lease.odt - LibreOffice Writer", "libreoffice-writer", image.Rect(100, 100, 700, 600), nil)
	const want = "Drafting ‘lease.odt’ in LibreOffice Writer"
	var last api.AgentDigest
	err := xtest.Poll(ctx, func() (bool, error) {
		var err error
		last, err = c.AgentDigest(ctx)
		return err == nil && last.HUD == want, nil
	})
	if err != nil {
		t.Fatalf("no HUD line %q; last digest %+v: %v\n%s", want, last, err, p.Output())
	}

	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	orb := dockedAt(wa)
	if err := d.disp.Xdotool(ctx, "mousemove", fmt.Sprint(orb.X+orbPx/2), fmt.Sprint(orb.Y+orbPx/2)); err != nil {
		t.Fatal(err)
	}
	const tipTitle = "Spirit: what you are doing"
	tip, err := d.disp.WaitWindow(ctx, tipTitle, func(w xtest.WindowInfo) bool { return w.Viewable })
	if err != nil {
		saveScreen(t, d.disp, "hud-tooltip.png")
		t.Fatalf("no tooltip with the pointer on the orb: %v\n%s", err, p.Output())
	}
	// Beside the orb, to its left, level with it.
	if tip.Rect.Max.X > orb.X || tip.Rect.Max.Y < orb.Y || tip.Rect.Min.Y > orb.Y+orbPx {
		t.Errorf("tooltip at %v, orb at %v: want it left of the orb, level with it", tip.Rect, orb)
	}
	if tip.Rect.Dx() < 150 {
		t.Errorf("tooltip %d px wide: too narrow for %q", tip.Rect.Dx(), want)
	}
	// The tooltip's window is made at its first showing (it costs the GL
	// driver ~9 MB): the window manager may focus it as it is first
	// mapped, and Spirit's focus watcher hands the keyboard straight back.
	// What must hold is that the lawyer's window has it again at once.
	var active uint32
	focusCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	err = xtest.Poll(focusCtx, func() (bool, error) {
		var err error
		active, err = d.disp.ActiveWindow()
		return err == nil && active == writer.win, nil
	})
	cancel()
	if err != nil {
		t.Errorf("active window %#x after hovering, want the lawyer's %#x within 2 s (%v)", active, writer.win, err)
	}

	if err := d.disp.Xdotool(ctx, "mousemove", "300", "300"); err != nil {
		t.Fatal(err)
	}
	err = xtest.Poll(ctx, func() (bool, error) {
		ws, err := d.disp.FindWindows(tipTitle)
		if err != nil {
			return false, err
		}
		for _, w := range ws {
			if w.Viewable {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("the tooltip stayed after the pointer left: %v", err)
	}
	stopSpirit(t, ctx, p)
}
