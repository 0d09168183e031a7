package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/platform/a11y"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen"
)

const sndaLatest = "<PH0PR08MB25269AAA75C6ABF07B6EA18FD871C4F5CFC7@PH0PR08MB2526.namprd08.prod.outlook.com>"

// TestGlanceWithProviderWordsTheNudge: with a provider set, the analyst
// model's wording reaches the bubble and /health counts the call; a second
// switch to the same thread is deduplicated without a model call.
func TestGlanceWithProviderWordsTheNudge(t *testing.T) {
	path, _ := filepath.Abs("../../shared/cases/glance/snda-needs-reply/mailbox.mbox")
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared glance cases not present")
	}
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	p, st := newTestParts(t, dir)
	c := p.core
	rec := record(c)

	ix := index.New(st)
	a, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: "Dana Whitfield", Address: "dana.whitfield@hartleyross.com"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMbox(path, mbox.Options{From: mail.Address{Email: "dana.whitfield@hartleyross.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, a.ID, conn, nil); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	final, _ := json.Marshal(map[string]any{"surface": true, "message_id": sndaLatest,
		"message":       "Marcy needs your read of SNDA §4.2(b) before Friday — draft the reply?",
		"action_prompt": "Draft a reply to Marcy Howard on SNDA §4.2(b)"})
	srv := scripted.New(t, scripted.ToolCalls(llm.ToolCall{ID: "c1", Name: "finalize_glance", Input: final}))
	sec, err := secrets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := setup.Settings{Kind: setup.Anthropic, BaseURL: srv.URL()}
	s.Roles.Analyst = "strong-model"
	if err := setup.Save(ctx, st, sec, s, "sk-test"); err != nil {
		t.Fatal(err)
	}

	sw := screen.Switch{App: "Microsoft Outlook", Title: "RE: SNDA - Brooklyn Gardens - Message (HTML)"}
	p.glance.On(ctx, sw)
	shown := rec.shown()
	if len(shown) != 1 {
		t.Fatalf("shown %d bubbles, want 1: %+v", len(shown), shown)
	}
	if !strings.Contains(shown[0].Message, "§4.2(b)") {
		t.Fatalf("bubble message = %q, want it to name §4.2(b)", shown[0].Message)
	}
	if shown[0].Kind != nudge.KindGlance {
		t.Fatalf("bubble kind = %q, want %q", shown[0].Kind, nudge.KindGlance)
	}
	h := c.Health(ctx)
	if got := h.Counters["model_calls"]; got != 1 {
		t.Errorf("health model_calls = %d, want 1 (counters %v)", got, h.Counters)
	}
	if got := h.Subsystems["model_provider"].State; got != setup.Anthropic {
		t.Errorf("health model_provider = %q, want %q", got, setup.Anthropic)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("provider requests = %d, want 1: %+v", len(reqs), reqs)
	}
	if len(reqs[0].Messages) == 0 {
		t.Fatalf("provider request has no messages: %+v", reqs[0])
	}
	// The same thread again: no second bubble, no model call.
	p.glance.On(ctx, sw)
	if got := len(rec.shown()); got != 1 {
		t.Errorf("second switch: %d bubbles, want still 1", got)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("second switch: %d model calls, want still 1", got)
	}
}

// TestExactHeaderAnswers: a11y's answers become the glance's: a header
// field by field, "no header" as the glance's silence, "unavailable" (and
// "unsupported", which wraps it) as the glance's fallback to OCR, and any
// other error as it is.
func TestExactHeaderAnswers(t *testing.T) {
	marcy := a11y.MessageHeader{SenderName: "Marcy Howard", SenderEmail: "marcy@howard-law.com",
		To: []string{"Dana Scully <dana@example.com>"}, Cc: []string{"Fox Mulder <fox@example.com>"},
		Subject: "Settlement draft for Henderson", Date: "11/23/26, 10:00"}
	for _, tc := range []struct {
		name        string
		h           a11y.MessageHeader
		err         error
		want        glance.ExactHeader
		noHeader    bool
		unavailable bool
		deadline    bool
	}{
		{name: "a header", h: marcy, want: glance.ExactHeader{SenderName: "Marcy Howard", SenderEmail: "marcy@howard-law.com",
			To: []string{"Dana Scully <dana@example.com>"}, Cc: []string{"Fox Mulder <fox@example.com>"},
			Subject: "Settlement draft for Henderson", Date: "11/23/26, 10:00"}},
		{name: "no message open", err: a11y.ErrNoHeader, noHeader: true},
		{name: "no accessibility bus", err: fmt.Errorf("%w: no session bus", a11y.ErrUnavailable), unavailable: true},
		{name: "not implemented on this OS", err: a11y.ErrUnsupported, unavailable: true},
		{name: "out of time", err: context.DeadlineExceeded, deadline: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := exactHeader(tc.h, tc.err)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("header = %+v, want %+v", got, tc.want)
			}
			if errors.Is(err, glance.ErrNoHeader) != tc.noHeader || errors.Is(err, glance.ErrHeaderUnavailable) != tc.unavailable ||
				errors.Is(err, context.DeadlineExceeded) != tc.deadline {
				t.Errorf("err = %v, want no header %v, unavailable %v, deadline %v", err, tc.noHeader, tc.unavailable, tc.deadline)
			}
		})
	}
}

