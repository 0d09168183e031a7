package glance

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"sync"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/spirit-app/spirit/screen/ocr"
	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// text is a string drawn at (X, Y), Y its baseline, Size pixels high.
type text struct {
	X, Y int
	Size float64
	Bold bool
	Grey bool // labels and secondary text are grey in every client
	S    string
}

// rule is a horizontal separator line, as between a header and the body.
type rule struct{ Y int }

// renderPane draws a w×h pane, white, with texts in the Go fonts,
// anti-aliased like screen text, and rules.
func renderPane(t *testing.T, w, h int, items []text, rules ...rule) *image.RGBA {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for _, r := range rules {
		draw.Draw(img, image.Rect(10, r.Y, w-10, r.Y+1), image.NewUniform(color.Gray{0xd0}), image.Point{}, draw.Src)
	}
	faces := map[[2]any]font.Face{}
	for _, it := range items {
		k := [2]any{it.Size, it.Bold}
		face, ok := faces[k]
		if !ok {
			ttf := goregular.TTF
			if it.Bold {
				ttf = gobold.TTF
			}
			f, err := opentype.Parse(ttf)
			if err != nil {
				t.Fatal(err)
			}
			face, err = opentype.NewFace(f, &opentype.FaceOptions{Size: it.Size, DPI: 72, Hinting: font.HintingFull})
			if err != nil {
				t.Fatal(err)
			}
			defer face.Close()
			faces[k] = face
		}
		col := color.RGBA{0x20, 0x20, 0x28, 0xff}
		if it.Grey {
			col = color.RGBA{0x60, 0x60, 0x68, 0xff}
		}
		d := font.Drawer{Dst: img, Src: image.NewUniform(col), Face: face, Dot: fixed.P(it.X, it.Y)}
		d.DrawString(it.S)
	}
	return img
}

const (
	subject = "Settlement offer in Smith v. Acme Corporation"
	sender  = "Jane Doe"
	address = "jane.doe@example.com"
)

// body is a message body from y down: a greeting, a request and, when
// quoted, the history of the thread with Outlook's and Gmail's markers.
func body(y int, quoted bool) []text {
	ls := []string{
		"Dear Counsel,",
		"Please find attached our client's settlement offer. The offer",
		"remains open until Friday 14 March. Can you confirm receipt?",
		"Kind regards,",
		"Jane",
	}
	if quoted {
		ls = []string{
			"Thanks, that works for us. Please send the signed copy.",
			"On Mon 23/11/2026 at 09:12, Paul Grant wrote:",
			"-----Original Message-----",
			"From: Paul Grant <paul.grant@grantlaw.example>",
			"Sent: Monday, 23 November 2026 09:12",
			"To: Jane Doe <jane.doe@example.com>",
			"Subject: Disclosure timetable for Jones v. Brightside Ltd",
			"Jane, attached is the draft timetable.",
		}
	}
	var out []text
	for i, l := range ls {
		out = append(out, text{X: 20, Y: y + 22*i, Size: 14, S: l})
	}
	return out
}

