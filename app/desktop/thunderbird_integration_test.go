//go:build linux

package desktop_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform/xtest"
)

// threepaneDir holds the labelled three-pane mailbox: one lawyer's Inbox
// of ten threads and what the glance should do on each.
const threepaneDir = "testdata/threepane"

// threepaneLabels is labels.json.
type threepaneLabels struct {
	Me struct {
		Name    string `json:"name"`
		Address string `json:"address"`
	} `json:"me"`
	Cases []threepaneCase `json:"cases"`
}

// threepaneCase is one labelled thread: the subject of its newest message
// as the list shows it, and the glance's expected outcome with that
// message in the reading pane.
type threepaneCase struct {
	Subject   string `json:"subject"`
	Expect    string `json:"expect"` // "nudge" or "silent"
	MessageID string `json:"message_id"`
	Reason    string `json:"reason"`
	Trap      string `json:"trap"`
}

// wantSubject is the nudge subject a "nudge" case expects.
func (c threepaneCase) wantSubject() string { return nudge.GlanceSubject(c.MessageID) }

func loadThreepane(t *testing.T) (mbox string, labels threepaneLabels) {
	t.Helper()
	mbox, err := filepath.Abs(filepath.Join(threepaneDir, "mailbox.mbox"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(threepaneDir, "labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &labels); err != nil {
		t.Fatalf("labels.json: %v", err)
	}
	for _, c := range labels.Cases {
		if (c.Expect == "nudge") != (c.MessageID != "") || (c.Expect != "nudge" && c.Expect != "silent") {
			t.Fatalf("labels.json: case %q: expect %q with message_id %q", c.Subject, c.Expect, c.MessageID)
		}
	}
	return mbox, labels
}

func TestOneOfEachKind(t *testing.T) {
	_, labels := loadThreepane(t)
	var got []string
	for _, c := range oneOfEachKind(labels.Cases) {
		got = append(got, c.Expect+"/"+c.Reason)
	}
	want := []string{"nudge/needs_reply", "silent/newsletter", "silent/already_replied", "silent/fyi"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("oneOfEachKind = %v, want %v", got, want)
	}
}

// TestThreepaneLabelsByTitle checks the labels against the glance's code
// stage where the message is named exactly: each labelled message as if it
// were open in its own Thunderbird window, whose title is its subject.
// It proves the labelled set says what the glance decides once it knows
// the message, so that the three-pane tests below measure reading the
// pane, not the labels.
func TestThreepaneLabelsByTitle(t *testing.T) {
	mbox, labels := loadThreepane(t)
	ctx := t.Context()
	dir := t.TempDir()
	seedMailbox(t, ctx, dir, mbox, labels.Me.Address)
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := index.New(st)
	// The day after the newest message, in the lawyer's working hours.
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	for _, c := range labels.Cases {
		t.Run(c.Subject, func(t *testing.T) {
			d, err := glance.Decide(ctx, ix, glance.Input{
				App: "Thunderbird", Title: c.Subject + " - Mozilla Thunderbird", Now: now,
				Me: []string{labels.Me.Address}, MeName: labels.Me.Name,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := "silent"
			if d.Surface {
				got = "nudge"
			}
			if got != c.Expect || d.Surface && d.MessageID != c.MessageID {
				t.Fatalf("decision %+v, want %s about %q", d, c.Expect, c.MessageID)
			}
			if !d.Surface && c.Reason != "" && d.Reason != c.Reason {
				t.Logf("silent for %q, labelled %q", d.Reason, c.Reason)
			}
		})
	}
}

// paneRun is Spirit running over the labelled mailbox on a desk, with the
// real Thunderbird showing the same mailbox on the same display.
type paneRun struct {
	d      *desk
	spirit *xtest.Proc
	c      *api.Client
	tb     *xtest.Thunderbird
	inbox  string         // the main window's title
	seen   map[int64]bool // nudges that are already told
}

// stop ends Spirit, with its world log in the test's output if the test
// failed.
func (r *paneRun) stop(t *testing.T, ctx context.Context) {
	t.Helper()
	// A test that ran out of its time still reports the world log and
	// checks the clean exit: both get time of their own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if t.Failed() {
		t.Logf("world log (screen and glance):\n  %s", strings.Join(r.log(ctx, 0), "\n  "))
	}
	stopSpirit(t, ctx, r.spirit)
}

// paneSetup is how Thunderbird is shown: its layout, and whether the
// desktop runs an accessibility bus with accessibility on (Spirit then
// reads the header Thunderbird exposes there; without it, off the screen).
type paneSetup struct {
	layout string
	a11y   bool
	// openIn is where Thunderbird opens a message on Enter: "" (a tab)
	// or "window".
	openIn string
}

func (s paneSetup) String() string {
	if s.a11y {
		return s.layout + "-a11y"
	}
	return s.layout
}

// startPaneRun starts Spirit over a fresh data directory seeded from mbox
// (glance nudges allowed often enough for every needs-reply case), then
// Thunderbird as setup says, and waits until Spirit has seen the switch to
// Thunderbird's Inbox.
func startPaneRun(t *testing.T, ctx context.Context, d *desk, mbox string, labels threepaneLabels, setup paneSetup) *paneRun {
	t.Helper()
	if setup.a11y {
		xtest.StartAccessibilityBus(t, ctx, d.disp, d.bus)
	}
	dataDir := t.TempDir()
	seedMailbox(t, ctx, dataDir, mbox, labels.Me.Address)
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Defaults()
	s.GlanceMaxPerHour = settings.MaxGlanceMaxPerHour
	_, err = settings.Save(ctx, st, s)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	p, c := runningSpirit(t, ctx, d, dataDir)
	r := &paneRun{d: d, spirit: p, c: c, seen: map[int64]bool{}}
	r.tb = xtest.StartThunderbird(t, ctx, d.disp, xtest.ThunderbirdOptions{
		Name: labels.Me.Name, Address: labels.Me.Address, Mbox: mbox, Layout: setup.layout, OpenIn: setup.openIn,
		// On the desk's session bus, where the accessibility bus is
		// found when the run has one.
		Env: d.bus.Env(),
	})
	r.inbox = r.tb.Window.Name
	waitWorld(t, ctx, c, fmt.Sprintf("switched to %q", r.inbox))
	return r
}

// lastEntry is the world log's newest entry ID.
func (r *paneRun) lastEntry(t *testing.T, ctx context.Context) int64 {
	t.Helper()
	var last int64
	for {
		es, err := r.c.World(ctx, last, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			return last
		}
		last = es[len(es)-1].ID
	}
}

// log returns the world log's screen and glance lines after since.
func (r *paneRun) log(ctx context.Context, since int64) []string {
	es, err := r.c.World(ctx, since, 1000)
	if err != nil {
		return []string{"world log: " + err.Error()}
	}
	var out []string
	for _, e := range es {
		if e.Source == "screen" || e.Source == "glance" {
			out = append(out, fmt.Sprintf("%s %s: %s", e.TS.Format("15:04:05.000"), e.Source, e.Text))
		}
	}
	return out
}

// outcome is what Spirit did about one thing the lawyer put on screen.
type outcome struct {
	nudge *api.Nudge // a glance nudge not told before, or nil
	// silent is the glance's last "silent: …" line, when no nudge came.
	silent string
	// lines are the screen and glance lines of the world log since the
	// action.
	lines []string
}

func (o outcome) String() string {
	if o.nudge != nil {
		return fmt.Sprintf("nudge %q (%q)", o.nudge.Subject, o.nudge.Message)
	}
	return o.silent
}

// paneQuiet is how long no new look at the window may come before a
// silent glance is taken as Spirit's last word when no look is known to
// be final: the pane watcher reports a change after two samples a second
// apart agree, so a change made on screen is logged within about two
// seconds.
const paneQuiet = 2500 * time.Millisecond

// paneSample is the pane watcher's sampling interval
// (screen.DefaultPaneInterval): a change it reports at T was seen in
// samples at T-paneSample and T.
const paneSample = time.Second

// await waits for Spirit's outcome on what happened on screen after world
// entry since: a glance nudge not told before, or the silence of the
// glance at the last look at the window (a switch to it, or another
// message in its reading pane, matched by looked), once that look is
// known to be the last: it was logged after final (both of its samples
// came after the screen's last change), or no new look came for
// paneQuiet. Glances cut short by the next look (the lawyer moved on) are
// not outcomes, nor is a glance that found the pane still showing the
// message an earlier glance since the action decided on.
func (r *paneRun) await(ctx context.Context, since int64, final time.Time, looked func(api.Entry) bool) (outcome, error) {
	var o outcome
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	looks := 0
	lastLook := time.Now()
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		ns, err := r.c.Nudges(ctx)
		if err != nil {
			return false, err
		}
		for _, n := range ns {
			if n.Kind == string(nudge.KindGlance) && !r.seen[n.ID] {
				r.seen[n.ID] = true
				o.nudge = &n
				return true, nil
			}
		}
		es, err := r.c.World(ctx, since, 1000)
		if err != nil {
			return false, err
		}
		// decided is the last outcome told before the latest look: a
		// glance at a pane that still shows the message it was about
		// leaves it standing.
		n, silent, decided, isFinal := 0, "", "", false
		for _, e := range es {
			switch {
			case e.Source == "screen" && looked(e):
				if silent != "" {
					decided = silent
				}
				n, silent, isFinal = n+1, "", e.TS.After(final)
			case e.Source == "glance" && strings.Contains(e.Text, glance.SameMessage):
				// With no outcome before it, the pane was never seen
				// redrawn: that is the outcome, and a wrong one.
				silent = cmp.Or(decided, e.Text)
			case e.Source == "glance" && strings.HasPrefix(e.Text, "silent: ") &&
				!strings.Contains(e.Text, "moved on to another window") &&
				!strings.Contains(e.Text, "another message opened in the reading pane"):
				silent = e.Text
			}
		}
		if n != looks {
			looks, lastLook = n, time.Now()
		}
		o.silent = silent
		return looks > 0 && silent != "" && (isFinal || time.Since(lastLook) >= paneQuiet), nil
	})
	o.lines = r.log(context.Background(), since)
	if err != nil {
		return o, fmt.Errorf("no glance outcome: %w", err)
	}
	return o, nil
}

// poll is xtest.Poll at a gentler pace, for checks that ask Spirit's API
// twice: the decision is timed by the nudge's own creation time, not by
// when the poll sees it.
func poll(ctx context.Context, every time.Duration, check func() (bool, error)) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		ok, err := check()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// silentReason is the reason of a glance's "silent: <reason> (<stage>)"
// line.
func silentReason(line string) string {
	r := strings.TrimPrefix(line, "silent: ")
	if i := strings.LastIndex(r, " ("); i >= 0 {
		r = r[:i]
	}
	return r
}

// paneLook matches the screen's report of a new message in the main
// window's reading pane, or of a switch back to that window.
func (r *paneRun) paneLook(e api.Entry) bool {
	return e.Text == fmt.Sprintf("another message in the reading pane of %q", r.inbox) ||
		e.Text == fmt.Sprintf("switched to %q", r.inbox)
}

// caseResult is one labelled selection's result.
type caseResult struct {
	c       threepaneCase
	o       outcome
	err     error
	right   bool
	latency time.Duration // key press to nudge stored, for nudges
}

// selectCase selects c's message in Thunderbird's list and returns what
// Spirit did about it.
func (r *paneRun) selectCase(t *testing.T, ctx context.Context, c threepaneCase) caseResult {
	t.Helper()
	res := caseResult{c: c}
	since := r.lastEntry(t, ctx)
	sel, err := r.tb.SelectMessageTimed(ctx, c.Subject)
	if err != nil {
		res.err = err
		return res
	}
	res.o, res.err = r.await(ctx, since, sel.Changed.Add(paneSample), r.paneLook)
	if res.err != nil {
		return res
	}
	if n := res.o.nudge; n != nil {
		res.latency = n.Created.Sub(sel.Pressed)
		res.right = c.Expect == "nudge" && n.Subject == c.wantSubject()
	} else {
		// Silent for the labelled reason: the same as when the message
		// is named exactly (TestThreepaneLabelsByTitle). Silence for
		// another reason (no_match, not_email) means the pane was not
		// read, and is right only by chance.
		res.right = c.Expect == "silent" && (c.Reason == "" || silentReason(res.o.silent) == c.Reason)
	}
	return res
}

// report fails t for a wrong case (or, unless strict, only logs it, as a
// bench does), with what Spirit logged and a screenshot.
func (r *paneRun) report(t *testing.T, layout paneSetup, res caseResult, strict bool) {
	t.Helper()
	want := "silent: " + res.c.Reason
	if res.c.Expect == "nudge" {
		want = fmt.Sprintf("a nudge %q", res.c.wantSubject())
	}
	if res.err == nil && res.right {
		if res.o.nudge != nil {
			t.Logf("%s: %q: %s, %v after the key press", layout, res.c.Subject, res.o, res.latency.Round(time.Millisecond))
		} else {
			t.Logf("%s: %q: %s", layout, res.c.Subject, res.o)
		}
		return
	}
	shot := failShot(t, r.d.disp, fmt.Sprintf("threepane-%s-%s.png", layout, slug(res.c.Subject)))
	got := res.o.String()
	if res.err != nil {
		got = res.err.Error()
	}
	fail := t.Errorf
	if !strict {
		fail = t.Logf
	}
	fail("%s layout, %q selected: got %s, want %s%s\nscreen and glance log since the key press:\n  %s\nscreenshot: %s",
		layout, res.c.Subject, got, want, trapNote(res.c), strings.Join(res.o.lines, "\n  "), shot)
}

func trapNote(c threepaneCase) string {
	if c.Trap == "" {
		return ""
	}
	return " (trap: " + c.Trap + ")"
}

// failShot saves a screenshot for a failure's post-mortem, in
// $SPIRIT_SCREENSHOTS if set, else in the test's artifact directory
// (kept with go test -artifacts).
func failShot(t *testing.T, disp *xtest.Display, name string) string {
	t.Helper()
	dir := os.Getenv("SPIRIT_SCREENSHOTS")
	if dir == "" {
		dir = t.ArtifactDir()
	}
	path := filepath.Join(dir, name)
	img, err := disp.Screenshot()
	if err == nil {
		err = xtest.WritePNG(path, img)
	}
	if err != nil {
		return "none: " + err.Error()
	}
	return path
}

// slug makes s a file name.
func slug(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, s)
}

