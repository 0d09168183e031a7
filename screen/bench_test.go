//go:build linux

package screen_test

import (
	"context"
	"fmt"
	"image"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen"
)

// TestBenchScreen measures the glance's sight on a 1920×1080 Xvfb screen
// with openbox, two windows of text alternately activated with xdotool.
// It runs only with SPIRIT_BENCH=1 (make bench) and prints
// "BENCH name value unit" lines:
//
//   - switch_to_shot_p95_ms: from the settled switch event (Switch.At, when
//     the watcher read the new foreground window after the debounce) to a
//     Shot ready: foreground re-checks before and after, window list for
//     redaction (twice), GetImage of the 1920×1080 monitor, BGRX → RGBA,
//     downscale to 1280×720, hash, JPEG q85 encoding. The debounce is not
//     included. Over 60 switches.
//   - activate_to_shot_p95_ms: from starting `xdotool windowactivate` to the
//     Shot ready, minus the debounce (400 ms): adds xdotool's start-up,
//     openbox's focus change, the X events and the snapshot read.
//   - watcher_idle_cpu_pct: CPU time of this process (user + system, as %
//     of one core) over 60 s with the watcher running and nothing
//     happening on the screen.
func TestBenchScreen(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to measure")
	}
	d := xtest.StartDisplay(t, 1920, 1080)
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()

	var pages [2]*image.RGBA
	for i := range pages {
		lines := make([]string, 0, 40)
		for l := range 40 {
			lines = append(lines, fmt.Sprintf("%d.%d  The parties agree that clause %d of the agreement dated %d March shall be read", i, l, l+3, l%28+1))
		}
		var err error
		if pages[i], err = xtest.TextImage(1700, 960, 15, lines...); err != nil {
			t.Fatal(err)
		}
	}
	pid := xtest.FakeApp(t, "thunderbird")
	wins := [2]*xtest.Window{
		newWindow(t, ctx, d, xtest.WindowSpec{Title: "Inbox - Mozilla Thunderbird", Class: "thunderbird", PID: pid,
			Rect: image.Rect(60, 40, 1760, 1000), Image: pages[0]}),
		newWindow(t, ctx, d, xtest.WindowSpec{Title: "Agreement.odt - LibreOffice Writer", Class: "libreoffice-writer", PID: pid,
			Rect: image.Rect(160, 80, 1860, 1040), Image: pages[1]}),
	}

	w := screen.StartWatcher(ctx, disp, screen.WatchConfig{})
	defer w.Stop()
	capt := screen.NewCapturer(disp, screen.CaptureConfig{})

	const warmup, runs = 4, 60
	var toShot, fromActivate []float64
	var sizes []float64
	for i := range warmup + runs {
		target := wins[i%2]
		start := time.Now()
		activate(t, ctx, d, target)
		var sw screen.Switch
		for sw.Window != uint64(target.ID) {
			sw = nextSwitch(t, ctx, w)
		}
		shot, err := capt.Capture(ctx, sw)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		ready := time.Now()
		if b := shot.Image.Bounds(); b.Dx() != 1280 || b.Dy() != 720 {
			t.Fatalf("shot %v, want 1280x720", b)
		}
		if i < warmup {
			continue
		}
		toShot = append(toShot, ms(ready.Sub(sw.At)))
		fromActivate = append(fromActivate, ms(ready.Sub(start)-screen.DefaultDebounce))
		sizes = append(sizes, float64(len(shot.Data))/1024)
	}
	t.Logf("switch→shot ms: p50 %.1f p95 %.1f max %.1f; activate→shot−debounce p50 %.1f p95 %.1f; JPEG %.0f KB",
		pct(toShot, 0.5), pct(toShot, 0.95), pct(toShot, 1), pct(fromActivate, 0.5), pct(fromActivate, 0.95), pct(sizes, 0.5))
	fmt.Printf("BENCH switch_to_shot_p95_ms %.1f ms\n", pct(toShot, 0.95))
	fmt.Printf("BENCH switch_to_shot_p50_ms %.1f ms\n", pct(toShot, 0.5))
	fmt.Printf("BENCH activate_to_shot_p95_ms %.1f ms\n", pct(fromActivate, 0.95))
	fmt.Printf("BENCH shot_jpeg_kb_p50 %.0f KB\n", pct(sizes, 0.5))

	// Idle: the watcher is running, nothing moves.
	const idle = 60 * time.Second
	before, at := cpuTime(t), time.Now()
	select {
	case sw := <-w.Switches():
		t.Fatalf("switch while idle: %+v", sw)
	case <-time.After(idle):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	used, wall := cpuTime(t)-before, time.Since(at)
	t.Logf("idle: %v CPU in %v", used, wall.Round(time.Millisecond))
	fmt.Printf("BENCH watcher_idle_cpu_pct %.4f %%\n", 100*used.Seconds()/wall.Seconds())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pct returns the p-quantile (nearest rank) of xs.
func pct(xs []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// cpuTime is this process's user plus system CPU time.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
