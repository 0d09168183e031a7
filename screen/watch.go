package screen

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spirit-app/spirit/platform"
)

// Switch says the user moved to another window, or the window in front now
// shows something else (its title changed: another e-mail opened).
type Switch struct {
	// App is a human name for the application: "Microsoft Outlook",
	// "thunderbird", "Google-chrome" (see platform.Window.App).
	App string
	// Class is X11's WM_CLASS class, Process the executable's name; either
	// may be empty.
	Class, Process string
	// Title is the window title; always "" when Excluded.
	Title  string
	PID    int
	Window uint64
	// At is when the switch had settled and was read.
	At time.Time
	// Excluded means Spirit must not look at this window (a password
	// manager, a private browser window, the user's list): it is reported
	// so the caller can note "excluded", but carries no title and no app
	// name (App, Class and Process are empty; Window and PID identify it)
	// and cannot be captured. ExcludedBy says which rule matched.
	Excluded   bool
	ExcludedBy string
	// PaneChanged means the same window, with the same title, now shows
	// another message: the reading pane of a mail client's main window
	// changed and settled (see ServiceOptions.WatchPane). It is reported
	// like a switch, so the glance looks again.
	PaneChanged bool
}

// LogValue keeps titles out of logs: window titles name clients, matters
// and correspondents.
func (s Switch) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("app", s.App),
		slog.Int("pid", s.PID),
		slog.Uint64("window", s.Window),
	}
	if s.Excluded {
		attrs = append(attrs, slog.String("excluded", s.ExcludedBy))
	}
	if s.PaneChanged {
		attrs = append(attrs, slog.Bool("pane_changed", true))
	}
	return slog.GroupValue(attrs...)
}

// WindowSource is what the watcher needs from the window system;
// *platform.Display provides it.
type WindowSource interface {
	Foreground(ctx context.Context) (platform.Window, error)
	WatchForeground(ctx context.Context, changed func()) error
}

// DefaultDebounce is how long the foreground must stay unchanged before a
// switch is reported: Alt-Tab through three windows reports only the last.
const DefaultDebounce = 400 * time.Millisecond

// OwnTitlePrefix marks Spirit's own windows, whatever process shows them.
const OwnTitlePrefix = "Spirit"