// runThreepane selects every labelled message in turn in one setup.
// A wrong decision fails t if strict, and is only logged otherwise.
func runThreepane(t *testing.T, ctx context.Context, d *desk, mbox string, labels threepaneLabels, layout paneSetup, strict bool) (*paneRun, []caseResult) {
	t.Helper()
	r := startPaneRun(t, ctx, d, mbox, labels, layout)
	var out []caseResult
	for _, c := range labels.Cases {
		res := r.selectCase(t, ctx, c)
		r.report(t, layout, res, strict)
		out = append(out, res)
	}
	return r, out
}

// TestThunderbirdThreePaneGlance drives the real Thunderbird 153 as a
// lawyer reads mail in its main window: each labelled message is selected
// in the list, in the vertical and the classic layout, and Spirit, which
// sees no title change, must notice the new message in the reading pane,
// read it from there and nudge about exactly the needs-reply threads
// (about their newest message) and stay silent on the rest, the quoted
// history of another thread included. Then a reply's compose window, the
// "Save Message" prompt when closing it, and a new message's compose
// window get no nudge: they are not messages.
// minOCRRightPct is the share of the labelled messages the glance must
// decide right when it reads Thunderbird's pane off the screen (9 of 10 at
// the time of writing; the misses were a name or address OCR misread).
const minOCRRightPct = 80

