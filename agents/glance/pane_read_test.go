package glance

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// paneMessage is a received message, as the index holds it and as a
// reading pane shows it.
type paneMessage struct {
	id, name, addr, subject, ask string
}

var (
	msgSettlement = paneMessage{"<a1@example.com>", "Jane Doe", "jane.doe@example.com",
		"Settlement offer in Smith v. Acme Corporation", "Dana, can you confirm receipt of our offer by Friday?"}
	msgTimetable = paneMessage{"<b1@grantlaw.example>", "Paul Grant", "paul.grant@grantlaw.example",
		"Disclosure timetable for Jones v. Brightside", "Dana, could you send me your comments on the timetable?"}
	msgNDA = paneMessage{"<c1@orionbio.example>", "Rachel Kim", "rkim@orionbio.example",
		"Mutual NDA for Orion Biotech", "Dana, can you sign and return the NDA this week?"}
	// msgTwinNDA is another thread with msgNDA's subject, from another
	// sender: only the sender and the date tell the two apart.
	msgTwinNDA = paneMessage{"<d1@orionbio.example>", "Leo Marsh", "leo.marsh@orionbio.example",
		msgNDA.subject, "Dana, could you send the signed copy to me rather than Rachel?"}
)

const (
	paneMe     = "dana@hartleyross.example"
	paneMeName = "Dana Whitfield"
	// paneW and paneH are the size of the mail window's captures.
	paneW, paneH = 1400, 640
)

var paneNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// paneIndex is a real index holding the three messages, each a thread
// that needs Dana's reply.
func paneIndex(t *testing.T) *index.Index {
	t.Helper()
	var b strings.Builder
	for i, m := range []paneMessage{msgSettlement, msgTimetable, msgNDA, msgTwinNDA} {
		fmt.Fprintf(&b, "From MAILER-DAEMON Thu Jan  1 00:00:00 2026\nFrom: %s <%s>\nTo: %s <%s>\nSubject: %s\n"+
			"Date: Mon, 23 Nov 2026 1%d:00:00 +0000\nMessage-ID: %s\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n%s\n%s\n\n",
			m.name, m.addr, paneMeName, paneMe, m.subject, i, m.id, m.ask, strings.Fields(m.name)[0])
	}
	path := filepath.Join(t.TempDir(), "mailbox.mbox")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return buildIndex(t, path, paneMeName, []string{paneMe})
}

// paneWindow renders Thunderbird's three-pane window at paneW×paneH: the
// folders and the message list on the left, the reading pane on the right
// showing m, its header dy pixels lower than usual (a pane moved or
// resized).
func paneWindow(t *testing.T, m paneMessage, dy int) *image.RGBA {
	t.Helper()
	items := []text{
		{X: 14, Y: 30, Size: 13, Bold: true, S: "Inbox"},
		{X: 14, Y: 54, Size: 13, S: "Drafts"},
		{X: 14, Y: 78, Size: 13, S: "Sent"},
		{X: 14, Y: 102, Size: 13, S: "Archives"},
	}
	for i, l := range []paneMessage{msgSettlement, msgTimetable, msgNDA} {
		y := 30 + 44*i
		items = append(items,
			text{X: 170, Y: y, Size: 13, Bold: l == m, S: l.name},
			text{X: 170, Y: y + 18, Size: 12, Grey: true, S: l.subject[:min(len(l.subject), 34)] + "…"},
		)
	}
	y := 40 + dy
	items = append(items,
		text{X: 610, Y: y, Size: 14, Bold: true, S: m.name},
		text{X: 610, Y: y + 22, Size: 13, Grey: true, S: m.addr},
		text{X: 1220, Y: y, Size: 12, Grey: true, S: "23/11/2026, 10:00"},
		text{X: 610, Y: y + 50, Size: 13, Grey: true, S: "To"},
		text{X: 650, Y: y + 50, Size: 13, S: paneMeName},
		text{X: 610, Y: y + 90, Size: 16, Bold: true, S: m.subject},
	)
	by := y + 150
	for i, l := range []string{strings.TrimSuffix(strings.Fields(m.ask)[0], ",") + ",", m.ask[strings.Index(m.ask, " ")+1:], "Kind regards,", strings.Fields(m.name)[0],
		"-----Original Message-----", "From: Owen Castellano <ocastellano@castellanollp.com>", "Subject: Closing date for Elm Court"} {
		items = append(items, text{X: 610, Y: by + 22*i, Size: 14, S: l})
	}
	return renderPane(t, paneW, paneH, items, rule{Y: y + 108})
}

// paneCapturer is the display at the edge of the world: it shows what
// the test put on screen, and counts the screenshots.
type paneCapturer struct {
	mu    sync.Mutex
	shows *image.RGBA
	// then, when set, is what the next screenshots show, one each, before
	// shows is shown again (a pane redrawn between two looks).
	then  []*image.RGBA
	shots int
	// hold, when set, is called before each screenshot (a test's blocking).
	hold func(ctx context.Context) error
}

func (c *paneCapturer) show(img *image.RGBA) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shows = img
}

