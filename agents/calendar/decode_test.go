package calendar

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
)

// wrapCal puts body in a VCALENDAR, with CRLF line endings.
func wrapCal(body string) string {
	s := "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n" + body + "\nEND:VCALENDAR\n"
	return strings.ReplaceAll(s, "\n", "\r\n")
}

const okEvent = "BEGIN:VEVENT\nUID:ok\nDTSTART:20261203T150000Z\nSUMMARY:Kept\nEND:VEVENT"

// uidsOf lists the UIDs of cal's events, in order.
func uidsOf(cal *ical.Calendar) []string {
	var out []string
	for _, c := range cal.Children {
		if c.Name == ical.CompEvent {
			out = append(out, propText(c, ical.PropUID))
		}
	}
	return out
}

func TestParseBounded(t *testing.T) {
	deep := strings.Repeat("BEGIN:X-DEEP\n", 50) + strings.Repeat("END:X-DEEP\n", 50)
	tests := []struct {
		name        string
		ics         string
		wantUIDs    []string
		wantSkipped int
		wantDropped int
	}{
		{name: "well formed", ics: wrapCal(okEvent), wantUIDs: []string{"ok"}},
		{name: "line without a colon is skipped",
			ics:      wrapCal("BEGIN:VEVENT\nUID:a\nDTSTART:20261203T150000Z\nGARBAGE WITHOUT COLON\nEND:VEVENT\n" + okEvent),
			wantUIDs: []string{"a", "ok"}, wantSkipped: 1},
		{name: "quoted parameter then garbage is skipped",
			ics:      wrapCal("BEGIN:VEVENT\nUID:b\nDTSTART:20261203T150000Z\nATTENDEE;CN=\"Marcy\"garbage:mailto:m@x.example\nEND:VEVENT\n" + okEvent),
			wantUIDs: []string{"b", "ok"}, wantSkipped: 1},
		{name: "unterminated quote is skipped",
			ics:      wrapCal("BEGIN:VEVENT\nUID:c\nDTSTART:20261203T150000Z\nATTENDEE;CN=\"Marcy:mailto:m@x.example\nEND:VEVENT\n" + okEvent),
			wantUIDs: []string{"c", "ok"}, wantSkipped: 1},
		{name: "parameter without a value at the end of the line",
			ics:      wrapCal("BEGIN:VEVENT\nUID:d\nDTSTART:20261203T150000Z\nATTENDEE;CN=\nEND:VEVENT\n" + okEvent),
			wantUIDs: []string{"d", "ok"}, wantSkipped: 1},
		{name: "empty property name",
			ics:      wrapCal("BEGIN:VEVENT\nUID:e\nDTSTART:20261203T150000Z\n:value\n;X=1:value\nEND:VEVENT\n" + okEvent),
			wantUIDs: []string{"e", "ok"}, wantSkipped: 2},
		{name: "nesting deeper than the bound is dropped, the event kept",
			ics:      wrapCal("BEGIN:VEVENT\nUID:f\nDTSTART:20261203T150000Z\n" + deep + "END:VEVENT\n" + okEvent),
			wantUIDs: []string{"f", "ok"}, wantDropped: 1},
		{name: "an event never ended is left out",
			ics:      strings.ReplaceAll("BEGIN:VCALENDAR\n"+okEvent+"\nBEGIN:VEVENT\nUID:half\nDTSTART:20261203T150000Z\n", "\n", "\r\n"),
			wantUIDs: []string{"ok"}, wantDropped: 1},
		{name: "END of the calendar ends an unended event, which is left out",
			ics:      wrapCal(okEvent + "\nBEGIN:VEVENT\nUID:half\nDTSTART:20261203T150000Z"),
			wantUIDs: []string{"ok"}, wantDropped: 1},
		{name: "stray END is skipped",
			ics:      wrapCal("END:VTODO\n" + okEvent),
			wantUIDs: []string{"ok"}, wantSkipped: 1},
		{name: "folded lines are joined",
			ics:      wrapCal("BEGIN:VEVENT\nUID:fo\n ld\nDTSTART:20261203T150000Z\nEND:VEVENT"),
			wantUIDs: []string{"fold"}},
		{name: "a line over the bound is skipped with its folds",
			ics:      wrapCal("BEGIN:VEVENT\nUID:long\nDTSTART:20261203T150000Z\nDESCRIPTION:" + strings.Repeat("x", maxLineBytes) + "\n " + strings.Repeat("y", 10) + "\nEND:VEVENT"),
			wantUIDs: []string{"long"}, wantSkipped: 1},
		{name: "folds that grow a line past the bound",
			ics:      wrapCal("BEGIN:VEVENT\nUID:grown\nDTSTART:20261203T150000Z\nDESCRIPTION:a" + strings.Repeat("\n "+strings.Repeat("z", 1000), maxLineBytes/1000+1) + "\nEND:VEVENT"),
			wantUIDs: []string{"grown"}, wantSkipped: 1},
		{name: "two calendars one after the other",
			ics:      wrapCal("BEGIN:VEVENT\nUID:one\nDTSTART:20261203T150000Z\nEND:VEVENT") + wrapCal("BEGIN:VEVENT\nUID:two\nDTSTART:20261203T150000Z\nEND:VEVENT"),
			wantUIDs: []string{"one", "two"}},
		{name: "components outside a calendar are skipped",
			ics:      "BEGIN:VEVENT\r\nUID:out\r\nEND:VEVENT\r\n" + wrapCal(okEvent),
			wantUIDs: []string{"ok"}, wantSkipped: 1},
		{name: "LF line endings", ics: strings.ReplaceAll(wrapCal(okEvent), "\r\n", "\n"), wantUIDs: []string{"ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cal, stats, err := parseStats(strings.NewReader(tt.ics))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if got := uidsOf(cal); strings.Join(got, ",") != strings.Join(tt.wantUIDs, ",") {
				t.Errorf("events %q, want %q", got, tt.wantUIDs)
			}
			if stats.Skipped != tt.wantSkipped || stats.Dropped != tt.wantDropped {
				t.Errorf("stats %+v, want skipped %d dropped %d", stats, tt.wantSkipped, tt.wantDropped)
			}
		})
	}
}

