package nudge

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/spirit-app/spirit/agents/store"
)

// Responder acts on the lawyer's answer to nudge n, after the answer is
// recorded: choice is an API action or a bubble choice (see Accept), text
// what the lawyer typed.
type Responder func(ctx context.Context, n store.Nudge, choice, text string) error

// ErrNoResponder is returned by Respond for a kind nothing acts on.
var ErrNoResponder = errors.New("no responder for this kind of nudge")

// Responders sends each answer to the responder registered for its nudge's
// kind. It is safe for concurrent use.
type Responders struct {
	fallback Responder

	mu     sync.RWMutex
	byKind map[Kind]Responder
}

// NewResponders returns a registry that sends answers to kinds with no
// responder of their own to fallback; with a nil fallback, Respond returns
// ErrNoResponder for them.
func NewResponders(fallback Responder) *Responders {
	return &Responders{fallback: fallback, byKind: map[Kind]Responder{}}
}

// Register makes r act on answers to nudges of kind. Registering a kind
// twice, or a nil responder, is a wiring mistake and panics.
func (rs *Responders) Register(kind Kind, r Responder) {
	if r == nil {
		panic(fmt.Sprintf("nudge: nil responder for kind %q", kind))
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if _, dup := rs.byKind[kind]; dup {
		panic(fmt.Sprintf("nudge: kind %q already has a responder", kind))
	}
	rs.byKind[kind] = r
}

// Respond hands the answer to the responder for n.Kind, else to the
// fallback, and returns what it returns.
func (rs *Responders) Respond(ctx context.Context, n store.Nudge, choice, text string) error {
	rs.mu.RLock()
	r, ok := rs.byKind[n.Kind]
	rs.mu.RUnlock()
	if !ok {
		r = rs.fallback
	}
	if r == nil {
		return fmt.Errorf("nudge %d of kind %q: %w", n.ID, n.Kind, ErrNoResponder)
	}
	return r(ctx, n, choice, text)
}
