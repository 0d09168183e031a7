package work

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work/pace"
)

// Debug log messages of a run that waits; tests listen for them.
const (
	logWaitingForRun  = "work: waiting for a run in flight"
	logWaitingForSlot = "work: waiting for a free slot"
)

// gate is the runs in flight past the pre-model gate (Before): each may
// still deliver, so the gate counts them as delivered, with their dedup
// keys, until their outcomes are recorded. Without them, requests that
// come in together would all pass on the finished runs alone and each
// call the model for what only a few may show.
type gate struct {
	mu   sync.Mutex
	held map[int64]string // run id → its dedup key
	// changed is closed, and replaced, when a held run leaves.
	changed chan struct{}
}

func newGate() gate { return gate{held: map[int64]string{}, changed: make(chan struct{})} }

// enter applies Before to run's request against the runs delivered, the
// nudges of the last hour and the runs in flight past this point. A
// reason from what is recorded skips the run; one due only to runs in
// flight makes it wait until one of them ends and look again, so that it
// is skipped only for what was delivered (a run in flight with its key
// may stay silent). "" lets it through, held until Runner.gate.leave.
func (r *Runner) enter(ctx context.Context, run int64, req Request, pol pace.Policy) (Reason, error) {
	for {
		changed, why, err := r.tryEnter(ctx, run, req.DedupKey, pol)
		if err != nil || changed == nil {
			return why, err
		}
		r.opt.Log.Debug(logWaitingForRun, "run", run, "source", req.Source)
		select {
		case <-changed:
		case <-ctx.Done():
			return "", fmt.Errorf("stopped while waiting for other work to end: %w", ctx.Err())
		}
	}
}

// tryEnter is one look of enter; a non-nil changed says to wait on it.
func (r *Runner) tryEnter(ctx context.Context, run int64, key string, pol pace.Policy) (changed chan struct{}, why Reason, err error) {
	g := &r.gate
	// The store is read under the lock: a run that leaves after the read
	// is still held, one that left before is in what was read.
	g.mu.Lock()
	defer g.mu.Unlock()
	now := r.opt.Now()
	delivered, nudges, err := r.recent(ctx, now)
	if err != nil {
		return nil, "", err
	}
	if why := Before(now, key, delivered, nudges, pol, r.opt.DedupWindow); why != "" {
		return nil, why, nil
	}
	inFlight := slices.Clip(delivered)
	for _, k := range g.held {
		inFlight = append(inFlight, store.WorkRun{DedupKey: k, Delivered: &now})
	}
	if Before(now, key, inFlight, nudges, pol, r.opt.DedupWindow) != "" {
		return g.changed, "", nil
	}
	g.held[run] = key
	return nil, "", nil
}

// leave ends run's hold, if it had one, and wakes the runs waiting.
func (g *gate) leave(run int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.held[run]; !ok {
		return
	}
	delete(g.held, run)
	close(g.changed)
	g.changed = make(chan struct{})
}

// slot waits for one of the MaxRunning slots and returns the function
// that frees it.
func (r *Runner) slot(ctx context.Context, source Source) (free func(), err error) {
	free = func() { <-r.slots }
	select {
	case r.slots <- struct{}{}:
		return free, nil
	default:
	}
	r.opt.Log.Debug(logWaitingForSlot, "source", source)
	select {
	case r.slots <- struct{}{}:
		return free, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped while waiting for other work to end: %w", ctx.Err())
	}
}
