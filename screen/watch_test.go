package screen

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform"
)

// fakeSource is a window system driven by the test.
type fakeSource struct {
	mu   sync.Mutex
	cur  platform.Window
	fail int // Foreground fails this many more times
	// then is what the next reads find, one each, before cur: a window
	// in front for a moment.
	then    []platform.Window
	reads   int
	changed func()
	watchOn chan struct{} // closed once WatchForeground runs
	end     chan error    // ends WatchForeground with an error
}

func newFake(w platform.Window) *fakeSource {
	return &fakeSource{cur: w, watchOn: make(chan struct{}), end: make(chan error, 1)}
}

func (f *fakeSource) Foreground(ctx context.Context) (platform.Window, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.fail > 0 {
		f.fail--
		return platform.Window{}, platform.ErrWindowChanged
	}
	if len(f.then) > 0 {
		w := f.then[0]
		f.then = f.then[1:]
		return w, nil
	}
	return f.cur, nil
}

func (f *fakeSource) WatchForeground(ctx context.Context, changed func()) error {
	f.mu.Lock()
	f.changed = changed
	f.mu.Unlock()
	close(f.watchOn)
	changed()
	select {
	case <-ctx.Done():
		return nil
	case err := <-f.end:
		return err
	}
}

// set switches the foreground window and notifies, as an X event would.
func (f *fakeSource) set(w platform.Window) {
	<-f.watchOn
	f.mu.Lock()
	f.cur = w
	changed := f.changed
	f.mu.Unlock()
	changed()
}

// setQuietly switches the foreground window without telling: a change the
// window system did not report.
func (f *fakeSource) setQuietly(w platform.Window) {
	f.mu.Lock()
	f.cur = w
	f.mu.Unlock()
}

func recv(t *testing.T, w *Watcher, within time.Duration) (Switch, bool) {
	t.Helper()
	select {
	case sw, ok := <-w.Switches():
		return sw, ok
	case <-time.After(within):
		return Switch{}, false
	}
}

var (
	mailWin = platform.Window{ID: 1, Title: "Inbox - Mozilla Thunderbird", PID: 100, Class: "thunderbird", Process: "thunderbird"}
	docWin  = platform.Window{ID: 2, Title: "Contract.odt - LibreOffice Writer", PID: 200, Class: "libreoffice-writer", Process: "soffice.bin"}
	vault   = platform.Window{ID: 3, Title: "Clients.kdbx - KeePassXC", PID: 300, Class: "KeePassXC", Process: "keepassxc"}
)

func TestWatcherDebouncesBursts(t *testing.T) {
	src := newFake(mailWin)
	const debounce = 100 * time.Millisecond
	w := StartWatcher(t.Context(), src, WatchConfig{Debounce: debounce, OwnPID: 1})
	defer w.Stop()
	if sw, ok := recv(t, w, time.Second); !ok || sw.Window != 1 || sw.Title != mailWin.Title || sw.App != "thunderbird" {
		t.Fatalf("first switch = %+v, %v", sw, ok)
	}
	// Alt-Tab through several windows faster than the debounce.
	for range 5 {
		src.set(docWin)
		time.Sleep(debounce / 5)
		src.set(vault)
		time.Sleep(debounce / 5)
	}
	src.set(docWin)
	sw, ok := recv(t, w, time.Second)
	if !ok || sw.Window != 2 {
		t.Fatalf("settled switch = %+v, want the document", sw)
	}
	if sw, ok := recv(t, w, 3*debounce); ok {
		t.Fatalf("extra switch %+v", sw)
	}
}

