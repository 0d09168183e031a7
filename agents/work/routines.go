package work

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/spirit-app/spirit/agents/store"
)

// Schedule is a routine's standard 5-field cron spec (minute hour
// day-of-month month day-of-week; names like MON-FRI allowed; Sunday is 0
// or 7, as in cron), read on the lawyer's wall clock.
//
// Daylight saving changes follow the wall clock: a time that does not
// exist on the day the clocks go forward runs when they have jumped (02:30
// runs at 03:00), and a time that happens twice when they go back runs
// once, the first time.
type Schedule struct {
	spec  string
	sched cron.Schedule
}

var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// ParseSchedule reads a 5-field cron spec. A spec that names its own time
// zone is refused (routines keep the lawyer's), and so is one that never
// comes (30 February).
func ParseSchedule(spec string) (Schedule, error) {
	spec = strings.Join(strings.Fields(spec), " ")
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		return Schedule{}, fmt.Errorf("cron %q: %w: routines run in your own time zone; leave out %s", spec, store.ErrInvalid, spec[:strings.IndexByte(spec, '=')])
	}
	if n := len(strings.Fields(spec)); n != 5 {
		return Schedule{}, fmt.Errorf("cron %q: %w: want 5 fields (minute hour day-of-month month day-of-week), e.g. \"30 8 * * 1-5\"; got %d", spec, store.ErrInvalid, n)
	}
	f := strings.Fields(spec)
	f[4] = sundayAsZero(f[4])
	s, err := parser.Parse(strings.Join(f, " "))
	if err != nil {
		return Schedule{}, fmt.Errorf("cron %q: %w: %w", spec, store.ErrInvalid, err)
	}
	sc := Schedule{spec: spec, sched: s}
	ref := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if sc.Next(ref, time.UTC).IsZero() && sc.Next(ref.AddDate(4, 0, 0), time.UTC).IsZero() {
		return Schedule{}, fmt.Errorf("cron %q: %w: that date never comes", spec, store.ErrInvalid)
	}
	return sc, nil
}

// sundayAsZero rewrites a day-of-week field's 7s, which cron reads as
// Sunday and the cron library refuses, as 0: "7" is "0", "5-7" is
// "5-6,0", "1-7/2" is "1-6/2,0". Anything else is left for the library
// to take or refuse.
func sundayAsZero(dow string) string {
	items := strings.Split(dow, ",")
	for i, it := range items {
		rng, step, stepped := strings.Cut(it, "/")
		lo, hi, ranged := strings.Cut(rng, "-")
		switch {
		case rng == "7", ranged && lo == "7" && hi == "7":
			items[i] = "0" // "7/2" runs from 7 to the end: only 7
		case ranged && hi == "7":
			from, errFrom := strconv.Atoi(lo)
			by, errBy := 1, error(nil)
			if stepped {
				by, errBy = strconv.Atoi(step)
			}
			if errFrom != nil || errBy != nil || from < 0 || from > 6 || by < 1 {
				continue
			}
			items[i] = lo + "-6"
			if stepped {
				items[i] += "/" + step
			}
			if (7-from)%by == 0 {
				items[i] += ",0"
			}
		}
	}
	return strings.Join(items, ",")
}

// String is the spec as parsed, spacing normalised.
func (s Schedule) String() string { return s.spec }

// Next is the first scheduled time after after, on the wall clock of loc;
// zero if none comes within five years.
func (s Schedule) Next(after time.Time, loc *time.Location) time.Time {
	a := after.In(loc)
	// The cron library walks the wall clock as if it were UTC, where no
	// hour is skipped or repeated; resolve maps each time back to loc.
	w := time.Date(a.Year(), a.Month(), a.Day(), a.Hour(), a.Minute(), a.Second(), a.Nanosecond(), time.UTC)
	for {
		w = s.sched.Next(w)
		if w.IsZero() {
			return time.Time{}
		}
		// A wall time whose first occurrence is not after after (the
		// second pass of a repeated hour) does not run again.
		if t := resolve(w, loc); t.After(after) {
			return t
		}
	}
}

// Due returns the latest scheduled time in (last, now]: at most one run,
// however many times passed while Spirit was off. ok is false when none
// did.
func (s Schedule) Due(now, last time.Time, loc *time.Location) (slot time.Time, ok bool) {
	if !now.After(last) {
		return time.Time{}, false
	}
	// Look back in doubling windows, so that a long absence costs a few
	// steps however dense the schedule.
	for back := time.Hour; ; back *= 2 {
		from := now.Add(-back)
		if !from.After(last) {
			from = last
		}
		for t := s.Next(from, loc); !t.IsZero() && !t.After(now); t = s.Next(t, loc) {
			slot, ok = t, true
		}
		if ok || from.Equal(last) {
			return slot, ok
		}
	}
}

// resolve is the instant loc's wall clock shows w's fields, the first such
// if the hour repeats, or the end of the jump if the clocks skip over it.
func resolve(w time.Time, loc *time.Location) time.Time {
	t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, loc)
	if sameWall(t, w) {
		first := t
		for _, d := range []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour} {
			if e := t.Add(-d); sameWall(e, w) && e.Before(first) {
				first = e
			}
		}
		return first
	}
	// In a gap: t is on one side of the jump; the jump is where t's zone
	// period begins (t after it) or ends (t before it).
	start, end := t.ZoneBounds()
	if wall(t).After(w) {
		return start
	}
	return end
}