// layouts are the header layouts of the mail clients, drawn at their
// usual sizes and positions (measured on screenshots of each client at
// 100 % scale), each with a body below the header.
func layouts() map[string]struct {
	items []text
	rules []rule
} {
	type pane = struct {
		items []text
		rules []rule
	}
	tb := func(senderRows []text, quoted bool) pane {
		// Thunderbird 153: sender (bold) with the date at the right and
		// the header buttons, To and Cc labels in a column, then the
		// subject, a rule, the body.
		items := append([]text{
			{X: 560, Y: 30, Size: 13, S: "Reply   Forward   Archive   Junk   More"},
			{X: 840, Y: 54, Size: 12, Grey: true, S: "24/11/2026, 11:02"},
		}, senderRows...)
		items = append(items,
			text{X: 20, Y: 84, Size: 13, Grey: true, S: "To"},
			text{X: 60, Y: 84, Size: 13, S: "Dana Whitfield"},
			text{X: 20, Y: 106, Size: 13, Grey: true, S: "Cc"},
			text{X: 60, Y: 106, Size: 13, S: "Mark Ellis"},
			text{X: 20, Y: 134, Size: 16, Bold: true, S: subject},
		)
		return pane{append(items, body(186, quoted)...), []rule{{Y: 152}}}
	}
	twoLine := []text{
		{X: 20, Y: 34, Size: 14, Bold: true, S: sender},
		{X: 20, Y: 56, Size: 13, Grey: true, S: address},
	}
	oneLine := []text{{X: 20, Y: 44, Size: 14, Bold: true, S: sender + " <" + address + ">"}}
	tbTab := tb(twoLine, false)
	tbTab.items = append(tbTab.items,
		text{X: 20, Y: -100, S: ""}) // placeholder removed below
	tbTab.items = tbTab.items[:len(tbTab.items)-1]
	// A message tab: the tab strip with the subject and the mail toolbar
	// above the same header, moved down.
	var shifted []text
	shifted = append(shifted,
		text{X: 20, Y: 22, Size: 12, S: "Inbox"},
		text{X: 140, Y: 22, Size: 12, S: subject},
		text{X: 20, Y: 56, Size: 13, S: "Get Messages   Write   Chat   Address Book   Tag   Quick Filter"},
	)
	for _, it := range tbTab.items {
		it.Y += 70
		shifted = append(shifted, it)
	}
	return map[string]pane{
		"thunderbird three-pane, name and address on two lines": tb(twoLine, false),
		"thunderbird three-pane, name <address> on one line":    tb(oneLine, false),
		"thunderbird message tab":                               {shifted, []rule{{Y: 222}}},
		"thunderbird, quoted history in the body": func() pane {
			p := tb(twoLine, true)
			return p
		}(),
		"gmail conversation view": {append([]text{
			{X: 70, Y: 36, Size: 22, S: subject},
			{X: 640, Y: 36, Size: 12, Grey: true, S: "Inbox x"},
			{X: 70, Y: 80, Size: 14, Bold: true, S: sender},
			{X: 146, Y: 80, Size: 12, Grey: true, S: "<" + address + ">"},
			{X: 760, Y: 80, Size: 12, Grey: true, S: "10:42 AM (2 hours ago)"},
			{X: 70, Y: 100, Size: 12, Grey: true, S: "to me"},
		}, body(150, false)...), nil},
		"outlook on the web reading pane": {append([]text{
			{X: 20, Y: 34, Size: 20, Bold: true, S: subject},
			{X: 20, Y: 88, Size: 18, Bold: true, S: "JD"},
			{X: 70, Y: 80, Size: 14, Bold: true, S: sender + " <" + address + ">"},
			{X: 70, Y: 100, Size: 12, Grey: true, S: "To: Dana Whitfield"},
			{X: 760, Y: 80, Size: 12, Grey: true, S: "Mon 24/11/2026 11:02"},
		}, body(150, false)...), nil},
		"outlook classic, labels": {append([]text{
			{X: 20, Y: 30, Size: 13, Bold: true, S: "From:"},
			{X: 100, Y: 30, Size: 13, S: sender + " <" + address + ">"},
			{X: 20, Y: 52, Size: 13, Bold: true, S: "Sent:"},
			{X: 100, Y: 52, Size: 13, S: "Monday, 24 November 2026 11:02"},
			{X: 20, Y: 74, Size: 13, Bold: true, S: "To:"},
			{X: 100, Y: 74, Size: 13, S: "Dana Whitfield"},
			{X: 20, Y: 96, Size: 13, Bold: true, S: "Subject:"},
			{X: 100, Y: 96, Size: 13, S: subject},
		}, body(146, false)...), []rule{{Y: 114}}},
		"new outlook, name above address": {append([]text{
			{X: 20, Y: 34, Size: 20, Bold: true, S: subject},
			{X: 70, Y: 76, Size: 14, Bold: true, S: sender},
			{X: 70, Y: 96, Size: 12, Grey: true, S: address},
			{X: 70, Y: 116, Size: 12, Grey: true, S: "To: Dana Whitfield"},
			{X: 780, Y: 76, Size: 12, Grey: true, S: "Mon 24/11/2026 11:02"},
		}, body(166, false)...), nil},
		"quoted history only in the body": {body(30, true), nil},
	}
}

var (
	tessOnce sync.Once
	tess     *ocr.Tesseract
	tessErr  error
)

// reader is one real Tesseract for the package's tests.
func reader(t *testing.T) *ocr.Tesseract {
	t.Helper()
	tessOnce.Do(func() { tess, tessErr = ocr.New(ocr.Config{}) })
	if tessErr != nil {
		t.Fatalf("ocr.New: %v", tessErr)
	}
	return tess
}