func TestThunderbirdThreePaneGlance(t *testing.T) {
	mbox, labels := loadThreepane(t)
	d := newDesk(t)
	// One Thunderbird per layout, to keep the test lean: the vertical
	// layout read off the screen, the classic one with the accessibility
	// bus on, where Spirit can read Thunderbird's header exactly (the
	// bench runs all four pairings).
	for _, setup := range []paneSetup{{layout: "vertical"}, {layout: "classic", a11y: true}} {
		t.Run(setup.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
			defer cancel()
			// Exact text must be right on every message. Read off the
			// screen, OCR drops or changes letters now and then (a name,
			// an address): a miss there must be silence, never a wrong
			// nudge, and most messages must still be read right.
			r, res := runThreepane(t, ctx, d, mbox, labels, setup, setup.a11y)
			if !setup.a11y {
				right := 0
				for _, x := range res {
					switch {
					case x.err != nil:
						t.Errorf("%q: %v", x.c.Subject, x.err)
					case x.right:
						right++
					case x.o.nudge != nil:
						t.Errorf("%q read off the screen: a wrong nudge %s, want %s %s", x.c.Subject, x.o, x.c.Expect, x.c.Reason)
					}
				}
				if right*100 < len(res)*minOCRRightPct {
					t.Errorf("read off the screen: %d of %d messages decided right, want at least %d%%", right, len(res), minOCRRightPct)
				}
			}
			if setup == (paneSetup{layout: "vertical"}) {
				r.notMessages(t, ctx)
			}
			r.stop(t, ctx)
		})
	}
}

