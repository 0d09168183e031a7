package caltools

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/work"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// spans renders spans on loc's wall clock, "Mon 08:00-Mon 19:00".
func spans(ss []Span, loc *time.Location) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Start.In(loc).Format("Mon 02 15:04")+"-"+s.End.In(loc).Format("Mon 02 15:04"))
	}
	return strings.Join(out, ", ")
}

func TestWindows(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	weekdays := work.DefaultActiveHours
	night := work.ActiveHours{Days: [7]bool{time.Friday: true}, From: 22 * 60, To: 2 * 60}
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, ny) }
	for _, tc := range []struct {
		name     string
		hours    work.ActiveHours
		from, to time.Time
		want     string
	}{
		{"a working week from Friday noon skips the weekend", weekdays, at(2026, 11, 27, 12, 0), at(2026, 12, 1, 23, 0),
			"Fri 27 12:00-Fri 27 19:00, Mon 30 08:00-Mon 30 19:00, Tue 01 08:00-Tue 01 19:00"},
		{"to inside a day clips it", weekdays, at(2026, 11, 30, 6, 0), at(2026, 11, 30, 10, 30),
			"Mon 30 08:00-Mon 30 10:30"},
		{"after hours leaves nothing that day", weekdays, at(2026, 11, 30, 19, 0), at(2026, 11, 30, 23, 0), ""},
		{"a span past midnight belongs to its first day", night, at(2026, 11, 28, 0, 30), at(2026, 11, 29, 0, 0),
			"Sat 28 00:30-Sat 28 02:00"},
		{"spring forward keeps the wall clock", weekdays, at(2027, 3, 14, 0, 0), at(2027, 3, 16, 0, 0),
			"Mon 15 08:00-Mon 15 19:00"},
		{"from equal to is empty", work.ActiveHours{Days: weekdays.Days, From: 600, To: 600}, at(2026, 11, 30, 0, 0), at(2026, 12, 1, 0, 0), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := spans(Windows(tc.hours, tc.from, tc.to, ny), ny); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	// A DST day's window is 11 hours of real time, not 10 or 12.
	w := Windows(weekdays, at(2027, 3, 15, 0, 0), at(2027, 3, 16, 0, 0), ny)
	if len(w) != 1 || w[0].End.Sub(w[0].Start) != 11*time.Hour {
		t.Errorf("windows on the Monday after spring forward %v", w)
	}
}

func TestFree(t *testing.T) {
	day := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	hm := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	win := []Span{{hm(8, 0), hm(19, 0)}}
	for _, tc := range []struct {
		name string
		busy []Span
		min  time.Duration
		want string
	}{
		{"nothing busy: the whole window", nil, time.Hour, "Mon 30 08:00-Mon 30 19:00"},
		{"a meeting splits the day", []Span{{hm(10, 0), hm(11, 0)}}, time.Hour,
			"Mon 30 08:00-Mon 30 10:00, Mon 30 11:00-Mon 30 19:00"},
		{"too short a gap is left out", []Span{{hm(8, 30), hm(10, 0)}, {hm(10, 45), hm(18, 0)}}, time.Hour,
			"Mon 30 18:00-Mon 30 19:00"},
		{"unsorted and overlapping meetings", []Span{{hm(13, 0), hm(15, 0)}, {hm(9, 0), hm(12, 0)}, {hm(11, 0), hm(13, 30)}}, time.Hour,
			"Mon 30 08:00-Mon 30 09:00, Mon 30 15:00-Mon 30 19:00"},
		{"a meeting over the window's edges", []Span{{hm(7, 0), hm(9, 0)}, {hm(18, 30), hm(20, 0)}}, 30 * time.Minute,
			"Mon 30 09:00-Mon 30 18:30"},
		{"an all-day busy event fills it", []Span{{day, day.Add(24 * time.Hour)}}, 15 * time.Minute, ""},
		{"a meeting outside the window changes nothing", []Span{{hm(20, 0), hm(21, 0)}}, time.Hour, "Mon 30 08:00-Mon 30 19:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := spans(Free(win, tc.busy, tc.min), time.UTC); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestCeilQuarter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10:07:00", "10:15"}, {"10:00:00", "10:00"}, {"10:00:01", "10:15"}, {"23:50:00", "00:00"}, {"10:45:00", "10:45"},
	} {
		in, _ := time.Parse("15:04:05", tc.in)
		if got := CeilQuarter(in).Format("15:04"); got != tc.want {
			t.Errorf("CeilQuarter(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseLocal(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	for _, tc := range []struct {
		name, in string
		want     string // RFC 3339, or "error"
		dateOnly bool
	}{
		{"date and time", "2026-12-01 10:00", "2026-12-01T10:00:00-05:00", false},
		{"ISO with T", "2026-12-01T10:00", "2026-12-01T10:00:00-05:00", false},
		{"RFC 3339 elsewhere", "2026-12-01T15:00:00Z", "2026-12-01T10:00:00-05:00", false},
		{"a date", "2026-12-01", "2026-12-01T00:00:00-05:00", true},
		{"words", "next Tuesday", "error", false},
		{"impossible date", "2026-02-30 10:00", "error", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, dateOnly, err := ParseLocal(tc.in, ny)
			if tc.want == "error" {
				if err == nil {
					t.Fatalf("ParseLocal(%q) = %v, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got.Format(time.RFC3339) != tc.want || dateOnly != tc.dateOnly {
				t.Errorf("ParseLocal(%q) = %s, %v, %v; want %s, %v", tc.in, got.Format(time.RFC3339), dateOnly, err, tc.want, tc.dateOnly)
			}
		})
	}
}

func TestWhen(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	s := time.Date(2026, 12, 1, 10, 0, 0, 0, ny)
	for _, tc := range []struct {
		name       string
		start, end time.Time
		want       string
	}{
		{"same day", s, s.Add(time.Hour), "Tue 1 Dec 2026, 10:00–11:00 EST (America/New_York)"},
		{"into the next day", s, s.Add(15 * time.Hour), "Tue 1 Dec 2026, 10:00–Wed 2 Dec 2026, 01:00 EST (America/New_York)"},
		{"given in UTC, shown in the zone", s.UTC(), s.Add(30 * time.Minute).UTC(), "Tue 1 Dec 2026, 10:00–10:30 EST (America/New_York)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := When(tc.start, tc.end, ny); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func ExampleFree() {
	d := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	free := Free([]Span{{d.Add(9 * time.Hour), d.Add(12 * time.Hour)}}, []Span{{d.Add(10 * time.Hour), d.Add(11 * time.Hour)}}, time.Hour)
	for _, s := range free {
		fmt.Println(s.Start.Format("15:04"), s.End.Format("15:04"))
	}
	// Output:
	// 09:00 10:00
	// 11:00 12:00
}
