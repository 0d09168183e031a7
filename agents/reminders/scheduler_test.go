package reminders

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

var est = time.FixedZone("", -5*3600)

// friday is when most tests start: Friday 2026-11-20 10:15 at -05:00.
var friday = time.Date(2026, 11, 20, 10, 15, 0, 0, est)

// long is a MaxSleep that never shortens a wait in these tests, so that
// the wait visibly ends at the due time.
const long = 30 * 24 * time.Hour

func setup(t *testing.T, maxSleep time.Duration) (*store.Store, *fakeClock, *recorder, *runner) {
	t.Helper()
	clk := newFakeClock(friday)
	st := openStore(t, tempDB(t), clk)
	rec := &recorder{}
	return st, clk, rec, newRunner(t, st, clk, rec, maxSleep)
}

func TestFiresAtDueTime(t *testing.T) {
	st, clk, rec, run := setup(t, long)
	ctx := t.Context()
	run.start()
	// Idle costs nothing: no reminder, no timer.
	if w := run.Wake(); !w.IsZero() {
		t.Fatalf("idle scheduler waits until %v, want no wait", w)
	}
	if ts := clk.Timers(); len(ts) != 0 {
		t.Fatalf("idle scheduler has timers %v, want none", ts)
	}

	due := time.Date(2026, 11, 20, 10, 45, 0, 0, est)
	var r store.Reminder
	run.do(func() {
		var err error
		if r, err = run.sch.Create(ctx, "call Marcy Howard", &due, "", friday); err != nil {
			t.Fatal(err)
		}
	})
	if w := run.Wake(); !w.Equal(due) {
		t.Fatalf("waits until %v, want the due time %v", w, due)
	}
	run.advance(29 * time.Minute)
	if f := rec.Firings(); len(f) != 0 {
		t.Fatalf("fired early: %+v", f)
	}
	run.advance(time.Minute)
	f := rec.Firings()
	if len(f) != 1 {
		t.Fatalf("%d firings at the due time", len(f))
	}
	if f[0].missed {
		t.Fatalf("on-time firing reported missed: %+v", f[0])
	}
	if want := "Reminder: call Marcy Howard"; f[0].n.Message != want {
		t.Fatalf("firing message = %q, want %q", f[0].n.Message, want)
	}
	if f[0].n.Kind != nudge.KindReminder {
		t.Fatalf("firing kind = %q, want %q", f[0].n.Kind, nudge.KindReminder)
	}
	if f[0].r.ID != r.ID {
		t.Fatalf("fired reminder %d, want %d", f[0].r.ID, r.ID)
	}
	// The store writes the subject; package nudge reads it back.
	id, ok := nudge.ReminderID(f[0].n.Subject)
	if !ok {
		t.Fatalf("firing's subject %q does not parse as a reminder's", f[0].n.Subject)
	}
	if id != r.ID {
		t.Fatalf("firing's subject %q names reminder %d, want %d", f[0].n.Subject, id, r.ID)
	}
	if want := nudge.ReminderSubject(r.ID); f[0].n.Subject != want {
		t.Fatalf("firing's subject = %q, want %q", f[0].n.Subject, want)
	}
	got := mustReminder(t, st, r.ID)
	if got.State != store.ReminderFired {
		t.Fatalf("state after firing = %s, want %s", got.State, store.ReminderFired)
	}
	if got.NudgeID != f[0].n.ID {
		t.Fatalf("reminder's nudge after firing = %d, want %d", got.NudgeID, f[0].n.ID)
	}
	if !got.FiredAt.Equal(due) {
		t.Fatalf("fired at %v, want %v", got.FiredAt, due)
	}
	if w := run.Wake(); !w.IsZero() {
		t.Fatalf("nothing pending, yet waits until %v", w)
	}
	ev := reminderEvents(t, st, r.ID)
	if len(ev) != 2 {
		t.Fatalf("world log = %q, want 2 events: created, fired", ev)
	}
	if want := "created: call Marcy Howard"; !strings.HasPrefix(ev[0], want) {
		t.Fatalf("first world log event = %q, want prefix %q", ev[0], want)
	}
	if want := "fired as nudge"; !strings.HasPrefix(ev[1], want) {
		t.Fatalf("second world log event = %q, want prefix %q", ev[1], want)
	}
}