func TestParseHeaderRendered(t *testing.T) {
	r := reader(t)
	want := map[string]ScreenInfo{
		"thunderbird three-pane, name and address on two lines": {Email: true, Subject: subject, SenderName: sender, SenderEmail: address, Date: "24/11/2026, 11:02"},
		"thunderbird three-pane, name <address> on one line":    {Email: true, Subject: subject, SenderName: sender, SenderEmail: address, Date: "24/11/2026, 11:02"},
		"thunderbird message tab":                               {Email: true, Subject: subject, SenderName: sender, SenderEmail: address, Date: "24/11/2026, 11:02"},
		"thunderbird, quoted history in the body":               {Email: true, Subject: subject, SenderName: sender, SenderEmail: address, Date: "24/11/2026, 11:02"},
		"gmail conversation view":                               {Email: true, Subject: subject, SenderName: sender, SenderEmail: address, Date: "10:42 AM (2 hours ago)"},
		"outlook on the web reading pane":                       {Email: true, Subject: subject, SenderName: sender, SenderEmail: address, Date: "Mon 24/11/2026 11:02"},
		"outlook classic, labels":                               {Email: true, Subject: subject, SenderName: sender, SenderEmail: address, Date: "Monday, 24 November 2026 11:02"},
		"new outlook, name above address":                       {Email: true, Subject: subject, SenderName: sender, SenderEmail: address, Date: "Mon 24/11/2026 11:02"},
		"quoted history only in the body":                       {},
	}
	for name, p := range layouts() {
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("no want for %q", name)
			}
			img := renderPane(t, 1000, 340, p.items, p.rules...)
			lines, err := r.ReadLines(t.Context(), img)
			if err != nil {
				t.Fatal(err)
			}
			got := ParseHeader(lines)
			if got != w {
				t.Errorf("got %+v, want %+v", got, w)
				for _, row := range layout.Rows(lines) {
					t.Logf("row %v %q", row.Box, row.Text())
				}
			}
		})
	}
}

// countingReader counts the reads that reach the real OCR.
type countingReader struct {
	r     LineReader
	mu    sync.Mutex
	reads int
}

func (c *countingReader) ReadLines(ctx context.Context, img image.Image) ([]layout.Line, error) {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return c.r.ReadLines(ctx, img)
}

func TestHeaderReaderCache(t *testing.T) {
	ls := layouts()
	a := ls["thunderbird three-pane, name and address on two lines"]
	b := ls["gmail conversation view"]
	imgA := renderPane(t, 1000, 200, a.items, a.rules...)
	imgA2 := renderPane(t, 1000, 200, a.items, a.rules...) // the same pixels, captured again
	imgB := renderPane(t, 1000, 200, b.items, b.rules...)
	// One digit changed in the subject: another thread, the same layout.
	c := layouts()["thunderbird three-pane, name and address on two lines"]
	for i := range c.items {
		if c.items[i].S == subject {
			c.items[i].S = "Settlement offer in Smith v. Acme Corporation 2"
		}
	}
	imgC := renderPane(t, 1000, 200, c.items, c.rules...)

	cr := &countingReader{r: reader(t)}
	h := NewHeaderReader(cr, 2)
	for _, step := range []struct {
		name       string
		img        image.Image
		wantCached bool
		wantReads  int
	}{
		{"first read runs OCR", imgA, false, 1},
		{"the same image again is remembered", imgA, true, 1},
		{"the same pixels captured again are remembered", imgA2, true, 1},
		{"another pane runs OCR", imgB, false, 2},
		{"a header one word apart runs OCR", imgC, false, 3},
		{"the least recently used pane was forgotten", imgA, false, 4},
		{"the most recent one is still remembered", imgC, true, 4},
	} {
		got, err := h.Read(t.Context(), step.img)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got.Cached != step.wantCached || cr.reads != step.wantReads {
			t.Errorf("%s: got cached=%v after %d OCR reads, want cached=%v after %d", step.name, got.Cached, cr.reads, step.wantCached, step.wantReads)
		}
		if got.Info.SenderEmail != address {
			t.Errorf("%s: got sender %q, want %q", step.name, got.Info.SenderEmail, address)
		}
	}
}

