package calendar

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/teambition/rrule-go"
)

// TestWindowRuleMatchesWalk: a rule started at the window gives exactly the
// occurrences that walking it from DTSTART gives, for rules of every
// frequency, across DST changes, month ends and leap days, with DTSTART a
// few years back (where the full walk is still cheap to compare with).
func TestWindowRuleMatchesWalk(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	rules := []string{
		"FREQ=DAILY",
		"FREQ=DAILY;INTERVAL=3",
		"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29",
		"FREQ=WEEKLY",
		"FREQ=WEEKLY;BYDAY=MO,WE,FR",
		"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU",
		"FREQ=WEEKLY;INTERVAL=3;BYDAY=SA;WKST=MO",
		"FREQ=MONTHLY",
		"FREQ=MONTHLY;BYDAY=2TU",
		"FREQ=MONTHLY;BYDAY=-1FR",
		"FREQ=MONTHLY;BYMONTHDAY=31",
		"FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=-1",
		"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
		"FREQ=YEARLY",
		"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
		"FREQ=YEARLY;INTERVAL=2;BYMONTH=3,9;BYDAY=1MO",
		"FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO",
		"FREQ=HOURLY;INTERVAL=5",
		"FREQ=HOURLY;INTERVAL=7;BYHOUR=9,10,11,12,13,14,15,16",
		"FREQ=HOURLY;BYHOUR=9,17",
		"FREQ=DAILY;BYHOUR=9,13;BYMINUTE=0,30",
		"FREQ=DAILY;COUNT=2000",
		"FREQ=WEEKLY;BYDAY=TU,TH;COUNT=400",
		"FREQ=HOURLY;INTERVAL=11;COUNT=100000",
		"FREQ=DAILY;UNTIL=20270301T000000Z",
		"FREQ=WEEKLY;UNTIL=20261115T000000Z",
	}
	starts := []time.Time{
		time.Date(2021, 1, 31, 23, 30, 0, 0, ny),
		time.Date(2020, 2, 29, 9, 0, 0, 0, ny),
		time.Date(2023, 3, 12, 2, 30, 0, 0, ny), // in the spring-forward gap
		time.Date(2022, 11, 6, 1, 30, 0, 0, ny), // in the fall-back fold
		time.Date(2019, 7, 4, 0, 0, 0, 0, time.UTC),
	}
	windows := []struct{ from, to time.Time }{
		{time.Date(2026, 11, 1, 0, 0, 0, 0, ny), time.Date(2026, 11, 8, 0, 0, 0, 0, ny)},
		{time.Date(2026, 3, 1, 0, 0, 0, 0, ny), time.Date(2027, 4, 1, 0, 0, 0, 0, ny)},
		{time.Date(2028, 2, 28, 12, 0, 0, 0, time.UTC), time.Date(2028, 3, 2, 0, 0, 0, 0, time.UTC)},
	}
	for _, text := range rules {
		for _, s := range starts {
			for _, w := range windows {
				name := fmt.Sprintf("%s/%s/%s", text, s.Format("2006-01-02T15:04MST"), w.from.Format("2006-01-02"))
				t.Run(name, func(t *testing.T) {
					opt, err := rrule.StrToROptionInLocation(text, s.Location())
					if err != nil {
						t.Fatal(err)
					}
					opt.Dtstart = s
					full, err := rrule.NewRRule(*opt)
					if err != nil {
						t.Fatal(err)
					}
					want := full.Between(w.from, w.to, true)
					r, _, err := windowRule(text, value{t: s}, w.from, w.to)
					if err != nil {
						t.Fatal(err)
					}
					got := r.Between(w.from, w.to, true)
					if !slices.EqualFunc(got, want, time.Time.Equal) {
						t.Errorf("from the window: %d occurrences %v…, walked from DTSTART: %d %v…", len(got), head(got), len(want), head(want))
					}
				})
			}
		}
	}
}

func head(ts []time.Time) []time.Time { return ts[:min(3, len(ts))] }

