package calendar

import (
	"strings"
	"testing"
	"time"
)

const nyZone = `BEGIN:VTIMEZONE
TZID:Eastern Standard Time
BEGIN:STANDARD
DTSTART:16010101T020000
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T020000
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3
END:DAYLIGHT
END:VTIMEZONE
`

func calendarOf(t *testing.T, body string) string {
	t.Helper()
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
		strings.ReplaceAll(strings.TrimSpace(body), "\n", "\r\n") + "\r\nEND:VCALENDAR\r\n"
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// occ is an occurrence as the table states it.
type occ struct{ uid, start, rid string }

func TestOccurrences(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		ics      string
		from, to string
		loc      *time.Location
		want     []occ
	}{{
		name: "daily with COUNT stops after the count",
		ics: `BEGIN:VEVENT
UID:d
DTSTART;TZID=America/New_York:20260907T090000
DTEND;TZID=America/New_York:20260907T091500
RRULE:FREQ=DAILY;COUNT=3
END:VEVENT`,
		from: "2026-09-06T00:00:00-04:00", to: "2026-09-12T00:00:00-04:00",
		want: []occ{{"d", "2026-09-07T09:00:00-04:00", "2026-09-07T09:00:00-04:00"},
			{"d", "2026-09-08T09:00:00-04:00", "2026-09-08T09:00:00-04:00"},
			{"d", "2026-09-09T09:00:00-04:00", "2026-09-09T09:00:00-04:00"}},
	}, {
		name: "weekly BYDAY with UNTIL in UTC",
		ics: `BEGIN:VEVENT
UID:w
DTSTART;TZID=America/New_York:20260907T110000
RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260914T150000Z
END:VEVENT`,
		from: "2026-09-01T00:00:00Z", to: "2026-10-01T00:00:00Z",
		want: []occ{{"w", "2026-09-07T11:00:00-04:00", "2026-09-07T11:00:00-04:00"},
			{"w", "2026-09-09T11:00:00-04:00", "2026-09-09T11:00:00-04:00"},
			{"w", "2026-09-14T11:00:00-04:00", "2026-09-14T11:00:00-04:00"}},
	}, {
		name: "RDATE adds, EXDATE removes, DTSTART counts though off the rule",
		ics: `BEGIN:VEVENT
UID:r
DTSTART:20260906T140000Z
RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=2
RDATE:20260910T160000Z,20260911T160000Z
EXDATE:20260911T160000Z
EXDATE:20260915T140000Z
END:VEVENT`,
		from: "2026-09-01T00:00:00Z", to: "2026-10-01T00:00:00Z",
		want: []occ{{"r", "2026-09-06T14:00:00Z", "2026-09-06T14:00:00Z"},
			{"r", "2026-09-08T14:00:00Z", "2026-09-08T14:00:00Z"},
			{"r", "2026-09-10T16:00:00Z", "2026-09-10T16:00:00Z"}},
	}, {
		name: "override moved into the span from outside it, and one moved out",
		ics: `BEGIN:VEVENT
UID:o
DTSTART:20260901T100000Z
DTEND:20260901T103000Z
RRULE:FREQ=DAILY
END:VEVENT
BEGIN:VEVENT
UID:o
RECURRENCE-ID:20260905T100000Z
DTSTART:20260903T120000Z
DTEND:20260903T123000Z
SUMMARY:moved in
END:VEVENT
BEGIN:VEVENT
UID:o
RECURRENCE-ID:20260903T100000Z
DTSTART:20260910T100000Z
SUMMARY:moved out
END:VEVENT`,
		from: "2026-09-03T00:00:00Z", to: "2026-09-04T00:00:00Z",
		want: []occ{{"o", "2026-09-03T12:00:00Z", "2026-09-05T10:00:00Z"}},
	}, {
		name: "Outlook VTIMEZONE keeps 09:00 across the DST change",
		ics: nyZone + `BEGIN:VEVENT
UID:tz
DTSTART;TZID="Eastern Standard Time":20261026T090000
RRULE:FREQ=WEEKLY;BYDAY=MO
END:VEVENT`,
		from: "2026-10-25T00:00:00Z", to: "2026-11-10T00:00:00Z",
		want: []occ{{"tz", "2026-10-26T09:00:00-04:00", "2026-10-26T09:00:00-04:00"},
			{"tz", "2026-11-02T09:00:00-05:00", "2026-11-02T09:00:00-05:00"},
			{"tz", "2026-11-09T09:00:00-05:00", "2026-11-09T09:00:00-05:00"}},
	}, {
		name: "floating time in the reader's zone; all-day at its midnight",
		ics: `BEGIN:VEVENT
UID:f
DTSTART:20260610T150500
END:VEVENT
BEGIN:VEVENT
UID:a
DTSTART;VALUE=DATE:20260610
DTEND;VALUE=DATE:20260611
END:VEVENT`,
		loc:  ny,
		from: "2026-06-10T00:00:00-04:00", to: "2026-06-11T00:00:00-04:00",
		want: []occ{{"a", "2026-06-10T00:00:00-04:00", ""}, {"f", "2026-06-10T15:05:00-04:00", ""}},
	}, {
		name: "an override alone (invited to one occurrence) stands as itself",
		ics: `BEGIN:VEVENT
UID:lone
RECURRENCE-ID:20260610T150000Z
DTSTART:20260610T160000Z
END:VEVENT`,
		from: "2026-06-10T00:00:00Z", to: "2026-06-11T00:00:00Z",
		want: []occ{{"lone", "2026-06-10T16:00:00Z", "2026-06-10T15:00:00Z"}},
	}, {
		name: "an unreadable rule leaves DTSTART and RDATE",
		ics: `BEGIN:VEVENT
UID:bad
DTSTART:20260610T150000Z
RRULE:FREQ=FORTNIGHTLY
RDATE:20260612T150000Z
END:VEVENT`,
		from: "2026-06-01T00:00:00Z", to: "2026-07-01T00:00:00Z",
		want: []occ{{"bad", "2026-06-10T15:00:00Z", "2026-06-10T15:00:00Z"}, {"bad", "2026-06-12T15:00:00Z", "2026-06-12T15:00:00Z"}},
	}, {
		name: "an event that started before the span and is still on",
		ics: `BEGIN:VEVENT
UID:long
DTSTART:20260610T080000Z
DTEND:20260610T180000Z
END:VEVENT
BEGIN:VEVENT
UID:over
DTSTART:20260610T080000Z
DTEND:20260610T090000Z
END:VEVENT`,
		from: "2026-06-10T12:00:00Z", to: "2026-06-11T00:00:00Z",
		want: []occ{{"long", "2026-06-10T08:00:00Z", ""}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cal, err := ParseBytes([]byte(calendarOf(t, tt.ics)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Occurrences(cal, mustTime(t, tt.from), mustTime(t, tt.to), tt.loc)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d occurrences %v, want %v", len(got), got, tt.want)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.UID != w.uid || !g.Start.Equal(mustTime(t, w.start)) {
					t.Errorf("occurrence %d = %s at %s, want %s at %s", i, g.UID, g.Start, w.uid, w.start)
				}
				switch {
				case w.rid == "" && !g.RecurrenceID.IsZero():
					t.Errorf("occurrence %d has recurrence id %s, want none", i, g.RecurrenceID)
				case w.rid != "" && !g.RecurrenceID.Equal(mustTime(t, w.rid)):
					t.Errorf("occurrence %d recurrence id %s, want %s", i, g.RecurrenceID, w.rid)
				}
			}
		})
	}
}

