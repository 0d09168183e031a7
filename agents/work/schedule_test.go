package work

import (
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the DST cases need real zones wherever they run

	"github.com/spirit-app/spirit/agents/store"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func mustSchedule(t testing.TB, spec string) Schedule {
	t.Helper()
	s, err := ParseSchedule(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// at is a wall-clock time in loc; offset picks between the two instants
// of a repeated hour ("EDT"/"EST"), "" for an ordinary time.
func at(t testing.TB, loc *time.Location, s, abbrev string) time.Time {
	t.Helper()
	w, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		t.Fatal(err)
	}
	if abbrev != "" {
		for _, d := range []time.Duration{0, -time.Hour, time.Hour} {
			c := w.Add(d)
			if name, _ := c.Zone(); name == abbrev && c.Format("2006-01-02 15:04") == s {
				return c
			}
		}
		t.Fatalf("%s %s does not exist", s, abbrev)
	}
	return w
}

func TestParseSchedule(t *testing.T) {
	cases := []struct {
		name, spec string
		want       string // the normalised spec, or a part of the error
		ok         bool
	}{
		{"weekdays at 8:30", "30 8 * * 1-5", "30 8 * * 1-5", true},
		{"spaces are normalised", "  30   8 * *  MON-FRI ", "30 8 * * MON-FRI", true},
		{"steps and lists", "*/20 9-17 1,15 * *", "*/20 9-17 1,15 * *", true},
		{"six fields (seconds) refused", "0 30 8 * * 1-5", "want 5 fields", false},
		{"four fields refused", "30 8 * *", "want 5 fields", false},
		{"empty refused", "", "want 5 fields", false},
		{"descriptor refused", "@daily", "want 5 fields", false},
		{"own time zone refused", "CRON_TZ=Europe/Paris 30 8 * * *", "your own time zone", false},
		{"TZ prefix refused", "TZ=UTC 30 8 * * *", "your own time zone", false},
		{"minute out of range", "60 8 * * *", "end of range (60) above maximum (59)", false},
		{"weekday out of range", "0 8 * * 1-8", "above maximum (6)", false},
		{"Sunday as 7, as in cron", "0 9 * * 7", "0 9 * * 7", true},
		{"a range to Sunday as 7", "0 9 * * 5-7", "0 9 * * 5-7", true},
		{"8 is no day", "0 9 * * 8", "above maximum (6)", false},
		{"a date that never comes", "0 9 30 2 *", "never comes", false},
		{"not a number", "x 8 * * *", "failed to parse", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseSchedule(c.spec)
			if c.ok {
				if err != nil || s.String() != c.want {
					t.Fatalf("got %q, %v; want %q", s.String(), err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("got error %v; want one with %q matching ErrInvalid", err, c.want)
			}
		})
	}
}

func TestScheduleNext(t *testing.T) {
	ny, berlin := zone(t, "America/New_York"), zone(t, "Europe/Berlin")
	cases := []struct {
		name        string
		spec        string
		loc         *time.Location
		after       time.Time
		want        time.Time
		wantWallOff string // the zone abbreviation the answer must be in
	}{
		{"weekday: Friday evening to Monday", "30 8 * * 1-5", ny,
			at(t, ny, "2026-11-27 18:00", ""), at(t, ny, "2026-11-30 08:30", ""), "EST"},
		{"weekday: Monday before the time is the same day", "30 8 * * MON-FRI", ny,
			at(t, ny, "2026-11-30 08:29", ""), at(t, ny, "2026-11-30 08:30", ""), "EST"},
		{"at the time exactly: the next one", "30 8 * * 1-5", ny,
			at(t, ny, "2026-11-30 08:30", ""), at(t, ny, "2026-12-01 08:30", ""), "EST"},
		{"weekend only", "0 10 * * 6,0", ny,
			at(t, ny, "2026-11-25 12:00", ""), at(t, ny, "2026-11-28 10:00", ""), "EST"},
		{"Friday to Monday as a list", "0 7 * * 5,6,0,1", ny,
			at(t, ny, "2026-11-24 12:00", ""), at(t, ny, "2026-11-27 07:00", ""), "EST"},
		{"day of month or weekday (either matches)", "0 9 1 * 1", ny,
			at(t, ny, "2026-11-24 12:00", ""), at(t, ny, "2026-11-30 09:00", ""), "EST"},
		{"Sunday as 7", "0 9 * * 7", ny,
			at(t, ny, "2026-11-25 12:00", ""), at(t, ny, "2026-11-29 09:00", ""), "EST"},
		{"Friday to Sunday as 5-7: Saturday", "0 9 * * 5-7", ny,
			at(t, ny, "2026-11-27 12:00", ""), at(t, ny, "2026-11-28 09:00", ""), "EST"},
		{"Friday to Sunday as 5-7: Sunday", "0 9 * * 5-7", ny,
			at(t, ny, "2026-11-28 12:00", ""), at(t, ny, "2026-11-29 09:00", ""), "EST"},
		{"Friday to Sunday as 5-7: not Monday", "0 9 * * 5-7", ny,
			at(t, ny, "2026-11-29 12:00", ""), at(t, ny, "2026-12-04 09:00", ""), "EST"},
		{"every other day to 7: Sunday, not Saturday", "0 9 * * 1-7/2", ny,
			at(t, ny, "2026-11-27 12:00", ""), at(t, ny, "2026-11-29 09:00", ""), "EST"},
		{"every other day to 7: Friday", "0 9 * * 1-7/2", ny,
			at(t, ny, "2026-11-27 08:00", ""), at(t, ny, "2026-11-27 09:00", ""), "EST"},
		{"a name and 7 in a list", "0 9 * * SAT,7", ny,
			at(t, ny, "2026-11-28 12:00", ""), at(t, ny, "2026-11-29 09:00", ""), "EST"},
		{"month and day", "0 9 15 1 *", ny,
			at(t, ny, "2026-11-24 12:00", ""), at(t, ny, "2027-01-15 09:00", ""), "EST"},
		{"spring forward: 02:30 does not exist, runs at 03:00", "30 2 * * *", ny,
			at(t, ny, "2026-03-07 23:00", ""), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), "EDT"},
		{"spring forward: the day after is 02:30 again", "30 2 * * *", ny,
			time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), at(t, ny, "2026-03-09 02:30", ""), "EDT"},
		{"spring forward: the hour after the jump runs as usual", "0 3 * * *", ny,
			at(t, ny, "2026-03-07 23:00", ""), at(t, ny, "2026-03-08 03:00", ""), "EDT"},
		{"fall back: 01:30 runs the first time", "30 1 * * *", ny,
			at(t, ny, "2026-10-31 23:00", ""), at(t, ny, "2026-11-01 01:30", "EDT"), "EDT"},
		{"fall back: not again the second time", "30 1 * * *", ny,
			at(t, ny, "2026-11-01 01:30", "EDT"), at(t, ny, "2026-11-02 01:30", ""), "EST"},
		{"fall back: every 15 minutes skips the repeated hour", "*/15 * * * *", ny,
			at(t, ny, "2026-11-01 01:45", "EDT"), at(t, ny, "2026-11-01 02:00", ""), "EST"},
		{"fall back: starting inside the repeat waits for new wall time", "*/15 * * * *", ny,
			at(t, ny, "2026-11-01 01:05", "EST"), at(t, ny, "2026-11-01 02:00", ""), "EST"},
		{"Berlin spring forward: 02:15 runs at 03:00 CEST", "15 2 * * *", berlin,
			at(t, berlin, "2026-03-28 12:00", ""), time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), "CEST"},
		{"the lawyer's zone, not the argument's", "30 8 * * *", berlin,
			time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 7, 30, 0, 0, time.UTC), "CET"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mustSchedule(t, c.spec).Next(c.after, c.loc)
			if !got.Equal(c.want) {
				t.Fatalf("Next(%s) = %s; want %s", c.after.In(c.loc), got.In(c.loc), c.want.In(c.loc))
			}
			if name, _ := got.Zone(); name != c.wantWallOff {
				t.Errorf("answer in %s, want %s", name, c.wantWallOff)
			}
		})
	}
}

