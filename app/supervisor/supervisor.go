// Package supervisor runs Spirit's long-running parts (watchers, listeners,
// mail sync, the agent runner, the local API) under one owner.
//
// Why: a desktop assistant runs for weeks. A part that fails (a mail server
// hangs up, a capture call panics on an odd window) must come back by itself
// without taking the process down and without spinning: so an error or a
// panic restarts the part after a backoff that doubles up to a cap and resets
// once the part has run well for a while (the shape of suture's restart
// policy, which syncthing uses through lib/svcutil). Every state change is
// published as an events.ServiceChanged event and kept for States, so the UI
// and /health can say what is wrong instead of the lawyer finding out later.
//
// Why the shutdown order: parts depend on each other in the order they are
// added (the store first, the API last). When the context ends, parts are
// cancelled one at a time in reverse Add order and each is awaited before
// the next is cancelled, so nothing outlives what it uses (the API stops
// taking requests before the store-using parts stop).
//
// The contract for a Service: Run until ctx ends, then return (nil or
// ctx.Err()). Returning nil earlier means the part finished on purpose and is
// not restarted. Returning an error (or panicking) means it failed and is
// restarted. A Service that ignores ctx holds up shutdown: the supervisor
// waits for it.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/spirit-app/spirit/app/events"
)

// The states of a supervised part, as in events.ServiceState.State.
const (
	StateStarting   = "starting"   // added; Run has not started it yet
	StateRunning    = "running"    // its Run is executing
	StateRestarting = "restarting" // it failed and waits out the backoff
	StateDone       = "done"       // it returned nil on its own: finished on purpose
	StateStopped    = "stopped"    // stopped at shutdown
)

// Service is a long-running part. Run blocks until ctx ends (then returns
// nil or ctx.Err()), until the part is finished (nil), or until it fails
// (an error).
type Service interface {
	Run(ctx context.Context) error
}

// Func adapts a function to Service.
type Func func(ctx context.Context) error

// Run calls f(ctx).
func (f Func) Run(ctx context.Context) error { return f(ctx) }

// Clock is the time source, injected by tests.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Options configure a Supervisor. The zero value is usable.
type Options struct {
	MinBackoff time.Duration // first wait before a restart; default 1s
	MaxBackoff time.Duration // cap of the doubling; default 1 min
	ResetAfter time.Duration // a run this long resets the backoff; default 1 min
	Clock      Clock         // nil: real time; tests inject one (Now, After)
	Events     events.Logger // nil: events.Noop{}; ServiceChanged published on each state change
	Log        *slog.Logger  // nil: slog.Default()
}

// Defaults for Options.
const (
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = time.Minute
	DefaultResetAfter = time.Minute
)

// Supervisor runs services; see the package documentation.
type Supervisor struct {
	opts Options

	mu      sync.Mutex
	entries []*entry // in Add order; guarded by mu
	started bool     // guarded by mu
}

type entry struct {
	name  string
	svc   Service
	state events.ServiceState // guarded by Supervisor.mu
}