func TestOccurrenceFields(t *testing.T) {
	cal, err := ParseBytes([]byte(calendarOf(t, `BEGIN:VEVENT
UID:x
DTSTART:20260610T150000Z
DURATION:PT45M
SUMMARY:Call\, with Marcy
ORGANIZER;CN="Dana W":MAILTO:Dana@Example.com
ATTENDEE;CN=Marcy;PARTSTAT=declined:mailto:MHoward@Greenleaf.com
ATTENDEE;EMAIL=grant@ellison.com:urn:uuid:1234
ATTENDEE:mailto:dana@example.com
STATUS:cancelled
TRANSP:TRANSPARENT
END:VEVENT`)))
	if err != nil {
		t.Fatal(err)
	}
	occs, err := Occurrences(cal, mustTime(t, "2026-06-10T00:00:00Z"), mustTime(t, "2026-06-11T00:00:00Z"), nil)
	if err != nil || len(occs) != 1 {
		t.Fatalf("occurrences %v, %v", occs, err)
	}
	o := occs[0]
	if o.Summary != "Call, with Marcy" || o.Status != StatusCancelled || !o.Transparent || o.End.Sub(o.Start) != 45*time.Minute {
		t.Errorf("fields: %+v", o)
	}
	if o.Organizer == nil || o.Organizer.Email != "dana@example.com" || o.Organizer.Name != "Dana W" {
		t.Errorf("organizer %+v", o.Organizer)
	}
	people := o.People()
	want := []Person{{Email: "dana@example.com", Name: "Dana W", PartStat: PartStatNeedsAction},
		{Email: "mhoward@greenleaf.com", Name: "Marcy", PartStat: PartStatDeclined},
		{Email: "grant@ellison.com", PartStat: PartStatNeedsAction}}
	if len(people) != len(want) {
		t.Fatalf("people %+v, want %+v", people, want)
	}
	for i := range want {
		if people[i].Email != want[i].Email || people[i].Name != want[i].Name || people[i].PartStat != want[i].PartStat {
			t.Errorf("person %d = %+v, want %+v", i, people[i], want[i])
		}
	}
}

// TestVTimezoneMatchesIANA checks the zone built from an Outlook
// VTIMEZONE against the IANA zone it describes, hour by hour around the
// changes of several years.
func TestVTimezoneMatchesIANA(t *testing.T) {
	cal, err := ParseBytes([]byte(calendarOf(t, nyZone+"BEGIN:VEVENT\nUID:x\nDTSTART:20260101T000000Z\nEND:VEVENT")))
	if err != nil {
		t.Fatal(err)
	}
	z := newZones(cal)
	got, ok := z.location("Eastern Standard Time")
	if !ok {
		t.Fatal("zone not built")
	}
	ny, _ := time.LoadLocation("America/New_York")
	for at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC); at.Year() < 2031; at = at.Add(time.Hour) {
		_, og := at.In(got).Zone()
		_, ow := at.In(ny).Zone()
		if og != ow {
			t.Fatalf("at %s offset %d, IANA %d", at, og, ow)
		}
	}
	// Wall clock to instant, as DTSTART is read.
	for _, s := range []string{"2026-03-08T01:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-11-01T03:00:00-05:00", "2026-07-01T09:00:00-04:00"} {
		w := mustTime(t, s)
		g := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), 0, 0, got)
		if !g.Equal(w) {
			t.Errorf("wall %s in the built zone is %s", s, g)
		}
	}
	if _, ok := z.location("Nowhere/Special"); ok {
		t.Error("an unknown TZID resolved")
	}
	if l, ok := z.location("/mozilla.org/20050126_1/America/New_York"); !ok || l.String() != "America/New_York" {
		t.Errorf("a Mozilla TZID resolved to %v, %v", l, ok)
	}
}
