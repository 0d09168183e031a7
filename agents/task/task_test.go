package task

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/imap"
	"github.com/spirit-app/spirit/agents/mail/imap/imaptest"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

const (
	me         = "nadia.petrov@callowayfinch.com"
	marcyMsgID = "<snda-42@howardlaw.com>"
)

var protocols = []string{"anthropic", "openai"}

// listener records what the runner shows.
type listener struct {
	mu       sync.Mutex
	nudges   chan store.Nudge
	closed   []int64
	working  []int
	verified []string
}

func newListener() *listener { return &listener{nudges: make(chan store.Nudge, 32)} }

func (l *listener) NudgeCreated(n store.Nudge) { l.nudges <- n }
func (l *listener) NudgeClosed(id int64) {
	l.mu.Lock()
	l.closed = append(l.closed, id)
	l.mu.Unlock()
}
func (l *listener) Working(n int) {
	l.mu.Lock()
	l.working = append(l.working, n)
	l.mu.Unlock()
}
func (l *listener) Verified(s string) {
	l.mu.Lock()
	l.verified = append(l.verified, s)
	l.mu.Unlock()
}
func (l *listener) Lifecycle(string, store.AgentStatus) {}

// next waits for the next nudge of kind.
func (l *listener) next(t *testing.T, kind string) store.Nudge {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case n := <-l.nudges:
			if n.Kind == kind {
				return n
			}
			t.Logf("nudge %s: %s", n.Kind, n.Message)
		case <-deadline:
			t.Fatalf("no %s nudge within 20 s", kind)
		}
	}
}

// imapDrafter saves drafts through the real IMAP connector.
type imapDrafter struct{ srv *imaptest.Server }

func (d imapDrafter) CreateDraft(ctx context.Context, _ int64, dr mail.Draft) (mail.DraftRef, error) {
	c, err := imap.New(d.config())
	if err != nil {
		return mail.DraftRef{}, err
	}
	defer c.Close()
	return c.CreateDraft(ctx, dr)
}

func (d imapDrafter) config() imap.Config {
	return imap.Config{Host: d.srv.Host, Port: d.srv.Port, TLS: imap.TLSNone, Username: d.srv.User, Password: d.srv.Password,
		Address: mail.Address{Name: "Nadia Petrov", Email: me}, DialTimeout: 5 * time.Second, CommandTimeout: 20 * time.Second,
		Logger: slog.New(slog.DiscardHandler)}
}

type env struct {
	st   *store.Store
	ix   *index.Index
	srv  *scripted.Server
	imap *imaptest.Server
	l    *listener
	r    *Runner
	opt  Options
	dir  string
	// thread is the indexed thread with Marcy's question.
	thread int64
	stop   func()
}

// newProvider points a provider of protocol at srv, without retries so
// that each script step is one call.
func newProvider(t *testing.T, protocol string, srv *scripted.Server) llm.Provider {
	return srv.Provider(t, protocol)
}

// newEnv opens a store, seeds an IMAP mailbox with Marcy's question,
// indexes it through the real connector, and builds a runner against the
// scripted provider.
func newEnv(t *testing.T, protocol string, steps ...scripted.Reply) *env {
	t.Helper()
	ctx := t.Context()
	e := &env{dir: t.TempDir(), l: newListener()}
	var err error
	if e.st, err = store.OpenDir(ctx, e.dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.st.Close() })
	e.imap = imaptest.New(t, me, "pw")
	raw := "From: Marcy Howard <marcy@howardlaw.com>\r\nTo: Nadia Petrov <" + me + ">\r\n" +
		"Subject: SNDA - Brooklyn Gardens\r\nMessage-ID: " + marcyMsgID + "\r\nDate: Fri, 20 Nov 2026 09:12:00 -0500\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n\r\nNadia,\r\n\r\nCan you send me your comments on section 4.2(b) of the SNDA by Friday?\r\n\r\nMarcy\r\n"
	e.imap.Append(t, "INBOX", []byte(raw), time.Date(2026, 11, 20, 14, 12, 0, 0, time.UTC))
	e.ix = index.New(e.st)
	acct, err := e.ix.AddAccount(ctx, index.Account{Kind: index.KindIMAP, Name: "Nadia Petrov", Address: me})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := imap.New(imapDrafter{e.imap}.config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ix.Sync(ctx, acct.ID, conn, nil); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	hits, err := e.ix.SearchEmail(ctx, index.SearchQuery{Query: "SNDA"})
	if err != nil {
		t.Fatalf("seeded thread: %v", err)
	}
	if len(hits) != 1 {
		t.Fatalf("seeded thread hits = %d, want 1: %v", len(hits), hits)
	}
	e.thread = hits[0].ThreadID

	e.srv = scripted.New(t, steps...)
	p := newProvider(t, protocol, e.srv)
	e.opt = Options{Store: e.st, Index: e.ix, Drafts: imapDrafter{e.imap}, Listener: e.l,
		Provider: func(context.Context) (llm.Provider, string, error) { return p, "test-model", nil },
		Log:      slog.New(slog.DiscardHandler)}
	e.start(t)
	return e
}

