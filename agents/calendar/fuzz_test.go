package calendar

import (
	"bytes"
	"encoding/xml"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
)

// allocBound is what one input may cost in allocations: a multiple of its
// size, and room for the occurrences it may make (capped by maxPerWindow).
func allocBound(n int) uint64 { return uint64(200*n) + 96<<20 }

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// FuzzICS: any bytes as an iCalendar file parse without panic or hang,
// within the bounds of decode.go, and their events turn into rows and
// occurrences within the expansion's bounds, in allocations bounded by the
// input's size.
func FuzzICS(f *testing.F) {
	f.Add([]byte(wrapCal(okEvent)))
	f.Add([]byte(wrapCal(nyZone + "BEGIN:VEVENT\nUID:r\nDTSTART;TZID=Eastern Standard Time:20261201T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE\nEXDATE;TZID=Eastern Standard Time:20261209T090000\nEND:VEVENT\nBEGIN:VEVENT\nUID:r\nRECURRENCE-ID;TZID=Eastern Standard Time:20261207T090000\nDTSTART;TZID=Eastern Standard Time:20261207T100000\nEND:VEVENT")))
	f.Add([]byte(wrapCal("BEGIN:VEVENT\nUID:a\nDTSTART;VALUE=DATE:20261201\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000000000\nATTENDEE;CN=\"x\"y:mailto:a@b\nEND:VEVENT")))
	f.Add([]byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nBEGIN:X\r\nBEGIN:X\r\nEND:VCALENDAR\r\n"))
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		var occs int
		n := allocated(func() {
			cal, stats, err := parseStats(bytes.NewReader(data))
			if err != nil {
				return
			}
			if stats.Lines < stats.Skipped {
				t.Fatalf("stats %+v: more skipped than read", stats)
			}
			depthOK(t, cal.Children, 2)
			rows := EventsOf(cal, "", "")
			for _, r := range rows {
				if _, err := ParseBytes([]byte(r.Raw)); err != nil {
					t.Fatalf("a stored event does not read back: %v\n%s", err, r.Raw)
				}
			}
			o, err := Occurrences(cal, from, from.AddDate(0, 1, 0), time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			occs = len(o)
		})
		if occs > maxPerWindow {
			t.Fatalf("%d occurrences, over the bound %d", occs, maxPerWindow)
		}
		if n > allocBound(len(data)) {
			t.Fatalf("%d bytes allocated for %d bytes of input", n, len(data))
		}
	})
}

// depthOK fails if components nest deeper than maxDepth (VCALENDAR is
// depth 1, its children 2).
func depthOK(t *testing.T, cs []*ical.Component, depth int) {
	t.Helper()
	if depth > maxDepth && len(cs) > 0 {
		t.Fatalf("components at depth %d, over the bound %d", depth, maxDepth)
	}
	for _, c := range cs {
		depthOK(t, c.Children, depth+1)
	}
}

// FuzzCalDAVAnswer: any bytes as a REPORT's multistatus answer give
// objects without panic, every one a calendar.
func FuzzCalDAVAnswer(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:response><d:href>/dana/work/a.ics</d:href><d:propstat><d:prop><d:getetag>"1"</d:getetag><c:calendar-data>` +
		xmlText(wrapCal(okEvent)) + `</c:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`))
	f.Add([]byte(`<d:multistatus xmlns:d="DAV:"><d:response><d:href>%zz</d:href><d:propstat><d:prop/><d:status>HTTP/1.1 404</d:status></d:propstat></d:response></d:multistatus>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var ms multistatus
		if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&ms); err != nil {
			return
		}
		objs, _ := objectsOf(ms)
		for _, o := range objs {
			if o.Calendar == nil {
				t.Fatal("an object without its calendar")
			}
		}
	})
}

func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// FuzzRecurrence: any RRULE, from any start, expands within its bounds.
func FuzzRecurrence(f *testing.F) {
	for _, r := range []string{"FREQ=DAILY", "FREQ=HOURLY;INTERVAL=2;BYHOUR=1", "FREQ=SECONDLY;COUNT=1000000000",
		"FREQ=MONTHLY;BYDAY=-1FR;BYSETPOS=1", "FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO,SU;WKST=SU", "FREQ=WEEKLY;INTERVAL=999;UNTIL=99991231T000000Z"} {
		f.Add(r, int64(1577836800), int64(3*365*86400))
	}
	f.Fuzz(func(t *testing.T, rule string, startUnix, ahead int64) {
		if strings.ContainsAny(rule, "\r\n") {
			return
		}
		start := time.Unix(startUnix%(300*365*86400), 0).UTC()
		from := start.Add(time.Duration(ahead%(200*365*86400)) * time.Second)
		ics := wrapCal("BEGIN:VEVENT\nUID:f\nDTSTART:" + start.Format("20060102T150405Z") + "\nRRULE:" + rule + "\nEND:VEVENT")
		cal, err := ParseBytes([]byte(ics))
		if err != nil {
			return
		}
		occs, err := Occurrences(cal, from, from.AddDate(0, 1, 0), time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if len(occs) > maxPerSeries {
			t.Fatalf("%d occurrences, over the bound %d", len(occs), maxPerSeries)
		}
		EventsOf(cal, "", "")
	})
}
