package desktop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	netmail "net/mail"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/imap/imaptest"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/platform/xtest"
)

const (
	agentMe      = "nadia.petrov@callowayfinch.com"
	agentMarcyID = "<snda-42@howardlaw.com>"
)

// agentWorld is a data directory with an IMAP account on an in-process
// server, holding Marcy's question, and a scripted model provider.
type agentWorld struct {
	dir    string
	bin    string
	imap   *imaptest.Server
	srv    *scripted.Server
	thread int64
	env    []string
}

func newAgentWorld(t *testing.T, protocol string) *agentWorld {
	t.Helper()
	skipIntegration(t)
	ctx := t.Context()
	w := &agentWorld{dir: t.TempDir()}
	// No session bus: secrets fall back to the 0600 file, in the test and
	// in the child alike.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", w.dir)
	w.env = []string{"DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR=" + w.dir, "SPIRIT_LOG=debug", "LANG=C.UTF-8"}

	w.imap = imaptest.New(t, agentMe, "app-pw")
	raw := "From: Marcy Howard <marcy@howardlaw.com>\r\nTo: Nadia Petrov <" + agentMe + ">\r\n" +
		"Subject: SNDA - Brooklyn Gardens\r\nMessage-ID: " + agentMarcyID + "\r\nDate: Fri, 20 Nov 2026 09:12:00 -0500\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n\r\nNadia,\r\n\r\nCan you send me your comments on section 4.2(b) of the SNDA by Friday?\r\n\r\nMarcy\r\n"
	w.imap.Append(t, "INBOX", []byte(raw), time.Date(2026, 11, 20, 14, 12, 0, 0, time.UTC))

	st, err := store.OpenDir(ctx, w.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sec, err := secrets.Open(w.dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(st)
	cfg, _ := json.Marshal(accounts.IMAPConfig{Host: w.imap.Host, Port: w.imap.Port, TLS: "none", Username: agentMe})
	acct, err := accounts.Add(ctx, ix, sec, index.Account{Kind: index.KindIMAP, Name: "Nadia Petrov", Address: agentMe, Config: cfg},
		accounts.Credentials{Password: "app-pw"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := accounts.Connect(ctx, acct, sec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, acct.ID, conn, nil); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	hits, err := ix.SearchEmail(ctx, index.SearchQuery{Query: "SNDA"})
	if err != nil {
		t.Fatalf("seeded thread: %v", err)
	}
	if len(hits) != 1 {
		t.Fatalf("seeded thread hits = %d, want 1: %v", len(hits), hits)
	}
	w.thread = hits[0].ThreadID

	w.srv = scripted.New(t)
	s := setup.Settings{Kind: protocol, BaseURL: w.srv.URL()}
	if protocol == setup.OpenAI {
		s.BaseURL += "/v1"
	}
	s.Roles.Analyst, s.Roles.Agent = "analyst-model", "agent-model"
	if err := setup.Save(ctx, st, sec, s, "sk-test"); err != nil {
		t.Fatal(err)
	}
	bctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	// spirittest: these tests raise Spirit's own nudge kinds through the
	// API, which a shipped build refuses (app/api/ownkinds_release.go).
	w.bin = programs.Build(t, bctx, "github.com/spirit-app/spirit", "sqlite_fts5", "spirittest")
	return w
}

func (w *agentWorld) start(t *testing.T, ctx context.Context) (*xtest.Proc, *api.Client) {
	t.Helper()
	os.Remove(w.dir + "/" + api.InfoFile) // a killed process leaves its api.json behind
	p := xtest.Run(t, ctx, w.bin, []string{"--headless", "--data-dir", w.dir}, w.env)
	c := apiClient(t, ctx, w.dir)
	if err := xtest.Poll(ctx, func() (bool, error) { _, err := c.Health(ctx); return err == nil, nil }); err != nil {
		t.Fatalf("Spirit did not answer: %v\n%s", err, p.Output())
	}
	return p, c
}

func tc(id, name string, input any) llm.ToolCall {
	b, _ := json.Marshal(input)
	return llm.ToolCall{ID: id, Name: name, Input: b}
}

// waitNudge polls the open nudges for one of kind that is not in seen.
func waitNudge(t *testing.T, ctx context.Context, c *api.Client, kind string, after int64) api.Nudge {
	t.Helper()
	var got api.Nudge
	err := xtest.Poll(ctx, func() (bool, error) {
		ns, err := c.Nudges(ctx)
		if err != nil {
			return false, nil
		}
		for _, n := range ns {
			if n.Kind == kind && n.ID > after {
				got = n
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no %s nudge: %v", kind, err)
	}
	return got
}

// waitStatus polls the world log for an agent record with status.
func waitStatus(t *testing.T, ctx context.Context, c *api.Client, status store.AgentStatus) api.Entry {
	t.Helper()
	var got api.Entry
	err := xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 0)
		if err != nil {
			return false, nil
		}
		for _, e := range es {
			if e.Kind == store.KindAgent && e.Status == status {
				got = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no agent:%s in the world log: %v", status, err)
	}
	return got
}

// TestAcceptedGlanceDraftsAfterApproval: the lawyer accepts a glance
// nudge; the agent plans, reads the thread and asks for approval; the
// test approves through the local API and the draft appears in the IMAP
// server's Drafts as a reply to Marcy's message. Denying saves nothing.
func TestAcceptedGlanceDraftsAfterApproval(t *testing.T) {
	for _, proto := range []string{setup.Anthropic, setup.OpenAI} {
		t.Run(proto, func(t *testing.T) {
			w := newAgentWorld(t, proto)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			p, c := w.start(t, ctx)
			body := "Marcy,\n\nSection 4.2(b) works for us with a 30-day cure period.\n\nNadia"
			args := map[string]any{"conversation_id": fmt.Sprint(w.thread), "body": body}
			w.srv.Push(
				scripted.ToolCalls(tc("p", "submit_plan", map[string]any{"steps": []string{"Read the SNDA thread", "Draft the reply for approval"}})),
				scripted.ToolCalls(tc("c1", "search_email", map[string]any{"query": "SNDA Brooklyn Gardens"})),
				scripted.ToolCalls(tc("c2", "read_email_thread", map[string]any{"conversation_id": fmt.Sprint(w.thread)})),
				scripted.ToolCalls(tc("c3", "request_approval", map[string]any{"action": "create_draft", "args": args})),
			)
			g, err := c.Notify(ctx, api.NewNudge{Kind: "glance", Message: "Marcy Howard is waiting on your reply about SNDA - Brooklyn Gardens. Draft a reply?",
				ActionPrompt: "Draft a reply to Marcy Howard about SNDA - Brooklyn Gardens"})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if _, err := c.Respond(ctx, g.ID, api.ActionAccept, ""); err != nil {
				t.Fatal(err)
			}
			ap := waitNudge(t, ctx, c, nudge.KindApproval, g.ID)
			var d nudge.Approval
			if err := json.Unmarshal([]byte(ap.Detail), &d); err != nil {
				t.Fatalf("approval %q: %v", ap.Detail, err)
			}
			if d.Body != body {
				t.Fatalf("approval body = %q, want %q", d.Body, body)
			}
			if len(d.Fields) == 0 {
				t.Fatalf("approval %q has no fields, want the recipient first", ap.Detail)
			}
			if want := "marcy@howardlaw.com"; !strings.Contains(d.Fields[0].Value, want) {
				t.Fatalf("approval first field = %q, want it to hold %q", d.Fields[0].Value, want)
			}
			reqs := w.srv.Requests()
			if reqs[1].Model != "agent-model" {
				t.Errorf("agent used model %q", reqs[1].Model)
			}
			t.Logf("accept → approval shown in %v (4 scripted calls)", time.Since(start))
			if n := len(w.imap.Messages(t, "Drafts")); n != 0 {
				t.Fatalf("%d drafts before approval", n)
			}
			w.srv.Push(
				scripted.ToolCalls(tc("c4", "create_draft", args)),
				scripted.ToolCalls(tc("c5", "finish_task", map[string]any{"summary": "Reply to Marcy saved in Drafts"})),
			)
			if _, err := c.Respond(ctx, ap.ID, api.ActionAccept, ""); err != nil {
				t.Fatal(err)
			}
			waitStatus(t, ctx, c, store.StatusVerified)
			drafts := w.imap.Messages(t, "Drafts")
			if len(drafts) != 1 {
				t.Fatalf("%d drafts, want 1\n%s", len(drafts), p.Output())
			}
			m, err := netmail.ReadMessage(bytes.NewReader(drafts[0]))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Header.Get("In-Reply-To"); got != agentMarcyID {
				t.Errorf("In-Reply-To %q, want %q", got, agentMarcyID)
			}
			res := waitNudge(t, ctx, c, nudge.KindResult, ap.ID)
			if !strings.Contains(res.Message, "Drafts") {
				t.Errorf("result nudge %q", res.Message)
			}

			// The same again, denied: nothing more in Drafts, and the
			// agent says so.
			w.srv.Push(
				scripted.ToolCalls(tc("p", "submit_plan", map[string]any{"steps": []string{"Draft the reply for approval"}})),
				scripted.ToolCalls(tc("d1", "request_approval", map[string]any{"action": "create_draft", "args": args})),
			)
			g2, err := c.Notify(ctx, api.NewNudge{Kind: "glance", Message: "Marcy again", ActionPrompt: "Draft a reply to Marcy Howard about SNDA"})
			if err != nil {
				t.Fatal(err)
			}
			c.Respond(ctx, g2.ID, api.ActionAccept, "")
			ap2 := waitNudge(t, ctx, c, nudge.KindApproval, g2.ID)
			w.srv.Push(scripted.ToolCalls(tc("d2", "finish_task", map[string]any{"summary": "Not drafted: you declined the reply"})))
			if _, err := c.Respond(ctx, ap2.ID, api.ActionDismiss, ""); err != nil {
				t.Fatal(err)
			}
			res2 := waitNudge(t, ctx, c, nudge.KindResult, ap2.ID)
			if !strings.Contains(res2.Message, "Not drafted") {
				t.Errorf("result after denial %q", res2.Message)
			}
			if n := len(w.imap.Messages(t, "Drafts")); n != 1 {
				t.Fatalf("%d drafts after a denial, want still 1", n)
			}
			if strings.Contains(p.Output(), "sk-test") {
				t.Error("the API key reached the log")
			}
		})
	}
}

// TestAgentSurvivesRestartAndKill: a question pauses the agent; Spirit
// quits and starts again and the answer resumes it from its saved state.
// Then a run killed mid-call is resumed by the keeper on the next start.
func TestAgentSurvivesRestartAndKill(t *testing.T) {
	w := newAgentWorld(t, setup.Anthropic)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	p, c := w.start(t, ctx)
	w.srv.Push(
		scripted.ToolCalls(tc("p", "submit_plan", map[string]any{"steps": []string{"Ask which deadline", "Report it"}})),
		scripted.ToolCalls(tc("q", "ask_user", map[string]any{"question": "Which deadline, the SNDA or the estoppel?", "options": []string{"SNDA", "Estoppel"}})),
	)
	prop, err := c.Notify(ctx, api.NewNudge{Kind: "proposal", Message: "Check the closing deadlines?", ActionPrompt: "Tell me the next deadline on Brooklyn Gardens"})
	if err != nil {
		t.Fatal(err)
	}
	c.Respond(ctx, prop.ID, api.ActionAccept, "")
	q := waitNudge(t, ctx, c, nudge.KindQuestion, prop.ID)

	// Quit and start again: the question is still open.
	p.Signal(syscall.SIGTERM)
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, p.Output())
	}
	if code != 0 {
		t.Fatalf("exit %d after SIGTERM, want 0\n%s", code, p.Output())
	}
	p, c = w.start(t, ctx)
	q2 := waitNudge(t, ctx, c, nudge.KindQuestion, 0)
	if q2.ID != q.ID {
		t.Fatalf("after restart the open question is %d, want %d", q2.ID, q.ID)
	}
	calls := len(w.srv.Requests())
	w.srv.Push(
		scripted.ToolCalls(tc("f", "finish_task", map[string]any{"summary": "The SNDA comments are due Friday"})),
		scripted.ToolCalls(tc("v", "give_verdict", map[string]any{"verdict": "verified"})),
	)
	if _, err := c.Respond(ctx, q.ID, api.ActionAnswerPrefix+"SNDA", ""); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, ctx, c, store.StatusVerified)
	resumed := w.srv.Requests()[calls]
	last := resumed.Messages[len(resumed.Messages)-1]
	if len(last.ToolResults) != 1 {
		t.Fatalf("the answer did not resume the saved conversation: %d tool results, want 1 (%+v)", len(last.ToolResults), last)
	}
	if got := last.ToolResults[0].CallID; got != "q" {
		t.Fatalf("resumed tool result answers call %q, want q, the saved question", got)
	}
	if got := last.ToolResults[0].Content; !strings.Contains(got, "SNDA") {
		t.Fatalf("resumed tool result = %q, want the answer SNDA", got)
	}

	// A run killed mid-call: the model is slow, Spirit is SIGKILLed.
	w.srv.Push(
		scripted.ToolCalls(tc("p", "submit_plan", map[string]any{"steps": []string{"Look it up"}})),
		scripted.ToolCalls(tc("s", "search_email", map[string]any{"query": "SNDA"})).After(time.Minute),
	)
	// Counted before the proposal is accepted: the agent may ask for its
	// plan before Respond returns, and counting after it then waited for
	// the slow reply's next request instead (a warm run saw it once).
	before := len(w.srv.Requests())
	prop2, _ := c.Notify(ctx, api.NewNudge{Kind: "proposal", Message: "Look up the SNDA?", ActionPrompt: "Look up the SNDA thread"})
	c.Respond(ctx, prop2.ID, api.ActionAccept, "")
	if err := xtest.Poll(ctx, func() (bool, error) { return len(w.srv.Requests()) >= before+2, nil }); err != nil {
		t.Fatalf("the agent never called the model: %v", err)
	}
	p.Signal(syscall.SIGKILL)
	p.Wait(ctx)
	w.srv.Push(
		scripted.ToolCalls(tc("s2", "search_email", map[string]any{"query": "SNDA"})),
		scripted.ToolCalls(tc("f2", "finish_task", map[string]any{"summary": "Found the SNDA thread"})),
		scripted.ToolCalls(tc("v2", "give_verdict", map[string]any{"verdict": "verified"})),
	)
	_, c = w.start(t, ctx)
	err = xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 0)
		if err != nil {
			return false, nil
		}
		var resumed, verified int
		for _, e := range es {
			if e.Kind == store.KindAgent && strings.Contains(e.Text, "resumed from saved state") {
				resumed++
			}
			if e.Kind == store.KindAgent && e.Status == store.StatusVerified {
				verified++
			}
		}
		return resumed == 1 && verified == 2, nil
	})
	if err != nil {
		t.Fatalf("the killed run was not resumed and finished: %v", err)
	}
}
