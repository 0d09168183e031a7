package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/screen"
)

// Setting keys for watching.
const (
	settingExcludedApps   = "screen.excluded_apps"   // comma-separated app names never looked at
	settingExcludedTitles = "screen.excluded_titles" // comma-separated title fragments
	settingScreenText     = "screen.text"            // OCR of captures when titles are not enough; on by default
)

// watching runs the app-switch watcher while watching is not paused. Pause
// stops it entirely: no X connection, no goroutine, nothing observed.
type watching struct {
	core *Core

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	state   string
	detail  string
	display *platform.Display

	switches atomic.Int64
}

func newWatching(c *Core) *watching { return &watching{core: c, state: "starting"} }

// State is the watcher's state for /health.
func (w *watching) State() (string, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state, w.detail
}

func (w *watching) set(state, detail string) {
	w.mu.Lock()
	changed := w.state != state
	w.state, w.detail = state, detail
	w.mu.Unlock()
	if changed {
		w.core.voiceChanged() // refreshes the status line
	}
}

// exclusions reads the user's lists on top of the built-in rules.
func (w *watching) exclusions(ctx context.Context) *screen.Exclusions {
	split := func(key string) []string {
		v, _, _ := w.core.store.Setting(ctx, key)
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return screen.NewExclusions(split(settingExcludedApps), split(settingExcludedTitles))
}

// setPaused starts or stops the watcher; ctx bounds its life.
func (w *watching) setPaused(ctx context.Context, paused bool) {
	w.mu.Lock()
	running := w.cancel != nil
	w.mu.Unlock()
	switch {
	case paused && running:
		w.stop()
		w.set("paused", "")
	case paused:
		w.set("paused", "")
	case !running:
		w.start(ctx)
	}
}

func (w *watching) start(ctx context.Context) {
	d, err := platform.OpenDisplay("")
	if err != nil {
		w.set("unavailable", err.Error())
		w.core.log.Warn("not watching app switches", "err", err)
		return
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	w.mu.Lock()
	w.cancel, w.done, w.display = cancel, done, d
	w.mu.Unlock()
	w.set("on", "")
	watcher := screen.StartWatcher(wctx, d, screen.WatchConfig{Exclusions: w.exclusions(ctx), Logger: w.core.log})
	go func() {
		defer close(done)
		defer d.Close()
		for sw := range watcher.Switches() {
			w.switches.Add(1)
			w.core.switched(wctx, sw)
		}
		if err := watcher.Err(); err != nil && wctx.Err() == nil {
			w.set("error", err.Error())
			w.core.log.Error("app-switch watcher stopped", "err", err)
		}
	}()
}

func (w *watching) stop() {
	w.mu.Lock()
	cancel, done := w.cancel, w.done
	w.cancel, w.done, w.display = nil, nil, nil
	w.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// switched records an app switch. An excluded window's title is never
// stored; for the rest the title is the fact the glance works from.
func (c *Core) switched(ctx context.Context, sw screen.Switch) {
	if sw.Excluded {
		c.event(ctx, "screen", sw.App, "switched to an excluded app ("+sw.ExcludedBy+"): not looked at")
		return
	}
	if c.Status().WatchingPaused {
		return
	}
	c.event(ctx, "screen", sw.App, fmt.Sprintf("switched to %q", sw.Title))
	c.glanceOn(ctx, sw)
}

// capture takes the screenshot the glance asked for, through the watcher's
// display; excluded windows are refused and blacked out by the capturer.
func (w *watching) capture(ctx context.Context, sw screen.Switch) (screen.Shot, error) {
	w.mu.Lock()
	d, running := w.display, w.cancel != nil
	w.mu.Unlock()
	if !running || d == nil {
		return screen.Shot{}, fmt.Errorf("not watching")
	}
	cp := screen.NewCapturer(d, screen.CaptureConfig{Exclusions: w.exclusions(ctx), Logger: w.core.log})
	return cp.Capture(ctx, sw)
}