// start runs a fresh runner, as a new process would.
func (e *env) start(t *testing.T) {
	t.Helper()
	e.r = NewRunner(e.opt)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.r.Run(ctx); close(done) }()
	e.stop = func() { cancel(); <-done }
	t.Cleanup(func() { e.stop() })
}

func call(id, name string, input any) llm.ToolCall {
	b, _ := json.Marshal(input)
	return llm.ToolCall{ID: id, Name: name, Input: b}
}

func plan(steps ...string) scripted.Reply {
	return scripted.ToolCalls(call("p1", toolPlan, map[string]any{"steps": steps}))
}

// waitPhase polls the task until it reaches phase.
func waitPhase(t *testing.T, st *store.Store, session string, phase Phase) Task {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tk, err := Get(t.Context(), st, session)
		if err != nil {
			t.Fatal(err)
		}
		if tk.Phase == phase {
			return tk
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s (%s), want %s", session, tk.Phase, tk.Status, phase)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) draftReply(body string) map[string]any {
	return map[string]any{"conversation_id": fmt.Sprint(e.thread), "body": body}
}

const replyBody = "Marcy,\n\nSection 4.2(b) works for us if the cure period is 30 days. Comments to follow by Friday.\n\nNadia"

func TestAcceptApproveDraftsIntoIMAP(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			e := newEnv(t, proto)
			args := e.draftReply(replyBody)
			e.srv.Push(
				plan("Read Marcy's SNDA thread", "Draft the reply and get it approved"),
				scripted.ToolCalls(call("c1", toolSearchEmail, map[string]any{"query": "SNDA Brooklyn Gardens", "sender": "Marcy"})),
				scripted.ToolCalls(call("c2", toolReadThread, map[string]any{"conversation_id": fmt.Sprint(e.thread)})),
				scripted.ToolCalls(call("c3", toolStepDone, map[string]any{"note": "Marcy wants 4.2(b) comments by Friday"})),
				scripted.ToolCalls(call("c4", toolRequestApproval, map[string]any{"action": "create_draft", "args": args})),
			)
			tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Draft a reply to Marcy Howard on SNDA §4.2(b)", Origin: "nudge-1"})
			if err != nil {
				t.Fatal(err)
			}
			if tk.Context.Check != CheckDraft {
				t.Fatalf("a drafting task should be checked in code, got %+v", tk.Context)
			}
			n := e.l.next(t, nudge.KindApproval)
			var d nudge.Approval
			if err := json.Unmarshal([]byte(n.Detail), &d); err != nil {
				t.Fatalf("approval detail %q: %v", n.Detail, err)
			}
			fields := map[string]string{}
			for _, f := range d.Fields {
				fields[f.Label] = f.Value
			}
			if got, want := fields["To"], "Marcy Howard <marcy@howardlaw.com>"; got != want {
				t.Fatalf("approval To = %q, want %q", got, want)
			}
			if got, want := fields["Subject"], "Re: SNDA - Brooklyn Gardens"; got != want {
				t.Fatalf("approval Subject = %q, want %q", got, want)
			}
			if d.Body != replyBody {
				t.Fatalf("approval body = %q, want %q", d.Body, replyBody)
			}
			waitPhase(t, e.st, tk.Session, PhaseWaiting)
			if drafts := e.imap.Messages(t, "Drafts"); len(drafts) != 0 {
				t.Fatalf("a draft was saved before approval")
			}
			// The model, told of the approval, saves exactly that draft.
			e.srv.Push(
				scripted.ToolCalls(call("c5", toolCreateDraft, args)),
				scripted.ToolCalls(call("c6", toolFinish, map[string]any{"summary": "Reply to Marcy saved in Drafts", "result": "Draft saved."})),
			)
			if err := e.r.Answer(t.Context(), n, nudge.Accept, ""); err != nil {
				t.Fatal(err)
			}
			done := waitPhase(t, e.st, tk.Session, PhaseFinished)
			if done.Status != store.StatusVerified {
				t.Fatalf("status %s, want verified", done.Status)
			}
			res := e.l.next(t, nudge.KindResult)
			if !strings.Contains(res.Message, "Drafts") {
				t.Errorf("result nudge %q", res.Message)
			}
			drafts := e.imap.Messages(t, "Drafts")
			if len(drafts) != 1 {
				t.Fatalf("%d drafts, want 1", len(drafts))
			}
			m, err := netmail.ReadMessage(bytes.NewReader(drafts[0]))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Header.Get("In-Reply-To"); got != marcyMsgID {
				t.Errorf("In-Reply-To %q, want %q", got, marcyMsgID)
			}
			if got := m.Header.Get("Subject"); got != "Re: SNDA - Brooklyn Gardens" {
				t.Errorf("Subject %q", got)
			}
			// The model heard the approval with the exact arguments.
			reqs := e.srv.Requests()
			last := reqs[len(reqs)-2].Messages
			tr := last[len(last)-1].ToolResults
			if len(tr) != 1 {
				t.Errorf("approval results to the model = %d, want 1: %+v", len(tr), tr)
			} else {
				if !strings.HasPrefix(tr[0].Content, "Approved") {
					t.Errorf("approval result to the model = %q, want prefix Approved", tr[0].Content)
				}
				if !strings.Contains(tr[0].Content, "cure period") {
					t.Errorf("approval result to the model = %q, want the exact arguments (cure period)", tr[0].Content)
				}
			}
			// Read-only tools were offered with the write tools; the
			// world log holds the lifecycle and each tool call.
			es, err := e.st.SessionEntries(t.Context(), tk.Session, 0)
			if err != nil {
				t.Fatal(err)
			}
			var statuses []string
			var log strings.Builder
			for _, en := range es {
				if en.Kind == store.KindAgent {
					statuses = append(statuses, string(en.Status))
				}
				log.WriteString(en.String() + "\n")
			}
			got := strings.Join(statuses, " ")
			if !strings.HasPrefix(got, "start active") {
				t.Errorf("lifecycle %q, want it to begin start active\n%s", got, log.String())
			}
			if !strings.HasSuffix(got, "active finish verified") {
				t.Errorf("lifecycle %q, want it to end active finish verified\n%s", got, log.String())
			}
			for _, s := range []string{"tool search_email", "tool read_email_thread", "approval requested", "approved by the lawyer", "tool create_draft"} {
				if !strings.Contains(log.String(), s) {
					t.Errorf("world log lacks %q:\n%s", s, log.String())
				}
			}
		})
	}
}

