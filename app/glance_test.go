package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/platform/secrets"
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