// henderson is Dana's Inbox for the reading-pane test: Marcy waits on her.
const henderson = `From - Mon Nov 23 10:00:00 2026
From: Marcy Howard <marcy@howard-law.com>
To: Dana Scully <dana@example.com>
Subject: Settlement draft for Henderson
Date: Mon, 23 Nov 2026 10:00:00 +0000
Message-ID: <m1@howard-law.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Dana, can you review the settlement draft by Friday?
Marcy

`

// TestGlanceReadsTheReadingPaneExactly: Spirit as built, with the real
// Thunderbird's main window in front and its accessibility tree on the
// bus. With nothing selected the glance is silent without a search; with
// Marcy's message in the reading pane the bubble names it. The screen
// watcher is not running, so no screenshot can be taken: the header came
// from the tree alone.
func TestGlanceReadsTheReadingPaneExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Thunderbird")
	}
	xtest.Require(t, "thunderbird")
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	d := xtest.StartDisplay(t, 1280, 800)
	bus := xtest.StartSessionBus(t)
	xtest.StartAccessibilityBus(t, ctx, d, bus)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)
	t.Setenv("AT_SPI_BUS_ADDRESS", "")
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	mboxPath := filepath.Join(dir, "Inbox.mbox")
	if err := os.WriteFile(mboxPath, []byte(henderson), 0o600); err != nil {
		t.Fatal(err)
	}
	tb := xtest.StartThunderbird(t, ctx, d, xtest.ThunderbirdOptions{Name: "Dana Scully", Address: "dana@example.com", Mbox: mboxPath, Env: bus.Env()})
	pids, err := d.Prop32(xproto.Window(tb.Window.ID), "_NET_WM_PID")
	if err != nil || len(pids) != 1 {
		t.Fatalf("_NET_WM_PID of Thunderbird's window: %v %v", pids, err)
	}
	sw := screen.Switch{App: "thunderbird", Class: tb.Window.Class, Title: tb.Window.Name, PID: int(pids[0]), Window: uint64(tb.Window.ID)}
	if !glance.WatchPane(sw) {
		t.Fatalf("%q is not a mail main window to the glance", sw.Title)
	}

	p, st := newTestParts(t, dir)
	rec := record(p.core)
	ix := index.New(st)
	a, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: "Dana Scully", Address: "dana@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMbox(mboxPath, mbox.Options{From: mail.Address{Name: "Dana Scully", Email: "dana@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, a.ID, conn, nil); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	// Thunderbird fills its tree after its pixels settle: wait until a
	// reader of our own sees what the glance should.
	r, err := a11y.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tree := func(want func(a11y.MessageHeader, error) bool) {
		t.Helper()
		var h a11y.MessageHeader
		var herr error
		if err := xtest.Poll(ctx, func() (bool, error) {
			h, herr = r.MessageHeader(ctx, a11y.Window{PID: sw.PID, Title: sw.Title})
			return want(h, herr), nil
		}); err != nil {
			t.Fatalf("the tree never showed it: %+v, %v", h, herr)
		}
	}
	glanceLines := func() []string {
		t.Helper()
		es, err := st.RecentEvents(ctx, 50)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			if e.Source == "glance" {
				out = append(out, e.Text)
			}
		}
		return out
	}

	tree(func(_ a11y.MessageHeader, err error) bool { return errors.Is(err, a11y.ErrNoHeader) })
	p.glance.On(ctx, sw)
	if got, want := glanceLines(), []string{"silent: no message open (triage)"}; !slices.Equal(got, want) {
		t.Fatalf("nothing selected: glance said %q, want %q", got, want)
	}

	if err := tb.SelectMessage(ctx, "Settlement draft for Henderson"); err != nil {
		t.Fatal(err)
	}
	tree(func(h a11y.MessageHeader, err error) bool {
		return err == nil && h.Subject == "Settlement draft for Henderson"
	})
	pane := sw
	pane.PaneChanged = true
	p.glance.On(ctx, pane)
	shown := rec.shown()
	if len(shown) != 1 || !strings.Contains(shown[0].Message, "Marcy Howard") || !strings.Contains(shown[0].Message, "Settlement draft for Henderson") {
		t.Fatalf("Marcy's message in the pane: shown %+v, want one bubble naming Marcy and the subject (glance said %q)", shown, glanceLines())
	}
	if got := glanceLines(); len(got) != 1 {
		t.Errorf("glance said %q, want only the first silence (no screenshot was asked for)", got)
	}
}