// TestThunderbirdMessageWindowGlance: a lawyer who opens the selected
// message in a window of its own gets the same glance there as in the
// reading pane: for a needs-reply message, the nudge about its newest
// message, or (the pane having nudged about it just before) silence as
// already nudged about that very thread; for the others the labelled
// silence. The pane's own outcome is only logged here
// (TestThunderbirdThreePaneGlance judges it, on every case); here one case
// of each kind is enough, each costing a window opened and closed. It also
// checks the harness: the message window is a window of its own, titled
// by the subject, with the focus, and closing it leaves the main window's
// title as it was.
func TestThunderbirdMessageWindowGlance(t *testing.T) {
	mbox, labels := loadThreepane(t)
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	setup := paneSetup{layout: "vertical", openIn: "window"}
	r := startPaneRun(t, ctx, d, mbox, labels, setup)
	defer r.stop(t, ctx)
	for _, c := range oneOfEachKind(labels.Cases) {
		pane := r.selectCase(t, ctx, c)
		r.report(t, setup, pane, false)
		since := r.lastEntry(t, ctx)
		w, err := r.tb.OpenMessageWindow(ctx)
		if err != nil {
			t.Fatalf("%q: %v", c.Subject, err)
		}
		if want := c.Subject + " - Mozilla Thunderbird"; w.Name != want || w.ID == r.tb.Window.ID {
			t.Errorf("message window %+v, want a window of its own titled %q", w, want)
		}
		if active, err := d.disp.ActiveWindow(); err != nil || active != w.ID {
			t.Errorf("active window %d (%v), want the message window %d", active, err, w.ID)
		}
		o, err := r.await(ctx, since, time.Time{}, func(e api.Entry) bool {
			return e.Text == fmt.Sprintf("switched to %q", w.Name)
		})
		paneNudged := pane.o.nudge != nil && pane.o.nudge.Subject == c.wantSubject()
		var right bool
		switch {
		case err != nil:
		case o.nudge != nil:
			right = c.Expect == "nudge" && o.nudge.Subject == c.wantSubject()
		case c.Expect == "nudge":
			right = paneNudged && silentReason(o.silent) == "already nudged about this thread"
		default:
			right = c.Reason == "" || silentReason(o.silent) == c.Reason
		}
		if right {
			t.Logf("%q in its own window: %s", c.Subject, o)
		} else {
			t.Errorf("%q in its own window %q: got %s (%v), want %s %s; the pane said %s\nlog:\n  %s\nscreenshot: %s",
				c.Subject, w.Name, o, err, c.Expect, c.Reason, pane.o, strings.Join(o.lines, "\n  "),
				failShot(t, r.d.disp, "window-"+slug(c.Subject)+".png"))
		}
		if err := r.tb.CloseWindow(ctx, w); err != nil {
			t.Fatal(err)
		}
		if title, err := r.tb.Title(); err != nil || title != r.tb.Window.Name {
			t.Errorf("main window titled %q (%v) after the message window, want %q", title, err, r.tb.Window.Name)
		}
	}
}

