package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/platform/xtest"
)

// TestMain fails the package if any test leaves a goroutine behind: Run must
// not return before every service goroutine has ended.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// patience bounds every wait in these tests, so a bug fails instead of
// hanging. Nothing sleeps: tests wait on events and on the fake clock.
const patience = 10 * time.Second

var quiet = slog.New(slog.DiscardHandler)

// fakeClock is a Clock under the test's control. In auto mode every After
// fires at once (time jumps forward by d); otherwise each After is handed to
// the test on waits and fires when the test says.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	auto  bool
	asked []time.Duration // every After, in order
	waits chan fakeWait
}

type fakeWait struct {
	d time.Duration
	c chan time.Time
}

func newFakeClock(auto bool) *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC), auto: auto, waits: make(chan fakeWait, 64)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.asked = append(c.asked, d)
	if c.auto {
		c.now = c.now.Add(d)
		ch <- c.now
		c.mu.Unlock()
		return ch
	}
	c.mu.Unlock()
	c.waits <- fakeWait{d, ch}
	return ch
}

func (c *fakeClock) Asked() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.asked)
}

// nextWait returns the next After the supervisor asked for.
func (c *fakeClock) nextWait(t *testing.T) fakeWait {
	t.Helper()
	select {
	case w := <-c.waits:
		return w
	case <-time.After(patience):
		t.Fatal("no backoff wait was asked for")
		return fakeWait{}
	}
}

// fire lets a wait end, moving time forward by its length.
func (c *fakeClock) fire(w fakeWait) {
	c.Advance(w.d)
	w.c <- c.Now()
}

// step is one run of a scripted service.
type step struct {
	runFor time.Duration // fake time the run takes before it ends
	err    error         // what the run returns
	panic  any           // if not nil, the run panics with it instead
	block  bool          // the run waits for its context, then returns err
}

// scripted runs its steps one per Run call; past the end it blocks until
// its context ends and returns ctx.Err().
type scripted struct {
	clock *fakeClock
	mu    sync.Mutex
	steps []step
	calls int
}

func (s *scripted) Run(ctx context.Context) error {
	s.mu.Lock()
	i := s.calls
	s.calls++
	s.mu.Unlock()
	if i >= len(s.steps) {
		<-ctx.Done()
		return ctx.Err()
	}
	st := s.steps[i]
	if s.clock != nil {
		s.clock.Advance(st.runFor)
	}
	if st.panic != nil {
		panic(st.panic)
	}
	if st.block {
		<-ctx.Done()
	}
	return st.err
}

func (s *scripted) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// harness runs a supervisor in the background with a bus watching it.
type harness struct {
	t      *testing.T
	sup    *Supervisor
	sub    *events.Subscription
	seen   []events.ServiceState // every state read from sub so far
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returns
	err    error         // Run's result, set before done closes
}

func start(t *testing.T, sup *Supervisor, bus *events.Bus, ctx context.Context) *harness {
	t.Helper()
	h := &harness{t: t, sup: sup, sub: bus.Subscribe(events.ServiceChanged, 1024), done: make(chan struct{})}
	ctx, h.cancel = context.WithCancel(ctx)
	go func() {
		defer close(h.done)
		h.err = sup.Run(ctx)
	}()
	t.Cleanup(func() {
		h.cancel()
		select {
		case <-h.done:
		case <-time.After(patience):
			t.Error("Run did not return after cancel")
		}
		h.sub.Unsubscribe()
	})
	return h
}

// next returns the next published state.
func (h *harness) next() events.ServiceState {
	h.t.Helper()
	select {
	case e := <-h.sub.C():
		st := e.Data.(events.ServiceState)
		h.seen = append(h.seen, st)
		return st
	case <-time.After(patience):
		h.t.Fatal("no ServiceChanged event")
		return events.ServiceState{}
	}
}

// waitUntil returns the first published state, past or coming, that
// matches ok.
func (h *harness) waitUntil(ok func(events.ServiceState) bool) events.ServiceState {
	h.t.Helper()
	for _, st := range h.seen {
		if ok(st) {
			return st
		}
	}
	for {
		if st := h.next(); ok(st) {
			return st
		}
	}
}

