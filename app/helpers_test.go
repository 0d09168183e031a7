package app

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
)

// newTestParts builds Spirit whole on a fresh store in dir, as Run does,
// without starting any part.
func newTestParts(t *testing.T, dir string) (*parts, *store.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p, err := build(ctx, partsConfig{Store: st, DataDir: dir, Version: "test", Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p, st
}

func newTestCore(t *testing.T, dir string) (*Core, *store.Store) {
	t.Helper()
	p, st := newTestParts(t, dir)
	return p.core, st
}

// recorder remembers what the core put on the event stream for the lawyer
// to see, as a front end would. Events are on the stream once the call that
// published them returns, so reading what is buffered is deterministic.
type recorder struct {
	c   *Core
	sub *events.Subscription

	shownN    []store.Nudge
	closedN   []int64
	statusesN []Status
	notes     []string
	opened    int
}

func record(c *Core) *recorder {
	return &recorder{c: c, sub: c.bus.(*events.Bus).Subscribe(events.AllEvents, 4096)}
}

// drain takes in every event published so far.
func (r *recorder) drain() {
	for {
		select {
		case ev := <-r.sub.C():
			switch ev.Type {
			case events.NudgeShown:
				r.shownN = append(r.shownN, ev.Data.(store.Nudge))
			case events.NudgeWithdrawn:
				r.closedN = append(r.closedN, ev.Data.(int64))
			case events.StatusChanged:
				r.statusesN = append(r.statusesN, r.c.Status())
			case events.NotifyRequested:
				n := ev.Data.(events.Notification)
				r.notes = append(r.notes, n.Title+": "+n.Body)
			case events.RemindersRequested:
				r.opened++
			}
		default:
			return
		}
	}
}

func (r *recorder) shown() []store.Nudge { r.drain(); return r.shownN }
func (r *recorder) closed() []int64      { r.drain(); return r.closedN }
func (r *recorder) statuses() []Status   { r.drain(); return r.statusesN }
