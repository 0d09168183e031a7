package glance

import (
	"fmt"
	"image"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// Whole windows drawn as OCR gives them (see rowAt): a folder pane at
// x=20, a message list and a reading pane.

// folders is a folder pane from y down.
func folders(y int, names ...string) []layout.Line {
	var out []layout.Line
	for i, n := range names {
		out = append(out, rowAt(y+25*i, 12, col{20, n})...)
	}
	return out
}

// cards is a vertical layout's message list at x=250: sender and date,
// subject below, 50 px a message.
func cards(y int, msgs ...[3]string) []layout.Line {
	var out []layout.Line
	for i, m := range msgs {
		out = append(out, rowAt(y+50*i, 12, col{250, m[0]}, col{520, m[2]})...)
		out = append(out, rowAt(y+50*i+20, 12, col{250, m[1]})...)
	}
	return out
}

var listMsgs = [][3]string{
	{"Marcus Webb", "Disclosure list of documents", "09:58"},
	{"Rachel Kim", "Harbor Point lease", "09:31"},
	{"noreply@courts.example", "Hearing listed", "08:12"},
	{"Owen Castellano", "Elm Court completion", "Yesterday"},
	{"Sarah Mitchell", "Orion NDA comments", "23/11/2026"},
	{"accounts@ortizco.example", "Invoice 2026-114", "19/11/2026"},
	{"Tom Baker", "Re: Costs budget", "18/11/2026"},
}

// prose is body text at x from y down, a line every 22 px.
func prose(x, y int, lines ...string) []layout.Line {
	var out []layout.Line
	for i, l := range lines {
		out = append(out, rowAt(y+22*i, 12, col{x, l})...)
	}
	return out
}

var bodyLines = []string{
	"Attached are the signature pages for the lease. Could you have your client",
	"sign and return them by Thursday so that we can complete on Friday as agreed?",
	"Many thanks and kind regards to you and the team.",
}

func TestFindHeader(t *testing.T) {
	folderPane := folders(80, "Inbox", "Drafts", "Sent", "Archives", "Junk", "Trash", "Clients", "Court filings",
		"Costs", "Expert reports", "Templates", "Outbox", "Archive 2025", "Local Folders", "Searches", "Tags")
	// Thunderbird's header at x=640 from y: name, address, To, subject.
	tbHeader := func(x, y int) []layout.Line {
		return pane(rowAt(y, 12, col{x, "Rachel Kim"}, col{x + 330, "Reply Forward Archive"}),
			rowAt(y+20, 12, col{x, "rachel.kim@harborpoint.example"}, col{x + 470, "24/11/2026, 09:31"}),
			rowAt(y+50, 12, col{x, "To"}, col{x + 40, "Dana Whitfield"}),
			rowAt(y+80, 16, col{x, "Harbor Point lease signature pages"}))
	}
	rachel := ScreenInfo{Email: true, Subject: "Harbor Point lease signature pages", SenderName: "Rachel Kim",
		SenderEmail: "rachel.kim@harborpoint.example", Date: "24/11/2026, 09:31"}
	for _, tc := range []struct {
		name  string
		lines []layout.Line
		want  ScreenInfo // ParseHeader of the header found; zero for none
		// in lies in the region, out does not.
		in, out image.Point
	}{
		{"vertical three-pane: the reading pane's header, not the list's rows",
			pane(folderPane, cards(80, listMsgs...), tbHeader(640, 90), prose(640, 230, bodyLines...)),
			rachel, image.Pt(1150, 115), image.Pt(300, 115)},
		{"classic: the pane under the message list, with addresses and dates in the list's rows",
			pane(folderPane,
				func() []layout.Line {
					var out []layout.Line
					for i, m := range listMsgs {
						out = append(out, rowAt(80+22*i, 12, col{250, m[1]}, col{600, m[0]}, col{900, m[2]})...)
					}
					return out
				}(),
				tbHeader(250, 300), prose(250, 440, bodyLines...)),
			rachel, image.Pt(700, 330), image.Pt(600, 100)},
		{"Thunderbird 153 vertical: toolbar icons read as glyphs over the sender, the subject under To",
			pane(folderPane, cards(80, listMsgs...),
				rowAt(20, 24, col{1250, "Q)"}),
				rowAt(60, 14, col{870, "Reply Forward Archive Spam Delete More"}),
				rowAt(82, 12, col{644, "ig Greg Lindqvist"}),
				rowAt(90, 12, col{910, "O"}),
				rowAt(100, 12, col{669, "glindqvist@maplecrestpartners.com"}),
				rowAt(127, 12, col{636, "To Me"}, col{1160, "11/24/26, 15:30"}),
				rowAt(153, 16, col{636, "Title Objections - Maple Ridge Shopping Center"}),
				prose(636, 200, bodyLines...)),
			ScreenInfo{Email: true, Subject: "Title Objections - Maple Ridge Shopping Center", SenderName: "Greg Lindqvist",
				SenderEmail: "glindqvist@maplecrestpartners.com", Date: "11/24/26, 15:30"},
			// The whole block with the subject's row; not the search
			// bar's icon above the toolbar.
			image.Pt(900, 168), image.Pt(1255, 30)},
		{"a forwarded header in the body is not the message's",
			pane(folderPane, cards(80, listMsgs...), tbHeader(640, 90),
				prose(640, 230, "Dana, see below from the other side. Can we agree the date?"),
				prose(640, 270, "-------- Forwarded Message --------"),
				rowAt(300, 12, col{640, "Subject:"}, col{720, "Expert report timetable"}),
				rowAt(320, 12, col{640, "Date:"}, col{720, "Mon, 23 Nov 2026 16:02"}),
				rowAt(340, 12, col{640, "From:"}, col{720, "Marcus Webb <mwebb@webblegal.example>"}),
				rowAt(360, 12, col{640, "To:"}, col{720, "Tom Baker <tom@bakerclerks.example>"})),
			rachel, image.Pt(650, 95), image.Pt(700, 345)},
		{"quoted history alone (the pane scrolled down) is no header",
			pane(folderPane, cards(80, listMsgs...),
				prose(640, 90, bodyLines...),
				prose(640, 170, "On Mon 23/11/2026 at 09:12, Paul Grant wrote:"),
				rowAt(200, 12, col{640, "From: Paul Grant <paul@grantlaw.example>"}),
				rowAt(220, 12, col{640, "Sent: Monday, 23 November 2026 09:12"}),
				rowAt(240, 12, col{640, "To: Jane Doe"}),
				rowAt(260, 12, col{640, "Subject: Disclosure timetable"})),
			ScreenInfo{}, image.Point{}, image.Point{}},
		{"a message list with an empty pane is no header",
			pane(folderPane, cards(80, listMsgs...)),
			ScreenInfo{}, image.Point{}, image.Point{}},
		{"a compose window's fields are no header",
			pane(rowAt(20, 12, col{20, "Send"}, col{90, "Spelling"}, col{200, "Save"}, col{900, "Attach"}),
				rowAt(60, 12, col{20, "From"}, col{90, "Dana Whitfield <dana@whitfield.example>"}, col{900, "Cc Bcc"}),
				rowAt(90, 12, col{20, "To"}, col{90, "Rachel Kim <rachel.kim@harborpoint.example>"}),
				rowAt(120, 12, col{20, "Subject"}, col{90, "Re: Harbor Point lease"}),
				prose(20, 170, "Rachel,", "Thanks, the signed pages will be with you on Thursday.")),
			ScreenInfo{}, image.Point{}, image.Point{}},
		{"Apple Mail: the name alone over the subject and To",
			pane(folderPane, cards(80, listMsgs...),
				rowAt(90, 14, col{640, "Elena Ortiz"}, col{1100, "24 November 2026 at 09:14"}),
				rowAt(110, 12, col{640, "Orion NDA signed counterpart"}),
				rowAt(130, 12, col{640, "To: Dana Whitfield"}),
				prose(600, 190, bodyLines...)),
			ScreenInfo{Email: true, Subject: "Orion NDA signed counterpart", SenderName: "Elena Ortiz", Date: "24 November 2026 at 09:14"},
			image.Pt(700, 115), image.Pt(260, 100)},
		{"Gmail thread: the subject over the folded messages, the open one's sender",
			pane(folders(80, "Inbox", "Starred", "Sent", "Drafts", "More", "Labels", "Clients", "Orion", "Brightside",
				"Archive", "Trash", "Spam", "Snoozed", "Important", "Chats", "Scheduled"),
				rowAt(90, 22, col{330, "Brightside expert reports"}),
				rowAt(140, 12, col{330, "Marcus Webb"}, col{500, "Dana, we propose that reports are exchanged by"}, col{1100, "Nov 20"}),
				rowAt(175, 12, col{330, "me"}, col{500, "Marcus, 15 January is too early given the volume."}, col{1100, "Nov 21"}),
				rowAt(215, 12, col{330, "Marcus Webb <mwebb@webblegal.example>"}, col{1000, "9:05 AM (3 hours ago)"}),
				rowAt(233, 10, col{330, "to me"}),
				prose(330, 280, bodyLines...)),
			ScreenInfo{Email: true, Subject: "Brightside expert reports", SenderName: "Marcus Webb",
				SenderEmail: "mwebb@webblegal.example", Date: "9:05 AM (3 hours ago)"},
			image.Pt(400, 100), image.Point{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header, region, ok := FindHeader(tc.lines)
			var got ScreenInfo
			if ok {
				got = ParseHeader(header)
			}
			if got != tc.want || ok != tc.want.Email {
				t.Fatalf("got %+v (ok %v), want %+v\nheader:\n%s", got, ok, tc.want, dumpHeader(header))
			}
			if !ok {
				return
			}
			for _, l := range header {
				if !l.Box.In(region) {
					t.Errorf("header line %q at %v outside the region %v", l.Text, l.Box, region)
				}
			}
			if !tc.in.In(region) {
				t.Errorf("region %v leaves out %v", region, tc.in)
			}
			if tc.out != (image.Point{}) && tc.out.In(region) {
				t.Errorf("region %v takes in %v", region, tc.out)
			}
		})
	}
}

func TestFindHeaderEmpty(t *testing.T) {
	if _, _, ok := FindHeader(nil); ok {
		t.Error("a header in no lines")
	}
}

func dumpHeader(lines []layout.Line) string {
	s := ""
	for _, l := range lines {
		s += fmt.Sprintf("%v %q\n", l.Box, l.Text)
	}
	return s
}

// FuzzFindHeader feeds arbitrary windows (rows split at "\n", columns at
// "\t" 300 px apart, sizes from the text): FindHeader must not panic, and
// a header it finds lies inside its region and reads as a message.
func FuzzFindHeader(f *testing.F) {
	f.Add("Inbox\tMarcus Webb\tRachel Kim\nSent\t09:58\trachel.kim@harborpoint.example\tReply Forward\nDrafts\t\tTo\tDana Whitfield\n\t\tHarbor Point lease")
	f.Add("Send\tAttach\nFrom\tDana <dana@whitfield.example>\nTo\tRachel <r@h.example>\nSubject\tRe: x")
	f.Add("On Mon wrote:\n> From: a@b.co\n\t\t<>@\nSent: 1\tTo: me")
	f.Fuzz(func(t *testing.T, s string) {
		var lines []layout.Line
		for i, row := range strings.Split(s, "\n") {
			var cols []col
			for k, c := range strings.Split(row, "\t") {
				cols = append(cols, col{X: 20 + 300*k, S: c})
			}
			lines = append(lines, rowAt(20*i, 8+len(row)%12, cols...)...)
		}
		header, region, ok := FindHeader(lines)
		if !ok {
			return
		}
		for _, l := range header {
			if !l.Box.In(region) {
				t.Errorf("header line %q at %v outside the region %v", l.Text, l.Box, region)
			}
		}
		if !ParseHeader(header).Email {
			t.Errorf("the header found does not read as a message: %q", dumpHeader(header))
		}
	})
}
