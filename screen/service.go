package screen

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spirit-app/spirit/platform"
)

// The watch service's states, for the tray and /health.
const (
	WatchStarting    = "starting"    // Run has not opened a display yet
	WatchOn          = "on"          // switches are being reported
	WatchPaused      = "paused"      // the lawyer paused watching
	WatchUnavailable = "unavailable" // no display: see /health or doctor
	WatchError       = "error"       // the display went away
)

// ServiceOptions is what a WatchService needs, given whole before it runs.
type ServiceOptions struct {
	// Paused starts the service paused (the lawyer's saved choice).
	Paused bool
	// OpenDisplay opens the display to watch; nil: platform.OpenDisplay("").
	OpenDisplay func() (*platform.Display, error)
	// Exclusions reads the lawyer's lists on top of the built-in rules, at
	// every switch, pane watched and capture; nil: the built-in rules
	// only.
	Exclusions func(ctx context.Context) *Exclusions
	// OnSwitch receives each switch, in order, on Run's goroutine; it must
	// not block for long (publish it, don't act on it).
	OnSwitch func(ctx context.Context, sw Switch)
	// OnState is told that State changed.
	OnState func()
	// WatchPane says whether sw's window is a mail client's main window
	// whose title does not name the open message. While such a window is
	// in front its reading pane is sampled every PaneInterval (four thin
	// columns of the window, reduced to the mean brightness of small
	// cells; no pixels are kept) and a change that settles is given to
	// OnSwitch again, as the same switch with PaneChanged set. Nothing is
	// sampled for other windows. nil: no pane is watched.
	WatchPane func(sw Switch) bool
	// PaneInterval is how often the pane is sampled; 0 means
	// DefaultPaneInterval.
	PaneInterval time.Duration
	// PaneEvents, if set, is asked first how to follow a pane WatchPane
	// chose: a channel that receives a time whenever the application
	// itself says the selection in sw's window changed (AT-SPI on Linux),
	// open until ctx ends or the application can no longer say. While it
	// is open nothing is sampled: no wake-ups while the lawyer reads. A
	// burst of events is reported once, paneEventQuiet after the last,
	// as the pane changed, if the window is still in front. An error, or
	// the channel closing, falls back to sampling pixels.
	PaneEvents func(ctx context.Context, sw Switch) (<-chan time.Time, error)
	Log        *slog.Logger
}

// WatchService runs the app-switch watcher while watching is not paused.
// Pause stops it entirely: no X connection, no goroutine, nothing observed.
// It also takes the screenshots asked for while it watches, through the
// same display connection.
type WatchService struct {
	opt     ServiceOptions
	toggles chan pauseRequest // to Run, while it runs

	mu      sync.Mutex
	running bool // Run is taking toggles
	paused  bool
	state   string
	detail  string
	display *platform.Display // while watching

	switches atomic.Int64
	panes    atomic.Int64
}

// pauseRequest asks Run to pause or resume; done closes once it has.
type pauseRequest struct {
	paused bool
	done   chan struct{}
}