// waitFor returns the first time name reached state.
func (h *harness) waitFor(name, state string) events.ServiceState {
	h.t.Helper()
	return h.waitUntil(func(st events.ServiceState) bool { return st.Name == name && st.State == state })
}

// waitRunning returns when name runs after restarts restarts.
func (h *harness) waitRunning(name string, restarts int) {
	h.t.Helper()
	h.waitUntil(func(st events.ServiceState) bool {
		return st.Name == name && st.State == StateRunning && st.Restarts == restarts
	})
}

// stop cancels Run's context and waits for Run to return nil.
func (h *harness) stop() {
	h.t.Helper()
	h.cancel()
	select {
	case <-h.done:
		if h.err != nil {
			h.t.Errorf("Run returned %v, want nil", h.err)
		}
	case <-time.After(patience):
		h.t.Fatal("Run did not return after cancel")
	}
}

// rest returns what is still buffered on the subscription.
func (h *harness) rest() []events.ServiceState {
	var out []events.ServiceState
	for {
		select {
		case e := <-h.sub.C():
			out = append(out, e.Data.(events.ServiceState))
		default:
			return out
		}
	}
}

var (
	errBoom  = errors.New("boom")
	errFlush = errors.New("flush failed")
)

func TestRestartBackoff(t *testing.T) {
	fail := step{err: errBoom}
	tests := []struct {
		name      string
		opts      Options
		steps     []step
		wantWaits []time.Duration
	}{
		{
			name:      "doubles up to the cap",
			opts:      Options{MinBackoff: time.Second, MaxBackoff: 8 * time.Second, ResetAfter: time.Minute},
			steps:     []step{fail, fail, fail, fail, fail, fail},
			wantWaits: []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second},
		},
		{
			name:  "a long run resets the backoff",
			opts:  Options{MinBackoff: time.Second, MaxBackoff: 8 * time.Second, ResetAfter: time.Minute},
			steps: []step{fail, fail, fail, {runFor: time.Minute, err: errBoom}, fail},
			wantWaits: []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second,
				1 * time.Second, 2 * time.Second},
		},
		{
			name:      "a run just short of ResetAfter does not reset",
			opts:      Options{MinBackoff: time.Second, MaxBackoff: 8 * time.Second, ResetAfter: time.Minute},
			steps:     []step{fail, fail, {runFor: time.Minute - time.Nanosecond, err: errBoom}},
			wantWaits: []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name:  "defaults: 1s doubling to 1 min",
			opts:  Options{},
			steps: []step{fail, fail, fail, fail, fail, fail, fail, fail},
			wantWaits: []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
				16 * time.Second, 32 * time.Second, time.Minute, time.Minute},
		},
		{
			name:      "panics back off like errors",
			opts:      Options{MinBackoff: 10 * time.Millisecond, MaxBackoff: time.Second, ResetAfter: time.Minute},
			steps:     []step{{panic: "kaboom"}, {panic: "kaboom"}, fail},
			wantWaits: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock(true)
			bus := events.NewBus()
			opts := tt.opts
			opts.Clock, opts.Events, opts.Log = clock, bus, quiet
			sup := New(opts)
			svc := &scripted{clock: clock, steps: tt.steps}
			sup.Add("svc", svc)
			h := start(t, sup, bus, context.Background())

			// After the script, the service runs for good.
			h.waitRunning("svc", len(tt.steps))
			h.stop()

			if got := clock.Asked(); !slices.Equal(got, tt.wantWaits) {
				t.Errorf("backoff waits = %v, want %v", got, tt.wantWaits)
			}
			last := tt.steps[len(tt.steps)-1]
			wantErr := fmt.Sprint(last.err)
			if last.panic != nil {
				wantErr = fmt.Sprintf("panic: %v", last.panic)
			}
			want := []events.ServiceState{{Name: "svc", State: StateStopped, LastError: wantErr, Restarts: len(tt.steps)}}
			if got := sup.States(); !slices.Equal(got, want) {
				t.Errorf("States() = %+v, want %+v", got, want)
			}
			if got, want := svc.Calls(), len(tt.steps)+1; got != want {
				t.Errorf("Run called %d times, want %d", got, want)
			}
		})
	}
}