func TestDenyFinishesHonestlyWithoutDraft(t *testing.T) {
	e := newEnv(t, "openai")
	e.srv.Push(
		plan("Draft the reply and get it approved"),
		scripted.ToolCalls(call("c1", toolRequestApproval, map[string]any{"action": "create_draft", "args": e.draftReply(replyBody)})),
	)
	tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Draft a reply to Marcy about the SNDA"})
	if err != nil {
		t.Fatal(err)
	}
	n := e.l.next(t, nudge.KindApproval)
	e.srv.Push(scripted.ToolCalls(call("c2", toolFinish, map[string]any{"summary": "Not drafted: you declined the reply to Marcy"})))
	if err := e.r.Answer(t.Context(), n, nudge.Dismiss, ""); err != nil {
		t.Fatal(err)
	}
	done := waitPhase(t, e.st, tk.Session, PhaseFinished)
	if done.Status != store.StatusVerified {
		t.Fatalf("status %s, want %s", done.Status, store.StatusVerified)
	}
	if !done.State.Declined {
		t.Fatal("declined = false, want true")
	}
	if got := e.l.next(t, nudge.KindResult).Message; !strings.Contains(got, "Not drafted") {
		t.Errorf("result %q", got)
	}
	if d := e.imap.Messages(t, "Drafts"); len(d) != 0 {
		t.Fatalf("%d drafts after a denial", len(d))
	}
	reqs := e.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if tr := msgs[len(msgs)-1].ToolResults; len(tr) != 1 {
		t.Errorf("denial results to the model = %d, want 1: %+v", len(tr), tr)
	} else if !strings.Contains(tr[0].Content, "denied") {
		t.Errorf("denial to the model = %q, want it to say denied", tr[0].Content)
	}
}