// oneOfEachKind returns the first case of each outcome (a nudge, and each
// reason for silence), in the labels' order.
func oneOfEachKind(cases []threepaneCase) []threepaneCase {
	seen := map[[2]string]bool{}
	var out []threepaneCase
	for _, c := range cases {
		k := [2]string{c.Expect, c.Reason}
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// notMessages opens the windows of Thunderbird that are not messages (a
// reply being written, the prompt on closing it, a new message) and
// expects Spirit to take none of them for a message: no nudge, and no
// search of the thread ("already nudged" would mean it found one).
func (r *paneRun) notMessages(t *testing.T, ctx context.Context) {
	t.Helper()
	// A needs-reply thread the run has nudged about: the reply's title
	// carries its subject.
	const subject = "Re: Estoppel Certificate - 400 Lakeview Tower"
	if err := r.tb.SelectMessage(ctx, subject); err != nil {
		t.Fatal(err)
	}
	// A switch is logged once the window has the focus: any switch to it
	// after the action is the last look.
	check := func(what string, w xtest.WindowInfo, since int64) {
		t.Helper()
		o, err := r.await(ctx, since, time.Time{}, func(e api.Entry) bool {
			return e.Text == fmt.Sprintf("switched to %q", w.Name)
		})
		switch {
		case err != nil:
			t.Errorf("%s %q: %v\nlog:\n  %s\nscreenshot: %s", what, w.Name, err, strings.Join(o.lines, "\n  "),
				failShot(t, r.d.disp, "threepane-"+slug(what)+".png"))
		case o.nudge != nil || !notAMessage(o.silent):
			t.Errorf("%s %q taken for a message: %s, want silent: not_email or not_message, with no search\nlog:\n  %s",
				what, w.Name, o, strings.Join(o.lines, "\n  "))
		default:
			t.Logf("%s %q: %s", what, w.Name, o)
		}
	}
	since := r.lastEntry(t, ctx)
	w, err := r.tb.Reply(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.Name, "Write: Re: Estoppel Certificate") {
		t.Errorf("reply window %q", w.Name)
	}
	check("reply being written", w, since)

	since = r.lastEntry(t, ctx)
	dialog, err := r.tb.AskToClose(ctx, w, "Marcy, the ROFR does not survive a foreclosure; see Section 14.3.")
	if err != nil {
		t.Fatal(err)
	}
	check("save prompt", dialog, since)
	if err := r.tb.Discard(ctx); err != nil {
		t.Fatal(err)
	}

	since = r.lastEntry(t, ctx)
	w, err = r.tb.Compose(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("new message", w, since)
	if err := r.tb.CloseWindow(ctx, w); err != nil {
		t.Fatal(err)
	}
}

// notAMessage reports whether a glance's silent line says the window
// shows no message, decided without searching the mail: a search would
// end in no_match, ambiguous, or a thread's verdict.
func notAMessage(silent string) bool {
	switch silentReason(silent) {
	case glance.ReasonNotEmail, glance.ReasonNotMessage, "no message open":
		return true
	}
	return false
}

// TestBenchThunderbirdPane measures, on the real Thunderbird, how long
// Spirit takes from the key press that selects a needs-reply message in
// the list to the glance nudge being stored (over the nudges decided
// right), and the share of labelled selections decided right, over both
// layouts, read off the screen and from the accessibility tree: four runs,
// each with a fresh data directory, so every thread can be nudged about
// anew. Wrong decisions are logged, not failed: this measures.
func TestBenchThunderbirdPane(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 (make bench) to measure")
	}
	mbox, labels := loadThreepane(t)
	d := newDesk(t)
	var lat []time.Duration
	byTree := map[bool][]time.Duration{}           // by setup.a11y
	right, total := map[bool]int{}, map[bool]int{} // by setup.a11y
	setups := []paneSetup{{layout: "vertical"}, {layout: "classic"}, {layout: "vertical", a11y: true}, {layout: "classic", a11y: true}}
	for _, setup := range setups {
		t.Run(setup.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
			defer cancel()
			r, res := runThreepane(t, ctx, d, mbox, labels, setup, false)
			var sl []time.Duration
			n := 0
			for _, x := range res {
				total[setup.a11y]++
				if x.right && x.err == nil {
					right[setup.a11y]++
					n++
					if x.o.nudge != nil {
						sl = append(sl, x.latency)
					}
				}
			}
			lat = append(lat, sl...)
			byTree[setup.a11y] = append(byTree[setup.a11y], sl...)
			t.Logf("%s: %d of %d right, nudge latencies %v", setup, n, len(res), sl)
			r.stop(t, ctx)
		})
	}
	all, allRight := total[false]+total[true], right[false]+right[true]
	if all == 0 {
		t.Fatal("no case ran")
	}
	pct := func(r, n int) float64 { return 100 * float64(r) / float64(max(n, 1)) }
	fmt.Printf("BENCH threepane_cases_right_pct %.1f %%\n", pct(allRight, all))
	// The two ways of reading the pane, apart: off the screen (OCR) and
	// from the accessibility tree.
	fmt.Printf("BENCH threepane_ocr_cases_right_pct %.1f %%\n", pct(right[false], total[false]))
	fmt.Printf("BENCH threepane_a11y_cases_right_pct %.1f %%\n", pct(right[true], total[true]))
	if len(lat) == 0 {
		t.Fatal("no nudge came: no latency to report")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("BENCH pane_change_to_nudge_ms_p50 %d ms\n", pctl(lat, 50).Milliseconds())
	fmt.Printf("BENCH pane_change_to_nudge_ms_p95 %d ms\n", pctl(lat, 95).Milliseconds())
	// With the tree Spirit hears of the selection from Thunderbird itself
	// (no pixels sampled); without, from the pane's pixels.
	for _, tree := range []bool{false, true} {
		l := byTree[tree]
		if len(l) == 0 {
			continue
		}
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		name := map[bool]string{false: "ocr", true: "a11y"}[tree]
		fmt.Printf("BENCH pane_change_to_nudge_%s_ms_p50 %d ms\n", name, pctl(l, 50).Milliseconds())
		fmt.Printf("BENCH pane_change_to_nudge_%s_ms_p95 %d ms\n", name, pctl(l, 95).Milliseconds())
	}
}

// pctl is the p-th percentile of sorted durations (nearest rank).
func pctl(sorted []time.Duration, p int) time.Duration {
	i := (p*len(sorted)+99)/100 - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