// elmCourt is the elm-court case's thread (testdata/glance/elm-court-new-outlook-ocr)
// as Thunderbird 153's three-pane window shows Liam's reply: the
// sender's name and address on two lines, and Owen's first message
// quoted in the body with its own From and Subject lines.
func elmCourt(quotedOnly bool) []text {
	bodyLines := []string{
		"Owen,",
		"July 2 works. Can you update the closing statement?",
		"Liam",
		"-----Original Message-----",
		"From: Owen Castellano <ocastellano@castellanollp.com>",
		"Sent: Monday, 15 June 2026 10:00",
		"Subject: Closing date – Elm Court",
		"Liam, can we move closing to July 2?",
	}
	var items []text
	y := 186
	if quotedOnly {
		// Scrolled down: only the body's end and the quote are in view.
		bodyLines, y = bodyLines[1:], 30
	} else {
		items = []text{
			{X: 20, Y: 34, Size: 14, Bold: true, S: "Liam Gray"},
			{X: 20, Y: 56, Size: 13, Grey: true, S: "lgray@grayhold.com"},
			{X: 840, Y: 34, Size: 12, Grey: true, S: "15/06/2026, 12:00"},
			{X: 20, Y: 84, Size: 13, Grey: true, S: "To"},
			{X: 60, Y: 84, Size: 13, S: "Owen Castellano"},
			{X: 20, Y: 124, Size: 16, Bold: true, S: "RE: Closing date – Elm Court"},
		}
	}
	for i, l := range bodyLines {
		items = append(items, text{X: 20, Y: y + 22*i, Size: 14, S: l})
	}
	return items
}

func TestDecideFromPaneLines(t *testing.T) {
	ctx := t.Context()
	me := []string{"ocastellano@castellanollp.com"}
	ix := benchIndex(ctx, t, t.TempDir()+"/ix.db", "elm-court", "testdata/glance/elm-court-new-outlook-ocr/mailbox.mbox", "Owen Castellano", me)
	now, _ := time.Parse(time.RFC3339, "2026-06-15T13:00:00-04:00")
	for _, tc := range []struct {
		name       string
		quotedOnly bool
		want       Decision
	}{
		{"three-pane header read by layout: Liam's reply needs one", false,
			Decision{Surface: true, Reason: ReasonNeedsReply, Stage: StageAnalyst, MessageID: "<o2@grayhold.com>"}},
		{"quoted history only in the body: no header, no search", true,
			Decision{Reason: ReasonNotEmail, Stage: StageTriage}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := renderPane(t, 1000, 340, elmCourt(tc.quotedOnly))
			lines, err := reader(t).ReadLines(ctx, img)
			if err != nil {
				t.Fatal(err)
			}
			in := Input{App: "thunderbird", Title: "Inbox - ocastellano@castellanollp.com - Mozilla Thunderbird",
				ScreenLines: lines, Now: now, Me: me, MeName: "Owen Castellano"}
			d, err := Decide(ctx, ix, in)
			if err != nil {
				t.Fatal(err)
			}
			got := Decision{Surface: d.Surface, Reason: d.Reason, Stage: d.Stage, MessageID: d.MessageID}
			if got != tc.want {
				t.Errorf("got %+v, want %+v (subject %q, sender %q)", got, tc.want, d.Subject, d.Sender)
				t.Logf("header: %+v", ParseHeader(lines))
				for _, row := range layout.Rows(lines) {
					t.Logf("row %v %q", row.Box, row.Text())
				}
			}
		})
	}
}

// TestShrinkLines: words read off an image enlarged twice are mapped back
// to the pixels of the region it was cut from, and their lines rebuilt.
func TestShrinkLines(t *testing.T) {
	origin := image.Pt(291, 275)
	for _, tc := range []struct {
		name     string
		words    []layout.Word
		wantBox  image.Rectangle
		wantText string
	}{
		{"even edges", []layout.Word{{Text: "Kevin", Box: image.Rect(10, 20, 60, 44)}, {Text: "Osei", Box: image.Rect(70, 20, 110, 44)}},
			image.Rect(296, 285, 346, 297), "Kevin Osei"},
		{"odd edges round outwards", []layout.Word{{Text: "kosei@osei-law.com", Box: image.Rect(11, 51, 201, 75)}},
			image.Rect(296, 300, 392, 313), "kosei@osei-law.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shrinkLines([]layout.Line{layout.NewLine(tc.words)}, origin)
			if len(got) != 1 || got[0].Box != tc.wantBox || got[0].Text != tc.wantText || len(got[0].Words) != len(tc.words) {
				t.Errorf("got %+v, want one line %q at %v", got, tc.wantText, tc.wantBox)
			}
		})
	}
}