// The fall-back case "starting inside the repeat" is the one place a wall
// time shows twice; check the answer is not before after.
func TestScheduleNextIsAlwaysLater(t *testing.T) {
	ny := zone(t, "America/New_York")
	s := mustSchedule(t, "*/7 * * * *")
	from := at(t, ny, "2026-10-31 22:00", "")
	prev := from
	for i := 0; i < 2000; i++ {
		n := s.Next(prev, ny)
		if !n.After(prev) {
			t.Fatalf("step %d: Next(%s) = %s, not later", i, prev, n)
		}
		prev = n
	}
}

func TestScheduleDue(t *testing.T) {
	ny := zone(t, "America/New_York")
	weekday := "30 8 * * 1-5"
	cases := []struct {
		name      string
		spec      string
		now, last time.Time
		want      time.Time // zero: not due
	}{
		{"before the first time", weekday, at(t, ny, "2026-11-30 08:29", ""), at(t, ny, "2026-11-30 08:00", ""), time.Time{}},
		{"at the time exactly", weekday, at(t, ny, "2026-11-30 08:30", ""), at(t, ny, "2026-11-30 08:00", ""), at(t, ny, "2026-11-30 08:30", "")},
		{"a minute after", weekday, at(t, ny, "2026-11-30 08:31", ""), at(t, ny, "2026-11-27 08:30", ""), at(t, ny, "2026-11-30 08:30", "")},
		{"already handled", weekday, at(t, ny, "2026-11-30 12:00", ""), at(t, ny, "2026-11-30 08:30", ""), time.Time{}},
		{"off over the weekend: Friday's is not due on Saturday again", weekday, at(t, ny, "2026-11-28 09:00", ""), at(t, ny, "2026-11-27 08:30", ""), time.Time{}},
		{"off for three weekdays: one catch-up, the latest", weekday, at(t, ny, "2026-12-03 10:00", ""), at(t, ny, "2026-11-30 08:30", ""), at(t, ny, "2026-12-03 08:30", "")},
		{"off for a week, back in the evening: yesterday's latest", weekday, at(t, ny, "2026-12-05 20:00", ""), at(t, ny, "2026-11-27 08:30", ""), at(t, ny, "2026-12-04 08:30", "")},
		{"every minute, off for a year: the last minute", "* * * * *", at(t, ny, "2026-11-30 08:30", ""), at(t, ny, "2025-11-30 08:30", ""), at(t, ny, "2026-11-30 08:30", "")},
		{"yearly, off for two years: the latest", "0 9 15 1 *", at(t, ny, "2026-11-30 08:30", ""), at(t, ny, "2024-06-01 00:00", ""), at(t, ny, "2026-01-15 09:00", "")},
		{"now equals last", weekday, at(t, ny, "2026-11-30 08:30", ""), at(t, ny, "2026-11-30 08:30", ""), time.Time{}},
		{"clock went back", weekday, at(t, ny, "2026-11-30 08:00", ""), at(t, ny, "2026-11-30 09:00", ""), time.Time{}},
		{"spring forward: due at the jump", "30 2 * * *", time.Date(2026, 3, 8, 7, 5, 0, 0, time.UTC), at(t, ny, "2026-03-07 03:00", ""), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC)},
		{"fall back: the second 01:30 is not due", "30 1 * * *", at(t, ny, "2026-11-01 01:40", "EST"), at(t, ny, "2026-11-01 01:30", "EDT"), time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := mustSchedule(t, c.spec).Due(c.now, c.last, ny)
			if ok != !c.want.IsZero() || !got.Equal(c.want) {
				t.Fatalf("Due(now %s, last %s) = %s, %v; want %s", c.now.In(ny), c.last.In(ny), got.In(ny), ok, c.want.In(ny))
			}
		})
	}
}