func TestWatcherIgnoresOwnAndEmpty(t *testing.T) {
	src := newFake(platform.Window{ID: 9, Title: "Glance", PID: 4242})
	w := StartWatcher(t.Context(), src, WatchConfig{Debounce: -1, OwnPID: 4242})
	defer w.Stop()
	for _, win := range []platform.Window{
		{ID: 10, Title: "Spirit", PID: 7},
		{ID: 11, Title: "Spirit — Reminders", PID: 7},
		{},
	} {
		src.set(win)
		if sw, ok := recv(t, w, 100*time.Millisecond); ok {
			t.Fatalf("reported %+v", sw)
		}
	}
	// "Spirited Away" is not Spirit.
	film := platform.Window{ID: 12, Title: "Spirited Away - VLC media player", PID: 8, Class: "vlc"}
	src.set(film)
	if sw, ok := recv(t, w, time.Second); !ok || sw.Window != 12 {
		t.Fatalf("film not reported: %+v", sw)
	}
}

// TestWatcherLooksAgainAwayFromTheLawyersWindows: after a snapshot found
// Spirit's own window or none in front, the lawyer's next window is
// reported even if the window system never tells of it.
func TestWatcherLooksAgainAwayFromTheLawyersWindows(t *testing.T) {
	for name, away := range map[string]platform.Window{
		"Spirit's window": {ID: 10, Title: "Spirit", PID: 4242},
		"no window":       {},
	} {
		t.Run(name, func(t *testing.T) {
			src := newFake(mailWin)
			w := StartWatcher(t.Context(), src, WatchConfig{Debounce: -1, OwnPID: 4242})
			defer w.Stop()
			if sw, ok := recv(t, w, time.Second); !ok || sw.Window != mailWin.ID {
				t.Fatalf("first switch = %+v, %v", sw, ok)
			}
			src.set(away)
			if sw, ok := recv(t, w, 2*ownRecheck); ok {
				t.Fatalf("reported %+v", sw)
			}
			src.setQuietly(docWin)
			if sw, ok := recv(t, w, 2*maxRecheck); !ok || sw.Window != docWin.ID {
				t.Fatalf("after the window came back untold: got %+v, %v, want the document", sw, ok)
			}
		})
	}
}

// TestWatcherConfirmsWhatItRead: the window system told of a change, but
// the snapshot found the window before back in front for a moment; the
// change is reported all the same, told of or not.
func TestWatcherConfirmsWhatItRead(t *testing.T) {
	src := newFake(mailWin)
	w := StartWatcher(t.Context(), src, WatchConfig{Debounce: -1, OwnPID: 1})
	defer w.Stop()
	if sw, ok := recv(t, w, time.Second); !ok || sw.Window != mailWin.ID {
		t.Fatalf("first switch = %+v, %v", sw, ok)
	}
	// Let the first snapshot's confirmation pass, so that the next read
	// is the one the change is told for.
	if sw, ok := recv(t, w, 2*confirmAfter); ok {
		t.Fatalf("reported %+v", sw)
	}
	src.mu.Lock()
	src.then = []platform.Window{mailWin}
	src.mu.Unlock()
	src.set(docWin)
	if sw, ok := recv(t, w, 2*confirmAfter); !ok || sw.Window != docWin.ID {
		t.Fatalf("got %+v, %v, want the document", sw, ok)
	}
}