func TestParseNotCalendar(t *testing.T) {
	for _, in := range []string{"", "hello\n", "BEGIN:VCARD\r\nEND:VCARD\r\n", "\x00\x01\x02"} {
		if _, err := ParseBytes([]byte(in)); !errors.Is(err, ErrNotCalendar) {
			t.Errorf("ParseBytes(%q) = %v, want ErrNotCalendar", in, err)
		}
	}
}

func TestParseParams(t *testing.T) {
	cal, err := ParseBytes([]byte(wrapCal("BEGIN:VEVENT\nUID:p\nDTSTART;TZID=\"America/New_York\":20261203T100000\n" +
		"ATTENDEE;CN=\"Doe, Jane\";ROLE=REQ-PARTICIPANT;DELEGATED-TO=\"mailto:a@x\",\"mailto:b@x\":mailto:jane@x.example\nEND:VEVENT")))
	if err != nil {
		t.Fatal(err)
	}
	ev := cal.Children[0]
	a := ev.Props.Get(ical.PropAttendee)
	if a == nil || a.Value != "mailto:jane@x.example" || a.Params.Get(ical.ParamCommonName) != "Doe, Jane" ||
		strings.Join(a.Params["DELEGATED-TO"], " ") != "mailto:a@x mailto:b@x" {
		t.Errorf("attendee %+v", a)
	}
	if tz := ev.Props.Get(ical.PropDateTimeStart).Params.Get(ical.PropTimezoneID); tz != "America/New_York" {
		t.Errorf("TZID %q", tz)
	}
}

// TestParseDeepAndWide: millions of nested BEGINs (the probe's 4.7 M,
// which overflowed the stack at every start) and a 300 KB attendee name
// (quadratic in go-ical) read in bounded time and memory.
func TestParseDeepAndWide(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:deep\r\nDTSTART:20261203T150000Z\r\n")
	for range 2_000_000 {
		b.WriteString("BEGIN:X\r\n")
	}
	b.WriteString("END:VEVENT\r\nBEGIN:VEVENT\r\nUID:wide\r\nDTSTART:20261203T150000Z\r\nATTENDEE;CN=\"")
	b.WriteString(strings.Repeat("n", 200<<10))
	b.WriteString("\":mailto:a@x.example\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
	start := time.Now()
	cal, stats, err := parseStats(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got := uidsOf(cal); strings.Join(got, ",") != "deep,wide" {
		t.Errorf("events %q", got)
	}
	t.Logf("%s in %v", stats, time.Since(start))
	if cal.Children[1].Props.Get(ical.PropAttendee) == nil {
		t.Error("the wide attendee was lost")
	}
}

func TestDecodeLimited(t *testing.T) {
	ics := wrapCal(okEvent)
	n := 0
	if _, err := decodeLimited(strings.NewReader(ics), int64(len(ics)), nil, func(ical.Prop) {}, func(*ical.Component) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("exactly at the bound: %v, %d events", err, n)
	}
	_, err := decodeLimited(io.MultiReader(strings.NewReader(ics), strings.NewReader(strings.Repeat("X:y\r\n", 10))), int64(len(ics)), nil, func(ical.Prop) {}, func(*ical.Component) error { return nil })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("past the bound: %v, want ErrTooLarge", err)
	}
}
