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
		{"Thunderbird 153: glyphs of the toolbar's icons over the sender, a picture read before the name, a badge between name and address",
			pane(rowAt(5, 24, col{650, "a}"}, col{1050, "="}),
				rowAt(40, 14, col{230, "Reply Forward Archive Spam Delete More"}),
				rowAt(62, 12, col{4, "ap Me"}),
				rowAt(70, 12, col{260, "O"}),
				rowAt(80, 12, col{29, "dana.whitfield@hartleyross.com"}),
				rowAt(108, 12, col{0, "To"}, col{26, "Tom Becker <tbecker@beckerfirm.com>"}, col{560, "11/18/26, 16:05"}),
				rowAt(134, 14, col{2, "Re: Lease Amendment No. 3 - Harborview Plaza"}),
				rowAt(180, 12, col{0, "Tom,"})),
			ScreenInfo{Email: true, Subject: "Re: Lease Amendment No. 3 - Harborview Plaza", SenderName: "Me", SenderEmail: "dana.whitfield@hartleyross.com", Date: "11/18/26, 16:05"}},
		{"Thunderbird classic: the toolbar between the name's and the address's rows, a subject opening with capitals",
			pane(rowAt(12, 12, col{13, "a Alan Plerce"}),
				rowAt(20, 14, col{560, "Reply Forward Archive Spam Delete More"}),
				rowAt(30, 12, col{37, "apierce@pinecrestbank.com"}),
				rowAt(58, 12, col{4, "To Me"}, col{870, "11/24/26, 14:05"}),
				rowAt(84, 14, col{5, "SNDA - Pinecrest Bank Loan"}),
				rowAt(130, 12, col{3, "Dana,"})),
			ScreenInfo{Email: true, Subject: "SNDA - Pinecrest Bank Loan", SenderName: "Alan Pierce", SenderEmail: "apierce@pinecrestbank.com", Date: "11/24/26, 14:05"}},
		{"the picture read into the address's row leaves the name above",
			pane(rowAt(12, 12, col{40, "Rachel Kim"}),
				rowAt(30, 12, col{16, "Bs"}, col{40, "rkim@calderaholdings.com e"}),
				rowAt(58, 12, col{4, "To Me"}, col{870, "11/19/26, 13:15"}),
				rowAt(84, 14, col{5, "Engagement Letter - Caldera Holdings"}),
				rowAt(130, 12, col{3, "Dana,"})),
			ScreenInfo{Email: true, Subject: "Engagement Letter - Caldera Holdings", SenderName: "Rachel Kim", SenderEmail: "rkim@calderaholdings.com", Date: "11/19/26, 13:15"}},
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
		{"Apple Mail: the sender's name alone, the subject and To under it",
			pane(rowAt(20, 14, col{70, "Elena Ortiz"}, col{700, "24 November 2026 at 09:14"}),
				rowAt(40, 12, col{70, "Orion NDA signed counterpart"}, col{700, "Inbox Whitfield Law"}),
				rowAt(58, 12, col{70, "To: Dana Whitfield"}),
				rowAt(110, 12, col{20, "Dana,"})),
			ScreenInfo{Email: true, Subject: "Orion NDA signed counterpart", SenderName: "Elena Ortiz", Date: "24 November 2026 at 09:14"}},
		{"a message list's name over a preview is no sender",
			pane(rowAt(20, 12, col{20, "Marcus Webb"}, col{300, "Yesterday"}),
				rowAt(38, 12, col{20, "RE: Disclosure list of documents"}),
				rowAt(56, 12, col{20, "We do not accept that the documents at items 14"}),
				rowAt(74, 12, col{20, "to 22 are privileged"})),
			ScreenInfo{}},
		{"a folder named Sent is no Sent label: a folder pane's account is no sender with a date",
			pane(rowAt(20, 12, col{20, "dana@whitfield.example"}),
				rowAt(45, 12, col{20, "Inbox"}),
				rowAt(70, 12, col{20, "Sent:"}),
				rowAt(95, 12, col{20, "Archives"})),
			ScreenInfo{SenderEmail: "dana@whitfield.example", Subject: "Archives"}},
		{"Gmail's to me with the menu arrow read in (tomer)",
			pane(rowAt(10, 20, col{70, "Disclosure timetable"}),
				rowAt(50, 12, col{70, "Paul Grant <paul@grantlaw.example>"}),
				rowAt(70, 9, col{70, "tomer"}),
				rowAt(110, 12, col{70, "Jane, attached is the draft."})),
			ScreenInfo{Email: true, Subject: "Disclosure timetable", SenderName: "Paul Grant", SenderEmail: "paul@grantlaw.example"}},
		{"To: misread as Yo: with the date at the right of its row",
			pane(rowAt(10, 20, col{20, "Expert report timetable"}),
				rowAt(50, 12, col{70, "Tom Baker <tom.baker@bakerclerks.example>"}),
				rowAt(70, 12, col{70, "Yo: Dana Whitfield"}, col{700, "Mon 23/11/2026 17:45"}),
				rowAt(120, 12, col{70, "Dana, see below."})),
			ScreenInfo{Email: true, Subject: "Expert report timetable", SenderName: "Tom Baker", SenderEmail: "tom.baker@bakerclerks.example", Date: "Mon 23/11/2026 17:45"}},
		{"a date read with a comma after it is no salutation",
			pane(rowAt(20, 14, col{70, "Marcus Webb"}, col{700, "Yesterday at 17:45,"}),
				rowAt(40, 12, col{70, "RE: Disclosure"}),
				rowAt(58, 12, col{70, "To: Dana Whitfield, Priya Nair"})),
			ScreenInfo{Email: true, Subject: "RE: Disclosure", SenderName: "Marcus Webb", Date: "Yesterday at 17:45,"}},
		{"new Outlook: the picture's initials on the address's row, the name above",
			pane(rowAt(10, 20, col{70, "Orion NDA marked-up draft"}),
				rowAt(50, 12, col{70, "Sarah Mitchell"}, col{700, "Tue 24/11/2026 09:14"}),
				rowAt(68, 12, col{20, "SM s.mitchell@mitchellpartners.example"}),
				rowAt(86, 12, col{70, "To: Dana Whitfield"})),
			ScreenInfo{Email: true, Subject: "Orion NDA marked-up draft", SenderName: "Sarah Mitchell", SenderEmail: "s.mitchell@mitchellpartners.example", Date: "Tue 24/11/2026 09:14"}},
		{"Gmail's round picture read as a digit before the name",
			pane(rowAt(10, 20, col{70, "Indemnity cap"}),
				rowAt(50, 12, col{20, "2) Jane Doe <jane.doe@orion-legal.example>"}),
				rowAt(70, 9, col{70, "to me"})),
			ScreenInfo{Email: true, Subject: "Indemnity cap", SenderName: "Jane Doe", SenderEmail: "jane.doe@orion-legal.example"}},
		{"Outlook 2016: the date above the sender, the picture read into the subject",
			pane(rowAt(10, 12, col{20, "Reply"}, col{80, "Reply All"}, col{170, "Forward"}),
				rowAt(34, 12, col{20, "Mon 23/11/2026 15:04"}),
				rowAt(56, 16, col{76, "Marcus Webb <mwebb@webblegal.example>"}),
				append(rowAt(78, 12, col{30, "WYAWYE"}), rowAt(78, 12, col{76, "RE: Disclosure list of documents"})...),
				rowAt(110, 12, col{20, "To"}, col{60, "Dana Whitfield"})),
			ScreenInfo{Email: true, Subject: "RE: Disclosure list of documents", SenderName: "Marcus Webb", SenderEmail: "mwebb@webblegal.example", Date: "Mon 23/11/2026 15:04"}},
		{"a subject heading wrapped onto two lines",
			pane(rowAt(10, 18, col{20, "Without prejudice save as to costs proposal for"}),
				rowAt(32, 18, col{20, "settlement of the claim"}),
				rowAt(70, 12, col{70, "Marcus Webb <mwebb@webblegal.example>"}, col{700, "Tue 11/24/2026 4:18 PM"}),
				rowAt(90, 12, col{70, "To: Owen Castellano"})),
			ScreenInfo{Email: true, Subject: "Without prejudice save as to costs proposal for settlement of the claim", SenderName: "Marcus Webb", SenderEmail: "mwebb@webblegal.example", Date: "Tue 11/24/2026 4:18 PM"}},
		{"a mailbox's name at the right of Apple Mail's subject is not the subject",
			pane(rowAt(20, 14, col{70, "Tom Baker"}, col{700, "21/11/2026, 16:33"}),
				rowAt(40, 12, col{70, "Re: Costs budget"}, col{650, "Inbox Whitfield Law LLP"}),
				rowAt(58, 12, col{70, "To: Dana Whitfield"})),
			ScreenInfo{Email: true, Subject: "Re: Costs budget", SenderName: "Tom Baker", Date: "21/11/2026, 16:33"}},
		{"a line read twice over the address is dropped, the address's lost first letter put back",
			pane(rowAt(20, 12, col{70, "Priya Nair"}, col{700, "21/11/2026, 16:33"}),
				func() []layout.Line {
					garbage := rowAt(40, 12, col{70, "pryanene"})
					garbage[0].Words[0].Confidence = 2
					return append(garbage, rowAt(40, 12, col{78, "riya.nair@nairlaw.example"})...)
				}(),
				rowAt(70, 12, col{20, "To"}, col{60, "Dana Whitfield"}),
				rowAt(100, 16, col{20, "Re: Costs budget"})),
			ScreenInfo{Email: true, Subject: "Re: Costs budget", SenderName: "Priya Nair", SenderEmail: "priya.nair@nairlaw.example", Date: "21/11/2026, 16:33"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseHeader(tc.lines); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestParseHeaderChips: Gmail's label chips, set apart and smaller, are
// read into the subject heading's line; they are not the subject's.
func TestParseHeaderChips(t *testing.T) {
	words := func(x, h int, gap int, ss ...string) []layout.Word {
		var out []layout.Word
		for _, s := range ss {
			out = append(out, layout.Word{Text: s, Box: image.Rect(x, 30-h, x+9*len(s), 30), Confidence: 90})
			x += 9*len(s) + gap
		}
		return out
	}
	sender := pane(rowAt(50, 12, col{70, "Paul Grant <paul@grantlaw.example>"}), rowAt(70, 9, col{70, "to me"}))
	for _, tc := range []struct {
		name    string
		heading []layout.Word
		want    string
	}{
		{"one chip", append(words(70, 20, 6, "Indemnity", "cap", "in", "the", "SPA"), words(400, 9, 4, "tntox«")...),
			"Indemnity cap in the SPA"},
		{"two chips", append(words(70, 20, 6, "Brightside", "expert", "reports"), words(330, 9, 20, "Inbox", "Clients/Brightside", "x")...),
			"Brightside expert reports"},
		{"no chip: a short last word stays", words(70, 20, 6, "Meeting", "on", "the", "lease", "a"),
			"Meeting on the lease a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseHeader(append([]layout.Line{layout.NewLine(tc.heading)}, sender...)).Subject
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
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
			candidate{Subject: "RE: Closing date", FromScreen: true, SenderName: "Liam Gray", SenderEmail: "lgray@grayhold.com", SenderFromScreen: true}, true},
		{"flat text without lines, as before", Input{App: "thunderbird", Title: "Inbox - Mozilla Thunderbird", ScreenText: quoted},
			candidate{Subject: "Something else", FromScreen: true, SenderName: "Owen Castellano", SenderEmail: "ocastellano@castellanollp.com", SenderFromScreen: true}, true},
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

func TestGlyphText(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    string
		want bool
	}{
		{"an icon read as a letter and a bracket", "Q)", true},
		{"a brace after a letter", "a}", true},
		{"a digit", "3", true},
		{"a contact badge", "O", true},
		{"nothing", "", true},
		{"a To label", "To Me", false},
		{"a date", "11/24/26, 15:30", false},
		{"a short word", "Hi", false},
		{"an address", "kosei@osei-law.com", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isGlyphText(tc.s); got != tc.want {
				t.Errorf("isGlyphText(%q) = %v, want %v", tc.s, got, tc.want)
			}
		})
	}
}

func TestSenderNameRepairs(t *testing.T) {
	row := func(s string, conf ...float64) headerRow {
		l := rowAt(10, 12, col{0, s})[0]
		for i := range conf {
			l.Words[i].Confidence = conf[i]
		}
		return headerRow{Row: layout.Row{Lines: []layout.Line{l}}, text: l.Text}
	}
	for _, tc := range []struct {
		name string
		r    headerRow
		want string
	}{
		{"initials before the name", row("GL Greg Lindqvist"), "Greg Lindqvist"},
		{"a round picture read in lower case", row("ig Kevin Osei"), "Kevin Osei"},
		{"a picture read with little confidence", row("Bp Kevin Osei", 16), "Kevin Osei"},
		{"a glyph", row("@ Greg Lindqvist"), "Greg Lindqvist"},
		{"a particle opens the name", row("de Vries Anna"), "de Vries Anna"},
		{"a short first name read with confidence", row("Al Gore", 90), "Al Gore"},
		{"a capital read small", row("kevin Osei"), "Kevin Osei"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nameOf(tc.r); got != tc.want {
				t.Errorf("nameOf(%q) = %q, want %q", tc.r.text, got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, in, addr, want string
	}{
		{"an i read as l", "Alan Plerce", "apierce@pinecrestbank.com", "Alan Pierce"},
		{"an l read as I", "BiII Hill", "bill.hill@example.com", "Bill Hill"},
		{"the address spells another name", "Alan Pierce", "apearce@example.com", "Alan Pierce"},
		{"no address", "Alan Plerce", "", "Alan Plerce"},
		{"already right", "Liam Gray", "lgray@grayhold.com", "Liam Gray"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := spellLikeAddress(tc.in, tc.addr); got != tc.want {
				t.Errorf("spellLikeAddress(%q, %q) = %q, want %q", tc.in, tc.addr, got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		in   string
		want bool
	}{
		{"nothing", "", true},
		{"a picture and a badge", "Bs e", true},
		{"initials", "RB", true},
		{"a name", "Rachel Kim", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := weakName(tc.in); got != tc.want {
				t.Errorf("weakName(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestMisreadIconLine(t *testing.T) {
	subject := rowAt(84, 14, col{5, "Docket Alert: Carver Street LLC v. Liu - New Filing"})
	speck := rowAt(84, 10, col{320, "cu."})
	speck[0].Words[0].Confidence = 0
	lines := pane(rowAt(12, 12, col{40, "Docket Alerts"}),
		rowAt(30, 12, col{40, "noreply@courtalerts.example"}),
		rowAt(58, 12, col{4, "To Me"}, col{870, "11/24/26, 22:10"}),
		subject, speck,
		rowAt(130, 12, col{3, "A new document was filed."}))
	want := "Docket Alert: Carver Street LLC v. Liu - New Filing"
	if got := ParseHeader(lines).Subject; got != want {
		t.Errorf("subject %q, want %q: a speck read with no confidence ended the row as a sentence", got, want)
	}
}
