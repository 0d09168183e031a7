package desktop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/xtest"
)

// signalExit is how long Spirit may take to exit after SIGINT or SIGTERM
// (issue 28): a logout, a shutdown or a kill gives a program a few
// seconds, and a glance in progress must not take them.
const signalExit = 3 * time.Second

// TestSignalMidGlance signals the running Spirit while a glance is at
// work, in the two places a glance waits longest: reading the screen (the
// capture and its OCR, just after the switch) and a model call that has
// not answered. Spirit must exit within signalExit, with status 0, and
// lose nothing: a reminder set just before is there afterwards, the world
// log holds the switch, the database checks out and its lock is free.
// Before issue 28 a run in CI was seen still going after SIGINT; this is
// the test that would tell whether Spirit or only the test had hung.
func TestSignalMidGlance(t *testing.T) {
	mbox := caseMailbox(t, "../../../shared/cases/glance/snda-needs-reply/mailbox.mbox")
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		// model, if set, is the provider's protocol: the analyst is
		// asked and never answers, and the signal comes once it was
		// asked. Without one, the signal comes as the switch is logged,
		// while the glance captures and reads the screen.
		model string
	}{
		{name: "SIGINT during the screen read", sig: syscall.SIGINT},
		{name: "SIGTERM during the screen read", sig: syscall.SIGTERM},
		{name: "SIGINT during a model call (openai)", sig: syscall.SIGINT, model: setup.OpenAI},
		{name: "SIGTERM during a model call (anthropic)", sig: syscall.SIGTERM, model: setup.Anthropic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDesk(t)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			dataDir := t.TempDir()
			seedMailbox(t, ctx, dataDir, mbox, "dana.whitfield@hartleyross.com")
			var srv *scripted.Server
			if tc.model != "" {
				final, _ := json.Marshal(map[string]any{"surface": true, "message_id": sndaNewest,
					"message": "Marcy needs your read on SNDA 4.2(b).", "action_prompt": "Draft a reply to Marcy Howard"})
				// Held far past the test: only Spirit going away ends it.
				srv = scripted.New(t, scripted.ToolCalls(llm.ToolCall{ID: "c1", Name: "finalize_glance", Input: final}).After(time.Hour))
				s := setup.Settings{Kind: tc.model, BaseURL: srv.URL()}
				if tc.model == setup.OpenAI {
					s.BaseURL += "/v1"
				}
				s.Roles.Triage, s.Roles.Analyst = "vision-model", "strong-model"
				configureProvider(t, ctx, dataDir, s, "sk-test-key")
			}
			p, c := runningSpirit(t, ctx, d, dataDir)
			var title string

			// What must survive the signal: a reminder the lawyer just set.
			if res, err := c.Say(ctx, "remind me to call Marcy Howard tomorrow at 3pm"); err != nil || res.Intent != "remind" {
				t.Fatalf("say: %+v, %v", res, err)
			}

			if srv != nil {
				// A message window: its title names the thread, and the
				// analyst is asked about it.
				title = "RE: SNDA - Brooklyn Gardens - Message (HTML)"
				mailWindow(t, ctx, d.disp, title, "", image.Rect(100, 100, 800, 500), nil)
				err := xtest.Poll(ctx, func() (bool, error) { return len(srv.Requests()) > 0, nil })
				if err != nil {
					t.Fatalf("the analyst was never asked: %v\n%s", err, p.Output())
				}
			} else {
				// A list view, whose title does not say which message is
				// open: the glance captures the screen and reads the
				// reading pane with Tesseract (TestGlanceListViewReadsTheScreen).
				title = sndaListTitle
				sndaListView(t, ctx, d.disp)
				waitWorld(t, ctx, c, fmt.Sprintf("switched to %q", title))
			}

			if err := p.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			wctx, wcancel := context.WithTimeout(ctx, signalExit)
			code, err := p.Wait(wctx)
			wcancel()
			took := time.Since(start)
			if errors.Is(err, context.DeadlineExceeded) {
				// Spirit itself is still running: say where it is stuck.
				_ = p.Signal(syscall.SIGQUIT)
				ectx, ecancel := context.WithTimeout(ctx, 10*time.Second)
				_, _ = p.Wait(ectx)
				ecancel()
				t.Fatalf("Spirit still running %v after %v (want an exit within %v); its goroutines:\n%s",
					took.Round(time.Millisecond), tc.sig, signalExit, p.Output())
			}
			if err != nil || code != 0 {
				t.Fatalf("after %v: exit %d, %v, want 0\n%s", tc.sig, code, err, p.Output())
			}
			t.Logf("exited %v after %v", took.Round(time.Millisecond), tc.sig)
			if strings.Contains(p.Output(), "sk-test-key") {
				t.Error("the API key is in Spirit's output")
			}
			checkNothingLost(t, ctx, dataDir, title)
		})
	}
}

// checkNothingLost opens the data folder Spirit left, as the next start
// would: the lock is free, the database passes its integrity check, the
// reminder set before the signal is pending and the world log holds the
// switch to title.
func checkNothingLost(t *testing.T, ctx context.Context, dataDir, title string) {
	t.Helper()
	lock, err := platform.LockInstance(dataDir)
	if err != nil {
		t.Fatalf("the data folder is still locked after Spirit exited: %v", err)
	}
	defer lock.Unlock()
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.IntegrityCheck(ctx); err != nil {
		t.Errorf("integrity check: %v", err)
	}
	rs, err := st.Reminders(ctx, store.ReminderPending)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || !strings.Contains(rs[0].Task, "call Marcy Howard") {
		t.Errorf("pending reminders after the signal: %+v, want the one to call Marcy Howard", rs)
	}
	es, err := st.Since(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	switched := false
	var after []string // what the glance said after the switch, if anything
	for _, e := range es {
		switch {
		case e.Source == "screen" && strings.Contains(e.Text, title):
			switched = true
		case switched && e.Source == "glance":
			after = append(after, e.Text)
		}
	}
	if !switched {
		t.Fatalf("the world log lost the switch to %q: %+v", title, es)
	}
	// None, when the signal came while the glance was still at work.
	t.Logf("the glance's world log after the switch: %q", after)
}
