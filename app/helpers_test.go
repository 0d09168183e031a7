package app

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
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

// startAPI serves the local API on c, as Spirit does, until the test ends,
// and returns a client of it.
func startAPI(t *testing.T, c *Core) *api.Client {
	t.Helper()
	dir := t.TempDir()
	srv := api.New(c, api.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if _, err := srv.Start(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(context.Background()) }()
	t.Cleanup(func() {
		srv.Shutdown(context.Background())
		<-ran
	})
	info, err := api.ReadInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(info)
}

// deskless makes the test's Spirit find no desktop: no session bus (the
// secrets go to a file in dir), no display (the watcher reports nothing,
// so switches come from the test).
func deskless(t *testing.T, dir string) {
	t.Helper()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv("DISPLAY", "")
}

// runParts runs every part under the supervisor, as Run does, until the
// test ends; the supervisor must stop without an error.
func runParts(t *testing.T, p *parts) {
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

// runningParts builds Spirit whole without a desktop, subscribes to the
// events in mask as a front end would, and runs every part until the test
// ends.
func runningParts(t *testing.T, mask events.Type) (*parts, *store.Store, *events.Subscription) {
	t.Helper()
	dir := t.TempDir()
	deskless(t, dir)
	p, st := newTestParts(t, dir)
	sub := p.bus.Subscribe(mask, 0)
	t.Cleanup(sub.Unsubscribe)
	runParts(t, p)
	return p, st, sub
}
