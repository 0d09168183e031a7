package app_test

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/internal/desktoptest"
)

// TestOrbStatesOnScreen runs the real binary and looks at the orb's pixels:
// idle is the blue glow; a nudge raised through the API turns it to the
// static attention look (a warm ring and badge) while the bubble is out; and
// back to idle once the nudge is answered.
//
// Listening and working are covered by the ui package's tests on Fyne's test
// driver: driving them here would take a speech model and a JACK sound card
// (listening) or an agent runtime that does not exist yet (working).
//
// The screenshots are saved in the test's temporary directory and, when
// SPIRIT_SHOTS_DIR is set, copied there.
func TestOrbStatesOnScreen(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	p := d.start(t, ctx, dataDir, nil)
	if _, err := d.host.WaitItem(ctx); err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	orb := d.waitOrb(t, ctx, dockedAt(wa)).Rect
	c := apiClient(t, ctx, dataDir)
	shots := newShots(t)

	// Idle: the blue glow, nothing warm. The window maps before its first
	// frame is drawn, so wait for the glow.
	idle := waitOrbLook(t, ctx, d.disp, c, orb, "idle", func(l orbLook) bool {
		return l.blue >= orb.Dx()*orb.Dy()/4 && l.warm == 0
	})
	shots.save("orb-idle", idle.img, orb)
	checkOrbPixels(t, d.disp, orb)
	steady(t, d.disp, orb, idle.img, "idle")

	// Attention: a nudge is out.
	n, err := c.Notify(ctx, api.NewNudge{Kind: "info", Message: "The Brooklyn Gardens SNDA came back signed."})
	if err != nil {
		t.Fatal(err)
	}
	att := waitOrbLook(t, ctx, d.disp, c, orb, "attention", func(l orbLook) bool {
		return l.warm >= 150
	})
	shots.save("orb-attention", att.img, orb)
	if att.blue >= idle.blue {
		t.Errorf("attention has %d blue pixels, idle %d: the ring should have turned warm", att.blue, idle.blue)
	}
	// The badge sits in the top right quarter of the orb.
	badge := image.Rect(orb.Min.X+orb.Dx()*3/4-4, orb.Min.Y, orb.Max.X, orb.Min.Y+orb.Dy()/4+4)
	if w := countPixels(att.img, badge, warm); w < 12 {
		t.Errorf("only %d warm pixels where the badge belongs (%v)", w, badge)
	}
	steady(t, d.disp, orb, att.img, "attention")

	// Answered: the bubble closes and the orb is idle again.
	if _, err := c.Respond(ctx, n.ID, api.ActionDismiss, ""); err != nil {
		t.Fatal(err)
	}
	back := waitOrbLook(t, ctx, d.disp, c, orb, "idle", func(l orbLook) bool {
		return l.warm == 0 && l.blue >= orb.Dx()*orb.Dy()/4
	})
	shots.save("orb-idle-after-nudge", back.img, orb)
	if diff := countDiff(idle.img, back.img, orb); diff != 0 {
		t.Errorf("the orb after the nudge differs from idle in %d pixels", diff)
	}
}

// steady watches the orb for a second: a static state's picture must not
// change at all (it is an observation window, not a wait for anything).
func steady(t *testing.T, disp *desktoptest.Display, orb image.Rectangle, ref image.Image, state string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < time.Second; {
		img, err := disp.Screenshot()
		if err != nil {
			t.Fatal(err)
		}
		if diff := countDiff(ref, img, orb); diff != 0 {
			t.Errorf("the %s orb changed by %d pixels with nothing happening", state, diff)
			return
		}
	}
}

// orbLook is one screenshot and what the orb's rectangle holds.
type orbLook struct {
	img        image.Image
	blue, warm int
	state      string // the orb's state in /health
}

// waitOrbLook polls /health and screenshots until the orb is in state and
// its pixels satisfy ok; it fails the test at ctx's deadline.
func waitOrbLook(t *testing.T, ctx context.Context, disp *desktoptest.Display, c *api.Client, orb image.Rectangle,
	state string, ok func(orbLook) bool) orbLook {
	t.Helper()
	var l orbLook
	// The state is read before the screenshot: the picture lags the state.
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err := desktoptest.Poll(pctx, func() (bool, error) {
		h, err := c.Health(pctx)
		if err != nil {
			return false, err
		}
		l.state = h.Subsystems["orb"].State
		if l.state != state {
			return false, nil
		}
		img, err := disp.Screenshot()
		if err != nil {
			return false, err
		}
		l.img = img
		l.blue = countPixels(img, orb, bluish)
		l.warm = countPixels(img, orb, warm)
		return ok(l), nil
	})
	if err != nil {
		if l.img != nil {
			path := filepath.Join(t.TempDir(), "orb-"+state+"-failed.png")
			if desktoptest.WritePNG(path, l.img) == nil {
				t.Logf("screenshot: %s", path)
			}
		}
		t.Fatalf("orb never looked %s: /health orb=%q, %d blue and %d warm pixels in %v: %v",
			state, l.state, l.blue, l.warm, orb, err)
	}
	return l
}

// warm is the attention colour (the palette's Warning, light or dark) over
// the orb's background: clearly more red than blue.
func warm(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r > b+0x3000 && g > b && r >= g
}

func countPixels(img image.Image, r image.Rectangle, match func(color.Color) bool) int {
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if match(img.At(x, y)) {
				n++
			}
		}
	}
	return n
}

func countDiff(a, b image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			if ar != br || ag != bg || ab != bb {
				n++
			}
		}
	}
	return n
}

// shots saves screenshots in the test's directory and SPIRIT_SHOTS_DIR.
type shots struct {
	t    *testing.T
	dirs []string
}

func newShots(t *testing.T) *shots {
	s := &shots{t: t, dirs: []string{t.TempDir()}}
	if dir := os.Getenv("SPIRIT_SHOTS_DIR"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		s.dirs = append(s.dirs, dir)
	}
	return s
}

// save writes the whole screen as name.png and the orb with a margin
// around it as name-crop.png.
func (s *shots) save(name string, img image.Image, orb image.Rectangle) {
	s.t.Helper()
	r := orb.Inset(-12).Intersect(img.Bounds())
	crop := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(crop, crop.Bounds(), img, r.Min, draw.Src)
	for _, dir := range s.dirs {
		for file, im := range map[string]image.Image{name + ".png": img, name + "-crop.png": crop} {
			path := filepath.Join(dir, file)
			if err := desktoptest.WritePNG(path, im); err != nil {
				s.t.Errorf("save %s: %v", path, err)
			}
		}
	}
	s.t.Logf("screenshot %s in %v", name, s.dirs)
}
