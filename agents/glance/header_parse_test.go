package glance

import (
	"image"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// col is a column of text at x on a row, as OCR gives it: words 7 px per
// letter, a space of 4 px.
type col struct {
	X int
	S string
}

// rowAt is one visual row at y, h pixels high, of columns.
func rowAt(y, h int, cols ...col) []layout.Line {
	var out []layout.Line
	for _, c := range cols {
		var ws []layout.Word
		x := c.X
		for _, f := range strings.Fields(c.S) {
			ws = append(ws, layout.Word{Text: f, Box: image.Rect(x, y, x+7*len(f), y+h), Confidence: 90})
			x += 7*len(f) + 4
		}
		out = append(out, layout.NewLine(ws))
	}
	return out
}

func pane(rows ...[]layout.Line) []layout.Line {
	var out []layout.Line
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func TestParseHeaderLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []layout.Line
		want  ScreenInfo
	}{
		{"nothing read", nil, ScreenInfo{}},
		{"address with its @ lost and its l read as a backslash, under the name",
			pane(rowAt(20, 12, col{20, "Liam Gray"}, col{840, "15/06/2026, 12:00"}),
				rowAt(42, 12, col{20, `\gray grayhold.com`}),
				rowAt(70, 12, col{20, "To"}, col{60, "Owen Castellano"}),
				rowAt(110, 16, col{20, "RE: Closing date - Elm Court"}),
				rowAt(170, 12, col{20, "Owen,"})),
			ScreenInfo{Email: true, Subject: "RE: Closing date - Elm Court", SenderName: "Liam Gray", SenderEmail: "lgray@grayhold.com", Date: "15/06/2026, 12:00"}},
		{"From label with the address on the next row",
			pane(rowAt(20, 12, col{20, "From"}, col{90, "Jane Doe"}),
				rowAt(40, 12, col{90, "jane.doe@example.com"}),
				rowAt(60, 12, col{20, "Subject"}, col{90, "Lease renewal"}),
				rowAt(80, 12, col{20, "Date"}, col{90, "Mon 24/11/2026 11:02"})),
			ScreenInfo{Email: true, Subject: "Lease renewal", SenderName: "Jane Doe", SenderEmail: "jane.doe@example.com", Date: "Mon 24/11/2026 11:02"}},
		{"a sentence opening with a label word is body, not a header",
			pane(rowAt(20, 12, col{20, "To whom it may concern, we act for the claimant in this matter."}),
				rowAt(40, 12, col{20, "From: Jane Doe <jane.doe@example.com>"}),
				rowAt(60, 12, col{20, "Subject: Lease renewal"})),
			ScreenInfo{}},
		{"a reply marker before any header is quoted history",
			pane(rowAt(20, 12, col{20, "On Mon 23/11/2026 at 09:12, Paul Grant wrote:"}),
				rowAt(40, 12, col{20, "From: Paul Grant <paul@grantlaw.example>"}),
				rowAt(60, 12, col{20, "To: Jane Doe"}),
				rowAt(80, 12, col{20, "Subject: Disclosure timetable"})),
			ScreenInfo{}},
		{"a second message's From ends the header (a thread)",
			pane(rowAt(10, 20, col{20, "Disclosure timetable"}),
				rowAt(50, 12, col{20, "Paul Grant <paul@grantlaw.example>"}, col{760, "10:42 AM"}),
				rowAt(70, 12, col{20, "to me"}),
				rowAt(90, 12, col{20, "From: Jane Doe <jane.doe@example.com>"}),
				rowAt(110, 12, col{20, "Subject: Something else"})),
			ScreenInfo{Email: true, Subject: "Disclosure timetable", SenderName: "Paul Grant", SenderEmail: "paul@grantlaw.example", Date: "10:42 AM"}},
		{"Gmail's to me read as tome is the recipients line, not the subject",
			pane(rowAt(10, 20, col{70, "Disclosure timetable"}, col{640, "Inbox x"}),
				rowAt(50, 12, col{70, "Paul Grant"}, col{150, "<paul@grantlaw.example>"}),
				rowAt(70, 9, col{70, "tome"}),
				rowAt(110, 12, col{20, "Jane, attached is the draft."})),
			ScreenInfo{Email: true, Subject: "Disclosure timetable", SenderName: "Paul Grant", SenderEmail: "paul@grantlaw.example"}},
		{"Outlook's avatar initials in front of the name are dropped",
			pane(rowAt(10, 18, col{20, "Closing date"}),
				rowAt(50, 12, col{20, "LG Liam Gray <lgray@grayhold.corn>"}),
				rowAt(70, 12, col{70, "To: Owen Castellano"})),
			ScreenInfo{Email: true, Subject: "Closing date", SenderName: "Liam Gray", SenderEmail: "lgray@grayhold.com"}},
		{"a sender without recipients, date or controls is not a header",
			pane(rowAt(20, 12, col{20, "Jane Doe <jane.doe@example.com>"}),
				rowAt(60, 12, col{20, "Lease renewal"})),
			ScreenInfo{Subject: "Lease renewal", SenderName: "Jane Doe", SenderEmail: "jane.doe@example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseHeader(tc.lines); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestTriagePrefersScreenLines(t *testing.T) {
	lines := pane(rowAt(20, 12, col{20, "Liam Gray"}),
		rowAt(42, 12, col{20, "lgray@grayhold.com"}),
		rowAt(70, 12, col{20, "To"}, col{60, "Owen Castellano"}),
		rowAt(100, 16, col{20, "RE: Closing date"}))
	// The flat text holds only quoted history: with lines it is not read.
	quoted := "From: Owen Castellano <ocastellano@castellanollp.com>\nTo: Liam Gray\nSubject: Something else\nSent: Mon 6/15/2026 10:00 AM"
	for _, tc := range []struct {
		name string
		in   Input
		want candidate
		ok   bool
	}{
		{"lines read by layout", Input{App: "thunderbird", Title: "Inbox - Mozilla Thunderbird", ScreenLines: lines, ScreenText: quoted},
			candidate{Subject: "RE: Closing date", FromScreen: true, SenderName: "Liam Gray", SenderEmail: "lgray@grayhold.com"}, true},
		{"flat text without lines, as before", Input{App: "thunderbird", Title: "Inbox - Mozilla Thunderbird", ScreenText: quoted},
			candidate{Subject: "Something else", FromScreen: true, SenderName: "Owen Castellano", SenderEmail: "ocastellano@castellanollp.com"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := triage(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzParseHeader feeds arbitrary rows (lines split at "\n", columns at
// "\t", sizes from the text) to the layout reader: it must not panic, and
// a header it calls an email has a sender.
func FuzzParseHeader(f *testing.F) {
	f.Add("Liam Gray\t15/06/2026, 12:00\n\\gray grayhold.com\nTo\tOwen Castellano\nRE: Closing date\nOwen,")
	f.Add("From: Paul Grant <paul@grantlaw.example>\nSent: Monday\nSubject: x")
	f.Add("On Mon wrote:\n> From: a@b.co\n(\n\t\t<>@")
	f.Fuzz(func(t *testing.T, s string) {
		var lines []layout.Line
		for i, row := range strings.Split(s, "\n") {
			var cols []col
			for k, c := range strings.Split(row, "\t") {
				cols = append(cols, col{X: 20 + 300*k, S: c})
			}
			lines = append(lines, rowAt(20*i, 8+len(row)%12, cols...)...)
		}
		info := ParseHeader(lines)
		if info.Email && info.SenderName == "" && info.SenderEmail == "" {
			t.Errorf("email without a sender: %+v", info)
		}
	})
}

func TestLinesText(t *testing.T) {
	lines := pane(rowAt(42, 12, col{20, "jane.doe@example.com"}),
		rowAt(20, 12, col{840, "11:02"}, col{20, "Jane Doe"}),
		rowAt(70, 12, col{20, "To"}, col{60, "Dana Whitfield"}))
	got, want := LinesText(lines), "Jane Doe  11:02\njane.doe@example.com\nTo  Dana Whitfield"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