func (c *paneCapturer) Capture(ctx context.Context, sw screen.Switch) (screen.Shot, error) {
	if c.hold != nil {
		if err := c.hold(ctx); err != nil {
			return screen.Shot{}, fmt.Errorf("capture: %w", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shots++
	if len(c.then) > 0 {
		c.shows, c.then = c.then[0], c.then[1:]
	}
	return screen.Shot{Window: sw.Window, App: sw.App, Image: c.shows, Full: c.shows, Data: []byte("jpeg"), MIME: "image/jpeg"}, nil
}

// countingOCR is the real Tesseract, counting its reads and what they
// read: "full" for a whole capture, "crop" for a region of one.
type countingOCR struct {
	r LineReader
	// hold, when set, is called before each read (a test's blocking).
	hold func(ctx context.Context, n int) error

	mu    sync.Mutex
	reads []image.Rectangle
}

func (c *countingOCR) ReadLines(ctx context.Context, img image.Image) ([]layout.Line, error) {
	c.mu.Lock()
	c.reads = append(c.reads, img.Bounds())
	n := len(c.reads)
	c.mu.Unlock()
	if c.hold != nil {
		if err := c.hold(ctx, n); err != nil {
			return nil, err
		}
	}
	return c.r.ReadLines(ctx, img)
}

func (c *countingOCR) Close() error { return nil } // the package's one Tesseract stays open

// took returns what the reads since the n-th read: "full" or "crop".
func (c *countingOCR) took(n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []string{}
	for _, r := range c.reads[n:] {
		switch {
		case r == image.Rect(0, 0, paneW, paneH):
			out = append(out, "full")
		case r.In(image.Rect(0, 0, paneW, paneH)) && r.Dx()*r.Dy() < paneW*paneH/4:
			out = append(out, "crop")
		default:
			out = append(out, fmt.Sprintf("odd %v", r))
		}
	}
	return out
}

func (c *countingOCR) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reads)
}

// fakeHeaders stands for the OS's accessibility tree: it answers what the
// test set, and counts the questions.
type fakeHeaders struct {
	mu     sync.Mutex
	header ExactHeader
	err    error
	asked  int
	// block, when set, is called with each question's context instead of
	// answering.
	block func(ctx context.Context) (ExactHeader, error)
}

func (f *fakeHeaders) MessageHeader(ctx context.Context, _ screen.Switch) (ExactHeader, error) {
	f.mu.Lock()
	f.asked++
	block, h, err := f.block, f.header, f.err
	f.mu.Unlock()
	if block != nil {
		return block(ctx)
	}
	return h, err
}

func (f *fakeHeaders) Close() error { return nil }

func (f *fakeHeaders) questions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked
}

// paneRig is a glance service over a real store, index and Tesseract,
// with the display and the accessibility tree at the edge.
type paneRig struct {
	svc  *Service
	capt *paneCapturer
	ocr  *countingOCR
	src  *fakeHeaders
	// opens counts OpenHeaders calls.
	opens int
	// said receives every world-log line and proposal, as "app: text" or
	// "proposed <message id>".
	said chan string
	// reads receives the ScreenTextRead events the service publishes.
	reads *events.Subscription

	mu  sync.Mutex
	now time.Time // the service's clock
}

// later moves the service's clock on by d.
func (r *paneRig) later(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = r.now.Add(d)
}

type rigOptions struct {
	screenText bool
	noExact    bool  // no OpenHeaders
	openErr    error // OpenHeaders fails
	switches   <-chan events.Event
	redrawWait time.Duration // ServiceOptions.RedrawWait
}