// isOwn reports whether w is one of Spirit's windows: shown by its process,
// or titled "Spirit…". The title must start with the word, so "Spirited
// Away - VLC" is not Spirit's.
func isOwn(w platform.Window, ownPID int) bool {
	if ownPID != 0 && w.PID == ownPID {
		return true
	}
	rest, ok := strings.CutPrefix(w.Title, OwnTitlePrefix)
	if !ok {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return rest == "" || !(unicode.IsLetter(r) || unicode.IsDigit(r))
}

// retryDelay is how soon a failed snapshot (the window closed while being
// read) is tried again.
const retryDelay = 50 * time.Millisecond

// While nothing, or a window of Spirit's own, is in front, the watcher
// looks again after ownRecheck, then ever more slowly up to maxRecheck:
// the lawyer's window may come back without the window system telling,
// as in the case confirmAfter covers, and a snapshot that found none of
// theirs gets no confirmation.
const (
	ownRecheck = 250 * time.Millisecond
	maxRecheck = 2 * time.Second
)

// confirmAfter is how long after a settled snapshot the watcher reads the
// foreground once more, told or not: a window system that reports a change
// only when its own view differs can miss a brief return to the window
// before (under Wine: Notepad A, then B, A for a moment as a snapshot was
// taken, then B for good, with nothing more told; the switch to B went
// unreported for good, 1 run in 6).
const confirmAfter = time.Second

// WatchConfig configures a Watcher. The zero value is ready to use.
type WatchConfig struct {
	// Debounce is how long the foreground must stay unchanged before a
	// switch is reported; 0 means DefaultDebounce, negative means report
	// at once.
	Debounce time.Duration
	// Exclusions decides which windows are reported as Excluded; nil
	// applies the built-in rules.
	Exclusions *Exclusions
	// ExclusionsNow, if set, is asked at every switch instead of
	// Exclusions: the lawyer's lists, edited while Spirit watches, apply
	// from the next switch on.
	ExclusionsNow func() *Exclusions
	// OwnPID is Spirit's process id, whose windows are ignored; 0 means
	// os.Getpid().
	OwnPID int
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Watcher reports app switches. Start it with StartWatcher; Stop (or the
// start context's end) stops it completely.
type Watcher struct {
	src    WindowSource
	cfg    WatchConfig
	out    chan Switch
	cancel context.CancelFunc
	done   chan struct{}

	mu  sync.Mutex
	err error
}

// StartWatcher starts watching the foreground window. Switches arrive on
// Switches until the watcher stops; the current window is reported first.
func StartWatcher(ctx context.Context, src WindowSource, cfg WatchConfig) *Watcher {
	if cfg.Debounce == 0 {
		cfg.Debounce = DefaultDebounce
	}
	if cfg.Debounce < 0 {
		cfg.Debounce = 0
	}
	if cfg.OwnPID == 0 {
		cfg.OwnPID = os.Getpid()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{
		src:    src,
		cfg:    cfg,
		out:    make(chan Switch),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go w.run(ctx)
	return w
}

// Switches delivers settled switches; it is closed when the watcher stops.
//
// Only the latest switch waits for a slow reader: if another one settles
// before the pending one is taken, the pending one is replaced, because
// only the window in front now is worth a glance.
func (w *Watcher) Switches() <-chan Switch { return w.out }

// Stop stops the watcher and waits until all its goroutines have exited.
// It is safe to call more than once and concurrently.
func (w *Watcher) Stop() {
	w.cancel()
	<-w.done
}

// Done is closed once the watcher has stopped.
func (w *Watcher) Done() <-chan struct{} { return w.done }

// Err says why the watcher stopped on its own (the X connection failed);
// nil while running and after Stop.
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// seen identifies what was last reported. Excluded windows are compared
// without their title, which is never kept.
type seen struct {
	window   uint64
	title    string
	excluded bool
}

func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	defer close(w.out)
	defer w.cancel()

	kick := make(chan struct{}, 1)
	watchDone := make(chan error, 1)
	go func() {
		watchDone <- w.src.WatchForeground(ctx, func() {
			select {
			case kick <- struct{}{}:
			default: // a snapshot is already due
			}
		})
	}()
	// The event goroutine must be gone before run returns: Stop promises
	// no goroutine is left.
	defer func() {
		w.cancel()
		if watchDone != nil {
			<-watchDone
		}
	}()

	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()

	var (
		last    seen
		have    bool    // last is set
		pending *Switch // settled, not yet taken by the reader
		fails   int
		away    int  // snapshots in a row that found none of the lawyer's windows
		confirm bool // the next snapshot is the confirmation of the one before
	)
	for {
		var out chan<- Switch
		var next Switch
		if pending != nil {
			out, next = w.out, *pending
		}
		select {
		case <-ctx.Done():
			return
		case err := <-watchDone:
			watchDone = nil
			if ctx.Err() == nil {
				if err == nil {
					err = errors.New("window watch ended")
				}
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
				w.cfg.Logger.Warn("app-switch watcher stopped", "err", err)
			}
			return
		case <-kick:
			settle.Reset(w.cfg.Debounce)
			confirm = false
		case <-settle.C:
			fw, err := w.src.Foreground(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				// Usually a window closing as it was read: look again
				// soon. Log only a persistent failure.
				fails++
				if fails == 20 {
					w.cfg.Logger.Warn("reading the foreground window keeps failing", "err", err)
				}
				settle.Reset(min(retryDelay*time.Duration(fails), 2*time.Second))
				continue
			}
			fails = 0
			sw, ok := w.classify(fw)
			if !ok {
				if away == 0 {
					w.cfg.Logger.Debug("none of the lawyer's windows in front: looking again", "window", fw.ID)
				}
				away++
				settle.Reset(min(ownRecheck*time.Duration(away), maxRecheck))
				continue
			}
			away = 0
			if confirm = !confirm; confirm {
				settle.Reset(confirmAfter)
			}
			s := seen{window: sw.Window, title: sw.Title, excluded: sw.Excluded}
			if have && s == last {
				continue
			}
			last, have = s, true
			pending = &sw
		case out <- next:
			pending = nil
		}
	}
}

// classify turns a snapshot into a Switch; ok is false for windows that are
// never reported: none at all, and Spirit's own.
func (w *Watcher) classify(fw platform.Window) (Switch, bool) {
	if fw.ID == 0 {
		return Switch{}, false
	}
	if isOwn(fw, w.cfg.OwnPID) {
		return Switch{}, false
	}
	sw := Switch{PID: fw.PID, Window: fw.ID, At: time.Now()}
	excl := w.cfg.Exclusions
	if w.cfg.ExclusionsNow != nil {
		excl = w.cfg.ExclusionsNow()
	}
	if ex, why := excl.Match(fw); ex {
		// Not even which app: a password manager's name, or an app the
		// lawyer listed, says enough.
		sw.Excluded, sw.ExcludedBy = true, why
		return sw, true
	}
	sw.App, sw.Class, sw.Process, sw.Title = fw.App(), fw.Class, fw.Process, fw.Title
	return sw, true
}