func TestWriteWithoutApprovalIsRefused(t *testing.T) {
	e := newEnv(t, "anthropic")
	args := e.draftReply(replyBody)
	e.srv.Push(
		plan("Draft the reply"),
		// Straight to the write, as a model steered by the mail might.
		scripted.ToolCalls(call("c1", toolCreateDraft, args)),
		// A forged approval for another body does not cover this one.
		scripted.ToolCalls(call("c2", toolRequestApproval, map[string]any{"action": "create_draft", "args": e.draftReply("short")})),
	)
	tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Draft a reply to Marcy about the SNDA"})
	if err != nil {
		t.Fatal(err)
	}
	n := e.l.next(t, nudge.KindApproval)
	reqs := e.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	tr := msgs[len(msgs)-1].ToolResults
	if len(tr) != 1 {
		t.Fatalf("unapproved create_draft: %d tool results, want 1: %+v", len(tr), tr)
	}
	if !tr[0].IsError {
		t.Fatalf("unapproved create_draft answered without an error: %+v", tr[0])
	}
	if want := "needs the lawyer's approval"; !strings.Contains(tr[0].Content, want) {
		t.Fatalf("unapproved create_draft answered %q, want it to say %q", tr[0].Content, want)
	}
	if d := e.imap.Messages(t, "Drafts"); len(d) != 0 {
		t.Fatal("a draft was saved without approval")
	}
	// Approved "short"; the model then tries the other body: refused. Its
	// finish without a draft is sent back by the verifier until it fails.
	e.srv.Push(
		scripted.ToolCalls(call("c3", toolCreateDraft, args)),
		scripted.ToolCalls(call("c4", toolFinish, map[string]any{"summary": "stopped"})),
		scripted.ToolCalls(call("c5", toolFinish, map[string]any{"summary": "stopped"})),
		scripted.ToolCalls(call("c6", toolFinish, map[string]any{"summary": "stopped"})),
		scripted.ToolCalls(call("c7", toolFinish, map[string]any{"summary": "stopped"})),
	)
	if err := e.r.Answer(t.Context(), n, nudge.Accept, ""); err != nil {
		t.Fatal(err)
	}
	help := e.l.next(t, nudge.KindHelp)
	if !strings.Contains(help.Message, "No draft was saved") {
		t.Errorf("help nudge %q", help.Message)
	}
	failed := waitPhase(t, e.st, tk.Session, PhaseFailed)
	if failed.Attempts != MaxRetries {
		t.Errorf("attempts %d", failed.Attempts)
	}
	var refusedC3 bool
	for _, r := range e.srv.Requests() {
		for _, m := range r.Messages {
			for _, res := range m.ToolResults {
				if res.CallID == "c3" {
					refusedC3 = res.IsError && strings.Contains(res.Content, "needs the lawyer's approval")
				}
			}
		}
	}
	if !refusedC3 {
		t.Fatal("create_draft with a body the lawyer never approved was not refused")
	}
	if d := e.imap.Messages(t, "Drafts"); len(d) != 0 {
		t.Fatal("a draft was saved for a body the lawyer never saw")
	}
}

func TestEditedApprovalSavesTheEditedBody(t *testing.T) {
	e := newEnv(t, "openai")
	e.srv.Push(
		plan("Draft the reply"),
		scripted.ToolCalls(call("c1", toolRequestApproval, map[string]any{"action": "create_draft", "args": e.draftReply(replyBody)})),
	)
	tk, _ := e.r.Start(t.Context(), NewTask{Prompt: "Draft a reply to Marcy about the SNDA"})
	n := e.l.next(t, nudge.KindApproval)
	edited := "Marcy,\n\nAgreed on 4.2(b).\n\nNadia"
	e.srv.Push(
		scripted.ToolCalls(call("c2", toolCreateDraft, e.draftReply(edited))),
		scripted.ToolCalls(call("c3", toolFinish, map[string]any{"summary": "Edited reply saved"})),
	)
	if err := e.r.Answer(t.Context(), n, nudge.Edit, edited); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, e.st, tk.Session, PhaseFinished)
	d := e.imap.Messages(t, "Drafts")
	if len(d) != 1 {
		t.Fatalf("drafts = %d, want 1: %q", len(d), d)
	}
	if want := "Agreed on 4.2(b)."; !bytes.Contains(d[0], []byte(want)) {
		t.Fatalf("draft %q, want the edited text %q", d[0], want)
	}
}