func newPaneRig(t *testing.T, o rigOptions) *paneRig {
	t.Helper()
	ctx := t.Context()
	st, err := store.OpenDir(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix := paneIndex(t)
	r := &paneRig{capt: &paneCapturer{}, ocr: &countingOCR{r: reader(t)}, src: &fakeHeaders{}, said: make(chan string, 64), now: paneNow}
	if o.switches == nil {
		o.switches = make(chan events.Event)
	}
	opt := ServiceOptions{
		Store:      st,
		Index:      ix,
		Switches:   o.switches,
		Capture:    r.capt,
		OpenReader: func() (TextReader, error) { return r.ocr, nil },
		Policy: func(context.Context) (Policy, error) {
			return Policy{MaxPerHour: 100, ScreenText: o.screenText}, nil
		},
		Models: func(context.Context) (Models, bool) { return Models{}, false },
		Propose: func(ctx context.Context, n store.Nudge) error {
			if _, err := st.CreateNudge(ctx, n); err != nil {
				return err
			}
			r.said <- "proposed " + strings.TrimPrefix(n.Subject, "glance:")
			return nil
		},
		Record:     func(_ context.Context, _, id, text string) { r.said <- id + ": " + text },
		RedrawWait: o.redrawWait,
		Now: func() time.Time {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.now
		},
	}
	if !o.noExact {
		opt.OpenHeaders = func(context.Context) (HeaderSource, error) {
			r.opens++
			if o.openErr != nil {
				return nil, o.openErr
			}
			return r.src, nil
		}
	}
	bus := events.NewBus()
	r.reads = bus.Subscribe(events.ScreenTextRead, 0)
	t.Cleanup(r.reads.Unsubscribe)
	opt.Events = bus
	if r.svc, err = NewService(opt); err != nil {
		t.Fatal(err)
	}
	return r
}

// next returns the next line said, failing the test after a deadline.
func (r *paneRig) next(t *testing.T) string {
	t.Helper()
	select {
	case l := <-r.said:
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("nothing said within 30 s")
		return ""
	}
}

// drain returns what was said and not yet taken.
func (r *paneRig) drain() []string {
	out := []string{}
	for {
		select {
		case l := <-r.said:
			out = append(out, l)
		default:
			return out
		}
	}
}

var (
	inbox   = screen.Switch{App: "thunderbird", Title: "Inbox - " + paneMe + " - Mozilla Thunderbird", Window: 7, PID: 4242}
	newPane = func() screen.Switch { sw := inbox; sw.PaneChanged = true; return sw }()
	notes   = screen.Switch{App: "Notes", Title: "Groceries", Window: 9}
)

// TestServiceReadsOnlyTheHeaderRegion: without exact headers, the first
// look at a mail window reads the whole window once and learns where the
// header is; a new message in the pane is read from that region only, a
// pane seen before is not read again, and a region that shows no header
// is learned again from one read of the whole window.
func TestServiceReadsOnlyTheHeaderRegion(t *testing.T) {
	r := newPaneRig(t, rigOptions{screenText: true, noExact: true})
	for _, step := range []struct {
		name      string
		sw        screen.Switch
		shows     *image.RGBA // nil: the screen is not read
		wantReads []string
		want      []string
	}{
		{"the first look reads the whole window", inbox, paneWindow(t, msgSettlement, 0),
			[]string{"full"}, []string{"proposed " + msgSettlement.id}},
		{"another message: the header region only", newPane, paneWindow(t, msgTimetable, 0),
			[]string{"crop"}, []string{"proposed " + msgTimetable.id}},
		{"back to the first message: remembered, not read", newPane, paneWindow(t, msgSettlement, 0),
			[]string{}, []string{"thunderbird: silent: already nudged about this thread (gate)"}},
		{"the second again: remembered", newPane, paneWindow(t, msgTimetable, 0),
			[]string{}, []string{"thunderbird: silent: already nudged about this thread (gate)"}},
		{"another window: nothing read", notes, nil,
			[]string{}, []string{"Notes: silent: not_email (triage)"}},
		{"back to the mail window, the same pane: not read", inbox, paneWindow(t, msgTimetable, 0),
			[]string{}, []string{"thunderbird: silent: already nudged about this thread (gate)"}},
		{"the header moved: the region shows none, the window is read again", newPane, paneWindow(t, msgNDA, 120),
			[]string{"crop", "full"}, []string{"proposed " + msgNDA.id}},
		{"then the new region only", newPane, paneWindow(t, msgSettlement, 120),
			[]string{"crop"}, []string{"thunderbird: silent: already nudged about this thread (gate)"}},
	} {
		before := r.ocr.count()
		if step.shows != nil {
			r.capt.show(step.shows)
		}
		r.svc.On(t.Context(), step.sw)
		got := r.drain()
		if reads := r.ocr.took(before); !slices.Equal(reads, step.wantReads) {
			t.Errorf("%s: OCR read %q, want %q", step.name, reads, step.wantReads)
		}
		if !slices.Equal(got, step.want) {
			t.Errorf("%s: said %q, want %q", step.name, got, step.want)
		}
	}
	if r.src.questions() != 0 || r.opens != 0 {
		t.Errorf("exact headers asked for %d times, opened %d, want none", r.src.questions(), r.opens)
	}
}

// TestServiceExactHeader: an exact header from the OS decides without a
// screenshot or OCR; an OS that cannot give one falls back to reading the
// pane, and is not asked again for a while; "no message open" is silent
// without reading anything.
func TestServiceExactHeader(t *testing.T) {
	settlement := ExactHeader{SenderName: msgSettlement.name, SenderEmail: msgSettlement.addr,
		To: []string{paneMeName + " <" + paneMe + ">"}, Subject: msgSettlement.subject, Date: "23/11/2026, 10:00"}
	nudged := "thunderbird: silent: already nudged about this thread (gate)"
	for _, tc := range []struct {
		name      string
		opt       rigOptions
		header    ExactHeader
		err       error
		wantSaid  []string // over two glances at the same pane
		wantAsked int
		wantOpens int
		wantShots int
		wantReads []string
		// wait is the time between the two glances.
		wait time.Duration
	}{
		{name: "exact header: no screenshot, no OCR", opt: rigOptions{screenText: true}, header: settlement,
			wantSaid: []string{"proposed " + msgSettlement.id, nudged}, wantAsked: 2, wantOpens: 1, wantReads: []string{}},
		{name: "a subject one word off is another thread", opt: rigOptions{screenText: true},
			header:   ExactHeader{SenderEmail: msgSettlement.addr, Subject: "Settlement offers in Smith v. Acme Corporation"},
			wantSaid: []string{"thunderbird: silent: no_match (analyst)", "thunderbird: silent: no_match (analyst)"}, wantAsked: 2, wantOpens: 1, wantReads: []string{}},
		{name: "unavailable: the pane is read, and not asked again for a while", opt: rigOptions{screenText: true}, err: fmt.Errorf("at-spi: %w", ErrHeaderUnavailable),
			wantSaid: []string{"proposed " + msgSettlement.id, nudged}, wantAsked: 1, wantOpens: 1, wantShots: 2, wantReads: []string{"full"}},
		{name: "unavailable, asked again a minute later", opt: rigOptions{screenText: true}, err: fmt.Errorf("at-spi: %w", ErrHeaderUnavailable), wait: ExactRetry,
			wantSaid: []string{"proposed " + msgSettlement.id, nudged}, wantAsked: 2, wantOpens: 1, wantShots: 2, wantReads: []string{"full"}},
		{name: "unavailable once, asked again 5 s later (an application still starting)", opt: rigOptions{screenText: true}, err: fmt.Errorf("at-spi: %w", ErrHeaderUnavailable), wait: exactRetryFirst,
			wantSaid: []string{"proposed " + msgSettlement.id, nudged}, wantAsked: 2, wantOpens: 1, wantShots: 2, wantReads: []string{"full"}},
		{name: "unavailable once, not asked 4 s later", opt: rigOptions{screenText: true}, err: fmt.Errorf("at-spi: %w", ErrHeaderUnavailable), wait: exactRetryFirst - time.Second,
			wantSaid: []string{"proposed " + msgSettlement.id, nudged}, wantAsked: 1, wantOpens: 1, wantShots: 2, wantReads: []string{"full"}},
		{name: "another failure: the pane is read, and asked again next time", opt: rigOptions{screenText: true}, err: errors.New("bus timeout"),
			wantSaid: []string{"proposed " + msgSettlement.id, nudged}, wantAsked: 2, wantOpens: 1, wantShots: 2, wantReads: []string{"full"}},
		{name: "no message open: silent, nothing read", opt: rigOptions{screenText: true}, err: fmt.Errorf("tree: %w", ErrNoHeader),
			wantSaid: []string{"thunderbird: silent: no message open (triage)", "thunderbird: silent: no message open (triage)"}, wantAsked: 2, wantOpens: 1, wantReads: []string{}},
		{name: "an empty header is no message", opt: rigOptions{screenText: true}, header: ExactHeader{},
			wantSaid: []string{"thunderbird: silent: no message open (triage)", "thunderbird: silent: no message open (triage)"}, wantAsked: 2, wantOpens: 1, wantReads: []string{}},
		{name: "no accessibility: opened once, the pane is read", opt: rigOptions{screenText: true, openErr: errors.New("no session bus")},
			wantSaid: []string{"proposed " + msgSettlement.id, nudged}, wantOpens: 1, wantShots: 2, wantReads: []string{"full"}},
		{name: "screen text off: neither asked nor read", opt: rigOptions{}, header: settlement,
			wantSaid: []string{"thunderbird: silent: not_email (triage)", "thunderbird: silent: not_email (triage)"}, wantShots: 2, wantReads: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newPaneRig(t, tc.opt)
			r.src.header, r.src.err = tc.header, tc.err
			r.capt.show(paneWindow(t, msgSettlement, 0))
			r.svc.On(t.Context(), inbox)
			r.later(tc.wait)
			// Back to the window: the same pane, taken as it is (a pane
			// change that reads the same is TestServiceWaitsForTheRedraw's).
			r.svc.On(t.Context(), inbox)
			got := r.drain()
			if !slices.Equal(got, tc.wantSaid) {
				t.Errorf("said %q, want %q", got, tc.wantSaid)
			}
			if r.src.questions() != tc.wantAsked || r.opens != tc.wantOpens {
				t.Errorf("asked %d times, opened %d, want %d and %d", r.src.questions(), r.opens, tc.wantAsked, tc.wantOpens)
			}
			if r.capt.shots != tc.wantShots {
				t.Errorf("screenshots = %d, want %d", r.capt.shots, tc.wantShots)
			}
			if reads := r.ocr.took(0); !slices.Equal(reads, tc.wantReads) {
				t.Errorf("OCR read %q, want %q", reads, tc.wantReads)
			}
		})
	}
}