// TestWaitIsBounded: a wait never outlasts MaxSleep, so a suspended
// machine (whose timers stand still) notices the wall clock jumped.
func TestWaitIsBounded(t *testing.T) {
	st, clk, rec, run := setup(t, 0) // the default bound
	ctx := t.Context()
	run.start()
	due := friday.Add(2 * time.Hour)
	run.do(func() {
		if _, err := run.sch.Create(ctx, "sign the closing documents", &due, "", friday); err != nil {
			t.Fatal(err)
		}
	})
	if w := run.Wake(); !w.Equal(friday.Add(defaultMaxSleep)) {
		t.Fatalf("waits until %v, want at most %v", w, defaultMaxSleep)
	}
	// The lid was closed for three hours.
	run.advance(3 * time.Hour)
	f := rec.Firings()
	if len(f) != 1 {
		t.Fatalf("firings after the jump = %d, want 1: %+v", len(f), f)
	}
	if !f[0].missed {
		t.Fatalf("firing after the jump not reported missed: %+v", f[0])
	}
	if want := "Late reminder: sign the closing documents (was due 12:15 PM)"; f[0].n.Message != want {
		t.Fatalf("firing message after the jump = %q, want %q", f[0].n.Message, want)
	}
	if w := run.Wake(); !w.IsZero() {
		t.Fatalf("still waiting until %v, want no wait", w)
	}
	if ts := clk.Timers(); len(ts) != 0 {
		t.Fatalf("timers %v left, want none", ts)
	}
	_ = st
}

