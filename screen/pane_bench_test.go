//go:build linux

package screen_test

import (
	"context"
	"fmt"
	"image"
	"os"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen"
)

// TestBenchPaneWatch measures the reading-pane watcher on a 1920×1080
// Xvfb screen with openbox: a 1700×960 Thunderbird main window of text in
// front, its pane sampled at the default interval (one second), nothing
// changing. It runs only with SPIRIT_BENCH=1 (make bench) and prints
// "BENCH name value unit":
//
//   - pane_watch_cpu_pct: CPU time of this process (user + system, as % of
//     one core) over 60 s while the pane is watched: the switch watcher
//     (idle, see watcher_idle_cpu_pct) plus a pane sample a second: the
//     foreground re-read, 32 bands of 3 rows read from the X server and
//     reduced to a 32×48 grid. The goal is below 0.3 %.
func TestBenchPaneWatch(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to measure")
	}
	d := xtest.StartDisplay(t, 1920, 1080)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	rect := image.Rect(60, 40, 1760, 1000)
	pid := xtest.FakeApp(t, "thunderbird")
	mail := newWindow(t, ctx, d, xtest.WindowSpec{Title: mailMainTitle, Class: "thunderbird", PID: pid,
		Rect: rect, Image: paneText(t, rect.Dx(), rect.Dy(), 2)})

	// The default interval: what a lawyer's machine does.
	_, out := paneService(t, ctx, d, func(o *screen.ServiceOptions) { o.PaneInterval = 0 })
	activate(t, ctx, d, mail)
	switchTo(t, ctx, out, mail)

	const idle = 60 * time.Second
	before, at := cpuTime(t), time.Now()
	select {
	case sw := <-out:
		t.Fatalf("reported while nothing changed: %+v", sw)
	case <-time.After(idle):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	used, wall := cpuTime(t)-before, time.Since(at)
	t.Logf("pane watched: %v CPU in %v", used, wall.Round(time.Millisecond))
	fmt.Printf("BENCH pane_watch_cpu_pct %.4f %%\n", 100*used.Seconds()/wall.Seconds())
}