// TestExactRest: an application that gives no exact header rests 5 s
// after its first failure, twice as long after each further one in a row,
// never longer than ExactRetry.
func TestExactRest(t *testing.T) {
	for _, tc := range []struct {
		fails int
		want  time.Duration
	}{
		{1, 5 * time.Second},
		{2, 10 * time.Second},
		{3, 20 * time.Second},
		{4, 40 * time.Second},
		{5, time.Minute},
		{12, time.Minute},
		{1000, time.Minute},
	} {
		if got := exactRest(tc.fails); got != tc.want {
			t.Errorf("exactRest(%d) = %v, want %v", tc.fails, got, tc.want)
		}
	}
}

// TestServiceExactHeaderRests: an application that keeps giving no exact
// header is asked less and less often; once it answers, its next failure
// rests it only briefly again.
func TestServiceExactHeaderRests(t *testing.T) {
	settlement := ExactHeader{SenderName: msgSettlement.name, SenderEmail: msgSettlement.addr, Subject: msgSettlement.subject}
	unavailable := fmt.Errorf("at-spi: %w", ErrHeaderUnavailable)
	r := newPaneRig(t, rigOptions{screenText: true})
	r.capt.show(paneWindow(t, msgSettlement, 0))
	steps := []struct {
		wait      time.Duration // before the glance
		header    ExactHeader
		err       error
		wantAsked int // in all, after the glance
	}{
		{0, ExactHeader{}, unavailable, 1},                // rests 5 s
		{5 * time.Second, ExactHeader{}, unavailable, 2},  // rests 10 s
		{5 * time.Second, ExactHeader{}, unavailable, 2},  // still resting
		{5 * time.Second, ExactHeader{}, unavailable, 3},  // rests 20 s
		{19 * time.Second, ExactHeader{}, unavailable, 3}, // still resting
		{time.Second, settlement, nil, 4},                 // answers
		{0, ExactHeader{}, unavailable, 5},                // rests 5 s again
		{5 * time.Second, ExactHeader{}, unavailable, 6},
	}
	for i, st := range steps {
		r.later(st.wait)
		r.src.mu.Lock()
		r.src.header, r.src.err = st.header, st.err
		r.src.mu.Unlock()
		r.svc.On(t.Context(), inbox)
		r.drain()
		if got := r.src.questions(); got != st.wantAsked {
			t.Fatalf("step %d: asked %d times in all, want %d", i+1, got, st.wantAsked)
		}
	}
}