// TestOutcomes checks how each way a run can end is treated, through the
// sequence of published states.
func TestOutcomes(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  []events.ServiceState // every published state, in order
	}{
		{
			name:  "nil before the end is done, not restarted",
			steps: []step{{err: nil}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateDone},
			},
		},
		{
			name:  "ctx.Err at the end is a normal stop",
			steps: nil, // blocks, returns ctx.Err()
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateStopped},
			},
		},
		{
			name:  "nil at the end is a normal stop",
			steps: []step{{block: true, err: nil}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateStopped},
			},
		},
		{
			name:  "wrapped context.Canceled at the end is a normal stop",
			steps: []step{{block: true, err: fmt.Errorf("listener: %w", context.Canceled)}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateStopped},
			},
		},
		{
			name:  "an error at the end is kept but not restarted",
			steps: []step{{block: true, err: errFlush}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateStopped, LastError: "flush failed"},
			},
		},
		{
			name:  "an error restarts",
			steps: []step{{err: errBoom}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateRestarting, LastError: "boom"},
				{Name: "s", State: StateRunning, LastError: "boom", Restarts: 1},
				{Name: "s", State: StateStopped, LastError: "boom", Restarts: 1},
			},
		},
		{
			name:  "context.Canceled before the end is an error",
			steps: []step{{err: context.Canceled}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateRestarting, LastError: "context canceled"},
				{Name: "s", State: StateRunning, LastError: "context canceled", Restarts: 1},
				{Name: "s", State: StateStopped, LastError: "context canceled", Restarts: 1},
			},
		},
		{
			name:  "a panic restarts",
			steps: []step{{panic: "kaboom"}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateRestarting, LastError: "panic: kaboom"},
				{Name: "s", State: StateRunning, LastError: "panic: kaboom", Restarts: 1},
				{Name: "s", State: StateStopped, LastError: "panic: kaboom", Restarts: 1},
			},
		},
		{
			name:  "a panic with an error value",
			steps: []step{{panic: errBoom}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateRestarting, LastError: "panic: boom"},
				{Name: "s", State: StateRunning, LastError: "panic: boom", Restarts: 1},
				{Name: "s", State: StateStopped, LastError: "panic: boom", Restarts: 1},
			},
		},
		{
			name:  "failures then done",
			steps: []step{{err: errBoom}, {err: errFlush}, {err: nil}},
			want: []events.ServiceState{
				{Name: "s", State: StateRunning},
				{Name: "s", State: StateRestarting, LastError: "boom"},
				{Name: "s", State: StateRunning, LastError: "boom", Restarts: 1},
				{Name: "s", State: StateRestarting, LastError: "flush failed", Restarts: 1},
				{Name: "s", State: StateRunning, LastError: "flush failed", Restarts: 2},
				{Name: "s", State: StateDone, LastError: "flush failed", Restarts: 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock(true)
			bus := events.NewBus()
			sup := New(Options{Clock: clock, Events: bus, Log: quiet})
			sup.Add("s", &scripted{clock: clock, steps: tt.steps})
			h := start(t, sup, bus, context.Background())

			// Read everything published before the end; a final "stopped"
			// comes only from the cancel.
			before := len(tt.want)
			if tt.want[len(tt.want)-1].State == StateStopped {
				before--
			}
			var got []events.ServiceState
			for range before {
				got = append(got, h.next())
			}
			h.stop()
			got = append(got, h.rest()...)

			if !slices.Equal(got, tt.want) {
				t.Errorf("published states:\n got %+v\nwant %+v", got, tt.want)
			}
			if final := sup.States(); !slices.Equal(final, tt.want[len(tt.want)-1:]) {
				t.Errorf("States() = %+v, want %+v", final, tt.want[len(tt.want)-1:])
			}
		})
	}
}

