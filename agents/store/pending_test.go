package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openLockable opens a store whose waits for a lock are short. retryMin is
// the first pause of the pending events' retry loop; an hour keeps the loop
// out of a test.
func openLockable(t *testing.T, retryMin time.Duration) (*Store, *clock) {
	t.Helper()
	opt := defaultOptions()
	opt.busyTimeout = 200 * time.Millisecond
	opt.retryMin, opt.retryMax, opt.retryWait = retryMin, retryMin, 50*time.Millisecond
	s, err := open(t.Context(), filepath.Join(t.TempDir(), FileName), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := newClock()
	s.Now = c.Now
	return s, c
}

// waitFor polls cond, which reads state another goroutine changes, until
// it holds or the test's time is up.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

func mustLog(t *testing.T, s *Store, ctx context.Context, text string) (pending bool) {
	t.Helper()
	pending, err := s.LogEvent(ctx, Event{Source: "user", Identifier: "say", Text: text})
	if err != nil {
		t.Fatalf("log %q: %v", text, err)
	}
	return pending
}

func texts(t *testing.T, s *Store) []string {
	t.Helper()
	es, err := s.Since(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Text)
	}
	return out
}

func TestLogEventKeepsEventsWhileLockedAndRetries(t *testing.T) {
	s, clk := openLockable(t, 10*time.Millisecond)
	ctx := t.Context()
	if mustLog(t, s, ctx, "before") {
		t.Fatal("an event was kept pending on an unlocked database")
	}
	release := holdWriteLock(t, s.Path())
	clk.Advance(time.Minute)
	whenLocked := clk.Now()
	for _, text := range []string{"while locked 1", "while locked 2"} {
		if !mustLog(t, s, ctx, text) {
			t.Fatalf("%q was written through another connection's lock", text)
		}
	}
	if got := s.Pending(); got != 2 {
		t.Fatalf("Pending = %d, want 2", got)
	}
	clk.Advance(time.Minute)
	release()
	// The retry loop writes them once the lock is free, with no help.
	waitFor(t, "the pending events to be written", func() bool { return s.Pending() == 0 })
	got := texts(t, s)
	want := []string{"before", "while locked 1", "while locked 2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("world log %q, want %q", got, want)
	}
	es, _ := s.Recent(ctx, 1)
	if !es[0].TS.Equal(whenLocked) {
		t.Errorf("a kept event is stamped %v, want the time it happened, %v", es[0].TS, whenLocked)
	}
}

func TestNextWriteWritesPendingEventsFirst(t *testing.T) {
	s, _ := openLockable(t, time.Hour) // no retry loop: the next write must do it
	ctx := t.Context()
	release := holdWriteLock(t, s.Path())
	mustLog(t, s, ctx, "kept 1")
	mustLog(t, s, ctx, "kept 2")
	release()
	mustAppendEvent(t, s, Event{Source: "user", Text: "next"})
	if got, want := strings.Join(texts(t, s), "|"), "kept 1|kept 2|next"; got != want {
		t.Fatalf("world log %q, want %q", got, want)
	}
	if s.Pending() != 0 {
		t.Fatalf("%d events still pending after a write went through", s.Pending())
	}
	// A write that is not an append writes them too.
	release = holdWriteLock(t, s.Path())
	mustLog(t, s, ctx, "kept 3")
	release()
	if err := s.SetSetting(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, s); got[len(got)-1] != "kept 3" {
		t.Fatalf("world log %q lacks the kept event after a setting was written", got)
	}
}

func TestCloseWritesPendingEvents(t *testing.T) {
	s, _ := openLockable(t, time.Hour)
	release := holdWriteLock(t, s.Path())
	mustLog(t, s, t.Context(), "kept until close")
	release()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(t.Context(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := texts(t, s2); len(got) != 1 || got[0] != "kept until close" {
		t.Fatalf("after close: %q", got)
	}
}

func TestPendingEventsAreBounded(t *testing.T) {
	s, _ := openLockable(t, time.Hour)
	defer holdWriteLock(t, s.Path())()
	ctx := WaitOnce(t.Context()) // one wait, then each try is quick
	for i := range maxPending {
		if !mustLog(t, s, ctx, "x") {
			t.Fatalf("event %d written through the lock", i)
		}
	}
	_, err := s.LogEvent(ctx, Event{Source: "user", Text: "one too many"})
	if err == nil || !strings.Contains(err.Error(), "locked for too long") {
		t.Fatalf("event beyond the bound: %v", err)
	}
	if s.Pending() != maxPending {
		t.Fatalf("Pending = %d, want %d", s.Pending(), maxPending)
	}
}

// TestWaitOnceWaitsOnce: a request's writes wait for another program's lock
// once in all, not once each.
func TestWaitOnceWaitsOnce(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ctx       func(context.Context) context.Context
		wantWaits int64
	}{
		{"plain context: each write waits", func(ctx context.Context) context.Context { return ctx }, 3},
		{"WaitOnce: the first write waits, the others try once", WaitOnce, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openLockable(t, time.Hour)
			release := holdWriteLock(t, s.Path())
			ctx := tc.ctx(t.Context())
			for i := range 3 {
				err := s.SetBoolSetting(ctx, "listening.paused", true)
				if !errors.Is(err, ErrBusy) {
					t.Fatalf("write %d: %v, want ErrBusy", i, err)
				}
			}
			if got := s.BusyWaits(); got != tc.wantWaits {
				t.Errorf("BusyWaits = %d, want %d", got, tc.wantWaits)
			}
			release()
			// The lock is free again: the same context writes at once.
			if err := s.SetBoolSetting(ctx, "listening.paused", true); err != nil {
				t.Fatalf("write after release: %v", err)
			}
		})
	}
}
