package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
)

// holdDatabase takes spirit.db's write lock from another connection, as
// another program would, and returns the function that releases it.
func holdDatabase(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := conn.ExecContext(context.Background(), `COMMIT`); err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
}

// TestSayWhileTheDatabaseIsLocked: POST /say while another program holds
// spirit.db locked answers 503 "the database is busy" after one wait for
// the lock, GET /health shows the wait and the event kept in memory, and
// what was said reaches the world log once the lock is gone.
func TestSayWhileTheDatabaseIsLocked(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	c, st := newTestCore(t, dir)
	client := startAPI(t, c)
	health := func() api.Health {
		t.Helper()
		h, err := client.Health(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if got, want := health().Database, (api.DatabaseHealth{BusyWaits: st.BusyWaits()}); got != want {
		t.Errorf("health before the lock: %+v, want %+v", got, want)
	}

	release := holdDatabase(t, st.Path())
	waits := st.BusyWaits()
	_, err := client.Say(ctx, "pause listening")
	se, ok := errors.AsType[*api.StatusError](err)
	if !ok {
		t.Fatalf("POST /say while locked: error %v, want an *api.StatusError 503 the database is busy", err)
	}
	if se.Code != 503 {
		t.Fatalf("POST /say while locked: status %d, want 503 (%v)", se.Code, err)
	}
	if want := "the database is busy"; se.Message != want {
		t.Fatalf("POST /say while locked: message %q, want %q", se.Message, want)
	}
	if !errors.Is(err, store.ErrBusy) {
		t.Errorf("the client's error %v does not match store.ErrBusy", err)
	}
	// The say event waited for the lock and gave up; the setting's write
	// then tried the lock once without waiting again.
	if got := st.BusyWaits() - waits; got != 1 {
		t.Errorf("the request waited for the lock %d times, want 1", got)
	}
	if c.Status().ListeningPaused {
		t.Error("listening shows paused although the choice could not be saved")
	}
	if st.Pending() != 1 {
		t.Errorf("%d events kept in memory, want the say event", st.Pending())
	}
	h := health()
	if want := (api.DatabaseHealth{BusyWaits: waits + 1, PendingEvents: 1}); h.Database != want {
		t.Errorf("health while locked: database %+v, want %+v (1 more busy wait, 1 pending event)", h.Database, want)
	}
	if got := h.Subsystems["store"].State; got != "busy" {
		t.Errorf("health while locked: store state %q, want busy (%+v)", got, h.Subsystems["store"])
	}
	raw, err := json.Marshal(api.Health{Database: api.DatabaseHealth{BusyWaits: 2, PendingEvents: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"database":{"busy_waits":2,"pending_events":1}`; !strings.Contains(string(raw), want) {
		t.Errorf("/health JSON %s, want it to hold %s", raw, want)
	}

	release()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for st.Pending() > 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the kept event was never written after the lock was released")
		case <-tick.C:
		}
	}
	es, err := st.RecentEvents(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(es, func(e store.Entry) bool {
		return e.Source == "user" && e.Identifier == "say" && strings.HasSuffix(e.Text, "pause listening")
	}) {
		t.Fatalf("world log after the lock was released: %v", es)
	}
	h = health()
	if want := (api.DatabaseHealth{BusyWaits: waits + 1}); h.Database != want {
		t.Errorf("health after the lock was released: database %+v, want %+v (no pending event)", h.Database, want)
	}
	if got := h.Subsystems["store"].State; got != "ok" {
		t.Errorf("health after the lock was released: store state %q, want ok (%+v)", got, h.Subsystems["store"])
	}
	// And Spirit works again.
	res, err := client.Say(ctx, "pause listening")
	if err != nil {
		t.Fatalf("say after the lock was released: %v", err)
	}
	if !res.Handled {
		t.Fatalf("say after the lock was released: handled = false, want true (%+v)", res)
	}
}
