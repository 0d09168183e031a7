package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
)

// recorder is a Presenter that remembers what it was asked to show.
type recorder struct {
	statuses []Status
	shown    []store.Nudge
	closed   []int64
}

func (r *recorder) StatusChanged(s Status)               { r.statuses = append(r.statuses, s) }
func (r *recorder) ShowNudge(n store.Nudge)              { r.shown = append(r.shown, n) }
func (r *recorder) NudgeClosed(id int64)                 { r.closed = append(r.closed, id) }
func (r *recorder) Show()                                {}
func (r *recorder) Subsystems() map[string]api.Subsystem { return nil }

func newTestCore(t *testing.T, dir string) (*Core, *store.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c, err := NewCore(ctx, st, "test", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return c, st
}

func TestSayReachesTheCommandHandlerAndPersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, st := newTestCore(t, dir)
	rec := &recorder{}
	c.SetPresenter(rec)

	res, err := c.Say(ctx, "Hey Spirit, pause listening.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Intent != "pause_listening" || !res.Handled {
		t.Fatalf("Say = %+v", res)
	}
	if !c.Status().ListeningPaused || c.Status().WatchingPaused {
		t.Fatalf("status %+v", c.Status())
	}
	if len(rec.statuses) != 1 || rec.statuses[0].Line() != "Listening paused · Watching" {
		t.Errorf("presenter saw %+v", rec.statuses)
	}
	if h := c.Health(ctx); h.Subsystems["listening"].State != "paused" || h.Counters["say_commands"] != 1 {
		t.Errorf("health %+v", h)
	}
	es, err := st.Recent(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range es {
		texts = append(texts, e.Text)
	}
	if !strings.Contains(strings.Join(texts, "|"), "listening paused") {
		t.Errorf("world log %q lacks the pause", texts)
	}

	// Ambient speech changes nothing.
	if res, _ := c.Say(ctx, "the court will resume at two"); res.Handled || res.Intent != "none" {
		t.Errorf("ambient speech handled: %+v", res)
	}

	// A new Core on the same database starts paused: the toggle persisted.
	st.Close()
	c2, _ := newTestCore(t, dir)
	if !c2.Status().ListeningPaused {
		t.Error("pause not kept across restart")
	}
	if _, err := c2.Say(ctx, "resume"); err != nil {
		t.Fatal(err)
	}
	if c2.Status() != (Status{}) {
		t.Errorf("resume left %+v", c2.Status())
	}
}

func TestNudgeLifecycle(t *testing.T) {
	ctx := context.Background()
	c, _ := newTestCore(t, t.TempDir())
	rec := &recorder{}
	c.SetPresenter(rec)

	n, err := c.Notify(ctx, api.NewNudge{Kind: "info", Message: "Filing due at 5"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.shown) != 1 || rec.shown[0].ID != n.ID {
		t.Fatalf("shown %+v", rec.shown)
	}
	open, err := c.Nudges(ctx)
	if err != nil || len(open) != 1 {
		t.Fatalf("open nudges %+v, %v", open, err)
	}
	got, err := c.RespondNudge(ctx, n.ID, api.ActionAccept, "on it")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.NudgeAccepted || got.Answer != "on it" {
		t.Errorf("answered nudge %+v", got)
	}
	if len(rec.closed) != 1 || rec.closed[0] != n.ID {
		t.Errorf("closed %v", rec.closed)
	}
	if _, err := c.RespondNudge(ctx, n.ID, api.ActionDismiss, ""); !errors.Is(err, api.ErrConflict) {
		t.Errorf("second answer: %v, want ErrConflict", err)
	}
	if _, err := c.RespondNudge(ctx, 999, api.ActionDismiss, ""); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("unknown nudge: %v, want ErrNotFound", err)
	}
	if _, err := c.RespondNudge(ctx, n.ID, "delete", ""); !errors.Is(err, api.ErrBadRequest) {
		t.Errorf("bad action: %v, want ErrBadRequest", err)
	}
}