func TestPanicAndErrorAreLogged(t *testing.T) {
	tests := []struct {
		name string
		step step
		want []string // substrings of the log
	}{
		{"panic with stack", step{panic: "kaboom"}, []string{
			"service panicked", "service=mail", "panic=kaboom", "runtime/debug.Stack", "(*scripted).Run",
			"service failed; restarting", `err="panic: kaboom"`, "backoff=1s",
		}},
		{"error", step{err: errBoom}, []string{"service failed; restarting", "service=mail", "err=boom", "backoff=1s"}},
		{"done", step{}, []string{"service finished", "service=mail"}},
		{"error at stop", step{block: true, err: errFlush}, []string{"service failed while stopping", `err="flush failed"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf xtest.LockedBuffer
			clock := newFakeClock(true)
			bus := events.NewBus()
			sup := New(Options{Clock: clock, Events: bus, Log: slog.New(slog.NewTextHandler(&buf, nil))})
			sup.Add("mail", &scripted{clock: clock, steps: []step{tt.step}})
			h := start(t, sup, bus, context.Background())
			if tt.step.block {
				h.waitFor("mail", StateRunning)
			} else if tt.step.err == nil && tt.step.panic == nil {
				h.waitFor("mail", StateDone)
			} else {
				h.waitFor("mail", StateRestarting)
			}
			h.stop()
			log := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(log, w) {
					t.Errorf("log lacks %q:\n%s", w, log)
				}
			}
		})
	}
}

// TestBackoffWait watches a service while it waits out its backoff, with the
// clock stopped: it is "restarting" and the supervisor is not healthy until
// the wait ends; a cancel during the wait stops it at once.
func TestBackoffWait(t *testing.T) {
	clock := newFakeClock(false)
	bus := events.NewBus()
	sup := New(Options{Clock: clock, Events: bus, Log: quiet, MinBackoff: time.Second, MaxBackoff: time.Hour})
	flaky := &scripted{clock: clock, steps: []step{{err: errBoom}, {err: errBoom}, {err: errBoom}}}
	sup.Add("steady", &scripted{})
	sup.Add("flaky", flaky)
	sup.Add("oneshot", Func(func(context.Context) error { return nil }))

	wantStarting := []events.ServiceState{
		{Name: "steady", State: StateStarting},
		{Name: "flaky", State: StateStarting},
		{Name: "oneshot", State: StateStarting},
	}
	if got := sup.States(); !slices.Equal(got, wantStarting) {
		t.Errorf("before Run: States() = %+v, want %+v", got, wantStarting)
	}
	if !sup.Healthy() {
		t.Error("before Run: Healthy() = false, want true")
	}

	h := start(t, sup, bus, context.Background())
	h.waitFor("oneshot", StateDone)

	for i, d := range []time.Duration{time.Second, 2 * time.Second} {
		w := clock.nextWait(t)
		if w.d != d {
			t.Errorf("wait %d = %v, want %v", i, w.d, d)
		}
		// The state was set before the wait was asked for.
		if got, want := sup.States()[1], (events.ServiceState{Name: "flaky", State: StateRestarting, LastError: "boom", Restarts: i}); got != want {
			t.Errorf("during wait %d: flaky = %+v, want %+v", i, got, want)
		}
		if sup.Healthy() {
			t.Errorf("during wait %d: Healthy() = true, want false", i)
		}
		if got := flaky.Calls(); got != i+1 {
			t.Errorf("during wait %d: restarted early: %d calls, want %d", i, got, i+1)
		}
		clock.fire(w)
	}

	// Third failure: cancel during the wait instead of letting it end.
	clock.nextWait(t)
	h.stop()

	want := []events.ServiceState{
		{Name: "steady", State: StateStopped},
		{Name: "flaky", State: StateStopped, LastError: "boom", Restarts: 2},
		{Name: "oneshot", State: StateDone},
	}
	if got := sup.States(); !slices.Equal(got, want) {
		t.Errorf("after Run: States() = %+v, want %+v", got, want)
	}
	if !sup.Healthy() {
		t.Error("after Run: Healthy() = false, want true")
	}
	if got := flaky.Calls(); got != 3 {
		t.Errorf("flaky ran %d times, want 3", got)
	}
}

// TestHealthyRecovers: once the restarted service is running again, the
// supervisor is healthy again.
func TestHealthyRecovers(t *testing.T) {
	clock := newFakeClock(false)
	bus := events.NewBus()
	sup := New(Options{Clock: clock, Events: bus, Log: quiet})
	sup.Add("s", &scripted{clock: clock, steps: []step{{err: errBoom}}})
	h := start(t, sup, bus, context.Background())

	tests := []struct {
		name        string
		action      func()
		wait        func()
		wantHealthy bool
	}{
		{"failing", func() {}, func() { h.waitFor("s", StateRestarting) }, false},
		{"restarted", func() { clock.fire(clock.nextWait(t)) }, func() { h.waitRunning("s", 1) }, true},
	}
	for _, tt := range tests {
		tt.action()
		tt.wait()
		if got := sup.Healthy(); got != tt.wantHealthy {
			t.Errorf("%s: Healthy() = %v, want %v", tt.name, got, tt.wantHealthy)
		}
	}
	h.stop()
}

// orderLog records the order services stop in and checks, as each stops,
// that every service added before it is still running (its context alive).
type orderLog struct {
	mu      sync.Mutex
	ctxs    map[string]context.Context
	order   []string // names in Add order
	stopped []string
	errs    []string
}

func (l *orderLog) service(name string, kind string) Service {
	l.order = append(l.order, name)
	return Func(func(ctx context.Context) error {
		l.mu.Lock()
		l.ctxs[name] = ctx
		l.mu.Unlock()
		if kind == "done" {
			return nil
		}
		<-ctx.Done()
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, earlier := range l.order[:slices.Index(l.order, name)] {
			if c := l.ctxs[earlier]; c != nil && c.Err() != nil {
				l.errs = append(l.errs, fmt.Sprintf("%s stopping while %s already cancelled", name, earlier))
			}
		}
		l.stopped = append(l.stopped, name)
		return ctx.Err()
	})
}

func TestShutdownOrder(t *testing.T) {
	type svc struct{ name, kind string }
	tests := []struct {
		name     string
		services []svc
		want     []string
	}{
		{"one", []svc{{"api", "block"}}, []string{"api"}},
		{
			"reverse of Add",
			[]svc{{"store", "block"}, {"mail", "block"}, {"agents", "block"}, {"api", "block"}},
			[]string{"api", "agents", "mail", "store"},
		},
		{
			"finished services are skipped",
			[]svc{{"store", "block"}, {"migrate", "done"}, {"watcher", "block"}, {"api", "block"}},
			[]string{"api", "watcher", "store"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bus := events.NewBus()
			sup := New(Options{Clock: newFakeClock(true), Events: bus, Log: quiet})
			l := &orderLog{ctxs: map[string]context.Context{}}
			for _, s := range tt.services {
				sup.Add(s.name, l.service(s.name, s.kind))
			}
			h := start(t, sup, bus, context.Background())
			for _, s := range tt.services {
				if s.kind == "done" {
					h.waitFor(s.name, StateDone)
				}
			}
			for _, s := range tt.services {
				if s.kind != "done" {
					h.waitFor(s.name, StateRunning)
				}
			}
			h.stop()

			l.mu.Lock()
			defer l.mu.Unlock()
			if !slices.Equal(l.stopped, tt.want) {
				t.Errorf("stop order = %v, want %v", l.stopped, tt.want)
			}
			for _, e := range l.errs {
				t.Error(e)
			}
		})
	}
}

// TestNoRestartDuringShutdown: once Run's context has ended, a service that
// fails while waiting for its turn to be cancelled (say, because a later
// part it talks to has stopped) is not restarted.
func TestNoRestartDuringShutdown(t *testing.T) {
	clock := newFakeClock(false) // any restart would ask for a wait and hang
	bus := events.NewBus()
	sup := New(Options{Clock: clock, Events: bus, Log: quiet})
	apiStopping := make(chan struct{})
	mailReturned := make(chan error, 1) // mail's ctx.Err() when it returned
	sup.Add("mail", Func(func(ctx context.Context) error {
		<-apiStopping // its peer goes away before mail's own turn
		mailReturned <- ctx.Err()
		return errors.New("connection reset")
	}))
	sup.Add("api", Func(func(ctx context.Context) error {
		<-ctx.Done()
		close(apiStopping)
		// Hold api's stop until mail has failed, so mail fails while Run's
		// context is done but its own is not yet cancelled.
		if err := <-mailReturned; err != nil {
			t.Errorf("mail's context was %v when it failed, want alive", err)
		}
		return nil
	}))
	h := start(t, sup, bus, context.Background())
	h.waitFor("api", StateRunning)
	h.waitFor("mail", StateRunning)
	h.stop()

	want := []events.ServiceState{
		{Name: "mail", State: StateStopped, LastError: "connection reset"},
		{Name: "api", State: StateStopped},
	}
	if got := sup.States(); !slices.Equal(got, want) {
		t.Errorf("States() = %+v, want %+v", got, want)
	}
	if got := clock.Asked(); len(got) != 0 {
		t.Errorf("backoff waits asked during shutdown: %v", got)
	}
}

type ctxKey struct{}

func TestServiceContext(t *testing.T) {
	bus := events.NewBus()
	sup := New(Options{Events: bus, Log: quiet})
	got := make(chan any, 1)
	sup.Add("s", Func(func(ctx context.Context) error {
		got <- ctx.Value(ctxKey{})
		<-ctx.Done()
		return ctx.Err()
	}))
	h := start(t, sup, bus, context.WithValue(context.Background(), ctxKey{}, "v"))
	select {
	case v := <-got:
		if v != "v" {
			t.Errorf("ctx.Value = %v, want %q: a service's context carries Run's values", v, "v")
		}
	case <-time.After(patience):
		t.Fatal("service never ran")
	}
	h.stop()
}

func TestRunWithEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bus := events.NewBus()
	sub := bus.Subscribe(events.ServiceChanged, 0)
	defer sub.Unsubscribe()
	sup := New(Options{Events: bus, Log: quiet})
	ran := false
	sup.Add("a", Func(func(context.Context) error { ran = true; return nil }))
	sup.Add("b", Func(func(context.Context) error { ran = true; return nil }))

	if err := sup.Run(ctx); err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if ran {
		t.Error("a service ran although the context had ended")
	}
	want := []events.ServiceState{{Name: "a", State: StateStopped}, {Name: "b", State: StateStopped}}
	if got := sup.States(); !slices.Equal(got, want) {
		t.Errorf("States() = %+v, want %+v", got, want)
	}
	var published []events.ServiceState
	for len(sub.C()) > 0 {
		published = append(published, (<-sub.C()).Data.(events.ServiceState))
	}
	if !slices.Equal(published, want) {
		t.Errorf("published %+v, want %+v", published, want)
	}
}

func TestRunTwice(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sup := New(Options{Log: quiet})
	if err := sup.Run(ctx); err != nil {
		t.Fatalf("first Run = %v, want nil", err)
	}
	if err := sup.Run(ctx); err == nil {
		t.Error("second Run = nil, want an error")
	}
}

func TestRunWithoutServices(t *testing.T) {
	bus := events.NewBus()
	sup := New(Options{Events: bus, Log: quiet})
	h := start(t, sup, bus, context.Background())
	h.stop()
	if got := sup.States(); len(got) != 0 {
		t.Errorf("States() = %+v, want none", got)
	}
	if !sup.Healthy() {
		t.Error("Healthy() = false, want true")
	}
}

// mustPanic runs f and returns the panic message, or fails.
func mustPanic(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Error("no panic")
		}
		msg = fmt.Sprint(r)
	}()
	f()
	return ""
}

func TestAddPanics(t *testing.T) {
	nop := Func(func(ctx context.Context) error { <-ctx.Done(); return nil })
	tests := []struct {
		name  string
		setup func(t *testing.T, sup *Supervisor, bus *events.Bus) // before the bad Add
		add   func(sup *Supervisor)
		want  string
	}{
		{
			name:  "duplicate name",
			setup: func(t *testing.T, sup *Supervisor, bus *events.Bus) { sup.Add("mail", nop) },
			add:   func(sup *Supervisor) { sup.Add("mail", nop) },
			want:  `supervisor: Add("mail"): duplicate name`,
		},
		{
			name: "nil service",
			add:  func(sup *Supervisor) { sup.Add("mail", nil) },
			want: `supervisor: Add("mail"): nil service`,
		},
		{
			name: "while Run runs",
			setup: func(t *testing.T, sup *Supervisor, bus *events.Bus) {
				sup.Add("api", nop)
				h := start(t, sup, bus, context.Background())
				h.waitFor("api", StateRunning)
			},
			add:  func(sup *Supervisor) { sup.Add("late", nop) },
			want: `supervisor: Add("late") after Run started`,
		},
		{
			name: "after Run returned",
			setup: func(t *testing.T, sup *Supervisor, bus *events.Bus) {
				start(t, sup, bus, context.Background()).stop()
			},
			add:  func(sup *Supervisor) { sup.Add("late", nop) },
			want: `supervisor: Add("late") after Run started`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bus := events.NewBus()
			sup := New(Options{Events: bus, Log: quiet})
			if tt.setup != nil {
				tt.setup(t, sup, bus)
			}
			if got := mustPanic(t, func() { tt.add(sup) }); got != tt.want {
				t.Errorf("panic = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	clock := newFakeClock(true)
	tests := []struct {
		name string
		in   Options
		want Options // Clock, Events, Log checked separately
	}{
		{"zero", Options{}, Options{MinBackoff: time.Second, MaxBackoff: time.Minute, ResetAfter: time.Minute}},
		{"negative", Options{MinBackoff: -1, MaxBackoff: -1, ResetAfter: -1},
			Options{MinBackoff: time.Second, MaxBackoff: time.Minute, ResetAfter: time.Minute}},
		{"kept", Options{MinBackoff: 5 * time.Millisecond, MaxBackoff: time.Second, ResetAfter: 3 * time.Second},
			Options{MinBackoff: 5 * time.Millisecond, MaxBackoff: time.Second, ResetAfter: 3 * time.Second}},
		{"max below min is raised to min", Options{MinBackoff: 2 * time.Minute},
			Options{MinBackoff: 2 * time.Minute, MaxBackoff: 2 * time.Minute, ResetAfter: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := New(tt.in).opts
			got := Options{MinBackoff: o.MinBackoff, MaxBackoff: o.MaxBackoff, ResetAfter: o.ResetAfter}
			if got != tt.want {
				t.Errorf("durations = %+v, want %+v", got, tt.want)
			}
			if _, ok := o.Clock.(realClock); !ok {
				t.Errorf("Clock = %T, want realClock", o.Clock)
			}
			if _, ok := o.Events.(events.Noop); !ok {
				t.Errorf("Events = %T, want events.Noop", o.Events)
			}
			if o.Log != slog.Default() {
				t.Error("Log is not slog.Default()")
			}
		})
	}

	bus := events.NewBus()
	o := New(Options{Clock: clock, Events: bus, Log: quiet}).opts
	if o.Clock != Clock(clock) || o.Events != events.Logger(bus) || o.Log != quiet {
		t.Error("given Clock, Events or Log not kept")
	}
}

// TestStatesConcurrently reads States and Healthy while services churn
// through restarts. Run with -race.
func TestStatesConcurrently(t *testing.T) {
	clock := newFakeClock(true)
	bus := events.NewBus()
	sup := New(Options{Clock: clock, Events: bus, Log: quiet})
	var steps []step
	for range 50 {
		steps = append(steps, step{err: errBoom}, step{panic: "p"})
	}
	for i := range 4 {
		sup.Add(fmt.Sprint("s", i), &scripted{clock: clock, steps: steps})
	}
	h := start(t, sup, bus, context.Background())

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if n := len(sup.States()); n != 4 {
					t.Errorf("len(States()) = %d, want 4", n)
					return
				}
				sup.Healthy()
			}
		}()
	}
	for i := range 4 {
		h.waitRunning(fmt.Sprint("s", i), len(steps))
	}
	close(stop)
	wg.Wait()
	h.stop()
	for _, st := range sup.States() {
		if st.State != StateStopped || st.Restarts != len(steps) {
			t.Errorf("%s: %+v, want stopped after %d restarts", st.Name, st, len(steps))
		}
	}
}

func TestFuncIsService(t *testing.T) {
	var s Service = Func(func(context.Context) error { return errBoom })
	if err := s.Run(context.Background()); !errors.Is(err, errBoom) {
		t.Errorf("Run = %v, want %v", err, errBoom)
	}
}

func TestRealClock(t *testing.T) {
	var c Clock = realClock{}
	before := time.Now()
	if now := c.Now(); now.Before(before) {
		t.Errorf("Now() = %v, before %v", now, before)
	}
	select {
	case <-c.After(time.Millisecond):
	case <-time.After(patience):
		t.Error("After(1ms) never fired")
	}
}
