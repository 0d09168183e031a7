package caltools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work"
)

const lawyer = "nadia@firm.com"

// week is the lawyer's calendar around Monday 30 November 2026 (New
// York): a client call, a hold marked free, a cancelled and a declined
// meeting, and a weekly team meeting every Tuesday morning.
const week = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:STANDARD
DTSTART:19701101T020000
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:19700308T020000
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VEVENT
UID:call@x
DTSTAMP:20261101T000000Z
DTSTART;TZID=America/New_York:20261130T100000
DTEND;TZID=America/New_York:20261130T110000
SUMMARY:Call with Marcy Howard
ORGANIZER;CN=Marcy Howard:mailto:marcy@howardlaw.com
ATTENDEE;CN=Nadia Petrov;PARTSTAT=ACCEPTED:mailto:nadia@firm.com
END:VEVENT
BEGIN:VEVENT
UID:hold@x
DTSTAMP:20261101T000000Z
DTSTART;TZID=America/New_York:20261130T130000
DTEND;TZID=America/New_York:20261130T140000
SUMMARY:Lunch (hold)
TRANSP:TRANSPARENT
END:VEVENT
BEGIN:VEVENT
UID:cancelled@x
DTSTAMP:20261101T000000Z
DTSTART;TZID=America/New_York:20261130T150000
DTEND;TZID=America/New_York:20261130T160000
SUMMARY:Closing prep
STATUS:CANCELLED
END:VEVENT
BEGIN:VEVENT
UID:declined@x
DTSTAMP:20261101T000000Z
DTSTART;TZID=America/New_York:20261130T160000
DTEND;TZID=America/New_York:20261130T170000
SUMMARY:Bar lunch talk
ORGANIZER:mailto:events@bar.org
ATTENDEE;PARTSTAT=DECLINED:mailto:nadia@firm.com
END:VEVENT
BEGIN:VEVENT
UID:team@x
DTSTAMP:20261101T000000Z
DTSTART;TZID=America/New_York:20261103T090000
DTEND;TZID=America/New_York:20261103T120000
RRULE:FREQ=WEEKLY
SUMMARY:Team meeting
END:VEVENT
END:VCALENDAR
`

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.OpenDir(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fileCalendar adds ics as a file calendar named name and syncs it.
func fileCalendar(t *testing.T, st *store.Store, name, ics string) store.Calendar {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".ics")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(ics, "\n", "\r\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := st.AddCalendar(t.Context(), store.Calendar{Kind: store.CalendarFile, Source: p, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := calendar.Sync(t.Context(), st, c, calendar.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return c
}

// calendars reads st as the lawyer in New York on Friday 27 November
// 2026 at 10:00, working weekdays 08:00–19:00.
func calendars(t *testing.T, st *store.Store) Calendars {
	ny := mustZone(t, "America/New_York")
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, ny)
	return Calendars{Store: st, Now: func() time.Time { return now },
		Me: func(context.Context) (calendar.Me, error) {
			return calendar.Me{Name: "Nadia Petrov", Addresses: []string{lawyer}}, nil
		},
		Hours: func(context.Context) (Hours, error) {
			return Hours{ActiveHours: work.DefaultActiveHours, Text: "mon-fri 08:00-19:00"}, nil
		}}
}

func run(t *testing.T, tool interface {
	Run(context.Context, json.RawMessage) (string, error)
}, args string, out any) {
	t.Helper()
	res, err := tool.Run(t.Context(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	if err := json.Unmarshal([]byte(res), out); err != nil {
		t.Fatalf("result %s: %v", res, err)
	}
}

func TestListUpcoming(t *testing.T) {
	st := openStore(t)
	fileCalendar(t, st, "Work", week)
	var got struct {
		TimeZone string  `json:"time_zone"`
		Events   []Event `json:"events"`
	}
	run(t, ListUpcoming{calendars(t, st)}, `{"from":"2026-11-30","hours":48}`, &got)
	if got.TimeZone != "America/New_York" {
		t.Errorf("time zone %q", got.TimeZone)
	}
	var lines []string
	for _, e := range got.Events {
		lines = append(lines, e.Title+" | "+e.Start+" | "+e.Calendar+" | busy="+map[bool]string{true: "yes", false: "no"}[e.Busy])
	}
	want := []string{
		"Call with Marcy Howard | Mon 2026-11-30 10:00 EST | Work | busy=yes",
		"Lunch (hold) | Mon 2026-11-30 13:00 EST | Work | busy=no",
		"Closing prep | Mon 2026-11-30 15:00 EST | Work | busy=no",
		"Bar lunch talk | Mon 2026-11-30 16:00 EST | Work | busy=no",
		"Team meeting | Tue 2026-12-01 09:00 EST | Work | busy=yes",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if len(got.Events) > 0 && (got.Events[0].Organizer != "Marcy Howard" || len(got.Events[0].Attendees) != 1 || got.Events[0].Attendees[0].Answer != "accepted") {
		t.Errorf("the call's people: %+v", got.Events[0])
	}
	// By default: the next 24 hours from now, a Friday with nothing on.
	run(t, ListUpcoming{calendars(t, st)}, `{}`, &got)
	if len(got.Events) != 0 {
		t.Errorf("next 24 h: %+v, want none", got.Events)
	}
}

func TestFindFreeSlots(t *testing.T) {
	st := openStore(t)
	fileCalendar(t, st, "Work", week)
	// A second calendar counts too.
	fileCalendar(t, st, "Home", `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:dentist@x
