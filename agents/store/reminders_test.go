package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the DST tests need America/New_York wherever they run
)

var est = time.FixedZone("", -5*60*60)

func tp(t time.Time) *time.Time { return &t }

func mustCreateReminder(t *testing.T, s *Store, nr NewReminder) Reminder {
	t.Helper()
	r, err := s.CreateReminder(t.Context(), nr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustFire(t *testing.T, s *Store, id int64, now time.Time) (Reminder, Nudge) {
	t.Helper()
	r, n, err := s.FireReminder(t.Context(), id, now, Nudge{Message: fmt.Sprintf("reminder %d", id)})
	if err != nil {
		t.Fatal(err)
	}
	return r, n
}

// reminderEvents are the world log texts about reminder id, oldest first.
func reminderEvents(t *testing.T, s *Store, id int64) []string {
	t.Helper()
	es, err := s.Since(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Source == ReminderEventSource && e.Identifier == ReminderIdentifier(id) {
			out = append(out, e.Text)
		}
	}
	return out
}

func nudgeState(t *testing.T, s *Store, id int64) NudgeState {
	t.Helper()
	n, err := s.Nudge(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return n.State
}

func reminderIDs(rs []Reminder) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestCreateAndReadReminders(t *testing.T) {
	s, clk := openTest(t)
	ctx := t.Context()
	due := time.Date(2026, 3, 3, 15, 0, 0, 0, est)
	heard := time.Date(2026, 3, 2, 4, 30, 0, 0, est)
	a := mustCreateReminder(t, s, NewReminder{Task: "  call Marcy Howard ", Due: &due, Heard: heard})
	if a.ID != 1 || a.Task != "call Marcy Howard" || a.State != ReminderPending || a.Every != Once ||
		a.Due == nil || !a.Due.Equal(due) || a.Anchor != nil || a.Offset != -300 || a.FireCount != 0 ||
		a.FiredAt != nil || a.NudgeID != 0 || !a.Created.Equal(clk.Now()) {
		t.Fatalf("created %+v", a)
	}
	if _, off := a.Due.Zone(); off != -5*3600 {
		t.Errorf("due read back in offset %d, want the reminder's own -5h", off)
	}
	got, err := s.Reminder(ctx, a.ID)
	if err != nil || got.Task != a.Task || !got.Due.Equal(*a.Due) || got.State != a.State {
		t.Fatalf("Reminder(%d) = %+v, %v", a.ID, got, err)
	}

	clk.Advance(time.Minute)
	b := mustCreateReminder(t, s, NewReminder{Task: "call the clerk about the hearing date", Heard: heard})
	if b.State != ReminderAwaitingTime || b.Due != nil || b.Offset != -300 {
		t.Fatalf("no-time reminder %+v", b)
	}
	early := time.Date(2026, 3, 2, 17, 0, 0, 0, est)
	c := mustCreateReminder(t, s, NewReminder{Task: "check the docket", Due: &early, Every: EveryWeekday})
	if c.Anchor == nil || !c.Anchor.Equal(early) || c.Every != EveryWeekday {
		t.Fatalf("recurring %+v", c)
	}

	all, err := s.Reminders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := reminderIDs(all); !slices.Equal(got, []int64{c.ID, a.ID, b.ID}) {
		t.Errorf("Reminders() = %v: want due ascending, no time last", got)
	}
	if got, _ := s.Reminders(ctx, ReminderAwaitingTime); !slices.Equal(reminderIDs(got), []int64{b.ID}) {
		t.Errorf("awaiting = %v", reminderIDs(got))
	}
	if _, err := s.Reminders(ctx, "bogus"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bogus state: %v", err)
	}
	if _, err := s.Reminder(ctx, 99); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if ev := reminderEvents(t, s, a.ID); len(ev) != 1 || !strings.HasPrefix(ev[0], "created: call Marcy Howard — 2026-03-03T15:00:00-05:00") {
		t.Errorf("world log for %d: %q", a.ID, ev)
	}
	if ev := reminderEvents(t, s, b.ID); len(ev) != 1 || !strings.Contains(ev[0], "no time yet") {
		t.Errorf("world log for %d: %q", b.ID, ev)
	}

	for name, nr := range map[string]NewReminder{
		"empty task": {Task: "  ", Due: &due},
		"bad every":  {Task: "x", Due: &due, Every: "fortnight"},
		"zero due":   {Task: "x", Due: &time.Time{}},
		"odd offset": {Task: "x", Due: tp(time.Date(2026, 3, 3, 15, 0, 0, 0, time.FixedZone("", 20*3600)))},
	} {
		if _, err := s.CreateReminder(ctx, nr); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func TestDueAndNextReminderDue(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	if _, ok, err := s.NextReminderDue(ctx); ok || err != nil {
		t.Fatalf("empty: ok %v, %v", ok, err)
	}
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	late := mustCreateReminder(t, s, NewReminder{Task: "late", Due: tp(t0.Add(2 * time.Hour))})
	early := mustCreateReminder(t, s, NewReminder{Task: "early", Due: tp(t0)})
	mustCreateReminder(t, s, NewReminder{Task: "no time"})
	next, ok, err := s.NextReminderDue(ctx)
	if err != nil || !ok || !next.Equal(t0) {
		t.Fatalf("NextReminderDue = %v %v %v", next, ok, err)
	}
	for _, tc := range []struct {
		now  time.Time
		want []int64
	}{
		{t0.Add(-time.Millisecond), nil},
		{t0, []int64{early.ID}},
		{t0.Add(3 * time.Hour), []int64{early.ID, late.ID}},
	} {
		got, err := s.DueReminders(ctx, tc.now)
		if err != nil || !slices.Equal(reminderIDs(got), tc.want) {
			t.Errorf("DueReminders(%v) = %v, %v; want %v", tc.now, reminderIDs(got), err, tc.want)
		}
	}
}

func TestFireReminderOnce(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	due := time.Date(2026, 3, 3, 15, 0, 0, 0, est)
	r := mustCreateReminder(t, s, NewReminder{Task: "call Marcy Howard", Due: &due})

	if _, _, err := s.FireReminder(ctx, r.ID, due.Add(-time.Second), Nudge{Message: "early"}); !errors.Is(err, ErrNotDue) {
		t.Fatalf("firing before due: %v, want ErrNotDue", err)
	}
	now := due.Add(30 * time.Second)
	fr, n, err := s.FireReminder(ctx, r.ID, now, Nudge{Message: "Reminder: call Marcy Howard"})
	if err != nil {
		t.Fatal(err)
	}
	if fr.State != ReminderFired || fr.FireCount != 1 || fr.NudgeID != n.ID || fr.FiredAt == nil || !fr.FiredAt.Equal(now) ||
		!fr.Due.Equal(due) {
		t.Fatalf("fired reminder %+v", fr)
	}
	if n.Kind != "reminder" || n.State != NudgeShown || n.Message != "Reminder: call Marcy Howard" {
		t.Fatalf("nudge %+v", n)
	}
	if stored, err := s.Nudge(ctx, n.ID); err != nil || stored != n {
		t.Fatalf("nudge as stored %+v, %v; returned %+v", stored, err, n)
	}
	// Whoever comes second does nothing.
	for range 3 {
		if _, _, err := s.FireReminder(ctx, r.ID, now.Add(time.Hour), Nudge{Message: "again"}); !errors.Is(err, ErrNotDue) {
			t.Fatalf("second firing: %v, want ErrNotDue", err)
		}
	}
	if ns, _ := s.Nudges(ctx); len(ns) != 1 {
		t.Fatalf("%d nudges after repeated firing", len(ns))
	}
	ev := reminderEvents(t, s, r.ID)
	if len(ev) != 2 || ev[1] != fmt.Sprintf("fired as nudge %d: Reminder: call Marcy Howard", n.ID) {
		t.Fatalf("world log %q", ev)
	}

	aw := mustCreateReminder(t, s, NewReminder{Task: "no time"})
	if _, _, err := s.FireReminder(ctx, aw.ID, now, Nudge{Message: "x"}); !errors.Is(err, ErrNotDue) {
		t.Errorf("firing a reminder without time: %v", err)
	}
	if _, _, err := s.FireReminder(ctx, 99, now, Nudge{Message: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("firing an unknown reminder: %v", err)
	}
	if _, _, err := s.FireReminder(ctx, r.ID, now, Nudge{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("firing without a message: %v", err)
	}
}

// TestFireReminderAllOrNothing makes each later step of the firing
// transaction fail and checks that nothing of the earlier steps remains.
func TestFireReminderAllOrNothing(t *testing.T) {
	for _, table := range []string{"nudges", "reminders", "world"} {
		t.Run("failing "+table, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := t.Context()
			due := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
			r := mustCreateReminder(t, s, NewReminder{Task: "file the motion", Due: &due, Every: EveryDay})
			before, _ := s.LastID(ctx)
			// A temporary trigger lives on the one writer connection only.
			op := "INSERT"
			if table == "reminders" {
				op = "UPDATE"
			}
			q := fmt.Sprintf(`CREATE TEMP TRIGGER boom BEFORE %s ON main.%s BEGIN SELECT RAISE(ABORT, 'simulated failure'); END`, op, table)
			if _, err := s.w.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
			_, _, err := s.FireReminder(ctx, r.ID, due.Add(time.Minute), Nudge{Message: "x"})
			if err == nil || !strings.Contains(err.Error(), "simulated failure") {
				t.Fatalf("fire: %v", err)
			}
			if _, err := s.w.ExecContext(ctx, `DROP TRIGGER temp.boom`); err != nil {
				t.Fatal(err)
			}
			got, err := s.Reminder(ctx, r.ID)
			if err != nil || got.State != ReminderPending || !got.Due.Equal(due) || got.FireCount != 0 || got.NudgeID != 0 || got.FiredAt != nil {
				t.Fatalf("reminder after failed firing %+v, %v", got, err)
			}
			if ns, _ := s.Nudges(ctx); len(ns) != 0 {
				t.Fatalf("failed firing left nudges %+v", ns)
			}
			if after, _ := s.LastID(ctx); after != before {
				t.Fatalf("failed firing left %d log entries", after-before)
			}
			// And it fires normally afterwards.
			if fr, _ := mustFire(t, s, r.ID, due.Add(time.Minute)); fr.FireCount != 1 {
				t.Fatalf("after recovery %+v", fr)
			}
		})
	}
}

// TestFireReminderRace has several Store handles on one file, as separate
// processes would, fire the same reminders at once: each fires once.
func TestFireReminderRace(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	var stores []*Store
	for range 3 {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	due := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	const n = 25
	for i := range n {
		every := Once
		if i%3 == 0 {
			every = EveryWeekday
		}
		mustCreateReminder(t, stores[0], NewReminder{Task: fmt.Sprintf("task %d", i), Due: &due, Every: every})
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		fired = map[int64]int{}
		errs  []error
	)
	for _, s := range stores {
		for range 2 {
			wg.Go(func() {
				for id := int64(1); id <= n; id++ {
					_, _, err := s.FireReminder(ctx, id, due.Add(time.Minute), Nudge{Message: "x"})
					mu.Lock()
					switch {
					case err == nil:
						fired[id]++
					case !errors.Is(err, ErrNotDue):
						errs = append(errs, err)
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for id := int64(1); id <= n; id++ {
		if fired[id] != 1 {
			t.Errorf("reminder %d fired %d times", id, fired[id])
		}
	}
	ns, err := stores[1].Nudges(ctx)
	if err != nil || len(ns) != n {
		t.Fatalf("%d nudges, %v; want %d", len(ns), err, n)
	}
}

func TestFireRecurring(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	// Friday 2026-11-20 9:00 in New York, as "every weekday at 9" gives it.
	anchor := time.Date(2026, 11, 20, 9, 0, 0, 0, est)
	r := mustCreateReminder(t, s, NewReminder{Task: "check the docket", Due: &anchor, Every: EveryWeekday})

	fr, n1 := mustFire(t, s, r.ID, anchor.Add(2*time.Minute))
	monday := time.Date(2026, 11, 23, 9, 0, 0, 0, est)
	if fr.State != ReminderPending || !fr.Due.Equal(monday) || fr.FireCount != 1 || fr.NudgeID != n1.ID || !fr.Anchor.Equal(anchor) {
		t.Fatalf("after Friday's firing %+v (due %v)", fr, fr.Due)
	}
	if _, _, err := s.FireReminder(ctx, r.ID, anchor.Add(time.Hour), Nudge{Message: "x"}); !errors.Is(err, ErrNotDue) {
		t.Fatalf("refire on Friday: %v", err)
	}
	// Spirit was off from Monday to Thursday afternoon: one firing, and the
	// series goes on from Friday, not once per missed day.
	thursday := time.Date(2026, 11, 26, 15, 0, 0, 0, est)
	fr, n2 := mustFire(t, s, r.ID, thursday)
	if want := time.Date(2026, 11, 27, 9, 0, 0, 0, est); !fr.Due.Equal(want) || fr.FireCount != 2 {
		t.Fatalf("after missed days: due %v count %d, want %v 2", fr.Due, fr.FireCount, want)
	}
	// The unanswered Friday nudge is superseded, not left to pile up.
	if st := nudgeState(t, s, n1.ID); st != NudgeExpired {
		t.Errorf("previous nudge %s, want expired", st)
	}
	if st := nudgeState(t, s, n2.ID); st != NudgeShown {
		t.Errorf("new nudge %s", st)
	}
	if ev := reminderEvents(t, s, r.ID); len(ev) != 3 || !strings.HasPrefix(ev[2], "fired, next 2026-11-27T09:00:00-05:00") {
		t.Errorf("world log %q", ev)
	}
}

func TestNextOccurrence(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	ist := time.FixedZone("", 5*3600+30*60)
	for _, tc := range []struct {
		name   string
		anchor time.Time
		every  Recurrence
		after  time.Time
		want   time.Time
	}{
		{"day, later the same day", time.Date(2026, 11, 20, 9, 0, 0, 0, est), EveryDay,
			time.Date(2026, 11, 20, 9, 0, 0, 0, est), time.Date(2026, 11, 21, 9, 0, 0, 0, est)},
		{"day, anchor still ahead", time.Date(2026, 11, 20, 9, 0, 0, 0, est), EveryDay,
			time.Date(2026, 11, 20, 8, 0, 0, 0, est), time.Date(2026, 11, 20, 9, 0, 0, 0, est)},
		{"day, before today's time", time.Date(2026, 11, 1, 9, 0, 0, 0, est), EveryDay,
			time.Date(2026, 11, 20, 7, 0, 0, 0, est), time.Date(2026, 11, 20, 9, 0, 0, 0, est)},
		{"weekday, Friday to Monday", time.Date(2026, 11, 20, 9, 0, 0, 0, est), EveryWeekday,
			time.Date(2026, 11, 20, 9, 5, 0, 0, est), time.Date(2026, 11, 23, 9, 0, 0, 0, est)},
		{"weekday, from Saturday", time.Date(2026, 11, 16, 9, 0, 0, 0, est), EveryWeekday,
			time.Date(2026, 11, 21, 12, 0, 0, 0, est), time.Date(2026, 11, 23, 9, 0, 0, 0, est)},
		{"weekday, Sunday night", time.Date(2026, 11, 16, 9, 0, 0, 0, est), EveryWeekday,
			time.Date(2026, 11, 22, 23, 59, 0, 0, est), time.Date(2026, 11, 23, 9, 0, 0, 0, est)},
		{"weekday, Tuesday to Wednesday", time.Date(2026, 11, 16, 9, 0, 0, 0, est), EveryWeekday,
			time.Date(2026, 11, 24, 10, 0, 0, 0, est), time.Date(2026, 11, 25, 9, 0, 0, 0, est)},
		{"week, same weekday", time.Date(2026, 9, 21, 10, 0, 0, 0, est), EveryWeek,
			time.Date(2026, 9, 21, 10, 0, 0, 0, est), time.Date(2026, 9, 28, 10, 0, 0, 0, est)},
		{"week, after weeks off", time.Date(2026, 9, 21, 10, 0, 0, 0, est), EveryWeek,
			time.Date(2026, 10, 15, 18, 0, 0, 0, est), time.Date(2026, 10, 19, 10, 0, 0, 0, est)},
		// 22:00 UTC on the 2nd is 03:30 on the 3rd at +05:30: the next 9:00
		// is on the reminder's 3rd, not 9:00 UTC.
		{"day, UTC offset", time.Date(2026, 3, 2, 9, 0, 0, 0, ist), EveryDay,
			time.Date(2026, 3, 2, 22, 0, 0, 0, time.UTC), time.Date(2026, 3, 3, 9, 0, 0, 0, ist)},
		{"weekday, UTC offset Friday", time.Date(2026, 3, 6, 9, 0, 0, 0, ist), EveryWeekday,
			time.Date(2026, 3, 6, 3, 31, 0, 0, time.UTC), time.Date(2026, 3, 9, 9, 0, 0, 0, ist)},
		// Across the switch to daylight time the wall clock stays at 9:00.
		{"day across DST", time.Date(2026, 3, 6, 9, 0, 0, 0, ny), EveryDay,
			time.Date(2026, 3, 7, 10, 0, 0, 0, ny), time.Date(2026, 3, 8, 9, 0, 0, 0, ny)},
		{"weekday across DST", time.Date(2026, 3, 6, 9, 0, 0, 0, ny), EveryWeekday,
			time.Date(2026, 3, 6, 9, 0, 0, 0, ny), time.Date(2026, 3, 9, 9, 0, 0, 0, ny)},
		{"once", time.Date(2026, 3, 6, 9, 0, 0, 0, ny), Once, time.Date(2026, 3, 6, 9, 0, 0, 0, ny), time.Time{}},
		{"unknown rule", time.Date(2026, 3, 6, 9, 0, 0, 0, ny), "fortnight", time.Date(2026, 3, 6, 9, 0, 0, 0, ny), time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NextOccurrence(tc.anchor, tc.every, tc.after)
			if !got.Equal(tc.want) {
				t.Fatalf("NextOccurrence = %v, want %v", got, tc.want)
			}
			if !got.IsZero() && got.Location() != tc.anchor.Location() {
				t.Errorf("location %v, want the anchor's", got.Location())
			}
		})
	}
	// Weekdays only, and always strictly after.
	anchor := time.Date(2026, 1, 5, 9, 0, 0, 0, ny)
	at := anchor
	for range 300 {
		next := NextOccurrence(anchor, EveryWeekday, at)
		if !next.After(at) || next.Weekday() == time.Saturday || next.Weekday() == time.Sunday ||
			next.Hour() != 9 || next.Minute() != 0 || next.Sub(at) > 73*time.Hour {
			t.Fatalf("after %v: %v", at, next)
		}
		at = next
	}
}

func TestReminderZones(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	// Named zone: stored by name, and the series keeps 9:00 across DST.
	fri := time.Date(2026, 3, 6, 9, 0, 0, 0, ny)
	r := mustCreateReminder(t, s, NewReminder{Task: "standup", Due: &fri, Every: EveryWeekday})
	if r.Zone != "America/New_York" || r.Offset != -300 || r.Location().String() != "America/New_York" {
		t.Fatalf("zone %q offset %d location %v", r.Zone, r.Offset, r.Location())
	}
	fr, _ := mustFire(t, s, r.ID, fri)
	if want := time.Date(2026, 3, 9, 9, 0, 0, 0, ny); !fr.Due.Equal(want) || fr.Due.Hour() != 9 {
		t.Fatalf("after DST: due %v, want %v", fr.Due, want)
	}
	if _, off := fr.Due.Zone(); off != -4*3600 {
		t.Errorf("Monday's offset %d, want EDT", off)
	}

	// Unnamed fixed offset: kept as the offset.
	ist := time.FixedZone("", 330*60)
	due := time.Date(2026, 3, 2, 9, 0, 0, 0, ist)
	r2 := mustCreateReminder(t, s, NewReminder{Task: "x", Due: &due, Every: EveryDay})
	if r2.Zone != "" || r2.Offset != 330 || !r2.Due.Equal(due) || r2.Due.Hour() != 9 {
		t.Fatalf("fixed zone reminder %+v, due %v", r2, r2.Due)
	}
	// A fixed zone that borrows an IANA name with another offset must not be
	// mistaken for that zone.
	fake := time.FixedZone("America/New_York", 2*3600)
	due3 := time.Date(2026, 7, 1, 9, 0, 0, 0, fake)
	r3 := mustCreateReminder(t, s, NewReminder{Task: "y", Due: &due3, Every: EveryDay})
	if _, off := r3.Due.Zone(); off != 2*3600 || r3.Due.Hour() != 9 {
		t.Fatalf("borrowed name: due %v", r3.Due)
	}
	// No due: the zone is the one the request was heard in.
	r4 := mustCreateReminder(t, s, NewReminder{Task: "z", Heard: time.Date(2026, 3, 2, 9, 0, 0, 0, ny)})
	if r4.Zone != "America/New_York" || r4.Offset != -300 {
		t.Fatalf("awaiting reminder zone %q %d", r4.Zone, r4.Offset)
	}
	got, err := s.Reminder(ctx, r4.ID)
	if err != nil || got.Location().String() != "America/New_York" {
		t.Fatalf("awaiting reminder read back %+v %v", got, err)
	}
}

func TestSnoozeReminder(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	due := time.Date(2026, 3, 2, 15, 0, 0, 0, est)
	r := mustCreateReminder(t, s, NewReminder{Task: "call Marcy Howard", Due: &due})
	_, n1 := mustFire(t, s, r.ID, due)
	until := due.Add(10 * time.Minute)
	sr, err := s.SnoozeReminder(ctx, r.ID, until)
	if err != nil {
		t.Fatal(err)
	}
	if sr.State != ReminderPending || !sr.Due.Equal(until) || sr.NudgeID != n1.ID || sr.FireCount != 1 {
		t.Fatalf("snoozed %+v", sr)
	}
	if st := nudgeState(t, s, n1.ID); st != NudgeSnoozed {
		t.Fatalf("nudge %s after snooze", st)
	}
	if _, _, err := s.FireReminder(ctx, r.ID, until.Add(-time.Second), Nudge{Message: "x"}); !errors.Is(err, ErrNotDue) {
		t.Fatalf("fired before the snooze ended: %v", err)
	}
	fr, n2 := mustFire(t, s, r.ID, until)
	if fr.State != ReminderFired || fr.FireCount != 2 || fr.NudgeID != n2.ID {
		t.Fatalf("after snooze %+v", fr)
	}
	if st := nudgeState(t, s, n1.ID); st != NudgeExpired {
		t.Errorf("snoozed nudge %s after the refiring, want expired", st)
	}
	// The app may record the nudge's snooze first; snoozing again is fine.
	if _, err := s.RespondNudge(ctx, n2.ID, NudgeSnoozed, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SnoozeReminder(ctx, r.ID, until.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	// Recurring: a snooze before the next occurrence is an extra firing, and
	// the series keeps its own time.
	anchor := time.Date(2026, 3, 2, 9, 0, 0, 0, est)
	rr := mustCreateReminder(t, s, NewReminder{Task: "check the docket", Due: &anchor, Every: EveryDay})
	mustFire(t, s, rr.ID, anchor)
	sn, err := s.SnoozeReminder(ctx, rr.ID, anchor.Add(10*time.Minute))
	if err != nil || !sn.Due.Equal(anchor.Add(10*time.Minute)) {
		t.Fatalf("recurring snooze %+v %v", sn, err)
	}
	fr, _ = mustFire(t, s, rr.ID, anchor.Add(10*time.Minute))
	if want := anchor.AddDate(0, 0, 1); !fr.Due.Equal(want) {
		t.Fatalf("after the snoozed firing due %v, want %v", fr.Due, want)
	}
	// A snooze past the next occurrence: the occurrence comes first.
	sn, err = s.SnoozeReminder(ctx, rr.ID, anchor.AddDate(0, 0, 2))
	if err != nil || !sn.Due.Equal(anchor.AddDate(0, 0, 1)) {
		t.Fatalf("long snooze of a recurring reminder: due %v, %v", sn.Due, err)
	}
	if ev := reminderEvents(t, s, rr.ID); !strings.Contains(ev[len(ev)-1], "comes first") {
		t.Errorf("world log %q", ev)
	}

	aw := mustCreateReminder(t, s, NewReminder{Task: "no time"})
	if _, err := s.SnoozeReminder(ctx, aw.ID, until); !errors.Is(err, ErrInvalid) {
		t.Errorf("snooze without a time: %v", err)
	}
	if _, err := s.CancelReminder(ctx, aw.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SnoozeReminder(ctx, aw.ID, until); !errors.Is(err, ErrReminderClosed) {
		t.Errorf("snooze cancelled: %v", err)
	}
}

func TestCompleteCancelDeleteReminder(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	due := time.Date(2026, 3, 2, 15, 0, 0, 0, est)

	one := mustCreateReminder(t, s, NewReminder{Task: "one", Due: &due})
	_, n := mustFire(t, s, one.ID, due)
	done, err := s.CompleteReminder(ctx, one.ID)
	if err != nil || done.State != ReminderDone {
		t.Fatalf("complete %+v %v", done, err)
	}
	if st := nudgeState(t, s, n.ID); st != NudgeAccepted {
		t.Errorf("nudge %s after complete", st)
	}
	for name, err := range map[string]error{
		"complete": second(s.CompleteReminder(ctx, one.ID)),
		"cancel":   second(s.CancelReminder(ctx, one.ID)),
		"update":   second(s.UpdateReminder(ctx, one.ID, ReminderUpdate{Due: &due})),
	} {
		if !errors.Is(err, ErrReminderClosed) {
			t.Errorf("%s done reminder: %v", name, err)
		}
	}

	// The app records the nudge's answer first; completing still works.
	rec := mustCreateReminder(t, s, NewReminder{Task: "rec", Due: &due, Every: EveryWeek})
	_, rn := mustFire(t, s, rec.ID, due)
	if _, err := s.RespondNudge(ctx, rn.ID, NudgeAccepted, ""); err != nil {
		t.Fatal(err)
	}
	rd, err := s.CompleteReminder(ctx, rec.ID)
	if err != nil || rd.State != ReminderPending || !rd.Due.Equal(due.AddDate(0, 0, 7)) {
		t.Fatalf("complete recurring: %+v %v", rd, err)
	}

	two := mustCreateReminder(t, s, NewReminder{Task: "two", Due: &due})
	_, n2 := mustFire(t, s, two.ID, due)
	c, err := s.CancelReminder(ctx, two.ID)
	if err != nil || c.State != ReminderCancelled {
		t.Fatalf("cancel %+v %v", c, err)
	}
	if st := nudgeState(t, s, n2.ID); st != NudgeDismissed {
		t.Errorf("nudge %s after cancel", st)
	}
	if _, err := s.CancelReminder(ctx, two.ID); !errors.Is(err, ErrReminderClosed) {
		t.Errorf("cancel twice: %v", err)
	}

	three := mustCreateReminder(t, s, NewReminder{Task: "three", Due: &due})
	_, n3 := mustFire(t, s, three.ID, due)
	if err := s.DeleteReminder(ctx, three.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reminder(ctx, three.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted reminder still there: %v", err)
	}
	if st := nudgeState(t, s, n3.ID); st != NudgeDismissed {
		t.Errorf("nudge %s after delete", st)
	}
	if ev := reminderEvents(t, s, three.ID); len(ev) != 3 || !strings.HasPrefix(ev[2], "deleted (was fired): three") {
		t.Errorf("world log %q", ev)
	}
	if err := s.DeleteReminder(ctx, three.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("delete twice: %v", err)
	}
}

func TestUpdateReminder(t *testing.T) {
	s, clk := openTest(t)
	ctx := t.Context()
	// The store's clock: Monday 2026-03-02 09:30 UTC.
	aw := mustCreateReminder(t, s, NewReminder{Task: "call the clerk", Heard: clk.Now()})
	due := time.Date(2026, 3, 2, 16, 0, 0, 0, est)
	r, err := s.UpdateReminder(ctx, aw.ID, ReminderUpdate{Due: &due})
	if err != nil || r.State != ReminderPending || !r.Due.Equal(due) || r.Offset != -300 {
		t.Fatalf("time set: %+v %v", r, err)
	}
	task, daily := "call the clerk about the hearing", EveryDay
	r, err = s.UpdateReminder(ctx, aw.ID, ReminderUpdate{Task: &task, Every: &daily})
	if err != nil || r.Task != task || r.Every != EveryDay || r.Anchor == nil || !r.Anchor.Equal(due) || !r.Due.Equal(due) {
		t.Fatalf("made daily: %+v %v", r, err)
	}
	weekly := EveryWeek
	if r, err = s.UpdateReminder(ctx, aw.ID, ReminderUpdate{Every: &weekly}); err != nil || !r.Due.Equal(due) {
		t.Fatalf("made weekly: due %v %v", r.Due, err)
	}
	once := Once
	if r, err = s.UpdateReminder(ctx, aw.ID, ReminderUpdate{Every: &once}); err != nil || r.Anchor != nil || r.Every != Once {
		t.Fatalf("made one-shot: %+v %v", r, err)
	}
	before := len(reminderEvents(t, s, aw.ID))
	if _, err := s.UpdateReminder(ctx, aw.ID, ReminderUpdate{Task: &r.Task}); err != nil {
		t.Fatal(err)
	}
	if after := len(reminderEvents(t, s, aw.ID)); after != before {
		t.Errorf("an edit that changes nothing logged %d events", after-before)
	}

	// Re-arming a fired reminder expires its unanswered nudge.
	fired, n := mustFire(t, s, aw.ID, due)
	later := due.Add(2 * time.Hour)
	r, err = s.UpdateReminder(ctx, fired.ID, ReminderUpdate{Due: &later})
	if err != nil || r.State != ReminderPending || !r.Due.Equal(later) {
		t.Fatalf("re-armed %+v %v", r, err)
	}
	if st := nudgeState(t, s, n.ID); st != NudgeExpired {
		t.Errorf("nudge %s after re-arming", st)
	}
	// A fired one-shot made recurring keeps its nudge and moves to the next
	// occurrence after the store's clock.
	clk.Advance(24 * time.Hour) // Tuesday 09:30 UTC
	fired, n = mustFire(t, s, aw.ID, later)
	weekday := EveryWeekday
	r, err = s.UpdateReminder(ctx, fired.ID, ReminderUpdate{Every: &weekday})
	if want := time.Date(2026, 3, 3, 18, 0, 0, 0, est); err != nil || r.State != ReminderPending || !r.Due.Equal(want) || r.NudgeID != n.ID {
		t.Fatalf("fired made recurring: %+v (due %v) %v; want due %v", r, r.Due, err, want)
	}
	if st := nudgeState(t, s, n.ID); st != NudgeShown {
		t.Errorf("nudge %s", st)
	}

	blank, bogus := " ", Recurrence("monthly")
	for name, u := range map[string]ReminderUpdate{
		"empty task": {Task: &blank},
		"bad every":  {Every: &bogus},
		"zero due":   {Due: &time.Time{}},
	} {
		if _, err := s.UpdateReminder(ctx, aw.ID, u); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := s.UpdateReminder(ctx, 99, ReminderUpdate{Due: &due}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
}

func TestReminderForNudgeAndOpenFirings(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	due := time.Date(2026, 3, 2, 15, 0, 0, 0, est)
	a := mustCreateReminder(t, s, NewReminder{Task: "a", Due: &due})
	b := mustCreateReminder(t, s, NewReminder{Task: "b", Due: &due, Every: EveryDay})
	c := mustCreateReminder(t, s, NewReminder{Task: "c", Due: &due})
	other, err := s.CreateNudge(ctx, Nudge{Kind: "info", Message: "not a reminder"})
	if err != nil {
		t.Fatal(err)
	}
	_, na := mustFire(t, s, a.ID, due)
	_, nb := mustFire(t, s, b.ID, due)
	_, nc := mustFire(t, s, c.ID, due)

	r, err := s.ReminderForNudge(ctx, nb.ID)
	if err != nil || r.ID != b.ID {
		t.Fatalf("ReminderForNudge(%d) = %+v, %v", nb.ID, r, err)
	}
	if _, err := s.ReminderForNudge(ctx, other.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("nudge of no reminder: %v", err)
	}
	if _, err := s.RespondNudge(ctx, nc.ID, NudgeDismissed, ""); err != nil {
		t.Fatal(err)
	}
	fs, err := s.OpenReminderFirings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[0].Reminder.ID != a.ID || fs[0].Nudge != na || fs[1].Reminder.ID != b.ID || fs[1].Nudge != nb {
		t.Fatalf("open firings %+v", fs)
	}
}

// TestReminderConstraints keeps the schema honest about states that the
// store's code never writes.
func TestReminderConstraints(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	ins := `INSERT INTO reminders (created, task, due, anchor, every, utc_offset, zone, state, fired_at, fire_count, nudge_id, updated)
		VALUES (0, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, 0)`
	nudge, err := s.CreateNudge(ctx, Nudge{Kind: "reminder", Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]any{
		"empty task":             {" ", 1, nil, "", 0, "pending", nil, 0, nil},
		"bad every":              {"x", 1, 1, "month", 0, "pending", nil, 0, nil},
		"bad state":              {"x", 1, nil, "", 0, "snoozed", nil, 0, nil},
		"pending without due":    {"x", nil, nil, "", 0, "pending", nil, 0, nil},
		"awaiting with due":      {"x", 1, nil, "", 0, "awaiting_time", nil, 0, nil},
		"one-shot with anchor":   {"x", 1, 1, "", 0, "pending", nil, 0, nil},
		"recurring, no anchor":   {"x", 1, nil, "day", 0, "pending", nil, 0, nil},
		"recurring fired":        {"x", 1, 1, "day", 0, "fired", 1, 1, nudge.ID},
		"fired without nudge":    {"x", 1, nil, "", 0, "fired", 1, 1, nil},
		"count without firing":   {"x", 1, nil, "", 0, "pending", nil, 1, nil},
		"nudge without firing":   {"x", 1, nil, "", 0, "pending", nil, 0, nudge.ID},
		"offset out of range":    {"x", 1, nil, "", 2000, "pending", nil, 0, nil},
		"nudge that isn't there": {"x", 1, nil, "", 0, "fired", 1, 1, 999},
	} {
		if _, err := s.w.ExecContext(ctx, ins, args...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// The same shapes the store writes are accepted.
	if _, err := s.w.ExecContext(ctx, ins, "x", 1, nil, "", 0, "fired", 1, 1, nudge.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, ins, "y", 1, nil, "", 0, "fired", 1, 1, nudge.ID); err == nil {
		t.Error("two reminders share one nudge")
	}
}

// TestMigrateToV3KeepsData migrates files written by each earlier schema,
// with data in them, and checks that the old data survives and reminders
// work alongside it (TestMigrateFromEveryEarlierVersion covers the rest).
func TestMigrateToV3KeepsData(t *testing.T) {
	for _, from := range []int64{1, 2} {
		t.Run(fmt.Sprintf("from v%d", from), func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), FileName)
			db := rawDB(t, path)
			if err := MigrateTo(ctx, db, from); err != nil {
				t.Fatal(err)
			}
			seed(t, db, from)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if v, err := s.SchemaVersion(ctx); err != nil || v < 3 {
				t.Fatalf("version %d, %v", v, err)
			}
			var oldNudges int
			if from >= 2 {
				ns, err := s.Nudges(ctx)
				if err != nil || len(ns) != 1 || ns[0].Message != "old nudge" || ns[0].State != NudgeSnoozed {
					t.Fatalf("old nudges %+v %v", ns, err)
				}
				oldNudges = 1
				if v, ok, err := s.Setting(ctx, "listen"); err != nil || !ok || v != "true" {
					t.Fatalf("old setting %q %v %v", v, ok, err)
				}
			}
			es, err := s.Since(ctx, 0, 0)
			if err != nil || len(es) != 2 || es[0].Text != "old event" {
				t.Fatalf("old log %+v %v", es, err)
			}
			due := time.Date(2026, 3, 2, 15, 0, 0, 0, est)
			r := mustCreateReminder(t, s, NewReminder{Task: "after migration", Due: &due})
			_, n := mustFire(t, s, r.ID, due)
			if n.ID != int64(oldNudges+1) {
				t.Errorf("new nudge id %d after %d old ones", n.ID, oldNudges)
			}
			if got, err := s.Since(ctx, 2, 0); err != nil || len(got) != 2 || got[0].Source != ReminderEventSource {
				t.Errorf("new log entries %+v %v", got, err)
			}
		})
	}
}

// TestMigrateV3DownKeepsEarlierData rolls migration 3 back on a file with
// reminders in it: the older tables and their rows are untouched.
func TestMigrateV3DownKeepsEarlierData(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 3, 2, 15, 0, 0, 0, est)
	r := mustCreateReminder(t, s, NewReminder{Task: "x", Due: &due})
	mustFire(t, s, r.ID, due)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	p, err := newProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 2); err != nil {
		t.Fatal(err)
	}
	var nudges, events int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM nudges), (SELECT count(*) FROM world)`).Scan(&nudges, &events); err != nil {
		t.Fatal(err)
	}
	if nudges != 1 || events != 2 {
		t.Fatalf("after down: %d nudges, %d events", nudges, events)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestReminderStateHelpers(t *testing.T) {
	for st, open := range map[ReminderState]bool{
		ReminderPending: true, ReminderAwaitingTime: true, ReminderFired: true,
		ReminderDone: false, ReminderCancelled: false,
	} {
		if !st.Valid() || st.Open() != open {
			t.Errorf("%s: valid %v open %v", st, st.Valid(), st.Open())
		}
	}
	if ReminderState("x").Valid() || Recurrence("x").Valid() || !Once.Valid() {
		t.Error("Valid")
	}
	if got := ReminderIdentifier(42); got != "reminder-42" {
		t.Errorf("identifier %q", got)
	}
}