// NewWatchService returns a service that starts watching with Run.
func NewWatchService(opt ServiceOptions) *WatchService {
	if opt.OpenDisplay == nil {
		opt.OpenDisplay = func() (*platform.Display, error) { return platform.OpenDisplay("") }
	}
	if opt.Exclusions == nil {
		opt.Exclusions = func(context.Context) *Exclusions { return NewExclusions(nil, nil) }
	}
	if opt.OnSwitch == nil {
		opt.OnSwitch = func(context.Context, Switch) {}
	}
	if opt.OnState == nil {
		opt.OnState = func() {}
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.PaneInterval <= 0 {
		opt.PaneInterval = DefaultPaneInterval
	}
	// The state is "" until Run: nothing is watched yet.
	return &WatchService{opt: opt, toggles: make(chan pauseRequest), paused: opt.Paused}
}

// State is the service's state and a detail; "" before Run.
func (w *WatchService) State() (string, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state, w.detail
}

// Switches counts the switches seen since start, for /health.
func (w *WatchService) Switches() int64 { return w.switches.Load() }

// PaneChanges counts the reading-pane changes reported since start.
func (w *WatchService) PaneChanges() int64 { return w.panes.Load() }

func (w *WatchService) set(state, detail string) {
	w.mu.Lock()
	changed := w.state != state
	w.state, w.detail = state, detail
	w.mu.Unlock()
	if changed {
		w.opt.OnState()
	}
}

// SetPaused pauses or resumes watching and returns once the watcher has
// stopped or started: the lawyer is told only what is true.
func (w *WatchService) SetPaused(ctx context.Context, paused bool) error {
	w.mu.Lock()
	if !w.running {
		w.paused = paused
		w.mu.Unlock()
		return nil
	}
	w.mu.Unlock()
	req := pauseRequest{paused: paused, done: make(chan struct{})}
	select {
	case w.toggles <- req:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-req.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run watches until ctx ends. A display that cannot be opened is a state,
// tried again on the next resume; a display lost while watching is an
// error for the caller (a supervisor starts the service again).
func (w *WatchService) Run(ctx context.Context) error {
	w.mu.Lock()
	w.running = true
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.running = false
		w.mu.Unlock()
	}()
	for {
		w.mu.Lock()
		paused := w.paused
		w.mu.Unlock()
		if paused {
			w.set(WatchPaused, "")
			if !w.waitToggle(ctx) {
				return nil
			}
			continue
		}
		d, err := w.opt.OpenDisplay()
		if err != nil {
			w.set(WatchUnavailable, err.Error())
			w.opt.Log.Warn("not watching app switches", "err", err)
			if !w.waitToggle(ctx) {
				return nil
			}
			continue
		}
		err = w.watch(ctx, d)
		if err != nil || ctx.Err() != nil {
			return err
		}
	}
}

// waitToggle applies the next pause request; false when ctx ended first.
func (w *WatchService) waitToggle(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case req := <-w.toggles:
		w.mu.Lock()
		w.paused = req.paused
		w.mu.Unlock()
		close(req.done)
		return true
	}
}

// watch reports switches on display d until ctx ends, a pause, or an error.
func (w *WatchService) watch(ctx context.Context, d *platform.Display) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.mu.Lock()
	w.display = d
	w.mu.Unlock()
	w.set(WatchOn, "")
	sw := StartWatcher(wctx, d, WatchConfig{
		ExclusionsNow: func() *Exclusions { return w.opt.Exclusions(wctx) },
		Logger:        w.opt.Log,
	})
	stop := func() {
		cancel()
		for range sw.Switches() { // the watcher closes it once it has stopped
		}
		w.mu.Lock()
		w.display = nil
		w.mu.Unlock()
		d.Close()
	}
	// The reading pane of a mail client's main window is watched on this
	// goroutine: one tick or event at a time, and it stops with the next
	// switch, a pause or the end.
	var pane *paneWatch
	ticker := time.NewTicker(w.opt.PaneInterval)
	ticker.Stop()
	defer ticker.Stop()
	var ticks <-chan time.Time
	settle := min(paneSettleInterval, w.opt.PaneInterval)
	fastLeft := paneFastTicks
	// The application's own word that the selection changed (PaneEvents):
	// events is open while it answers for the switch cur; quiet reports a
	// burst once it ends.
	var (
		events     <-chan time.Time
		stopEvents = func() {}
		cur        Switch
		quiet      = time.NewTimer(paneEventQuiet)
		quietTicks <-chan time.Time
	)
	quiet.Stop()
	defer func() { stopEvents() }()
	samplePixels := func(s Switch) {
		p, err := startPane(ctx, d, s, w.opt.Exclusions(ctx))
		if err != nil {
			w.opt.Log.Debug("reading pane not watched", "err", err)
			return
		}
		pane = p
		fastLeft = paneFastTicks
		ticker.Reset(w.opt.PaneInterval)
		ticks = ticker.C
	}
	for {
		select {
		case _, ok := <-events:
			if !ok {
				w.opt.Log.Debug("reading pane: the application stopped telling its selection; sampling its pixels")
				events, quietTicks = nil, nil
				quiet.Stop()
				samplePixels(cur)
				continue
			}
			quiet.Reset(paneEventQuiet)
			quietTicks = quiet.C
		case <-quietTicks:
			quietTicks = nil
			ev := paneWatch{src: d, sw: cur, ex: w.opt.Exclusions(ctx)}
			if _, err := ev.foreground(ctx); err != nil {
				// Not in front as reported (Spirit's bubble has it):
				// the switch watcher says what is.
				continue
			}
			w.panes.Add(1)
			w.opt.OnSwitch(ctx, ev.changed())
		case <-ticks:
			changed, err := pane.tick(ctx)
			switch {
			case errors.Is(err, errPaneGone):
				// Another window is in front: the watcher reports it,
				// which ends this pane, unless it is one never reported
				// (Spirit's bubble, nothing focused), after which the
				// lawyer comes back to this pane without a switch.
			case err != nil:
				w.opt.Log.Debug("reading pane not sampled", "err", err)
			case changed:
				w.panes.Add(1)
				w.opt.OnSwitch(ctx, pane.changed())
			}
			// A pane seen changing is sampled again sooner, to report it
			// once it settles; one that keeps changing goes back to the
			// usual pace.
			switch {
			case pane.pending() && fastLeft > 0:
				fastLeft--
				ticker.Reset(settle)
			case pane.pending():
				ticker.Reset(w.opt.PaneInterval)
			default:
				if fastLeft != paneFastTicks {
					fastLeft = paneFastTicks
					ticker.Reset(w.opt.PaneInterval)
				}
			}
		case req := <-w.toggles:
			w.mu.Lock()
			w.paused = req.paused
			w.mu.Unlock()
			if req.paused {
				stop() // the watcher is gone before the lawyer is told
				w.set(WatchPaused, "")
				close(req.done)
				return nil
			}
			close(req.done)
		case s, ok := <-sw.Switches():
			if !ok {
				stop()
				if err := sw.Err(); err != nil && ctx.Err() == nil {
					w.set(WatchError, err.Error())
					return fmt.Errorf("app-switch watcher: %w", err)
				}
				return nil
			}
			w.switches.Add(1)
			w.opt.OnSwitch(ctx, s)
			pane, ticks = nil, nil
			ticker.Stop()
			stopEvents()
			events, quietTicks = nil, nil
			quiet.Stop()
			if s.Excluded || w.opt.WatchPane == nil || !w.opt.WatchPane(s) {
				continue
			}
			if w.opt.PaneEvents != nil {
				ectx, cancel := context.WithCancel(wctx)
				ch, err := w.opt.PaneEvents(ectx, s)
				if err == nil {
					events, stopEvents, cur = ch, cancel, s
					continue
				}
				cancel()
				w.opt.Log.Debug("reading pane: the application does not tell its selection; sampling its pixels", "err", err)
			}
			samplePixels(s)
		}
	}
}

// paneEventQuiet is how long the events of one selection are gathered
// before it is reported: Thunderbird tells a selection with a few events
// 18-75 ms after the key press (measured). Its header is redrawn later;
// the glance reads it again until it shows another message.
const paneEventQuiet = 60 * time.Millisecond

// Capture takes the screenshot a glance asked for, through the watcher's
// display; excluded windows are refused and blacked out by the capturer.
func (w *WatchService) Capture(ctx context.Context, sw Switch) (Shot, error) {
	w.mu.Lock()
	d := w.display
	w.mu.Unlock()
	if d == nil {
		return Shot{}, fmt.Errorf("not watching")
	}
	cp := NewCapturer(d, CaptureConfig{Exclusions: w.opt.Exclusions(ctx), Logger: w.opt.Log})
	return cp.Capture(ctx, sw)
}