DTSTAMP:20261101T000000Z
DTSTART:20261201T200000Z
DTEND:20261201T220000Z
SUMMARY:Dentist
END:VEVENT
END:VCALENDAR
`)
	type slot struct{ Start, End string }
	var got struct {
		WorkingHours string `json:"working_hours"`
		Free         []slot `json:"free"`
		More         int    `json:"more"`
	}
	tools := FindFreeSlots{calendars(t, st)}
	run(t, tools, `{"duration_minutes":60,"from":"2026-11-30","to":"2026-12-01"}`, &got)
	var lines []string
	for _, s := range got.Free {
		lines = append(lines, s.Start+" – "+s.End)
	}
	want := []string{
		"Mon 2026-11-30 08:00 EST – Mon 2026-11-30 10:00 EST",
		// The hold is free, the cancelled and the declined meetings too.
		"Mon 2026-11-30 11:00 EST – Mon 2026-11-30 19:00 EST",
		"Tue 2026-12-01 08:00 EST – Tue 2026-12-01 09:00 EST",
		// The team meeting, then the dentist (15:00–17:00 in New York).
		"Tue 2026-12-01 12:00 EST – Tue 2026-12-01 15:00 EST",
		"Tue 2026-12-01 17:00 EST – Tue 2026-12-01 19:00 EST",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("free:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got.WorkingHours != "mon-fri 08:00-19:00" {
		t.Errorf("working hours %q", got.WorkingHours)
	}
	// From now (Friday 10:00) by default; a 4-hour meeting fits only the
	// long stretches; limit counts the rest as more.
	run(t, tools, `{"duration_minutes":240,"limit":2}`, &got)
	if len(got.Free) != 2 || got.Free[0].Start != "Fri 2026-11-27 10:00 EST" || got.Free[1].Start != "Mon 2026-11-30 11:00 EST" || got.More == 0 {
		t.Errorf("4 hours from now: %+v, more %d", got.Free, got.More)
	}
	for _, bad := range []string{`{"duration_minutes":0}`, `{"duration_minutes":60,"from":"next week"}`,
		`{"duration_minutes":60,"from":"2026-12-02","to":"2026-12-01"}`, `{"duration_minutes":60,"to":"2027-06-01"}`} {
		if _, err := tools.Run(t.Context(), json.RawMessage(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