// TestServiceScreenTextEvent: what the glance read off a mail window goes
// on the stream with the read (for the analysis loop, in memory only),
// whether the OS gave the header exactly or OCR read the window, marked
// with the switch it belongs to.
func TestServiceScreenTextEvent(t *testing.T) {
	exact := ExactHeader{SenderName: msgSettlement.name, SenderEmail: msgSettlement.addr, Subject: msgSettlement.subject, Date: "23/11/2026, 10:00"}
	for _, tc := range []struct {
		name string
		opt  rigOptions
		want []string // in the event's text
	}{
		{"exact header", rigOptions{screenText: true},
			[]string{"From: " + msgSettlement.name + " <" + msgSettlement.addr + ">", "Subject: " + msgSettlement.subject, "Date: 23/11/2026, 10:00"}},
		{"read by OCR", rigOptions{screenText: true, noExact: true},
			[]string{msgSettlement.subject, msgSettlement.addr}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newPaneRig(t, tc.opt)
			r.src.header = exact
			r.capt.show(paneWindow(t, msgSettlement, 0))
			sw := inbox
			sw.At = paneNow.Add(-time.Second)
			r.svc.On(t.Context(), sw)
			r.drain()
			var got []events.ScreenText
			for len(r.reads.C()) > 0 {
				got = append(got, (<-r.reads.C()).Data.(events.ScreenText))
			}
			if len(got) == 0 {
				t.Fatal("no ScreenTextRead on the stream")
			}
			last := got[len(got)-1]
			for _, w := range tc.want {
				if !strings.Contains(last.Text, w) {
					t.Errorf("read text %q lacks %q", last.Text, w)
				}
			}
			if !last.Switched.Equal(sw.At) || last.App != sw.App || last.Chars == 0 || len([]rune(last.Text)) > events.MaxScreenText {
				t.Errorf("event %+v: want switch time %v, app %q, a count, at most %d runes", last, sw.At, sw.App, events.MaxScreenText)
			}
		})
	}
}