// New returns a supervisor with opts, defaults filled in.
func New(opts Options) *Supervisor {
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = opts.MinBackoff
	}
	if opts.ResetAfter <= 0 {
		opts.ResetAfter = DefaultResetAfter
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Events == nil {
		opts.Events = events.Noop{}
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Supervisor{opts: opts}
}

// Add registers a service under name. Services start in Add order and stop
// in reverse. Add panics if Run has started, if name is already taken, or if
// svc is nil: all are wiring mistakes.
func (s *Supervisor) Add(name string, svc Service) {
	if svc == nil {
		panic(fmt.Sprintf("supervisor: Add(%q): nil service", name))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		panic(fmt.Sprintf("supervisor: Add(%q) after Run started", name))
	}
	for _, e := range s.entries {
		if e.name == name {
			panic(fmt.Sprintf("supervisor: Add(%q): duplicate name", name))
		}
	}
	s.entries = append(s.entries, &entry{
		name:  name,
		svc:   svc,
		state: events.ServiceState{Name: name, State: StateStarting},
	})
}

// errRunTwice is returned by a second call to Run.
var errRunTwice = errors.New("supervisor: Run called more than once")

// Run starts every service in Add order, each in its own goroutine with its
// own context, and blocks until ctx ends and every service has stopped; then
// it returns nil. At shutdown services are cancelled one at a time in reverse
// Add order, each awaited before the next is cancelled. The contexts the
// services see carry ctx's values but are cancelled only by this ordered
// shutdown. Run may be called once.
func (s *Supervisor) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errRunTwice
	}
	s.started = true
	entries := s.entries
	s.mu.Unlock()

	if ctx.Err() != nil { // ended before anything started
		for _, e := range entries {
			s.setState(e, StateStopped, nil, false)
		}
		return nil
	}

	type running struct {
		cancel context.CancelFunc
		done   chan struct{}
	}
	runs := make([]running, len(entries))
	base := context.WithoutCancel(ctx)
	for i, e := range entries {
		child, cancel := context.WithCancel(base)
		done := make(chan struct{})
		runs[i] = running{cancel, done}
		go func() {
			defer close(done)
			s.supervise(ctx, child, e)
		}()
	}

	<-ctx.Done()
	for i := len(runs) - 1; i >= 0; i-- {
		runs[i].cancel()
		<-runs[i].done
	}
	return nil
}

// supervise runs e until it is done or stopped, restarting it after
// failures. parent is Run's context; child, e's own, is cancelled only after
// parent has ended, in e's turn. So parent decides: once it has ended, a run
// that ends is a stop, never a restart, even before child is cancelled.
func (s *Supervisor) supervise(parent, child context.Context, e *entry) {
	log := s.opts.Log.With("service", e.name)
	backoff := s.opts.MinBackoff
	for restart := false; ; restart = true {
		s.setState(e, StateRunning, nil, restart)
		start := s.opts.Clock.Now()
		err := runSafely(child, e.svc, log)
		stopping := parent.Err() != nil

		switch {
		case stopping && (err == nil || errors.Is(err, context.Canceled)):
			s.setState(e, StateStopped, nil, false)
			return
		case stopping:
			log.Error("service failed while stopping", "err", err)
			s.setState(e, StateStopped, err, false)
			return
		case err == nil:
			log.Info("service finished")
			s.setState(e, StateDone, nil, false)
			return
		}

		if s.opts.Clock.Now().Sub(start) >= s.opts.ResetAfter {
			backoff = s.opts.MinBackoff
		}
		log.Error("service failed; restarting", "err", err, "backoff", backoff)
		s.setState(e, StateRestarting, err, false)

		select {
		case <-s.opts.Clock.After(backoff):
		case <-parent.Done():
			s.setState(e, StateStopped, nil, false)
			return
		}
		backoff = min(2*backoff, s.opts.MaxBackoff)
	}
}

// runSafely calls svc.Run, turning a panic into an error after logging the
// stack.
func runSafely(ctx context.Context, svc Service, log *slog.Logger) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("service panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return svc.Run(ctx)
}

// setState records e's new state, err as LastError unless nil (LastError
// keeps the latest failure), and one more restart if restart is set; then it
// publishes the new state. Only e's own goroutine (or Run, before any starts)
// calls it, so the published order is the order of changes.
func (s *Supervisor) setState(e *entry, state string, err error, restart bool) {
	s.mu.Lock()
	e.state.State = state
	if err != nil {
		e.state.LastError = err.Error()
	}
	if restart {
		e.state.Restarts++
	}
	st := e.state
	s.mu.Unlock()
	s.opts.Events.Log(events.ServiceChanged, st)
}

// States returns the state of every service in Add order. Safe from any
// goroutine.
func (s *Supervisor) States() []events.ServiceState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]events.ServiceState, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.state
	}
	return out
}

// Healthy reports whether no service is failing, that is none is waiting to
// be restarted. A service that finished ("done") or was stopped counts as
// healthy; see States for LastError and Restarts.
func (s *Supervisor) Healthy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.entries {
		if e.state.State == StateRestarting {
			return false
		}
	}
	return true
}