// wall is t's wall clock as a UTC time.
func wall(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

func sameWall(t, w time.Time) bool { return wall(t).Equal(w.Truncate(time.Second)) }

// RoutineDue returns the routine's latest scheduled time that is not
// handled yet (see Schedule.Due): after its LastRun, or after it was
// created. A disabled routine is never due.
func RoutineDue(rt store.Routine, now time.Time, loc *time.Location) (time.Time, bool, error) {
	if !rt.Enabled {
		return time.Time{}, false, nil
	}
	s, err := ParseSchedule(rt.Cron)
	if err != nil {
		return time.Time{}, false, err
	}
	last := rt.Created
	if rt.LastRun != nil && rt.LastRun.After(last) {
		last = *rt.LastRun
	}
	slot, ok := s.Due(now, last, loc)
	return slot, ok, nil
}

// AddRoutine checks the cron spec and stores a new, enabled routine.
func AddRoutine(ctx context.Context, st *store.Store, spec, prompt string) (store.Routine, error) {
	s, err := ParseSchedule(spec)
	if err != nil {
		return store.Routine{}, err
	}
	if strings.TrimSpace(prompt) == "" {
		return store.Routine{}, fmt.Errorf("routine: %w: empty prompt", store.ErrInvalid)
	}
	return st.CreateRoutine(ctx, store.NewRoutine{Cron: s.String(), Prompt: prompt})
}

// UpdateRoutine checks a new cron spec, if any, and stores the edit.
func UpdateRoutine(ctx context.Context, st *store.Store, id int64, u store.RoutineUpdate) (store.Routine, error) {
	if u.Cron != nil {
		s, err := ParseSchedule(*u.Cron)
		if err != nil {
			return store.Routine{}, err
		}
		spec := s.String()
		u.Cron = &spec
	}
	return st.UpdateRoutine(ctx, id, u)
}

// RoutineDedupKey marks routine id's run for its scheduled time slot: a
// restart that runs the same slot again cannot deliver twice.
func RoutineDedupKey(id int64, slot time.Time) string {
	return fmt.Sprintf("%s@%s", RoutineSource(id), slot.UTC().Format(time.RFC3339))
}

// RunDue starts, in the background, every enabled routine that is due at
// the runner's now, and returns when the next one is: the caller's timer
// wakes then (or sooner, when routines change). A routine still running
// from its last time is skipped as busy. Each handled time is recorded as
// the routine's last run once its outcome is, unless the runner was
// closing: then a restart catches it up, and the dedup key keeps a
// delivery it had made from happening twice.
func (r *Runner) RunDue(ctx context.Context) (next time.Time, err error) {
	if err := r.life.Err(); err != nil {
		return time.Time{}, fmt.Errorf("work runner closed: %w", err)
	}
	now := r.opt.Now()
	loc := now.Location()
	rts, err := r.opt.Store.Routines(ctx)
	if err != nil {
		return time.Time{}, err
	}
	var errs []error
	for _, rt := range rts {
		if !rt.Enabled {
			continue
		}
		s, err := ParseSchedule(rt.Cron)
		if err != nil {
			errs = append(errs, fmt.Errorf("routine %d: %w", rt.ID, err))
			continue
		}
		slot, due, _ := RoutineDue(rt, now, loc)
		if key, running := r.runningKey(RoutineSource(rt.ID)); running && key == RoutineDedupKey(rt.ID, slot) {
			due = false // this very time is running now: not a new request
		}
		if due {
			req := r.routineRequest(rt, slot, now)
			run, err := r.accept(ctx, req)
			if err != nil {
				errs = append(errs, fmt.Errorf("routine %d: %w", rt.ID, err))
				continue
			}
			r.background(run, req, nil)
		}
		if n := s.Next(now, loc); !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	return next, errors.Join(errs...)
}

// routineRequest is the request for routine rt's time slot.
func (r *Runner) routineRequest(rt store.Routine, slot, now time.Time) Request {
	req := Request{Source: RoutineSource(rt.ID), Prompt: rt.Prompt, DedupKey: RoutineDedupKey(rt.ID, slot)}
	// More than a few minutes late means Spirit was off: the model hears so.
	if now.Sub(slot) > 5*time.Minute {
		req.late = slot
	}
	req.Done = func(ctx context.Context, o Outcome) {
		if r.life.Err() != nil {
			return // closing: the slot stays due for the next start
		}
		if _, err := r.opt.Store.MarkRoutineRun(ctx, rt.ID, slot); err != nil && !errors.Is(err, store.ErrNotFound) {
			r.opt.Log.Warn("work: mark routine run", "routine", rt.ID, "err", err)
		}
	}
	return req
}

// RunRoutine runs routine id now, whatever its schedule (spirit work run
// ID), and returns the outcome. It does not move the routine's last run.
func (r *Runner) RunRoutine(ctx context.Context, id int64) (Outcome, error) {
	rt, err := r.opt.Store.Routine(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	return r.Run(ctx, Request{Source: RoutineSource(rt.ID), Prompt: rt.Prompt})
}
