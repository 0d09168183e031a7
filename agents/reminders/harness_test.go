package reminders

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// settleTimeout only guards against a hung test; nothing waits for it.
const settleTimeout = 10 * time.Second

// fakeClock is a Clock that moves only when told to.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]struct{}
}

type fakeTimer struct {
	c  *fakeClock
	at time.Time
	ch chan time.Time
}

func newFakeClock(now time.Time) *fakeClock {
	return &fakeClock{now: now, timers: make(map[*fakeTimer]struct{})}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		return t
	}
	c.timers[t] = struct{}{}
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	_, ok := t.c.timers[t]
	delete(t.c.timers, t)
	return ok
}

// Advance moves the clock and fires the timers that fall due; it returns
// how many fired.
func (c *fakeClock) Advance(d time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	n := 0
	for t := range c.timers {
		if !t.at.After(c.now) {
			t.ch <- c.now
			delete(c.timers, t)
			n++
		}
	}
	return n
}

// Timers are the deadlines of the timers somebody waits on.
func (c *fakeClock) Timers() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Time
	for t := range c.timers {
		out = append(out, t.at)
	}
	return out
}

// firing is one call of Notifier.Fired.
type firing struct {
	r      store.Reminder
	n      store.Nudge
	missed bool
}

// recorder is the app's side of the Notifier, as tests see it.
type recorder struct {
	mu        sync.Mutex
	fired     []firing
	withdrawn []int64
	panicFor  map[int64]bool // reminder ids whose firing makes Fired panic
}

func (r *recorder) Fired(_ context.Context, rem store.Reminder, n store.Nudge, missed bool) {
	r.mu.Lock()
	r.fired = append(r.fired, firing{rem, n, missed})
	boom := r.panicFor[rem.ID]
	r.mu.Unlock()
	if boom {
		panic("the app fell over while showing the bubble")
	}
}

func (r *recorder) Withdrawn(_ context.Context, id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.withdrawn = append(r.withdrawn, id)
}

func (r *recorder) Firings() []firing {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.fired)
}

func (r *recorder) Withdrawals() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.withdrawn)
}

// runner runs a Scheduler in the background and lets the test wait until
// its loop is idle again, without sleeping.
type runner struct {
	t   *testing.T
	sch *Scheduler
	clk *fakeClock

	mu    sync.Mutex
	seq   int       // waits begun so far
	wake  time.Time // end of the current wait; zero: no timer
	tick  chan struct{}
	done  chan error
	stopF context.CancelFunc
}

func quietLogger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// newRunner makes a Scheduler on st with the fake clock; start runs it.
func newRunner(t *testing.T, st *store.Store, clk *fakeClock, n Notifier, maxSleep time.Duration) *runner {
	t.Helper()
	r := &runner{t: t, clk: clk, tick: make(chan struct{})}
	r.sch = New(st, n, Options{Clock: clk, Logger: quietLogger(t), MaxSleep: maxSleep})
	r.sch.onSleep = r.slept
	return r
}

func (r *runner) slept(wake time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	r.wake = wake
	close(r.tick)
	r.tick = make(chan struct{})
}

// start runs the scheduler and waits for its first wait. A wake-up left
// over from commands before Run is dropped: Run reads everything anyway.
func (r *runner) start() {
	r.t.Helper()
	before := r.Seq()
	r.launch()
	r.settle(before)
}

// launch runs the scheduler without waiting for it.
func (r *runner) launch() {
	select {
	case <-r.sch.changed:
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.stopF, r.done = cancel, make(chan error, 1)
	go func() { r.done <- r.sch.Run(ctx) }()
	r.t.Cleanup(r.stop)
}

// stop ends Run, as quitting Spirit does.
func (r *runner) stop() {
	if r.stopF == nil {
		return
	}
	r.stopF()
	r.stopF = nil
	select {
	case err := <-r.done:
		if !errors.Is(err, context.Canceled) {
			r.t.Errorf("Run returned %v", err)
		}
	case <-time.After(settleTimeout):
		r.t.Fatal("Run did not return after its context ended")
	}
}

func (r *runner) Seq() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// Wake is when the current wait ends; zero if it has no timer.
func (r *runner) Wake() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wake
}

// settle waits until the loop has begun a wait after wait number before.
func (r *runner) settle(before int) {
	r.t.Helper()
	deadline := time.After(settleTimeout)
	for {
		r.mu.Lock()
		seq, tick := r.seq, r.tick
		r.mu.Unlock()
		if seq > before {
			return
		}
		select {
		case <-tick:
		case <-deadline:
			r.t.Fatalf("scheduler did not go back to waiting (waits so far: %d)", seq)
		}
	}
}

// do runs one command that calls Changed once, and waits for the loop to
// take it in. With several Changed calls the loop might wake for the first
// and be busy with the next when do returns.
func (r *runner) do(f func()) {
	r.t.Helper()
	before := r.Seq()
	f()
	r.settle(before)
}

// advance moves the clock; if that ends the scheduler's wait, it waits for
// the loop to be idle again.
func (r *runner) advance(d time.Duration) {
	r.t.Helper()
	before := r.Seq()
	if r.clk.Advance(d) > 0 {
		r.settle(before)
	}
}

// advanceTo moves the clock to t.
func (r *runner) advanceTo(t time.Time) { r.t.Helper(); r.advance(t.Sub(r.clk.Now())) }

// openStore opens a store file in dir whose clock is clk.
func openStore(t *testing.T, path string, clk *fakeClock) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Now = clk.Now
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

func tempDB(t *testing.T) string { return filepath.Join(t.TempDir(), store.FileName) }

// reminderEvents are the world log texts about reminder id.
func reminderEvents(t *testing.T, st *store.Store, id int64) []string {
	t.Helper()
	es, err := st.Since(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Source == "reminders" && e.Identifier == store.ReminderIdentifier(id) {
			out = append(out, e.Text)
		}
	}
	return out
}

func mustReminder(t *testing.T, st *store.Store, id int64) store.Reminder {
	t.Helper()
	r, err := st.Reminder(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustNudge(t *testing.T, st *store.Store, id int64) store.Nudge {
	t.Helper()
	n, err := st.Nudge(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tp(t time.Time) *time.Time { return &t }