func TestWatcherExcludedCarriesNoTitle(t *testing.T) {
	var logs bytes.Buffer
	src := newFake(vault)
	w := StartWatcher(t.Context(), src, WatchConfig{Debounce: -1, OwnPID: 1,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	defer w.Stop()
	sw, ok := recv(t, w, time.Second)
	// Not even which app (issue 27): a password manager's name, or an app
	// the lawyer excluded, says enough. The window is known by its id.
	if !ok || !sw.Excluded || sw.Title != "" || sw.App != "" || sw.Class != "" || sw.Process != "" ||
		sw.Window != vault.ID || sw.ExcludedBy != ReasonPasswordManager {
		t.Fatalf("switch = %+v", sw)
	}
	// A title change inside an excluded window is not news.
	v2 := vault
	v2.Title = "Other.kdbx - KeePassXC"
	src.set(v2)
	if sw, ok := recv(t, w, 100*time.Millisecond); ok {
		t.Fatalf("title change of an excluded window reported: %+v", sw)
	}
	// Logging a switch shows no title.
	slog.New(slog.NewTextHandler(&logs, nil)).Info("glance", "switch", sw)
	if l := strings.ToLower(logs.String()); strings.Contains(l, "kdbx") || strings.Contains(l, "keepass") {
		t.Fatalf("title or app in logs: %s", logs.String())
	}
}

func TestWatcherRetriesFailedSnapshots(t *testing.T) {
	src := newFake(mailWin)
	src.fail = 3 // the window closes as it is read, three times
	w := StartWatcher(t.Context(), src, WatchConfig{Debounce: -1, OwnPID: 1})
	defer w.Stop()
	if sw, ok := recv(t, w, 2*time.Second); !ok || sw.Window != 1 {
		t.Fatalf("switch after retries = %+v, %v", sw, ok)
	}
}

func TestWatcherKeepsOnlyLatestForSlowReader(t *testing.T) {
	src := newFake(mailWin)
	w := StartWatcher(t.Context(), src, WatchConfig{Debounce: -1, OwnPID: 1})
	defer w.Stop()
	<-src.watchOn
	time.Sleep(50 * time.Millisecond) // mail settles, nobody reads
	src.set(docWin)
	time.Sleep(50 * time.Millisecond)
	if sw, ok := recv(t, w, time.Second); !ok || sw.Window != 2 {
		t.Fatalf("slow reader got %+v, want the latest (document)", sw)
	}
}

func TestWatcherStopsWhenWatchFails(t *testing.T) {
	src := newFake(mailWin)
	w := StartWatcher(t.Context(), src, WatchConfig{Debounce: -1, OwnPID: 1,
		Logger: slog.New(slog.DiscardHandler)})
	<-src.watchOn
	boom := errors.New("X connection lost")
	src.end <- boom
	select {
	case <-w.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("watcher still running")
	}
	if !errors.Is(w.Err(), boom) {
		t.Fatalf("Err = %v, want %v", w.Err(), boom)
	}
	for range w.Switches() { // closed, possibly after a pending switch
	}
	w.Stop() // harmless after the fact
}

func TestWatcherStopLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		src := newFake(mailWin)
		w := StartWatcher(t.Context(), src, WatchConfig{Debounce: time.Millisecond, OwnPID: 1})
		<-src.watchOn
		w.Stop()
		w.Stop()
		if _, ok := <-w.Switches(); ok {
			// A pending switch is dropped, never delivered after Stop.
			t.Fatal("switch delivered after Stop")
		}
	}
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Stop, %d before", n, before)
	}
}

// TestWatcherAppliesEditedExclusions: the lawyer adds an app to the
// excluded list while Spirit watches; from the next switch to it on, it is
// reported excluded, with no title.
func TestWatcherAppliesEditedExclusions(t *testing.T) {
	src := newFake(mailWin)
	var mu sync.Mutex
	lists := NewExclusions(nil, nil)
	w := StartWatcher(t.Context(), src, WatchConfig{Debounce: -1, OwnPID: 1, ExclusionsNow: func() *Exclusions {
		mu.Lock()
		defer mu.Unlock()
		return lists
	}})
	defer w.Stop()
	if sw, ok := recv(t, w, time.Second); !ok || sw.Excluded || sw.Title != mailWin.Title {
		t.Fatalf("first switch = %+v, %v; want the mail, titled", sw, ok)
	}
	mu.Lock()
	lists = NewExclusions([]string{"Thunderbird"}, nil)
	mu.Unlock()
	src.set(docWin)
	if sw, ok := recv(t, w, time.Second); !ok || sw.Window != docWin.ID || sw.Excluded {
		t.Fatalf("switch = %+v, %v; want the document, not excluded", sw, ok)
	}
	src.set(mailWin)
	sw, ok := recv(t, w, time.Second)
	if !ok || sw.Window != mailWin.ID || !sw.Excluded || sw.Title != "" || sw.App != "" || sw.Class != "" || sw.Process != "" ||
		sw.ExcludedBy != ReasonUserList {
		t.Fatalf("switch back = %+v, %v; want the mail excluded by the lawyer's list, unnamed", sw, ok)
	}
}