// TestServiceCutsShortAGlanceTheLawyerLeft: a switch to another window (or
// another message in the pane) while a glance waits on the OS or on OCR
// ends that glance with "moved on", and the next window is glanced at
// without waiting for it; an excluded window does not cut it short.
func TestServiceCutsShortAGlanceTheLawyerLeft(t *testing.T) {
	message := screen.Switch{App: "thunderbird", Title: msgTimetable.subject + " - Mozilla Thunderbird", Window: 8}
	excluded := screen.Switch{App: "KeePassXC", Excluded: true, ExcludedBy: "app"}
	for _, tc := range []struct {
		name string
		opt  rigOptions
		// blockIn is where the first glance waits: "exact" (the OS),
		// "ocr" (a read that ends with its context) or "stuck" (a read
		// that cannot be interrupted, as Tesseract's).
		blockIn string
		then    screen.Switch
		// want is what is said, in order: with the first glance still
		// waiting when it is cut short, else once it is released after
		// the switch was handled.
		want       []string
		wantCancel bool
	}{
		{"waiting on the OS, another window", rigOptions{screenText: true}, "exact", notes,
			[]string{"thunderbird: silent: moved on to another window (gate)", "Notes: silent: not_email (triage)"}, true},
		{"reading the pane, another message in it", rigOptions{screenText: true, noExact: true}, "ocr", newPane,
			[]string{"thunderbird: silent: another message opened in the reading pane (gate)", "proposed " + msgSettlement.id}, true},
		{"OCR that cannot be interrupted: the next window does not wait for it", rigOptions{screenText: true, noExact: true}, "stuck", message,
			[]string{"thunderbird: silent: moved on to another window (gate)", "proposed " + msgTimetable.id}, true},
		{"an excluded window does not cut it short", rigOptions{screenText: true}, "exact", excluded,
			[]string{"proposed " + msgSettlement.id}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			switches := make(chan events.Event) // unbuffered: a send returns once Run has it
			tc.opt.switches = switches
			r := newPaneRig(t, tc.opt)
			r.capt.show(paneWindow(t, msgSettlement, 0))
			entered := make(chan struct{})
			release := make(chan struct{})
			ended := make(chan error, 1) // the first glance's context's cause, when it ended
			wait := func(ctx context.Context) error {
				close(entered)
				select {
				case <-ctx.Done():
					ended <- context.Cause(ctx)
					return context.Cause(ctx)
				case <-release:
					ended <- nil
					return nil
				}
			}
			switch tc.blockIn {
			case "exact":
				r.src.block = func(ctx context.Context) (ExactHeader, error) {
					if err := wait(ctx); err != nil {
						return ExactHeader{}, err
					}
					return ExactHeader{SenderName: msgSettlement.name, SenderEmail: msgSettlement.addr, Subject: msgSettlement.subject}, nil
				}
			case "ocr":
				r.ocr.hold = func(ctx context.Context, n int) error {
					if n == 1 {
						return wait(ctx)
					}
					return nil
				}
			case "stuck":
				r.ocr.hold = func(_ context.Context, n int) error {
					if n == 1 {
						wait(context.Background())
					}
					return nil
				}
			}
			ran := make(chan error, 1)
			go func() { ran <- r.svc.Run(context.Background()) }()
			// send hands Run an event; Run must take it while a glance
			// runs.
			send := func(data any) {
				t.Helper()
				select {
				case switches <- events.Event{Type: events.AppSwitched, Data: data}:
				case <-time.After(30 * time.Second):
					t.Fatalf("Run did not take %v within 30 s", data)
				}
			}
			send(inbox)
			select {
			case <-entered:
			case <-time.After(30 * time.Second):
				t.Fatal("the first glance did not start within 30 s")
			}
			send(tc.then)
			// An event Run ignores: once it is taken, the switch before
			// it has been handled.
			send("not a switch")
			if !tc.wantCancel {
				close(release) // the first glance goes on, and tells its outcome
			}
			var got []string
			for len(got) < len(tc.want) {
				got = append(got, r.next(t))
			}
			if tc.wantCancel {
				// Everything was said while the first glance waited: the
				// second did not wait for it. Let it end now.
				close(release)
			}
			close(switches)
			if err := <-ran; err != nil {
				t.Fatal(err)
			}
			got = append(got, r.drain()...)
			if !slices.Equal(got, tc.want) {
				t.Errorf("said %q, want %q", got, tc.want)
			}
			cause := <-ended
			if cancelled := errors.Is(cause, errMovedOn); cancelled != tc.wantCancel && tc.blockIn != "stuck" {
				t.Errorf("the first glance's context ended with %v, want cancelled = %v", cause, tc.wantCancel)
			}
		})
	}
}

// TestServiceStoppedMidReadJudgesNothing: Spirit quitting while a glance
// takes its screenshot or reads it ends the glance with one line that says
// so. Before issue 28 a capture cut short was logged as "no screenshot"
// and the glance went on to judge a screen it never saw ("silent:
// not_email (triage)"), and an OCR read cut short was judged on the lines
// it had not read.
func TestServiceStoppedMidReadJudgesNothing(t *testing.T) {
	for _, where := range []string{"capture", "ocr"} {
		t.Run(where, func(t *testing.T) {
			switches := make(chan events.Event)
			r := newPaneRig(t, rigOptions{screenText: true, noExact: true, switches: switches})
			r.capt.show(paneWindow(t, msgSettlement, 0))
			entered := make(chan struct{})
			wait := func(ctx context.Context) error {
				close(entered)
				<-ctx.Done()
				return context.Cause(ctx)
			}
			if where == "capture" {
				r.capt.hold = wait
			} else {
				r.ocr.hold = func(ctx context.Context, _ int) error { return wait(ctx) }
			}
			ctx, cancel := context.WithCancel(t.Context())
			ran := make(chan error, 1)
			go func() { ran <- r.svc.Run(ctx) }()
			switches <- events.Event{Type: events.AppSwitched, Data: inbox}
			select {
			case <-entered:
			case <-time.After(30 * time.Second):
				t.Fatal("the glance did not start within 30 s")
			}
			cancel()
			if err := <-ran; err != nil {
				t.Fatal(err)
			}
			got := r.drain()
			want := []string{"thunderbird: silent: stopped before the message was read (gate)"}
			if !slices.Equal(got, want) {
				t.Errorf("said %q, want %q", got, want)
			}
		})
	}
}