func TestMissedWhileOffFiresOnce(t *testing.T) {
	clk := newFakeClock(friday)
	path := tempDB(t)
	st := openStore(t, path, clk)
	ctx := t.Context()
	// Written by an earlier run of Spirit, which then stopped.
	mk := func(task string, due time.Time, every store.Recurrence) store.Reminder {
		t.Helper()
		r, err := st.CreateReminder(ctx, store.NewReminder{Task: task, Due: &due, Every: every})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	yesterday := mk("call Marcy Howard", time.Date(2026, 11, 19, 15, 0, 0, 0, est), store.Once)
	thisMorning := mk("file the motion to compel", time.Date(2026, 11, 20, 9, 0, 0, 0, est), store.Once)
	// Every weekday at 9 since Monday: four occurrences missed.
	weekday := mk("check the docket", time.Date(2026, 11, 16, 9, 0, 0, 0, est), store.EveryWeekday)
	later := mk("read the Brennan brief", time.Date(2026, 11, 20, 20, 0, 0, 0, est), store.Once)
	if _, err := st.CreateReminder(ctx, store.NewReminder{Task: "no time yet"}); err != nil {
		t.Fatal(err)
	}

	rec := &recorder{}
	run := newRunner(t, st, clk, rec, long)
	run.start()
	f := rec.Firings()
	if len(f) != 3 {
		t.Fatalf("%d firings at start, want 3: %+v", len(f), f)
	}
	want := map[int64]string{
		weekday.ID:     "Missed while Spirit was off: check the docket (was due Mon Nov 16 9:00 AM)",
		yesterday.ID:   "Missed while Spirit was off: call Marcy Howard (was due yesterday 3:00 PM)",
		thisMorning.ID: "Missed while Spirit was off: file the motion to compel (was due 9:00 AM)",
	}
	for _, x := range f {
		if !x.missed {
			t.Errorf("reminder %d: missed = false, want true", x.r.ID)
		}
		if x.n.Message != want[x.r.ID] {
			t.Errorf("reminder %d: message %q, want %q", x.r.ID, x.n.Message, want[x.r.ID])
		}
	}
	w := mustReminder(t, st, weekday.ID)
	if w.FireCount != 1 {
		t.Fatalf("recurring after catch-up: fire count %d, want 1", w.FireCount)
	}
	if next := time.Date(2026, 11, 23, 9, 0, 0, 0, est); !w.Due.Equal(next) {
		t.Fatalf("recurring after catch-up: due %v, want %v", w.Due, next)
	}
	if w.State != store.ReminderPending {
		t.Fatalf("recurring after catch-up: state %s, want %s", w.State, store.ReminderPending)
	}
	if wake := run.Wake(); !wake.Equal(*later.Due) {
		t.Fatalf("then waits until %v, want %v", wake, later.Due)
	}

	// Spirit restarts: nothing fires again, and the three firings are still
	// open for the app to show.
	run.stop()
	st2 := openStore(t, path, clk)
	rec2 := &recorder{}
	newRunner(t, st2, clk, rec2, long).start()
	if f := rec2.Firings(); len(f) != 0 {
		t.Fatalf("restart fired again: %+v", f)
	}
	open, err := New(st2, nil, Options{Clock: clk}).OpenFirings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 3 {
		t.Fatalf("open firings = %d, want 3: %+v", len(open), open)
	}
	ns, err := st2.Nudges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 3 {
		t.Fatalf("nudges = %d, want 3", len(ns))
	}
}

// TestRecurrence runs schedules for two weeks of fake time and checks
// every firing.
func TestRecurrence(t *testing.T) {
	ist := time.FixedZone("", 5*3600+30*60)
	type occ struct {
		day  int // day of November 2026 on the reminder's clock
		hour int
		min  int
	}
	for _, tc := range []struct {
		name   string
		first  time.Time
		every  string
		clock  *time.Location // the fake clock's location: where the app runs
		expect []occ
	}{
		{"every day", time.Date(2026, 11, 20, 16, 0, 0, 0, est), "day", est,
			[]occ{{20, 16, 0}, {21, 16, 0}, {22, 16, 0}, {23, 16, 0}, {24, 16, 0}, {25, 16, 0}, {26, 16, 0}, {27, 16, 0}, {28, 16, 0}, {29, 16, 0}, {30, 16, 0}}},
		// Friday, then across the weekend to Monday.
		{"every weekday", time.Date(2026, 11, 20, 11, 0, 0, 0, est), "weekday", est,
			[]occ{{20, 11, 0}, {23, 11, 0}, {24, 11, 0}, {25, 11, 0}, {26, 11, 0}, {27, 11, 0}, {30, 11, 0}}},
		{"every week", time.Date(2026, 11, 23, 10, 0, 0, 0, est), "week", est,
			[]occ{{23, 10, 0}, {30, 10, 0}}},
		// The reminder was made at +05:30 and Spirit's clock reads UTC: the
		// weekdays and the 9:00 are those of +05:30 (03:30 UTC).
		{"weekday at +05:30 on a UTC clock", time.Date(2026, 11, 23, 9, 0, 0, 0, ist), "weekday", time.UTC,
			[]occ{{23, 9, 0}, {24, 9, 0}, {25, 9, 0}, {26, 9, 0}, {27, 9, 0}, {30, 9, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock(friday.In(tc.clock))
			st := openStore(t, tempDB(t), clk)
			rec := &recorder{}
			run := newRunner(t, st, clk, rec, long)
			run.start()
			var r store.Reminder
			run.do(func() {
				var err error
				if r, err = run.sch.Create(t.Context(), "standing task", &tc.first, tc.every, clk.Now()); err != nil {
					t.Fatal(err)
				}
			})
			end := time.Date(2026, 11, 30, 23, 59, 0, 0, tc.first.Location())
			for w := run.Wake(); !w.IsZero() && !w.After(end); w = run.Wake() {
				run.advanceTo(w)
			}
			var got []occ
			for _, f := range rec.Firings() {
				at := f.r.FiredAt.In(tc.first.Location())
				got = append(got, occ{at.Day(), at.Hour(), at.Minute()})
				if f.missed {
					t.Errorf("on-time firing at %v reported missed", at)
				}
			}
			if !slices.Equal(got, tc.expect) {
				t.Fatalf("fired at %v\nwant        %v", got, tc.expect)
			}
			n := mustReminder(t, st, r.ID)
			if n.FireCount != len(tc.expect) {
				t.Fatalf("after two weeks: fire count %d, want %d", n.FireCount, len(tc.expect))
			}
			if n.State != store.ReminderPending {
				t.Fatalf("after two weeks: state %s, want %s", n.State, store.ReminderPending)
			}
		})
	}
}

// TestTwoSchedulersRace runs two schedulers on one database file, as two
// Spirit processes would, and checks that every reminder fires once both
// when they wake together and when they start together with work waiting.
func TestTwoSchedulersRace(t *testing.T) {
	clk := newFakeClock(friday)
	path := tempDB(t)
	st1, st2 := openStore(t, path, clk), openStore(t, path, clk)
	ctx := t.Context()
	const n = 20
	due := friday.Add(time.Hour)
	for i := range n {
		every := store.Once
		if i%4 == 0 {
			every = store.EveryDay
		}
		// Some already due when the schedulers start, most an hour later.
		d := due
		if i%5 == 0 {
			d = friday.Add(-time.Hour)
		}
		if _, err := st1.CreateReminder(ctx, store.NewReminder{Task: fmt.Sprintf("task %d", i), Due: &d, Every: every}); err != nil {
			t.Fatal(err)
		}
	}
	rec1, rec2 := &recorder{}, &recorder{}
	run1, run2 := newRunner(t, st1, clk, rec1, long), newRunner(t, st2, clk, rec2, long)
	// Both start at once, with work already due: the startup passes race.
	run1.launch()
	run2.launch()
	run1.settle(0)
	run2.settle(0)

	b1, b2 := run1.Seq(), run2.Seq()
	if fired := clk.Advance(time.Hour); fired != 2 {
		t.Fatalf("%d timers fired, want both schedulers'", fired)
	}
	run1.settle(b1)
	run2.settle(b2)

	count := map[int64]int{}
	for _, f := range append(rec1.Firings(), rec2.Firings()...) {
		count[f.r.ID]++
	}
	for id := int64(1); id <= n; id++ {
		if count[id] != 1 {
			t.Errorf("reminder %d fired %d times", id, count[id])
		}
	}
	t.Logf("scheduler 1 fired %d, scheduler 2 fired %d", len(rec1.Firings()), len(rec2.Firings()))
	if ns, _ := st1.Nudges(ctx); len(ns) != n {
		t.Fatalf("%d nudges for %d reminders", len(ns), n)
	}
}

// TestNotifierPanicLosesNothing: the app falls over between the recorded
// firing and showing it. The scheduler carries on; a restart fires nothing
// again and hands the firings back as open.
func TestNotifierPanicLosesNothing(t *testing.T) {
	clk := newFakeClock(friday)
	path := tempDB(t)
	st := openStore(t, path, clk)
	ctx := t.Context()
	rec := &recorder{panicFor: map[int64]bool{1: true}}
	run := newRunner(t, st, clk, rec, long)
	due := friday.Add(time.Hour)
	for _, task := range []string{"call Marcy Howard", "send the redline to Grace Liu"} {
		if _, err := run.sch.Create(ctx, task, &due, "", friday); err != nil {
			t.Fatal(err)
		}
	}
	run.start()
	run.advance(time.Hour)
	if f := rec.Firings(); len(f) != 2 {
		t.Fatalf("%d firings; the panic stopped the scheduler?", len(f))
	}
	run.stop()

	st2 := openStore(t, path, clk)
	rec2 := &recorder{}
	run2 := newRunner(t, st2, clk, rec2, long)
	run2.start()
	run2.advance(24 * time.Hour)
	if f := rec2.Firings(); len(f) != 0 {
		t.Fatalf("restart fired again: %+v", f)
	}
	open, err := run2.sch.OpenFirings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 2 {
		t.Fatalf("open firings = %d, want 2: %+v", len(open), open)
	}
	if open[0].Reminder.ID != 1 {
		t.Fatalf("first open firing is reminder %d, want 1", open[0].Reminder.ID)
	}
	if want := "Reminder: call Marcy Howard"; open[0].Nudge.Message != want {
		t.Fatalf("first open firing message = %q, want %q", open[0].Nudge.Message, want)
	}
	for _, id := range []int64{1, 2} {
		if r := mustReminder(t, st2, id); r.FireCount != 1 {
			t.Errorf("reminder %d fired %d times", id, r.FireCount)
		}
	}
}

func TestSnooze(t *testing.T) {
	st, _, rec, run := setup(t, long)
	ctx := t.Context()
	run.start()
	due := friday.Add(5 * time.Minute)
	var r store.Reminder
	run.do(func() {
		var err error
		r, err = run.sch.Create(ctx, "call the court reporter", &due, "", friday)
		if err != nil {
			t.Fatal(err)
		}
	})
	run.advance(5 * time.Minute)
	first := rec.Firings()[0].n
	run.do(func() {
		if _, err := run.sch.Snooze(ctx, r.ID, 0); err != nil {
			t.Fatal(err)
		}
	})
	if n := mustNudge(t, st, first.ID); n.State != store.NudgeSnoozed {
		t.Fatalf("nudge %s after snooze", n.State)
	}
	if w := rec.Withdrawals(); !slices.Equal(w, []int64{first.ID}) {
		t.Errorf("withdrawn %v, want the snoozed nudge", w)
	}
	if w, want := run.Wake(), due.Add(DefaultSnooze); !w.Equal(want) {
		t.Fatalf("waits until %v, want %v", w, want)
	}
	run.advance(DefaultSnooze)
	f := rec.Firings()
	if len(f) != 2 {
		t.Fatalf("firings after the snooze = %d, want 2: %+v", len(f), f)
	}
	if f[1].missed {
		t.Fatalf("refiring after the snooze reported missed: %+v", f[1])
	}
	if f[1].n.ID == first.ID {
		t.Fatalf("refiring reused nudge %d, want a new one", first.ID)
	}
	if n := mustNudge(t, st, first.ID); n.State != store.NudgeExpired {
		t.Errorf("old nudge %s, want expired", n.State)
	}
	got := mustReminder(t, st, r.ID)
	if got.FireCount != 2 {
		t.Fatalf("after refiring: fire count %d, want 2", got.FireCount)
	}
	if got.NudgeID != f[1].n.ID {
		t.Fatalf("after refiring: reminder's nudge %d, want the new %d", got.NudgeID, f[1].n.ID)
	}
	// Snoozed for 20 minutes from the nudge, the app having recorded the
	// nudge's answer first.
	if _, err := st.RespondNudge(ctx, f[1].n.ID, store.NudgeSnoozed, ""); err != nil {
		t.Fatal(err)
	}
	run.do(func() {
		if _, err := run.sch.Snooze(ctx, r.ID, 20); err != nil {
			t.Fatal(err)
		}
	})
	if w, want := run.Wake(), due.Add(DefaultSnooze+20*time.Minute); !w.Equal(want) {
		t.Fatalf("waits until %v, want %v", w, want)
	}
}

func TestCancelAndCancelLast(t *testing.T) {
	st, clk, rec, run := setup(t, long)
	ctx := t.Context()
	run.start()
	create := func(task string, due *time.Time) store.Reminder {
		t.Helper()
		var r store.Reminder
		run.do(func() {
			var err error
			if r, err = run.sch.Create(ctx, task, due, "", clk.Now()); err != nil {
				t.Fatal(err)
			}
		})
		return r
	}
	cancelLast := func() (store.Reminder, error) {
		t.Helper()
		before := run.Seq()
		r, err := run.sch.CancelLast(ctx)
		if err == nil {
			run.settle(before)
		}
		return r, err
	}

	// Nothing created in this session yet.
	if _, err := run.sch.CancelLast(ctx); !errors.Is(err, ErrNothingToCancel) {
		t.Fatalf("CancelLast on a new session: %v", err)
	}
	a := create("call Marcy Howard", tp(friday.Add(time.Hour)))
	b := create("call the clerk about the hearing date", nil)
	got, err := cancelLast()
	if err != nil {
		t.Fatalf("first never mind: %v", err)
	}
	if got.ID != b.ID {
		t.Fatalf("first never mind cancelled %d, want the newest %d", got.ID, b.ID)
	}
	if got.State != store.ReminderCancelled {
		t.Fatalf("first never mind: state %s, want %s", got.State, store.ReminderCancelled)
	}
	got, err = cancelLast()
	if err != nil {
		t.Fatalf("second never mind: %v", err)
	}
	if got.ID != a.ID {
		t.Fatalf("second never mind cancelled %d, want %d", got.ID, a.ID)
	}
	if _, err := run.sch.CancelLast(ctx); !errors.Is(err, ErrNothingToCancel) {
		t.Fatalf("third never mind: %v", err)
	}
	if w := run.Wake(); !w.IsZero() {
		t.Fatalf("cancelled reminders still wait until %v", w)
	}
	run.advance(2 * time.Hour)
	if f := rec.Firings(); len(f) != 0 {
		t.Fatalf("a cancelled reminder fired: %+v", f)
	}
	if ev := reminderEvents(t, st, a.ID); len(ev) != 2 {
		t.Errorf("world log = %q, want 2 events: created, cancelled", ev)
	} else if want := "cancelled: call Marcy Howard"; !strings.HasPrefix(ev[1], want) {
		t.Errorf("second world log event = %q, want prefix %q", ev[1], want)
	}

	// Once it has fired, "never mind" does not take it back.
	c := create("check the docket", tp(clk.Now().Add(time.Minute)))
	run.advance(time.Minute)
	if _, err := run.sch.CancelLast(ctx); !errors.Is(err, ErrNothingToCancel) {
		t.Fatalf("never mind after firing: %v", err)
	}
	// An explicit cancel does, and dismisses its nudge.
	nid := mustReminder(t, st, c.ID).NudgeID
	run.do(func() {
		if _, err := run.sch.Cancel(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
	})
	if n := mustNudge(t, st, nid); n.State != store.NudgeDismissed {
		t.Errorf("nudge %s after cancel", n.State)
	}
	if w := rec.Withdrawals(); !slices.Contains(w, nid) {
		t.Errorf("withdrawn %v, want %d", w, nid)
	}
	if _, err := run.sch.Cancel(ctx, c.ID); !errors.Is(err, store.ErrReminderClosed) {
		t.Errorf("cancel twice: %v", err)
	}
	// Another session's reminders are not this session's to take back.
	other := New(st, nil, Options{Clock: clk})
	if _, err := other.CancelLast(ctx); !errors.Is(err, ErrNothingToCancel) {
		t.Errorf("CancelLast in another session: %v", err)
	}
}

func TestAwaitingTimeThenSetTime(t *testing.T) {
	st, _, rec, run := setup(t, long)
	ctx := t.Context()
	run.start()
	var r store.Reminder
	run.do(func() {
		var err error
		if r, err = run.sch.Create(ctx, "call the clerk about the hearing date", nil, "", friday); err != nil {
			t.Fatal(err)
		}
	})
	if r.State != store.ReminderAwaitingTime {
		t.Fatalf("created with state %s, want %s", r.State, store.ReminderAwaitingTime)
	}
	if r.Due != nil {
		t.Fatalf("created with due %v, want none", r.Due)
	}
	if w := run.Wake(); !w.IsZero() {
		t.Fatalf("a reminder without time set a timer for %v", w)
	}
	run.advance(24 * time.Hour)
	if len(rec.Firings()) != 0 {
		t.Fatal("a reminder without time fired")
	}
	// The lawyer answers "in an hour".
	due, err := ParseNewTime("in an hour", friday.Add(24*time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	run.do(func() {
		if r, err = run.sch.SetTime(ctx, r.ID, due); err != nil {
			t.Fatal(err)
		}
	})
	if r.State != store.ReminderPending {
		t.Fatalf("after SetTime: state %s, want %s", r.State, store.ReminderPending)
	}
	if !r.Due.Equal(due) {
		t.Fatalf("after SetTime: due %v, want %v", r.Due, due)
	}
	if w := run.Wake(); !w.Equal(due) {
		t.Fatalf("after SetTime: waiting until %v, want %v", w, due)
	}
	run.advance(time.Hour)
	f := rec.Firings()
	if len(f) != 1 {
		t.Fatalf("firings = %d, want 1: %+v", len(f), f)
	}
	if f[0].r.ID != r.ID {
		t.Fatalf("fired reminder %d, want %d", f[0].r.ID, r.ID)
	}
	ev := reminderEvents(t, st, r.ID)
	if len(ev) != 3 {
		t.Fatalf("world log = %q, want 3 events", ev)
	}
	if want := "edited (due)"; !strings.HasPrefix(ev[1], want) {
		t.Fatalf("second world log event = %q, want prefix %q", ev[1], want)
	}
}

func TestCompleteAndList(t *testing.T) {
	st, clk, rec, run := setup(t, long)
	ctx := t.Context()
	run.start()
	create := func(task string, due *time.Time, every string) store.Reminder {
		t.Helper()
		var r store.Reminder
		run.do(func() {
			var err error
			if r, err = run.sch.Create(ctx, task, due, every, friday); err != nil {
				t.Fatal(err)
			}
		})
		return r
	}
	one := create("call Marcy Howard", tp(friday.Add(time.Minute)), "")
	daily := create("check my voicemail", tp(friday.Add(2*time.Minute)), "day")
	later := create("renew my bar membership", tp(friday.AddDate(0, 0, 10)), "")
	noTime := create("the Castillo filing is due", nil, "")
	run.advance(2 * time.Minute)
	if len(rec.Firings()) != 2 {
		t.Fatalf("firings %+v", rec.Firings())
	}
	list, err := run.sch.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, r := range list {
		ids = append(ids, r.ID)
	}
	// Fired and unanswered first (its due has passed), then by due; no time last.
	if want := []int64{one.ID, daily.ID, later.ID, noTime.ID}; !slices.Equal(ids, want) {
		t.Fatalf("List = %v, want %v", ids, want)
	}

	// "Done" on the nudge: the app records the answer, then completes.
	nOne := mustReminder(t, st, one.ID).NudgeID
	if _, err := st.RespondNudge(ctx, nOne, store.NudgeAccepted, ""); err != nil {
		t.Fatal(err)
	}
	forNudge, err := st.ReminderForNudge(ctx, nOne)
	if err != nil {
		t.Fatal(err)
	}
	if forNudge.ID != one.ID {
		t.Fatalf("ReminderForNudge(%d) = reminder %d, want %d", nOne, forNudge.ID, one.ID)
	}
	run.do(func() {
		if _, err := run.sch.Complete(ctx, one.ID); err != nil {
			t.Fatal(err)
		}
	})
	// A recurring one is done for today and goes on.
	run.do(func() {
		d, err := run.sch.Complete(ctx, daily.ID)
		if err != nil {
			t.Fatalf("complete daily: %v", err)
		}
		if d.State != store.ReminderPending {
			t.Fatalf("daily after complete: state %s, want %s", d.State, store.ReminderPending)
		}
		if want := friday.Add(2*time.Minute).AddDate(0, 0, 1); !d.Due.Equal(want) {
			t.Fatalf("daily after complete: due %v, want %v, the next day", d.Due, want)
		}
	})
	if n := mustNudge(t, st, mustReminder(t, st, daily.ID).NudgeID); n.State != store.NudgeAccepted {
		t.Errorf("daily nudge %s", n.State)
	}
	list, _ = run.sch.List(ctx)
	if len(list) != 3 {
		t.Fatalf("List after completing = %d reminders, want 3: %+v", len(list), list)
	}
	if list[0].ID != daily.ID {
		t.Fatalf("List after completing starts with %d, want the daily %d", list[0].ID, daily.ID)
	}
	if _, err := run.sch.Complete(ctx, one.ID); !errors.Is(err, store.ErrReminderClosed) {
		t.Errorf("complete twice: %v", err)
	}
	if open, _ := run.sch.OpenFirings(ctx); len(open) != 0 {
		t.Errorf("open firings after both answered: %+v", open)
	}
	_ = clk
}

func TestRunTwice(t *testing.T) {
	_, _, _, run := setup(t, long)
	run.start()
	if err := run.sch.Run(t.Context()); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Run: %v", err)
	}
}

func TestCreateValidates(t *testing.T) {
	_, _, _, run := setup(t, long)
	ctx := t.Context()
	due := friday.Add(time.Hour)
	if _, err := run.sch.Create(ctx, "x", &due, "fortnight", friday); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad every: %v", err)
	}
	if _, err := run.sch.Create(ctx, " ", &due, "", friday); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("empty task: %v", err)
	}
	if _, err := run.sch.CancelLast(ctx); !errors.Is(err, ErrNothingToCancel) {
		t.Errorf("failed creates count for CancelLast: %v", err)
	}
}

// TestDueJustBeforeStartIsNotMissed: a reminder that fell due seconds before
// Spirit started (a restart) fires as an ordinary reminder, not as one
// "missed while Spirit was off".
func TestDueJustBeforeStartIsNotMissed(t *testing.T) {
	clk := newFakeClock(friday)
	st := openStore(t, tempDB(t), clk)
	justBefore := friday.Add(-74 * time.Millisecond)
	longBefore := friday.Add(-2 * time.Hour)
	a, err := st.CreateReminder(t.Context(), store.NewReminder{Task: "call the clerk", Due: &justBefore})
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.CreateReminder(t.Context(), store.NewReminder{Task: "file the brief", Due: &longBefore})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	run := newRunner(t, st, clk, rec, long)
	run.start()
	want := map[int64]struct {
		missed bool
		msg    string
	}{
		a.ID: {false, "Reminder: call the clerk"},
		b.ID: {true, "Missed while Spirit was off: file the brief (was due 8:15 AM)"},
	}
	f := rec.Firings()
	if len(f) != 2 {
		t.Fatalf("%d firings at start, want 2: %+v", len(f), f)
	}
	for _, x := range f {
		w := want[x.r.ID]
		if x.missed != w.missed {
			t.Errorf("reminder %d: missed %v, want %v", x.r.ID, x.missed, w.missed)
		}
		if x.n.Message != w.msg {
			t.Errorf("reminder %d: message %q, want %q", x.r.ID, x.n.Message, w.msg)
		}
	}
}