// TestWindowRuleStartsAtTheWindow: how far back a rule starts does not
// change where its walk starts.
func TestWindowRuleStartsAtTheWindow(t *testing.T) {
	from := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 1, 0)
	for _, tt := range []struct {
		rule  string
		start time.Time
		slack time.Duration // how far before from the walk may start
	}{
		{"FREQ=DAILY", time.Date(1700, 1, 1, 9, 0, 0, 0, time.UTC), 24 * time.Hour},
		{"FREQ=HOURLY;INTERVAL=3", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), 3 * time.Hour},
		{"FREQ=WEEKLY;INTERVAL=2", time.Date(1601, 1, 1, 9, 0, 0, 0, time.UTC), 14 * 24 * time.Hour},
		{"FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25", time.Date(1066, 12, 25, 9, 0, 0, 0, time.UTC), 366 * 24 * time.Hour},
		{"FREQ=DAILY;COUNT=1000000000", time.Date(1900, 1, 1, 9, 0, 0, 0, time.UTC), 24 * time.Hour},
		{"FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31;COUNT=1000000000",
			time.Date(2020, 1, 1, 9, 0, 0, 0, time.UTC), 366 * 24 * time.Hour},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			r, walkCap, err := windowRule(tt.rule, value{t: tt.start}, from, to)
			if err != nil {
				t.Fatal(err)
			}
			if ds := r.OrigOptions.Dtstart; ds.After(from) || from.Sub(ds) > tt.slack {
				t.Errorf("walk starts at %v, want within %v before %v", ds, tt.slack, from)
			}
			if walkCap != 0 {
				t.Errorf("walk counted (%d): the rule should not need it", walkCap)
			}
			if got := r.Between(from, to, true); len(got) == 0 {
				t.Error("no occurrences in the window")
			}
		})
	}
}

func TestCheckRule(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		rule    string
		refused bool
	}{
		{"FREQ=SECONDLY", true},
		{"FREQ=SECONDLY;COUNT=1000000000", true},
		{"FREQ=MINUTELY;UNTIL=99991231T000000Z", true},
		{"FREQ=DAILY;INTERVAL=100000", true},
		{"FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0,20,40", true},
		{"FREQ=YEARLY;BYHOUR=1,2;BYMINUTE=1,2,3,4,5,6;BYSECOND=1,2,3,4,5,6", true},
		{"FREQ=HOURLY;INTERVAL=2;BYHOUR=1", true}, // rrule-go loops for ever on it
		{"FREQ=HOURLY;INTERVAL=2;BYHOUR=4", false},
		{"FREQ=MONTHLY;BYDAY=10FR", true}, // rrule-go indexes out of its month
		{"FREQ=MONTHLY;BYDAY=-5FR", false},
		{"FREQ=YEARLY;BYDAY=54MO", true},
		{"FREQ=YEARLY;BYDAY=20MO", false},
		{"FREQ=HOURLY;INTERVAL=5;BYHOUR=1", false}, // gcd 1: every hour comes round
		{"FREQ=DAILY;BYHOUR=9,13;BYMINUTE=0,30", false},
		{"FREQ=WEEKLY;INTERVAL=1000", false},
		{"FREQ=YEARLY;COUNT=1000000000", false},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			opt, err := rrule.StrToROptionInLocation(tt.rule, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			opt.Dtstart = start
			err = checkRule(opt)
			if got := errors.Is(err, errRuleRefused); got != tt.refused {
				t.Errorf("refused %v (%v), want %v", got, err, tt.refused)
			}
		})
	}
}

// within fails the test if f has not returned after limit: the calls here
// once ran for minutes or for ever, and a hang should fail, not stall the
// suite. It is no speed check: limit is tens of times what they take.
func within(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still running after %v", limit)
	}
}

