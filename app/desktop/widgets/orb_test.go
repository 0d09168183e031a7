package widgets

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// newTestOrb shows an orb alone in an unpadded window, painted in variant v.
func newTestOrb(t *testing.T, v fyne.ThemeVariant) (*Orb, fyne.Window) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(Theme{})
	prev := orbVariant
	orbVariant = func() fyne.ThemeVariant { return v }
	t.Cleanup(func() { orbVariant = prev })
	o := NewOrb(nil)
	w := test.NewTempWindow(t, o)
	w.SetPadded(false)
	w.Resize(fyne.NewSquareSize(OrbSize))
	return o, w
}

// differing counts the pixels of a and b that differ noticeably.
func differing(a, b image.Image) int {
	n := 0
	r := a.Bounds().Intersect(b.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			if absDiff(ar, br)+absDiff(ag, bg)+absDiff(ab, bb) > 3*0x0800 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// frame runs the orb's current animation to phase f, as the driver would.
func frame(t *testing.T, o *Orb, f float32) {
	t.Helper()
	o.mu.Lock()
	a := o.anim
	o.mu.Unlock()
	if a == nil {
		t.Fatal("no animation running")
	}
	a.Tick(f)
}

var variants = map[string]fyne.ThemeVariant{"dark": theme.VariantDark, "light": theme.VariantLight}

// Every state, and the sparkle, looks different from every other one, in
// both variants; animated states also differ between two of their frames.
func TestOrbStatesRenderDistinctly(t *testing.T) {
	for name, v := range variants {
		t.Run(name, func(t *testing.T) {
			o, w := newTestOrb(t, v)
			shots := map[string]image.Image{}
			for _, s := range []OrbState{OrbIdle, OrbListening, OrbWorking, OrbAttention} {
				o.SetState(s)
				if o.State() != s {
					t.Fatalf("State() = %v after SetState(%v)", o.State(), s)
				}
				if s == OrbListening || s == OrbWorking {
					frame(t, o, 0.25)
					early := w.Canvas().Capture()
					frame(t, o, 0.6)
					late := w.Canvas().Capture()
					if d := differing(early, late); d < 10 {
						t.Errorf("%v: frames at 0.25 and 0.6 differ in only %d pixels", s, d)
					}
					shots[s.String()] = early
					continue
				}
				shots[s.String()] = w.Canvas().Capture()
			}
			o.SetState(OrbIdle)
			o.Sparkle()
			frame(t, o, 0.3)
			shots["sparkle"] = w.Canvas().Capture()

			if b := shots["idle"].Bounds(); b.Dx() != OrbSize {
				t.Fatalf("capture is %d px wide (%v), want %d px square", b.Dx(), b, OrbSize)
			}
			if b := shots["idle"].Bounds(); b.Dy() != OrbSize {
				t.Fatalf("capture is %d px high (%v), want %d px square", b.Dy(), b, OrbSize)
			}
			names := []string{"idle", "listening", "working", "attention", "sparkle"}
			for i, a := range names {
				for _, b := range names[i+1:] {
					if d := differing(shots[a], shots[b]); d < 10 {
						t.Errorf("%s and %s differ in only %d pixels", a, b, d)
					}
				}
			}
			dir := os.Getenv("SPIRIT_SHOTS_DIR")
			if t.Failed() && dir == "" {
				dir = t.TempDir()
			}
			if dir != "" {
				for n, img := range shots {
					path := filepath.Join(dir, "orb-"+name+"-"+n+".png")
					if err := writePNG(path, img); err != nil {
						t.Error(err)
					} else {
						t.Logf("%s: %s", n, path)
					}
				}
			}
		})
	}
}

// The working dot, the attention badge and the sparks stand out from the
// orb's background in both variants.
func TestOrbMarksReadableBothVariants(t *testing.T) {
	for name, v := range variants {
		p := PaletteFor(v)
		for _, m := range []struct {
			what string
			c    color.Color
			min  float64
		}{
			{"working dot", p.Foreground, 7},
			{"attention badge", p.Warning, 3},
			{"sparks", p.Success, 3},
		} {
			if c := contrast(m.c, p.Background); c < m.min {
				t.Errorf("%s: %s contrast %.2f < %.1f", name, m.what, c, m.min)
			}
		}
	}
}

// Only listening, working and the sparkle animate; switching to a static
// state stops the animation, and a stopped animation draws nothing more.
func TestOrbAnimatesOnlyWhileMoving(t *testing.T) {
	o, w := newTestOrb(t, theme.VariantDark)
	if o.Animating() {
		t.Fatal("a new (idle) orb animates")
	}
	idle := w.Canvas().Capture()
	for _, step := range []struct {
		s       OrbState
		animate bool
	}{
		{OrbListening, true},
		{OrbIdle, false},
		{OrbWorking, true},
		{OrbAttention, false},
		{OrbListening, true},
		{OrbWorking, true},
		{OrbIdle, false},
		{OrbAttention, false},
		{OrbAttention, false},
		{OrbIdle, false},
	} {
		o.mu.Lock()
		old := o.anim
		o.mu.Unlock()
		o.SetState(step.s)
		if got := o.Animating(); got != step.animate {
			t.Errorf("after SetState(%v): Animating() = %v, want %v", step.s, got, step.animate)
		}
		o.mu.Lock()
		now := o.anim
		o.mu.Unlock()
		if old != nil && old == now && step.s != OrbWorking {
			t.Errorf("after SetState(%v): the previous animation is still current", step.s)
		}
	}
	// The last animation (working) may still be ticked by a lagging driver:
	// it must not draw over the idle orb.
	o.SetState(OrbWorking)
	o.mu.Lock()
	orbit := o.anim
	o.mu.Unlock()
	o.SetState(OrbIdle)
	orbit.Tick(0.5)
	if d := differing(idle, w.Canvas().Capture()); d != 0 {
		t.Errorf("a stopped animation still draws: %d pixels differ from idle", d)
	}
}

// waitStill polls until the orb stops animating; it fails after deadline.
func waitStill(t *testing.T, o *Orb, deadline time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for o.Animating() {
		select {
		case <-ctx.Done():
			t.Fatalf("still animating after %v", deadline)
		case <-tick.C:
		}
	}
}

// The sparkle plays over idle and ends by itself, leaving the idle picture.
func TestOrbSparkleEndsByItself(t *testing.T) {
	o, w := newTestOrb(t, theme.VariantLight)
	idle := w.Canvas().Capture()
	start := time.Now()
	o.Sparkle()
	if !o.Animating() {
		t.Fatal("no animation while sparkling")
	}
	if o.State() != OrbIdle {
		t.Errorf("State() = %v while sparkling, want idle", o.State())
	}
	waitStill(t, o, 5*time.Second)
	if took := time.Since(start); took < sparkleDuration/2 {
		t.Errorf("sparkle over after %v", took)
	}
	if d := differing(idle, w.Canvas().Capture()); d != 0 {
		t.Errorf("after the sparkle %d pixels differ from idle", d)
	}
}

// A sparkle waits behind a higher state and plays out if the orb turns idle
// within its second; a static state stays static meanwhile.
func TestOrbSparkleIsAnIdleOverlay(t *testing.T) {
	o, _ := newTestOrb(t, theme.VariantDark)
	o.SetState(OrbAttention)
	o.Sparkle()
	if o.Animating() {
		t.Fatal("sparkle animates over attention")
	}
	o.SetState(OrbIdle)
	if !o.Animating() {
		t.Fatal("sparkle did not resume when the orb turned idle")
	}
	waitStill(t, o, 5*time.Second)
	if o.State() != OrbIdle {
		t.Errorf("State() = %v, want idle", o.State())
	}
}

func TestOrbStateString(t *testing.T) {
	want := map[OrbState]string{OrbIdle: "idle", OrbListening: "listening", OrbWorking: "working", OrbAttention: "attention"}
	for s, n := range want {
		if s.String() != n {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), n)
		}
	}
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