// TestBenchPaneRead times reading one reading pane's header through the
// glance's crop path: the header region learned on a 1400×640 three-pane
// window cut from a new capture, hashed, read by Tesseract (language data
// loaded) and parsed, for 20 panes never seen before. It runs only with
// SPIRIT_BENCH=1 (make bench) and prints
// "BENCH pane_read_ms <p95 of 20 reads> ms".
func TestBenchPaneRead(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to measure")
	}
	r := newPaneRig(t, rigOptions{screenText: true, noExact: true})
	ctx := t.Context()
	learn := paneWindow(t, msgSettlement, 0)
	start := time.Now()
	if lines, err := r.svc.readPane(ctx, inbox, screen.Shot{Full: learn}); err != nil || ParseHeader(lines).SenderEmail != msgSettlement.addr {
		t.Fatalf("no header learned: %v %q", err, LinesText(lines))
	}
	t.Logf("the first read, of the whole window: %v", time.Since(start))
	var times []time.Duration
	for i := range 20 {
		m := msgTimetable
		m.subject = fmt.Sprintf("%s, draft %d", m.subject, i+2)
		img := paneWindow(t, m, 0)
		n := r.ocr.count()
		start := time.Now()
		lines, err := r.svc.readPane(ctx, newPane, screen.Shot{Full: img})
		times = append(times, time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.ocr.took(n); !slices.Equal(got, []string{"crop"}) || ParseHeader(lines).Subject != m.subject {
			t.Fatalf("pane %d: read %q, header %+v", i, got, ParseHeader(lines))
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	p95 := times[(len(times)*95+99)/100-1]
	t.Logf("crop reads: p50 %v, p95 %v, max %v", times[len(times)/2], p95, times[len(times)-1])
	fmt.Printf("BENCH pane_read_ms %.0f ms\n", float64(p95)/float64(time.Millisecond))
}

// TestServiceWaitsForTheRedraw: a pane change whose read equals what the
// last glance at the window read is a pane the mail client has not
// redrawn yet (its list's highlight moved first): the glance reads it
// again until the new message shows, and never concludes "already
// nudged" or "no message open" from the old one; a pane that keeps
// showing the same message ends silent once the wait is over. A switch
// back to the window is taken as it is.
func TestServiceWaitsForTheRedraw(t *testing.T) {
	settlement := ExactHeader{SenderName: msgSettlement.name, SenderEmail: msgSettlement.addr, Subject: msgSettlement.subject}
	timetable := ExactHeader{SenderName: msgTimetable.name, SenderEmail: msgTimetable.addr, Subject: msgTimetable.subject}
	nda := ExactHeader{SenderName: msgNDA.name, SenderEmail: msgNDA.addr, Subject: msgNDA.subject, Date: "23/11/2026, 12:00"}
	twin := ExactHeader{SenderName: msgTwinNDA.name, SenderEmail: msgTwinNDA.addr, Subject: msgTwinNDA.subject, Date: "23/11/2026, 13:00"}
	twinOldDate := twin
	twinOldDate.Date = nda.Date
	noMessage := fmt.Errorf("tree: %w", ErrNoHeader)
	type answer struct {
		h   ExactHeader
		err error
	}
	same := "thunderbird: silent: " + SameMessage + " (triage)"
	for _, tc := range []struct {
		name string
		opt  rigOptions
		// answers are the accessibility tree's, one a question (the
		// last one repeats); screens are the screenshots, one a capture.
		answers []answer
		screens []paneMessage
		second  screen.Switch
		want    []string
		// wantLooks is how many times the pane was read in all.
		wantLooks int
	}{
		{"exact: the tree still shows the message before, then the new one", rigOptions{screenText: true},
			[]answer{{h: settlement}, {h: settlement}, {h: timetable}}, nil, newPane,
			[]string{"proposed " + msgSettlement.id, "proposed " + msgTimetable.id}, 3},
		{"exact: another thread of the same subject is read as its own", rigOptions{screenText: true},
			[]answer{{h: nda}, {h: twin}}, nil, newPane,
			[]string{"proposed " + msgNDA.id, "proposed " + msgTwinNDA.id}, 3},
		{"exact: the same subject, the sender redrawn before the date", rigOptions{screenText: true},
			[]answer{{h: nda}, {h: twinOldDate}, {h: twin}}, nil, newPane,
			[]string{"proposed " + msgNDA.id, "proposed " + msgTwinNDA.id}, 4},
		{"exact: nothing was open, the new message shows a moment later", rigOptions{screenText: true},
			[]answer{{err: noMessage}, {err: noMessage}, {err: noMessage}, {h: timetable}}, nil, newPane,
			[]string{"thunderbird: silent: no message open (triage)", "proposed " + msgTimetable.id}, 4},
		{"exact: the same message stays: silent once the wait is over", rigOptions{screenText: true, redrawWait: 500 * time.Millisecond},
			[]answer{{h: settlement}}, nil, newPane,
			[]string{"proposed " + msgSettlement.id, same}, 0},
		{"exact: the header is cleared while the next message loads", rigOptions{screenText: true},
			[]answer{{h: settlement}, {err: noMessage}, {err: noMessage}, {h: timetable}}, nil, newPane,
			[]string{"proposed " + msgSettlement.id, "proposed " + msgTimetable.id}, 4},
		{"exact: no message stays: no message open once the wait is over", rigOptions{screenText: true, redrawWait: 500 * time.Millisecond},
			[]answer{{h: settlement}, {err: noMessage}}, nil, newPane,
			[]string{"proposed " + msgSettlement.id, "thunderbird: silent: no message open (triage)"}, 0},
		{"off the screen: the pixels still show the message before", rigOptions{screenText: true, noExact: true},
			nil, []paneMessage{msgSettlement, msgSettlement, msgSettlement, msgTimetable}, newPane,
			[]string{"proposed " + msgSettlement.id, "proposed " + msgTimetable.id}, 4},
		{"a switch back to the window is taken as it is", rigOptions{screenText: true},
			[]answer{{h: settlement}}, nil, inbox,
			[]string{"proposed " + msgSettlement.id, "thunderbird: silent: already nudged about this thread (gate)"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newPaneRig(t, tc.opt)
			asked := 0
			r.src.block = func(context.Context) (ExactHeader, error) {
				// Called under no lock of the rig's: the glance asks
				// one question at a time.
				a := tc.answers[min(asked, len(tc.answers)-1)]
				asked++
				return a.h, a.err
			}
			for _, m := range tc.screens {
				r.capt.then = append(r.capt.then, paneWindow(t, m, 0))
			}
			if tc.screens == nil {
				r.capt.show(paneWindow(t, msgNDA, 0)) // never read: the tree answers
			}
			r.svc.On(t.Context(), inbox)
			r.svc.On(t.Context(), tc.second)
			if got := r.drain(); !slices.Equal(got, tc.want) {
				t.Errorf("said %q, want %q", got, tc.want)
			}
			looks := r.src.questions()
			if tc.opt.noExact {
				looks = r.capt.shots
			}
			if tc.wantLooks > 0 && looks != tc.wantLooks {
				t.Errorf("the pane was read %d times, want %d", looks, tc.wantLooks)
			}
		})
	}
}

func TestRedrawPending(t *testing.T) {
	a := ScreenInfo{Email: true, SenderName: "Jane Doe", Subject: "Settlement offer"}
	b := ScreenInfo{Email: true, SenderName: "Paul Grant", Subject: "Disclosure timetable"}
	aLater, aOther, aNext := a, a, a
	aLater.Date = "24/11/2026, 10:00"
	aOther.SenderName = "Paul Grant"
	aNext.Subject = "Settlement offer: our counter-proposal"
	// aTwin is another thread's message with a's subject.
	aTwin := ScreenInfo{Email: true, SenderName: "Omar Reyes", SenderEmail: "omar@reyes.example",
		Subject: a.Subject, Date: "25/11/2026, 09:12"}
	aDated := a
	aDated.Date = "23/11/2026, 16:40"
	aDatedLater := aDated
	aDatedLater.Date = "24/11/2026, 10:00"
	aDatedOther := aDatedLater
	aDatedOther.SenderName = "Paul Grant"
	readA, readB := messageRead{header: &a}, messageRead{header: &b}
	readTwin, readDated := messageRead{header: &aTwin}, messageRead{header: &aDated}
	none, blind := messageRead{none: true}, messageRead{blind: true}
	for _, tc := range []struct {
		name string
		sw   screen.Switch
		last *messageRead
		prev *messageRead // this glance's read before rd
		rd   messageRead
		want bool
	}{
		{"a pane change that reads what the last glance read", newPane, &readA, nil, readA, true},
		{"no message before, none still", newPane, &none, nil, none, true},
		{"a message before, none now: the header is being redrawn", newPane, &readA, nil, none, true},
		{"no header read off the screen", newPane, &readA, nil, messageRead{lines: nil}, true},
		{"no message, the window never read", newPane, nil, nil, none, true},
		{"another message", newPane, &readA, nil, readB, false},
		{"the date redrawn first", newPane, &readA, nil, messageRead{header: &aLater}, true},
		{"the sender redrawn first, the subject not yet", newPane, &readA, nil, messageRead{header: &aOther}, true},
		{"the next message of the same sender", newPane, &readA, nil, messageRead{header: &aNext}, false},
		{"a message where none was", newPane, &none, nil, readA, false},
		{"a switch back to the window", inbox, &readA, nil, readA, false},
		{"no message on a switch", inbox, &readA, nil, none, false},
		{"the window never read", newPane, nil, nil, readA, false},
		{"nothing could be read", newPane, &readA, nil, blind, false},
		{"another thread's message of the same subject, still settling", newPane, &readTwin, nil, readA, true},
		{"another thread's message of the same subject, read twice alike", newPane, &readTwin, &readA, readA, false},
		{"the same subject, the date read whole and changed, still settling", newPane, &readDated, nil,
			messageRead{header: &aDatedLater}, true},
		{"the same subject and sender, a later date, read twice alike", newPane, &readDated,
			&messageRead{header: &aDatedLater}, messageRead{header: &aDatedLater}, false},
		{"the header still changing between two reads", newPane, &readDated,
			&messageRead{header: &aDatedLater}, messageRead{header: &aDatedOther}, true},
		{"the message read before, read twice alike", newPane, &readA, &readA, readA, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := redrawPending(tc.sw, tc.last, tc.prev, tc.rd); got != tc.want {
				t.Errorf("redrawPending = %v, want %v", got, tc.want)
			}
		})
	}
}