func TestRoutineDue(t *testing.T) {
	ny := zone(t, "America/New_York")
	created := at(t, ny, "2026-11-30 09:00", "")
	last := at(t, ny, "2026-12-01 08:30", "")
	cases := []struct {
		name string
		rt   store.Routine
		now  time.Time
		want time.Time
		err  bool
	}{
		{"new routine: not before its first time", store.Routine{Cron: "30 8 * * *", Enabled: true, Created: created}, at(t, ny, "2026-11-30 12:00", ""), time.Time{}, false},
		{"new routine: its first time", store.Routine{Cron: "30 8 * * *", Enabled: true, Created: created}, at(t, ny, "2026-12-01 08:30", ""), at(t, ny, "2026-12-01 08:30", ""), false},
		{"last run counts over created", store.Routine{Cron: "30 8 * * *", Enabled: true, Created: created, LastRun: &last}, at(t, ny, "2026-12-01 20:00", ""), time.Time{}, false},
		{"disabled is never due", store.Routine{Cron: "30 8 * * *", Enabled: false, Created: created}, at(t, ny, "2026-12-05 08:30", ""), time.Time{}, false},
		{"a bad spec is an error", store.Routine{Cron: "30 8 * *", Enabled: true, Created: created}, at(t, ny, "2026-12-05 08:30", ""), time.Time{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok, err := RoutineDue(c.rt, c.now, ny)
			if (err != nil) != c.err {
				t.Fatalf("err %v, want error %v", err, c.err)
			}
			if ok != !c.want.IsZero() || !got.Equal(c.want) {
				t.Fatalf("got %s, %v; want %s", got.In(ny), ok, c.want.In(ny))
			}
		})
	}
}

func TestRoutineDedupKey(t *testing.T) {
	ny := zone(t, "America/New_York")
	slot := at(t, ny, "2026-12-01 08:30", "")
	if got, want := RoutineDedupKey(3, slot), "routine:3@2026-12-01T13:30:00Z"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if id, ok := RoutineSource(3).Routine(); !ok || id != 3 {
		t.Fatalf("RoutineSource(3).Routine() = %d, %v", id, ok)
	}
}

// TestSundayAsZero: the day-of-week field's 7s become the 0 the cron
// library reads as Sunday, and nothing else changes.
func TestSundayAsZero(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"seven", "7", "0"},
		{"zero stays", "0", "0"},
		{"every day", "*", "*"},
		{"a range to seven", "5-7", "5-6,0"},
		{"the whole week from one", "1-7", "1-6,0"},
		{"a step that lands on seven", "1-7/2", "1-6/2,0"},
		{"a step that misses seven", "2-7/2", "2-6/2"},
		{"seven to seven", "7-7", "0"},
		{"seven with a step", "7/2", "0"},
		{"a list", "1,3,7", "1,3,0"},
		{"names", "SAT,SUN", "SAT,SUN"},
		{"a name to seven is the library's to refuse", "FRI-7", "FRI-7"},
		{"eight is the library's to refuse", "8", "8"},
		{"weekdays", "1-5", "1-5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sundayAsZero(tc.in); got != tc.want {
				t.Errorf("sundayAsZero(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