// TestHostileRecurrence: the probe's rules, in events and in a zone, end
// with bounded occurrences, and an event's own DTSTART still counts.
func TestHostileRecurrence(t *testing.T) {
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 1, 0)
	minutelyZone := `BEGIN:VTIMEZONE
TZID:Hostile
BEGIN:STANDARD
DTSTART:19000101T000000
TZOFFSETFROM:+0000
TZOFFSETTO:+0100
RRULE:FREQ=MINUTELY
END:STANDARD
END:VTIMEZONE
`
	manyOnsets := `BEGIN:VTIMEZONE
TZID:Hostile
BEGIN:STANDARD
DTSTART:19000101T000000
TZOFFSETFROM:+0000
TZOFFSETTO:+0100
RRULE:FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28
END:STANDARD
END:VTIMEZONE
`
	tests := []struct {
		name string
		ics  string
		max  int // occurrences at most
		min  int
	}{
		{"secondly without end since 2020", "BEGIN:VEVENT\nUID:s\nDTSTART:20200101T000000Z\nRRULE:FREQ=SECONDLY\nEND:VEVENT", 0, 0},
		{"secondly with a billion", "BEGIN:VEVENT\nUID:s\nDTSTART:20261201T000000Z\nRRULE:FREQ=SECONDLY;COUNT=1000000000\nEND:VEVENT", 1, 1},
		{"secondly until 9999", "BEGIN:VEVENT\nUID:s\nDTSTART:20261201T000000Z\nRRULE:FREQ=SECONDLY;UNTIL=99991231T235959Z\nEND:VEVENT", 1, 1},
		{"by-rules multiplying out", "BEGIN:VEVENT\nUID:m\nDTSTART:20200101T000000Z\nRRULE:FREQ=YEARLY;COUNT=1000000000;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0,10,20,30,40,50\nEND:VEVENT", 0, 0},
		{"daily by-rules within bounds, a billion", "BEGIN:VEVENT\nUID:d\nDTSTART:20200101T090000Z\nRRULE:FREQ=YEARLY;COUNT=1000000000;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\nEND:VEVENT", 31, 31},
		{"hourly that never reaches its hour", "BEGIN:VEVENT\nUID:h\nDTSTART:20261201T000000Z\nRRULE:FREQ=HOURLY;INTERVAL=2;BYHOUR=1\nEND:VEVENT", 1, 1},
		{"filters that never match", "BEGIN:VEVENT\nUID:f\nDTSTART:20200101T000000Z\nRRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30\nEND:VEVENT", 0, 0},
		{"hourly counted from long ago, ending after the window", "BEGIN:VEVENT\nUID:c\nDTSTART:19000101T000000Z\nRRULE:FREQ=HOURLY;COUNT=900000000\nEND:VEVENT", 24 * 31, 24 * 31},
		{"hourly counted, ending before the window", "BEGIN:VEVENT\nUID:c\nDTSTART:20200101T000000Z\nRRULE:FREQ=HOURLY;COUNT=50000\nEND:VEVENT", 0, 0},
		{"minutely zone", minutelyZone + "BEGIN:VEVENT\nUID:z\nDTSTART;TZID=Hostile:20261202T090000\nEND:VEVENT", 1, 1},
		{"zone with thousands of onsets", manyOnsets + "BEGIN:VEVENT\nUID:z\nDTSTART;TZID=Hostile:20261202T090000\nEND:VEVENT", 1, 1},
		{"hourly for ever", "BEGIN:VEVENT\nUID:e\nDTSTART:20000101T000000Z\nRRULE:FREQ=HOURLY\nEND:VEVENT", 24 * 31, 24 * 31},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cal, err := ParseBytes([]byte(calendarOf(t, tt.ics)))
			if err != nil {
				t.Fatal(err)
			}
			var occs []Occurrence
			within(t, time.Minute, func() {
				occs, err = Occurrences(cal, from, to, time.UTC)
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(occs) > tt.max || len(occs) < tt.min {
				t.Errorf("%d occurrences, want %d to %d", len(occs), tt.min, tt.max)
			}
			within(t, time.Minute, func() { EventsOf(cal, "", "") })
		})
	}
}

// TestOccurrencesCapped: a series cannot make more than maxPerSeries
// occurrences in one expansion.
func TestOccurrencesCapped(t *testing.T) {
	cal, err := ParseBytes([]byte(calendarOf(t, "BEGIN:VEVENT\nUID:e\nDTSTART:20200101T000000Z\nRRULE:FREQ=HOURLY\nEND:VEVENT")))
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	occs, err := Occurrences(cal, from, from.AddDate(3, 0, 0), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(occs) != maxPerSeries {
		t.Errorf("%d occurrences, want the cap %d", len(occs), maxPerSeries)
	}
}

func TestLastStartBounded(t *testing.T) {
	for _, tt := range []struct {
		rule    string
		endless bool
	}{
		{"FREQ=DAILY;COUNT=10", false},
		{"FREQ=DAILY;COUNT=1000000000", true},
		{"FREQ=HOURLY;UNTIL=99991231T000000Z", true},
		{"FREQ=DAILY;UNTIL=20270101T000000Z", false},
		{"FREQ=SECONDLY;COUNT=1000000000", false}, // not expanded: DTSTART is all
	} {
		t.Run(tt.rule, func(t *testing.T) {
			cal, err := ParseBytes([]byte(calendarOf(t, "BEGIN:VEVENT\nUID:e\nDTSTART:20261201T090000Z\nRRULE:"+tt.rule+"\nEND:VEVENT")))
			if err != nil {
				t.Fatal(err)
			}
			within(t, time.Minute, func() {
				rows := EventsOf(cal, "", "")
				if len(rows) != 1 {
					t.Fatalf("%d rows", len(rows))
				}
				if got := rows[0].Until.IsZero(); got != tt.endless {
					t.Errorf("endless %v (until %v), want %v", got, rows[0].Until, tt.endless)
				}
			})
		})
	}
}
