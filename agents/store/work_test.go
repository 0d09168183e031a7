package store

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

func mustWorkRun(t *testing.T, s *Store, source, key string) WorkRun {
	t.Helper()
	r, err := s.CreateWorkRun(t.Context(), NewWorkRun{Source: source, Prompt: "what is waiting on me?", DedupKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// noDuplicate lets a message through unless a delivered run has it.
func noDuplicate(msg string) func([]WorkRun, []Nudge) string {
	return func(delivered []WorkRun, _ []Nudge) string {
		for _, r := range delivered {
			if r.Message == msg {
				return "duplicate"
			}
		}
		return ""
	}
}

func TestWorkRunLifecycle(t *testing.T) {
	s, clock := openTest(t)
	ctx := t.Context()
	r := mustWorkRun(t, s, "routine:3", "routine:3@slot")
	if r.State != WorkQueued || r.Started != nil || r.Finished != nil || r.Delivered != nil || !r.Created.Equal(clock.Now()) {
		t.Fatalf("created %+v", r)
	}
	clock.Advance(time.Second)
	r, err := s.StartWorkRun(ctx, r.ID)
	if err != nil || r.State != WorkRunning || r.Started == nil || !r.Started.Equal(clock.Now()) {
		t.Fatalf("started %+v, %v", r, err)
	}
	if _, err := s.StartWorkRun(ctx, r.ID); !errors.Is(err, ErrInvalid) {
		t.Fatalf("second start: %v", err)
	}
	reason, err := s.ClaimWorkDelivery(ctx, r.ID, DeliveryClaim{Message: "Call Marcy.", Action: "draft a reply",
		RunsSince: clock.Now().Add(-24 * time.Hour), NudgesSince: clock.Now().Add(-time.Hour), Decide: noDuplicate("Call Marcy.")})
	if err != nil || reason != "" {
		t.Fatalf("claim: %q, %v", reason, err)
	}
	if _, err := s.ClaimWorkDelivery(ctx, r.ID, DeliveryClaim{Message: "x", Decide: noDuplicate("x")}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("second claim: %v", err)
	}
	open, err := s.OpenWorkRuns(ctx)
	if err != nil || len(open) != 1 || open[0].ID != r.ID || open[0].Delivered == nil || open[0].Message != "Call Marcy." {
		t.Fatalf("open runs %+v, %v", open, err)
	}
	clock.Advance(2 * time.Second)
	// The outcome's message cannot replace the one claimed.
	done, e, err := s.FinishWorkRun(ctx, r.ID, WorkOutcome{State: WorkDone, Message: "other", NudgeID: 0,
		DurationMS: 2000, TokensIn: 120, TokensOut: 30, CostUSD: 0.0012, Text: "routine:3: done, delivered"})
	if err != nil {
		t.Fatal(err)
	}
	if done.State != WorkDone || done.Message != "Call Marcy." || done.Action != "draft a reply" || done.Delivered == nil ||
		done.Finished == nil || !done.Finished.Equal(clock.Now()) || done.DurationMS != 2000 || done.TokensIn != 120 ||
		done.TokensOut != 30 || done.CostUSD != 0.0012 {
		t.Fatalf("finished %+v", done)
	}
	if e.Source != WorkEventSource || e.Identifier != WorkIdentifier(r.ID) || e.Text != "routine:3: done, delivered" {
		t.Fatalf("world log entry %+v", e)
	}
	if _, _, err := s.FinishWorkRun(ctx, r.ID, WorkOutcome{State: WorkError, Text: "again"}); !errors.Is(err, ErrWorkFinished) {
		t.Fatalf("second outcome: %v", err)
	}
	if _, err := s.StartWorkRun(ctx, r.ID); !errors.Is(err, ErrWorkFinished) {
		t.Fatalf("start after the outcome: %v", err)
	}
	es, err := s.Since(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range es {
		if e.Source == WorkEventSource {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d work entries in the world log, want exactly 1", n)
	}
	got, err := s.WorkRun(ctx, r.ID)
	if err != nil || !reflect.DeepEqual(got, done) {
		t.Fatalf("read back %+v, %v; want %+v", got, err, done)
	}
	if open, err := s.OpenWorkRuns(ctx); err != nil || len(open) != 0 {
		t.Fatalf("open runs after the outcome: %+v, %v", open, err)
	}
	if _, err := s.WorkRun(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing run: %v", err)
	}
}

func TestWorkOutcomeChecks(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	r := mustWorkRun(t, s, "heartbeat", "")
	cases := []struct {
		name string
		o    WorkOutcome
	}{
		{"not an outcome", WorkOutcome{State: WorkRunning, Text: "x"}},
		{"unknown state", WorkOutcome{State: "maybe", Text: "x"}},
		{"no world log text", WorkOutcome{State: WorkSkip, Reason: "busy"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := s.FinishWorkRun(ctx, r.ID, c.o); !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
	if _, err := s.CreateWorkRun(ctx, NewWorkRun{Source: " "}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty source: %v", err)
	}
	if _, _, err := s.FinishWorkRun(ctx, 999, WorkOutcome{State: WorkSkip, Text: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing run: %v", err)
	}
}

func TestClaimWorkDelivery(t *testing.T) {
	s, clock := openTest(t)
	ctx := t.Context()
	claim := func(id int64, msg string) DeliveryClaim {
		return DeliveryClaim{Message: msg, RunsSince: clock.Now().Add(-24 * time.Hour), NudgesSince: clock.Now().Add(-time.Hour),
			Decide: noDuplicate(msg)}
	}
	first := mustWorkRun(t, s, "heartbeat", "")
	if why, err := s.ClaimWorkDelivery(ctx, first.ID, claim(first.ID, "Sign the SNDA.")); err != nil || why != "" {
		t.Fatalf("first claim %q, %v", why, err)
	}

	t.Run("a claim of a stopped run still counts", func(t *testing.T) {
		// The first run never got its outcome (Spirit stopped).
		second := mustWorkRun(t, s, "heartbeat", "")
		why, err := s.ClaimWorkDelivery(ctx, second.ID, claim(second.ID, "Sign the SNDA."))
		if err != nil || why != "duplicate" {
			t.Fatalf("got %q, %v", why, err)
		}
		if r, _ := s.WorkRun(ctx, second.ID); r.Delivered != nil {
			t.Fatalf("a refused claim marked the run delivered: %+v", r)
		}
	})

	t.Run("undeliver frees the message", func(t *testing.T) {
		if _, _, err := s.FinishWorkRun(ctx, first.ID, WorkOutcome{State: WorkDone, Reason: "delivery failed", Undeliver: true, Text: "x"}); err != nil {
			t.Fatal(err)
		}
		r, _ := s.WorkRun(ctx, first.ID)
		if r.Delivered != nil || r.Message != "Sign the SNDA." {
			t.Fatalf("after undeliver %+v", r)
		}
		third := mustWorkRun(t, s, "heartbeat", "")
		if why, err := s.ClaimWorkDelivery(ctx, third.ID, claim(third.ID, "Sign the SNDA.")); err != nil || why != "" {
			t.Fatalf("got %q, %v", why, err)
		}
	})

	t.Run("decide sees the nudges of the last hour", func(t *testing.T) {
		old, err := s.CreateNudge(ctx, Nudge{Kind: "glance", Message: "old"})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(2 * time.Hour)
		recent, err := s.CreateNudge(ctx, Nudge{Kind: "glance", Message: "recent"})
		if err != nil {
			t.Fatal(err)
		}
		r := mustWorkRun(t, s, "webhook", "")
		var seen []int64
		_, err = s.ClaimWorkDelivery(ctx, r.ID, DeliveryClaim{Message: "m", NudgesSince: clock.Now().Add(-time.Hour),
			Decide: func(_ []WorkRun, ns []Nudge) string {
				for _, n := range ns {
					seen = append(seen, n.ID)
				}
				return "hourly-cap"
			}})
		if err != nil || len(seen) != 1 || seen[0] != recent.ID || seen[0] == old.ID {
			t.Fatalf("decide saw nudges %v (%v); want only %d", seen, err, recent.ID)
		}
		ns, err := s.NudgesSince(ctx, clock.Now().Add(-time.Hour))
		if err != nil || len(ns) != 1 || ns[0].ID != recent.ID {
			t.Fatalf("NudgesSince %+v, %v", ns, err)
		}
	})

	t.Run("concurrent claims of one text: exactly one passes", func(t *testing.T) {
		const n = 8
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = mustWorkRun(t, s, fmt.Sprintf("source-%d", i), "").ID
		}
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			passed int
		)
		for _, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				why, err := s.ClaimWorkDelivery(ctx, id, claim(id, "Closing moved to Monday."))
				if err != nil {
					t.Error(err)
					return
				}
				if why == "" {
					mu.Lock()
					passed++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if passed != 1 {
			t.Fatalf("%d claims passed, want 1", passed)
		}
		ds, err := s.DeliveredWorkRuns(ctx, clock.Now().Add(-time.Minute))
		if err != nil || len(ds) != 1 || ds[0].Message != "Closing moved to Monday." {
			t.Fatalf("delivered runs %+v, %v", ds, err)
		}
	})
}

func TestRoutines(t *testing.T) {
	s, clock := openTest(t)
	ctx := t.Context()
	r, err := s.CreateRoutine(ctx, NewRoutine{Cron: " 30 8 * * 1-5 ", Prompt: " what is waiting on me today? "})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cron != "30 8 * * 1-5" || r.Prompt != "what is waiting on me today?" || !r.Enabled || r.LastRun != nil || !r.Created.Equal(clock.Now()) {
		t.Fatalf("created %+v", r)
	}
	for _, bad := range []NewRoutine{{Cron: "", Prompt: "x"}, {Cron: "* * * * *", Prompt: "  "}} {
		if _, err := s.CreateRoutine(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Fatalf("create %+v: %v", bad, err)
		}
	}

	slot := clock.Now().Add(time.Hour)
	if got, err := s.MarkRoutineRun(ctx, r.ID, slot); err != nil || got.LastRun == nil || !got.LastRun.Equal(slot) {
		t.Fatalf("mark %+v, %v", got, err)
	}
	// A slow run ending after a later slot was handled does not move it back.
	if got, err := s.MarkRoutineRun(ctx, r.ID, slot.Add(-30*time.Minute)); err != nil || !got.LastRun.Equal(slot) {
		t.Fatalf("mark backwards %+v, %v", got, err)
	}
	if _, err := s.MarkRoutineRun(ctx, 999, slot); !errors.Is(err, ErrNotFound) {
		t.Fatalf("mark missing: %v", err)
	}

	off, on := false, true
	clock.Advance(3 * time.Hour)
	r, err = s.UpdateRoutine(ctx, r.ID, RoutineUpdate{Enabled: &off})
	if err != nil || r.Enabled || !r.LastRun.Equal(slot) {
		t.Fatalf("disable %+v, %v", r, err)
	}
	clock.Advance(24 * time.Hour)
	r, err = s.UpdateRoutine(ctx, r.ID, RoutineUpdate{Enabled: &on})
	if err != nil || !r.Enabled || !r.LastRun.Equal(clock.Now()) {
		t.Fatalf("enabling again must start afresh from now: %+v, %v", r, err)
	}
	clock.Advance(time.Hour)
	prompt := "anything urgent?"
	r, err = s.UpdateRoutine(ctx, r.ID, RoutineUpdate{Prompt: &prompt})
	if err != nil || r.Prompt != prompt || !r.LastRun.Equal(clock.Now().Add(-time.Hour)) {
		t.Fatalf("a new prompt keeps the last run: %+v, %v", r, err)
	}
	spec := "0 9 * * *"
	r, err = s.UpdateRoutine(ctx, r.ID, RoutineUpdate{Cron: &spec})
	if err != nil || r.Cron != spec || !r.LastRun.Equal(clock.Now()) {
		t.Fatalf("a new schedule starts afresh: %+v, %v", r, err)
	}
	empty := " "
	if _, err := s.UpdateRoutine(ctx, r.ID, RoutineUpdate{Prompt: &empty}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty prompt: %v", err)
	}

	second, err := s.CreateRoutine(ctx, NewRoutine{Cron: "0 17 * * 5", Prompt: "week review", Disabled: true})
	if err != nil || second.Enabled {
		t.Fatalf("disabled create %+v, %v", second, err)
	}
	all, err := s.Routines(ctx)
	if err != nil || len(all) != 2 || all[0].ID != r.ID || all[1].ID != second.ID {
		t.Fatalf("routines %+v, %v", all, err)
	}
	if err := s.DeleteRoutine(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Routine(ctx, r.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted routine: %v", err)
	}
	if err := s.DeleteRoutine(ctx, r.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}

	es, err := s.Since(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range es {
		if e.Source == RoutineEventSource {
			lines = append(lines, e.Identifier+" "+e.Text)
		}
	}
	want := []string{
		`routine:1 created: "30 8 * * 1-5" what is waiting on me today?`,
		`routine:1 changed: disabled`,
		`routine:1 changed: enabled`,
		`routine:1 changed: prompt anything urgent?`,
		`routine:1 changed: schedule "0 9 * * *"`,
		`routine:2 created: "0 17 * * 5" week review (disabled)`,
		`routine:1 removed: "0 9 * * *" anything urgent?`,
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Fatalf("routine log\n got %q\nwant %q", lines, want)
	}
}

// TestPruneWorkRuns: on a real file, finished runs past the cut-off go,
// a heartbeat's prompt is cleared after its own shorter cut-off while the
// lawyer's routine prompts stay, and a run still open is never touched.
func TestPruneWorkRuns(t *testing.T) {
	s, clock := openTest(t)
	ctx := t.Context()
	finish := func(r WorkRun) WorkRun {
		t.Helper()
		if _, err := s.StartWorkRun(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		done, _, err := s.FinishWorkRun(ctx, r.ID, WorkOutcome{State: WorkSkip, Reason: "ack", Text: "skip ack"})
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	day := 24 * time.Hour
	oldBeat := finish(mustWorkRun(t, s, "heartbeat", "")) // day 0
	stillOpen := mustWorkRun(t, s, "heartbeat", "")       // day 0, never finished
	clock.Advance(20 * day)
	weekBeat := finish(mustWorkRun(t, s, "heartbeat", ""))    // day 20
	weekRoutine := finish(mustWorkRun(t, s, "routine:3", "")) // day 20
	clock.Advance(15 * day)
	newBeat := finish(mustWorkRun(t, s, "heartbeat", "")) // day 35
	now := clock.Now()

	deleted, cleared, err := s.PruneWorkRuns(ctx, WorkPrune{RunsBefore: now.Add(-30 * day), Source: "heartbeat", PromptsBefore: now.Add(-7 * day)})
	if err != nil {
		t.Fatal(err)
	}
	if deleted != 1 || cleared != 1 {
		t.Errorf("deleted %d, cleared %d; want 1 and 1", deleted, cleared)
	}
	if _, err := s.WorkRun(ctx, oldBeat.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("run finished 35 days ago: %v, want it deleted", err)
	}
	for _, c := range []struct {
		name   string
		id     int64
		prompt string
	}{
		{"open run", stillOpen.ID, "what is waiting on me?"},
		{"heartbeat of 15 days ago", weekBeat.ID, ""},
		{"routine of 15 days ago", weekRoutine.ID, "what is waiting on me?"},
		{"heartbeat of today", newBeat.ID, "what is waiting on me?"},
	} {
		r, err := s.WorkRun(ctx, c.id)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r.Prompt != c.prompt {
			t.Errorf("%s: prompt %q, want %q", c.name, r.Prompt, c.prompt)
		}
	}
	// Again: nothing more to do.
	if d, c, err := s.PruneWorkRuns(ctx, WorkPrune{RunsBefore: now.Add(-30 * day), Source: "heartbeat", PromptsBefore: now.Add(-7 * day)}); err != nil || d != 0 || c != 0 {
		t.Errorf("second prune: %d, %d, %v", d, c, err)
	}
}