func TestAskUserSurvivesRestart(t *testing.T) {
	e := newEnv(t, "anthropic")
	e.srv.Push(
		plan("Ask which deadline", "Set the reminder"),
		scripted.ToolCalls(call("q1", toolAskUser, map[string]any{"question": "Which deadline, the SNDA or the estoppel?", "options": []string{"SNDA", "Estoppel"}})),
	)
	tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Remind me about the deadline"})
	if err != nil {
		t.Fatal(err)
	}
	q := e.l.next(t, nudge.KindQuestion)
	var det struct{ Options []string }
	if err := json.Unmarshal([]byte(q.Detail), &det); err != nil {
		t.Fatalf("question detail %q: %v", q.Detail, err)
	}
	if len(det.Options) != 2 {
		t.Fatalf("question options = %q, want 2", det.Options)
	}
	waitPhase(t, e.st, tk.Session, PhaseWaiting)
	calls := len(e.srv.Requests())

	// A new process: close everything and open the same database again.
	e.stop()
	e.st.Close()
	st, err := store.OpenDir(t.Context(), e.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e.st, e.opt.Store = st, st
	e.ix = index.New(st)
	e.opt.Index = e.ix
	e.start(t)

	e.srv.Push(scripted.ToolCalls(call("f1", toolFinish, map[string]any{"summary": "Noted the SNDA deadline"})),
		scripted.ToolCalls(call("v1", toolVerdict, map[string]any{"verdict": "verified"})))
	if err := e.r.Answer(t.Context(), q, nudge.AnswerChoice("SNDA"), ""); err != nil {
		t.Fatal(err)
	}
	done := waitPhase(t, st, tk.Session, PhaseFinished)
	if done.Status != store.StatusVerified {
		t.Fatalf("status %s", done.Status)
	}
	reqs := e.srv.Requests()
	resumed := reqs[calls]
	// The resumed call carries the whole conversation: the plan's
	// kickoff, the question, and the answer as its result.
	if len(resumed.Messages) < 3 {
		t.Fatalf("resumed with %d messages", len(resumed.Messages))
	}
	first, last := resumed.Messages[0], resumed.Messages[len(resumed.Messages)-1]
	if !strings.Contains(first.Text, "Remind me about the deadline") {
		t.Errorf("first message %q", first.Text)
	}
	if len(last.ToolResults) != 1 {
		t.Errorf("answer reached the model as %d tool results, want 1: %+v", len(last.ToolResults), last.ToolResults)
	} else {
		if got := last.ToolResults[0].CallID; got != "q1" {
			t.Errorf("answer reached the model for call %q, want q1", got)
		}
		if got := last.ToolResults[0].Content; !strings.Contains(got, "SNDA") {
			t.Errorf("answer reached the model as %q, want SNDA", got)
		}
	}
	if !strings.Contains(resumed.System, "[>] 1. Ask which deadline") {
		t.Errorf("plan lost across restart:\n%s", resumed.System)
	}
}

func TestVerifierRetryThenFailedThenHelp(t *testing.T) {
	e := newEnv(t, "openai")
	finish := func(id string) scripted.Reply {
		return scripted.ToolCalls(call(id, toolFinish, map[string]any{"summary": "Summarised the lease"}))
	}
	verdict := func(v, g string) scripted.Reply {
		return scripted.ToolCalls(call("v", toolVerdict, map[string]any{"verdict": v, "guidance": g}))
	}
	e.srv.Push(plan("Summarise the lease"), finish("f0"), verdict("retry", "mention the renewal option"))
	tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Summarise the Brooklyn Gardens lease terms"})
	if err != nil {
		t.Fatal(err)
	}
	// Retry 1: the guidance reaches the agent's next call.
	e.srv.Push(finish("f1"), verdict("retry", "still no renewal option"),
		finish("f2"), verdict("retry", "renewal option missing"),
		finish("f3"), verdict("retry", "renewal option missing again"))
	help := e.l.next(t, nudge.KindHelp)
	failed := waitPhase(t, e.st, tk.Session, PhaseFailed)
	if failed.Status != store.StatusFailed {
		t.Fatalf("status %s, want %s", failed.Status, store.StatusFailed)
	}
	if failed.Attempts != MaxRetries {
		t.Fatalf("attempts %d, want %d", failed.Attempts, MaxRetries)
	}
	reqs := e.srv.Requests()
	var sawGuidance bool
	for _, r := range reqs {
		for _, m := range r.Messages {
			sawGuidance = sawGuidance || strings.Contains(m.Text, "mention the renewal option")
		}
	}
	if !sawGuidance {
		t.Error("the verifier's guidance never reached the agent")
	}
	// The lawyer helps; the agent retries with their words and passes.
	e.srv.Push(finish("f4"), verdict("verified", ""))
	if err := e.r.Answer(t.Context(), help, nudge.Accept, "The renewal option is in §12; include it"); err != nil {
		t.Fatal(err)
	}
	done := waitPhase(t, e.st, tk.Session, PhaseFinished)
	if done.Status != store.StatusVerified {
		t.Fatalf("status %s", done.Status)
	}
	reqs = e.srv.Requests()
	var agentCall scripted.Request
	for _, r := range reqs {
		if len(r.Tools) > 1 {
			agentCall = r
		}
	}
	if !strings.Contains(agentCall.Messages[len(agentCall.Messages)-1].Text, "§12") {
		t.Errorf("the lawyer's help did not reach the agent: %+v", agentCall.Messages[len(agentCall.Messages)-1])
	}
}

func TestBudgetContinuesInLaterRun(t *testing.T) {
	e := newEnv(t, "anthropic")
	e.stop()
	e.opt.Budget = Budget{Steps: 2, Wall: time.Minute, Tokens: 1 << 20, MaxRuns: 5, Pause: time.Millisecond}
	e.start(t)
	e.srv.Push(plan("Look up the thread"),
		scripted.ToolCalls(call("c1", toolSearchEmail, map[string]any{"query": "SNDA"})),
		scripted.ToolCalls(call("c2", toolReadThread, map[string]any{"conversation_id": fmt.Sprint(e.thread)})),
		scripted.ToolCalls(call("c3", toolFinish, map[string]any{"summary": "Read it"})),
		scripted.ToolCalls(call("v", toolVerdict, map[string]any{"verdict": "verified"})))
	tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Look up the SNDA thread"})
	if err != nil {
		t.Fatal(err)
	}
	done := waitPhase(t, e.st, tk.Session, PhaseFinished)
	if done.Runs < 2 {
		t.Fatalf("runs %d: the budget of 2 calls per run should have split the work", done.Runs)
	}
	es, _ := e.st.SessionEntries(t.Context(), tk.Session, 0)
	var all strings.Builder
	for _, en := range es {
		all.WriteString(en.String() + "\n")
	}
	if !strings.Contains(all.String(), "continuing in a later run") {
		t.Errorf("no continuation logged:\n%s", all.String())
	}
}

func TestNoProviderStartsNoAgent(t *testing.T) {
	st, err := store.OpenDir(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := NewRunner(Options{Store: st, Provider: func(context.Context) (llm.Provider, string, error) { return nil, "", ErrNoProvider }})
	_, err = r.Start(t.Context(), NewTask{Prompt: "Draft a reply to Marcy"})
	if !errors.Is(err, ErrNoProvider) {
		t.Fatalf("err %v, want ErrNoProvider", err)
	}
	if !strings.Contains(err.Error(), "Settings") {
		t.Fatalf("err %q, want it to point to Settings", err)
	}
	ts, err := List(t.Context(), st, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 0 {
		t.Fatalf("tasks = %v, want none", ts)
	}
}

func TestCancelWithdrawsQuestion(t *testing.T) {
	e := newEnv(t, "openai")
	e.srv.Push(plan("Ask"), scripted.ToolCalls(call("q", toolAskUser, map[string]any{"question": "Which matter?"})))
	tk, _ := e.r.Start(t.Context(), NewTask{Prompt: "File the memo"})
	q := e.l.next(t, nudge.KindQuestion)
	waitPhase(t, e.st, tk.Session, PhaseWaiting)
	got, err := e.r.Cancel(t.Context(), tk.Session, "the lawyer")
	if err != nil {
		t.Fatal(err)
	}
	if got.Phase != PhaseCancelled {
		t.Fatalf("after cancel: phase %s, want %s", got.Phase, PhaseCancelled)
	}
	if got.Status != store.StatusFailed {
		t.Fatalf("after cancel: status %s, want %s", got.Status, store.StatusFailed)
	}
	n, err := e.st.Nudge(t.Context(), q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n.State != store.NudgeExpired {
		t.Fatalf("question nudge %v, want %v", n.State, store.NudgeExpired)
	}
	if err := e.r.Answer(t.Context(), q, nudge.AnswerChoice("x"), ""); !errors.Is(err, ErrClosed) {
		t.Fatalf("answer after cancel: %v", err)
	}
	if _, err := e.r.Cancel(t.Context(), tk.Session, "x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("second cancel: %v", err)
	}
}

// keeperEnv is a runner with a movable clock and no dispatcher, so the
// keeper's rules can be checked one by one.
func keeperEnv(t *testing.T) (*Runner, *store.Store, *time.Time) {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "spirit.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	clock := &now
	st.Now = func() time.Time { return *clock }
	srv := scripted.New(t)
	p := newProvider(t, "openai", srv)
	r := NewRunner(Options{Store: st, Now: func() time.Time { return *clock }, Log: slog.New(slog.DiscardHandler),
		Provider: func(context.Context) (llm.Provider, string, error) { return p, "m", nil }})
	return r, st, clock
}

func setPhase(t *testing.T, st *store.Store, session string, p Phase, waiting int64) {
	t.Helper()
	var w any
	if waiting > 0 {
		w = waiting
	}
	err := st.Tx(t.Context(), func(tx *sql.Tx) error {
		_, err := tx.ExecContext(t.Context(), `UPDATE tasks SET phase = ?, waiting = ? WHERE session = ?`, string(p), w, session)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestKeeperRules(t *testing.T) {
	ctx := t.Context()
	r, st, clock := keeperEnv(t)
	mk := func(prompt string) string {
		tk, err := r.Start(ctx, NewTask{Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		return tk.Session
	}
	// 1. Started, never active: failed after 1 h, not before.
	never := mk("never got going")
	// 2. Active, never finished: failed after 2 h.
	stuck := mk("stuck")
	st.AppendAgent(ctx, store.AgentRecord{Status: store.StatusActive, Session: stuck, Text: "step 1"})
	// 3. A run that vanished with its process: resumed.
	vanished := mk("vanished")
	st.AppendAgent(ctx, store.AgentRecord{Status: store.StatusActive, Session: vanished, Text: "step 1"})
	setPhase(t, st, vanished, PhaseRunning, 0)
	// 4. Waiting on a question for a day: failed.
	waiting := mk("waiting")
	st.AppendAgent(ctx, store.AgentRecord{Status: store.StatusActive, Session: waiting, Text: "asked"})
	q, _ := st.CreateNudge(ctx, store.Nudge{Kind: nudge.KindQuestion, Message: "Which?", Subject: nudge.TaskSubject(waiting)})
	setPhase(t, st, waiting, PhaseWaiting, q.ID)

	rep, err := r.Keep(ctx, *clock)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failed) != 0 {
		t.Fatalf("at once: failed %v, want none", rep.Failed)
	}
	if want := []string{vanished}; !slices.Equal(rep.Resumed, want) {
		t.Fatalf("at once: resumed %v, want %v", rep.Resumed, want)
	}
	if tk, _ := Get(ctx, st, vanished); tk.Phase != PhaseQueued {
		t.Fatalf("vanished run is %s, want queued", tk.Phase)
	}
	*clock = clock.Add(59 * time.Minute)
	if rep, _ := r.Keep(ctx, *clock); len(rep.Failed) != 0 {
		t.Fatalf("at 59 min: %+v", rep)
	}
	*clock = clock.Add(2 * time.Minute)
	rep, _ = r.Keep(ctx, *clock)
	if want := []string{never}; !slices.Equal(rep.Failed, want) {
		t.Fatalf("at 61 min: failed %v, want %v", rep.Failed, want)
	}
	*clock = clock.Add(60 * time.Minute) // 2 h 1 min
	rep, _ = r.Keep(ctx, *clock)
	if !contains(rep.Failed, stuck) {
		t.Fatalf("at 2 h: failed %v, want it to hold the stuck run %s", rep.Failed, stuck)
	}
	if contains(rep.Failed, waiting) {
		t.Fatalf("at 2 h: failed %v, want the waiting run %s spared", rep.Failed, waiting)
	}
	*clock = clock.Add(22 * time.Hour) // 24 h 1 min
	rep, _ = r.Keep(ctx, *clock)
	if !contains(rep.Failed, waiting) {
		t.Fatalf("at 24 h: %+v", rep)
	}
	if n, _ := st.Nudge(ctx, q.ID); n.State != store.NudgeExpired {
		t.Fatalf("the unanswered question is %s", n.State)
	}
	// 5. Failed with no response for 24 h: escalated once.
	*clock = clock.Add(2 * time.Hour)
	rep, _ = r.Keep(ctx, *clock)
	if !contains(rep.Escalated, never) {
		t.Fatalf("a day after failing: %+v", rep)
	}
	*clock = clock.Add(48 * time.Hour)
	rep, _ = r.Keep(ctx, *clock)
	if contains(rep.Escalated, never) {
		t.Fatalf("escalated twice: %+v", rep)
	}
	// Nothing is left active: every agent has ended or waits on a nudge.
	ts, _ := List(ctx, st, 0)
	for _, tk := range ts {
		if tk.Phase == PhaseRunning {
			t.Errorf("%s is still running", tk.Session)
		}
		if tk.Phase == PhaseFailed && tk.Waiting == 0 {
			t.Errorf("%s failed without a help nudge", tk.Session)
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// A run stopped after the model's turn but before its tool results were
// saved resumes with those calls answered, so the provider accepts the
// conversation.
func TestResumeAnswersACutTurn(t *testing.T) {
	e := newEnv(t, "anthropic")
	e.stop()
	tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Look up the SNDA thread"})
	if err != nil {
		t.Fatal(err)
	}
	state := State{Plan: []string{"Look it up"}, Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "Task: Look up the SNDA thread"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("cut", toolSearchEmail, map[string]any{"query": "SNDA"})}},
	}}
	b, _ := json.Marshal(state)
	if err := e.st.Tx(t.Context(), func(tx *sql.Tx) error {
		_, err := tx.ExecContext(t.Context(), `UPDATE tasks SET phase = 'running', state = ? WHERE session = ?`, string(b), tk.Session)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.srv.Push(scripted.ToolCalls(call("f", toolFinish, map[string]any{"summary": "Found it"})),
		scripted.ToolCalls(call("v", toolVerdict, map[string]any{"verdict": "verified"})))
	e.start(t) // the keeper finds the vanished run and resumes it
	waitPhase(t, e.st, tk.Session, PhaseFinished)
	first := e.srv.Requests()[0]
	last := first.Messages[len(first.Messages)-1]
	if len(last.ToolResults) != 1 {
		t.Fatalf("the cut turn was resumed with %d tool results, want 1: %+v", len(last.ToolResults), last)
	}
	if got := last.ToolResults[0].CallID; got != "cut" {
		t.Fatalf("the resumed tool result answers call %q, want cut", got)
	}
	if !last.ToolResults[0].IsError {
		t.Fatalf("the cut turn's result is no error: %+v", last.ToolResults[0])
	}
}

// A rejected key does not mend by waiting: the agent fails at once and
// asks the lawyer, instead of retrying run after run.
func TestRejectedKeyFailsAtOnce(t *testing.T) {
	e := newEnv(t, "openai", scripted.HTTPError(401, ""))
	tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Look up the SNDA thread"})
	if err != nil {
		t.Fatal(err)
	}
	help := e.l.next(t, nudge.KindHelp)
	failed := waitPhase(t, e.st, tk.Session, PhaseFailed)
	if failed.Runs != 1 {
		t.Fatalf("runs %d, want 1: no retry for a rejected key", failed.Runs)
	}
	if !strings.Contains(help.Message, "API key") {
		t.Fatalf("help %q, want it to name the API key", help.Message)
	}
}
