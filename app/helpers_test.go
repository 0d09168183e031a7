package app

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
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

// newHeadlessParts is newTestParts on a machine with no display and no
// session bus: app switches come from the test, as the watcher would
// publish them.
func newHeadlessParts(t *testing.T) (*parts, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv("DISPLAY", "")
	return newTestParts(t, dir)
}

// run starts every part under the supervisor until the test ends, when it
// checks that they stopped cleanly.
func (p *parts) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- p.sup.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Errorf("supervisor: %v", err)
		}
	})
}

// indexMailbox adds the lawyer's mbox account at path to st's mail index
// and reads it in.
func indexMailbox(t *testing.T, st *store.Store, path string, me mail.Address) *index.Index {
	t.Helper()
	ctx := context.Background()
	ix := index.New(st)
	acc, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: me.Name, Address: me.Email})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMbox(path, mbox.Options{From: me})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := ix.Sync(ctx, acc.ID, conn, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}
