package work

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/agents/work/pace"
)

var protocols = []string{llm.ProtocolAnthropic, llm.ProtocolOpenAI}

// priced is a model with a known price (1 and 5 dollars per million
// tokens), so that cost is a number the tests can check.
const priced = "claude-haiku-4-5"

// clock is a settable clock in the lawyer's zone.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *clock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

type env struct {
	t     *testing.T
	path  string
	st    *store.Store
	srv   *scripted.Server
	clock *clock
	r     *Runner
	opt   Options

	mu         sync.Mutex
	policy     pace.Policy
	deliveries []Delivery
	deliverErr error
	hold       chan struct{} // if set, Deliver waits for it after storing the nudge
}

type envOption func(*env)

func withProvider(f func(ctx context.Context) (llm.Provider, string, error)) envOption {
	return func(e *env) { e.opt.Provider = f }
}

func withBudget(b Budget) envOption { return func(e *env) { e.opt.Budget = b } }

func withIndex() envOption {
	return func(e *env) { e.opt.Index = mailIndex(e.t, e.st) }
}

// newEnv opens a real store in a temp dir and a scripted provider of
// protocol over real HTTP; the lawyer is in New York, on a Wednesday
// morning, with four unasked-for nudges an hour allowed.
func newEnv(t *testing.T, protocol string, opts ...envOption) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), store.FileName)
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ny := zone(t, "America/New_York")
	e := &env{t: t, path: path, st: st, srv: scripted.New(t), clock: &clock{t: time.Date(2026, 11, 25, 9, 30, 0, 0, ny)},
		policy: pace.Policy{MaxPerHour: 4}}
	st.Now = e.clock.Now
	prov := e.srv.Provider(t, protocol)
	e.opt = Options{
		Store:    st,
		Provider: func(context.Context) (llm.Provider, string, error) { return prov, priced, nil },
		Deliver:  e.deliver,
		Policy: func(context.Context) (pace.Policy, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			return e.policy, nil
		},
		Now: e.clock.Now,
		Log: slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		o(e)
	}
	e.r = e.runner(st)
	return e
}

func (e *env) runner(st *store.Store) *Runner {
	e.t.Helper()
	opt := e.opt
	opt.Store = st
	r, err := New(opt)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(r.Close)
	return r
}

// deliver does what the app does: a nudge the lawyer sees.
func (e *env) deliver(ctx context.Context, d Delivery) (int64, error) {
	e.mu.Lock()
	err, hold := e.deliverErr, e.hold
	e.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := e.st.CreateNudge(ctx, store.Nudge{Kind: nudge.KindInfo, Message: d.Message, ActionPrompt: d.Action, Subject: d.Subject})
	if err != nil {
		return 0, err
	}
	e.mu.Lock()
	e.deliveries = append(e.deliveries, d)
	e.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done(): // Spirit quitting; a failed test's cleanup too
		}
	}
	return n.ID, nil
}

func (e *env) delivered() []Delivery {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Delivery(nil), e.deliveries...)
}

func (e *env) setPolicy(p pace.Policy) {
	e.mu.Lock()
	e.policy = p
	e.mu.Unlock()
}

func (e *env) run(req Request) Outcome {
	e.t.Helper()
	o, err := e.r.Run(e.t.Context(), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return o
}

// checkOneOutcomeEach asserts the contract: every request has exactly one
// outcome in work_runs and exactly one line in the world log.
func checkOneOutcomeEach(t *testing.T, st *store.Store) {
	t.Helper()
	runs, err := st.WorkRuns(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	es, err := st.Since(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	for _, e := range es {
		if e.Source == store.WorkEventSource {
			lines[e.Identifier]++
		}
	}
	for _, r := range runs {
		if !r.State.Final() {
			t.Errorf("run %d (%s) has no outcome: %s", r.ID, r.Source, r.State)
		}
		if n := lines[store.WorkIdentifier(r.ID)]; n != 1 {
			t.Errorf("run %d (%s) has %d world log lines, want 1", r.ID, r.Source, n)
		}
	}
	if len(lines) != len(runs) {
		t.Errorf("%d world log subjects for %d runs", len(lines), len(runs))
	}
}

func notify(id, msg string) llm.ToolCall {
	in, _ := json.Marshal(map[string]string{"message": msg})
	return llm.ToolCall{ID: id, Name: NotifyUserName, Input: in}
}

func call(id, name, input string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

func TestDeliversOnceThenDuplicate(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			e := newEnv(t, protocol)
			msg := "Marcy Howard asked for the signed SNDA by Friday 3 pm."
			e.srv.Push(scripted.ToolCalls(notify("n1", msg)), scripted.ToolCalls(notify("n2", msg)))
			req := Request{Source: SourceHeartbeat, Prompt: "Anything the lawyer must act on?"}

			first := e.run(req)
			if first.Status != store.WorkDone || !first.Delivered || first.Notice == nil || first.Notice.Message != msg {
				t.Fatalf("first outcome %+v", first)
			}
			// 10 input and 5 output tokens at $1 and $5 per million.
			if first.Usage.InputTokens != 10 || first.Usage.OutputTokens != 5 || first.Usage.CostUSD != 35e-6 {
				t.Errorf("usage %+v", first.Usage)
			}
			ds := e.delivered()
			if len(ds) != 1 || ds[0].Message != msg || ds[0].Subject != store.WorkIdentifier(first.ID) || ds[0].Source != SourceHeartbeat {
				t.Fatalf("deliveries %+v", ds)
			}
			n, err := e.st.Nudge(t.Context(), first.NudgeID)
			if err != nil || n.Message != msg {
				t.Fatalf("nudge %+v, %v", n, err)
			}

			e.clock.Advance(time.Hour)
			second := e.run(req)
			if second.Status != store.WorkSkip || second.Reason != ReasonDuplicate || second.Delivered {
				t.Fatalf("second outcome %+v", second)
			}
			if len(e.delivered()) != 1 {
				t.Fatalf("delivered twice: %+v", e.delivered())
			}

			// The model saw the tools, and notify_user was the only way out.
			reqs := e.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2 (a turn of only notify_user ends the run)", len(reqs))
			}
			var names []string
			for _, tl := range reqs[0].Tools {
				names = append(names, tl.Name)
			}
			if got := strings.Join(names, ","); got != "notify_user,list_reminders,query_world_log" {
				t.Errorf("tools offered: %s", got)
			}
			if reqs[0].Model != priced || !strings.Contains(reqs[0].System, "notify_user") ||
				!strings.Contains(reqs[0].System, "Wednesday 2026-11-25 09:30 EST") {
				t.Errorf("request: model %q, system %q", reqs[0].Model, reqs[0].System)
			}
			if len(reqs[0].Messages) != 1 || reqs[0].Messages[0].Text != req.Prompt {
				t.Errorf("messages %+v", reqs[0].Messages)
			}

			run, err := e.st.WorkRun(t.Context(), first.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := OutcomeOf(run); got.Status != first.Status || got.Delivered != true || got.NudgeID != first.NudgeID ||
				got.Usage != first.Usage || got.Notice == nil || got.Notice.Message != msg {
				t.Errorf("stored outcome %+v, want %+v", got, first)
			}
			es, _ := e.st.Since(t.Context(), 0, 0)
			var lines []string
			for _, en := range es {
				if en.Source == store.WorkEventSource {
					lines = append(lines, en.Text)
				}
			}
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "heartbeat: done, delivered “Marcy Howard asked") ||
				!strings.HasSuffix(lines[0], " · 15 tokens · $0.000035") ||
				!strings.HasPrefix(lines[1], "heartbeat: skip duplicate “Marcy Howard") {
				t.Errorf("world log lines %q", lines)
			}
			checkOneOutcomeEach(t, e.st)

			// The counters /health shows: one run delivered, one skipped as a
			// duplicate, and what both model calls cost.
			got := e.r.Stats()
			want := Stats{Runs: 2, Delivered: 1, Skips: map[Reason]int64{ReasonDuplicate: 1},
				TokensIn:  int64(first.Usage.InputTokens + second.Usage.InputTokens),
				TokensOut: int64(first.Usage.OutputTokens + second.Usage.OutputTokens),
				CostUSD:   first.Usage.CostUSD + second.Usage.CostUSD, LastRun: e.clock.Now()}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("stats %+v, want %+v", got, want)
			}
		})
	}
}

// TestGates runs one request per case through the real runner and store,
// and counts what reached the provider.
func TestGates(t *testing.T) {
	saturday := time.Date(2026, 11, 28, 10, 0, 0, 0, zone(t, "America/New_York"))
	type check struct {
		status    Status
		reason    Reason
		errHas    string
		delivered bool
		calls     int // model requests
	}
	cases := []struct {
		name   string
		opts   []envOption
		setup  func(e *env)
		req    Request
		reqFor func(e *env) Request // instead of req, for work that needs the env
		steps  []scripted.Reply
		want   check
	}{
		{name: "outside active hours: the model is never called",
			setup: func(e *env) { e.clock.Set(saturday) },
			req:   Request{Source: SourceHeartbeat, Prompt: "p", InputGate: DefaultActiveHours.Gate(nil)},
			want:  check{status: store.WorkSkip, reason: ReasonOutsideActiveHours}},
		{name: "inside active hours it runs",
			req:   Request{Source: SourceHeartbeat, Prompt: "p", InputGate: DefaultActiveHours.Gate(nil)},
			steps: []scripted.Reply{scripted.ToolCalls(notify("a", "Reply to Marcy today."))},
			want:  check{status: store.WorkDone, delivered: true, calls: 1}},
		{name: "paused",
			opts: []envOption{func(e *env) { e.opt.Paused = func(context.Context) bool { return true } }},
			req:  Request{Source: SourceHeartbeat, Prompt: "p"},
			want: check{status: store.WorkSkip, reason: ReasonPaused}},
		{name: "no provider (the app's error)",
			opts: []envOption{withProvider(func(context.Context) (llm.Provider, string, error) { return nil, "", task.ErrNoProvider })},
			req:  Request{Source: SourceHeartbeat, Prompt: "p"},
			want: check{status: store.WorkSkip, reason: ReasonNoProvider}},
		{name: "no provider (nil)",
			opts: []envOption{withProvider(func(context.Context) (llm.Provider, string, error) { return nil, "", nil })},
			req:  Request{Source: SourceHeartbeat, Prompt: "p"},
			want: check{status: store.WorkSkip, reason: ReasonNoProvider}},
		{name: "provider unusable is an error",
			opts: []envOption{withProvider(func(context.Context) (llm.Provider, string, error) { return nil, "", errors.New("keychain locked") })},
			req:  Request{Source: SourceHeartbeat, Prompt: "p"},
			want: check{status: store.WorkError, errHas: "keychain locked"}},
		{name: "quiet hours: no model call",
			setup: func(e *env) { e.setPolicy(pace.Policy{MaxPerHour: 4, Quiet: func(time.Time) bool { return true }}) },
			req:   Request{Source: SourceHeartbeat, Prompt: "p"},
			want:  check{status: store.WorkSkip, reason: ReasonQuietHours}},
		{name: "quiet hours come during the work: not delivered",
			setup: func(e *env) {
				e.setPolicy(pace.Policy{MaxPerHour: 4, Quiet: func(t time.Time) bool { return t.Hour() >= 20 }})
				e.clock.Set(time.Date(2026, 11, 25, 19, 59, 0, 0, e.clock.Now().Location()))
			},
			reqFor: func(e *env) Request {
				return Request{Source: SourceHeartbeat, Prompt: "p", Work: func(context.Context, Request) (Result, error) {
					e.clock.Advance(2 * time.Minute) // the work ends after 20:00
					return Result{Notice: &Notice{Message: "late news"}}, nil
				}}
			},
			want: check{status: store.WorkSkip, reason: ReasonQuietHours}},
		{name: "hourly cap shared with the glance: no model call",
			setup: func(e *env) {
				for i := range 4 {
					if _, err := e.st.CreateNudge(e.t.Context(), store.Nudge{Kind: nudge.KindGlance, Message: fmt.Sprint(i)}); err != nil {
						e.t.Fatal(err)
					}
				}
			},
			req:  Request{Source: SourceHeartbeat, Prompt: "p"},
			want: check{status: store.WorkSkip, reason: ReasonHourlyCap}},
		{name: "asked-for nudges do not count to the cap",
			setup: func(e *env) {
				for i := range 4 {
					if _, err := e.st.CreateNudge(e.t.Context(), store.Nudge{Kind: nudge.KindReminder, Message: fmt.Sprint(i)}); err != nil {
						e.t.Fatal(err)
					}
				}
			},
			req:   Request{Source: SourceHeartbeat, Prompt: "p"},
			steps: []scripted.Reply{scripted.ToolCalls(notify("a", "Reply to Marcy today."))},
			want:  check{status: store.WorkDone, delivered: true, calls: 1}},
		{name: "ack: the model answers in prose",
			req:   Request{Source: SourceHeartbeat, Prompt: "p"},
			steps: []scripted.Reply{scripted.Text("Nothing needs the lawyer right now.")},
			want:  check{status: store.WorkSkip, reason: ReasonAck, calls: 1}},
		{name: "text shaped like a notification is never delivered",
			req: Request{Source: SourceHeartbeat, Prompt: "p"},
			steps: []scripted.Reply{scripted.Text("STATUS: CHAT_YES\nCONTENT: Call Marcy now.\n" +
				`notify_user({"message": "Call Marcy now."})`)},
			want: check{status: store.WorkSkip, reason: ReasonAck, calls: 1}},
		{name: "notify_user without a message: the model hears why",
			req: Request{Source: SourceHeartbeat, Prompt: "p"},
			steps: []scripted.Reply{scripted.ToolCalls(call("a", NotifyUserName, `{"message":"  "}`)),
				scripted.Text("Never mind.")},
			want: check{status: store.WorkSkip, reason: ReasonAck, calls: 2}},
		{name: "a write tool is not there",
			req: Request{Source: SourceWebhook, Prompt: "p"},
			steps: []scripted.Reply{scripted.ToolCalls(call("a", "create_draft", `{"body":"hi"}`)),
				scripted.ToolCalls(notify("b", "Shall I draft the reply to Marcy?"))},
			want: check{status: store.WorkDone, delivered: true, calls: 2}},
		{name: "provider 500: error, no nudge",
			req:   Request{Source: SourceHeartbeat, Prompt: "p"},
			steps: []scripted.Reply{scripted.HTTPError(500, "")},
			want:  check{status: store.WorkError, errHas: "unavailable", calls: 1}},
		{name: "malformed answer: error, no nudge",
			req:   Request{Source: SourceHeartbeat, Prompt: "p"},
			steps: []scripted.Reply{scripted.Malformed()},
			want:  check{status: store.WorkError, errHas: "model:", calls: 1}},
		{name: "timeout: error, no nudge",
			opts:  []envOption{withBudget(Budget{Wall: 300 * time.Millisecond})},
			req:   Request{Source: SourceHeartbeat, Prompt: "p"},
			steps: []scripted.Reply{scripted.ToolCalls(notify("a", "too late")).After(5 * time.Second)},
			want:  check{status: store.WorkError, errHas: "in time", calls: 1}},
		{name: "out of steps without a word: error",
			opts: []envOption{withBudget(Budget{Steps: 2})},
			req:  Request{Source: SourceHeartbeat, Prompt: "p"},
			steps: []scripted.Reply{scripted.ToolCalls(call("a", QueryWorldName, `{"what":"recent"}`)),
				scripted.ToolCalls(call("b", QueryWorldName, `{"what":"failed"}`))},
			want: check{status: store.WorkError, errHas: "2 steps", calls: 2}},
		{name: "the request's own output gate",
			req: Request{Source: SourceHeartbeat, Prompt: "p", OutputGate: func(_ context.Context, _ time.Time, n Notice) Reason {
				if strings.Contains(n.Message, "weekend") {
					return ReasonOutsideActiveHours
				}
				return ""
			}},
			steps: []scripted.Reply{scripted.ToolCalls(notify("a", "Plan the weekend filing."))},
			want:  check{status: store.WorkSkip, reason: ReasonOutsideActiveHours, calls: 1}},
		{name: "work that panics still has an outcome",
			req: Request{Source: SourceHeartbeat, Prompt: "p", Work: func(context.Context, Request) (Result, error) {
				panic("boom")
			}},
			want: check{status: store.WorkError, errHas: "boom"}},
		{name: "code-only work needs no provider",
			opts: []envOption{withProvider(func(context.Context) (llm.Provider, string, error) { return nil, "", task.ErrNoProvider })},
			req: Request{Source: SourceCalendar, Work: func(context.Context, Request) (Result, error) {
				return Result{Notice: &Notice{Message: "The Howard call starts in 10 minutes."}}, nil
			}},
			want: check{status: store.WorkDone, delivered: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, protocol := range protocols {
				t.Run(protocol, func(t *testing.T) {
					e := newEnv(t, protocol, c.opts...)
					if c.setup != nil {
						c.setup(e)
					}
					e.srv.Push(c.steps...)
					req := c.req
					if c.reqFor != nil {
						req = c.reqFor(e)
					}
					o := e.run(req)
					got := check{status: o.Status, reason: o.Reason, delivered: o.Delivered, calls: len(e.srv.Requests())}
					if c.want.errHas != "" {
						if !strings.Contains(o.Err, c.want.errHas) {
							t.Errorf("error %q, want it to say %q", o.Err, c.want.errHas)
						}
						got.errHas = c.want.errHas
					}
					if got != c.want {
						t.Fatalf("outcome %+v\n got %+v\nwant %+v", o, got, c.want)
					}
					if n := len(e.delivered()); n != map[bool]int{true: 1}[c.want.delivered] {
						t.Fatalf("%d deliveries", n)
					}
					checkOneOutcomeEach(t, e.st)
					// /health's counters say the same as the outcome.
					st := e.r.Stats()
					counted := st.Runs == 1 && st.Errors == map[bool]int64{true: 1}[o.Status == store.WorkError] &&
						st.Delivered == map[bool]int64{true: 1}[o.Delivered] && st.TokensIn == int64(o.Usage.InputTokens)
					switch {
					case o.Status == store.WorkSkip:
						counted = counted && len(st.Skips) == 1 && st.Skips[o.Reason] == 1
					default:
						counted = counted && len(st.Skips) == 0
					}
					if !counted {
						t.Errorf("stats %+v after outcome %+v", st, o)
					}
				})
			}
		})
	}
}

// mailIndex indexes one thread: Marcy's question about the SNDA.
func mailIndex(t *testing.T, st *store.Store) *index.Index {
	t.Helper()
	ix := index.New(st)
	acc, err := ix.AddAccount(t.Context(), index.Account{Kind: index.KindIMAP, Name: "me", Address: "nadia@firm.com"})
	if err != nil {
		t.Fatal(err)
	}
	marcy, me := mail.Address{Name: "Marcy Howard", Email: "marcy@howardlaw.com"}, mail.Address{Name: "Nadia", Email: "nadia@firm.com"}
	msgs := []mail.Message{{RemoteID: "1", Folder: "INBOX", MessageID: "<snda@howardlaw.com>", Subject: "SNDA Brooklyn Gardens",
		From: marcy, To: []mail.Address{me}, Date: time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC), Body: "Can you sign the SNDA by Friday?"}}
	if err := ix.Apply(t.Context(), acc.ID, msgs); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestReadOnlyTools: the model searches mail, reads reminders and the
// world log, and what it gets back is the lawyer's real data.
func TestReadOnlyTools(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			e := newEnv(t, protocol, withIndex())
			ctx := t.Context()
			due := e.clock.Now().Add(3 * time.Hour)
			if _, err := e.st.CreateReminder(ctx, store.NewReminder{Task: "call the title company", Due: &due}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.st.AppendAgent(ctx, store.AgentRecord{Status: store.StatusFailed, Session: "task-7", Text: "could not reach IMAP"}); err != nil {
				t.Fatal(err)
			}
			e.srv.Push(
				scripted.ToolCalls(call("s", "search_email", `{"query":"SNDA"}`), call("r", ListRemindersName, `{}`),
					call("w", QueryWorldName, `{"what":"failed"}`)),
				scripted.ToolCalls(notify("n", "Marcy wants the SNDA signed by Friday.")),
			)
			o := e.run(Request{Source: RoutineSource(1), Prompt: "What is waiting on me today?"})
			if o.Status != store.WorkDone || !o.Delivered {
				t.Fatalf("outcome %+v", o)
			}
			reqs := e.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls", len(reqs))
			}
			var names []string
			for _, tl := range reqs[0].Tools {
				names = append(names, tl.Name)
			}
			if got := strings.Join(names, ","); got != "notify_user,search_email,read_email_thread,list_reminders,query_world_log" {
				t.Errorf("tools offered: %s", got)
			}
			if !strings.Contains(reqs[0].System, "routine") {
				t.Errorf("a routine's prompt does not say so: %s", reqs[0].System)
			}
			results := map[string]llm.ToolResult{}
			for _, m := range reqs[1].Messages {
				for _, r := range m.ToolResults {
					results[r.CallID] = r
				}
			}
			for id, want := range map[string]string{"s": "SNDA Brooklyn Gardens", "r": "call the title company", "w": "could not reach IMAP"} {
				if r := results[id]; r.IsError || !strings.Contains(r.Content, want) {
					t.Errorf("tool result %s = %+v, want it to contain %q", id, r, want)
				}
			}
			// Reading changed nothing but the outcome's own line.
			if n, _ := e.st.Nudges(ctx); len(n) != 1 {
				t.Errorf("%d nudges, want the one delivery", len(n))
			}
			checkOneOutcomeEach(t, e.st)
		})
	}
}

func TestDeliveryFailureFreesTheMessage(t *testing.T) {
	e := newEnv(t, llm.ProtocolAnthropic)
	msg := "The closing moved to Monday."
	e.srv.Push(scripted.ToolCalls(notify("a", msg)), scripted.ToolCalls(notify("b", msg)))
	e.mu.Lock()
	e.deliverErr = errors.New("bubble unavailable")
	e.mu.Unlock()
	o := e.run(Request{Source: SourceWebhook, Prompt: "p"})
	if o.Status != store.WorkDone || o.Delivered || !strings.Contains(o.Err, "bubble unavailable") {
		t.Fatalf("failed delivery %+v", o)
	}
	e.mu.Lock()
	e.deliverErr = nil
	e.mu.Unlock()
	if o := e.run(Request{Source: SourceWebhook, Prompt: "p"}); o.Status != store.WorkDone || !o.Delivered {
		t.Fatalf("the retry was blocked: %+v", o)
	}
	checkOneOutcomeEach(t, e.st)
}

// TestRoutineBusy: a routine still running when its next time comes is
// skipped as busy, and its last run only moves forward.
func TestRoutineBusy(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			e := newEnv(t, protocol)
			ctx := t.Context()
			e.clock.Set(time.Date(2026, 11, 25, 8, 29, 0, 0, e.clock.Now().Location()))
			rt, err := AddRoutine(ctx, e.st, "* 8 * * 1-5", "What is waiting on me today?")
			if err != nil {
				t.Fatal(err)
			}
			release := make(chan struct{})
			e.mu.Lock()
			e.hold = release // the first run stays in its delivery until released
			e.mu.Unlock()
			e.srv.Push(scripted.ToolCalls(notify("a", "Three emails wait on you.")))
			e.clock.Advance(time.Minute + 5*time.Second) // 08:30:05
			slot1 := time.Date(2026, 11, 25, 8, 30, 0, 0, e.clock.Now().Location())
			next, err := e.r.RunDue(ctx)
			if err != nil || !next.Equal(slot1.Add(time.Minute)) {
				t.Fatalf("next %s, %v", next, err)
			}
			src := RoutineSource(rt.ID)
			waitFor(t, "the first run to hold its source", func() bool { return e.r.Running(src) })
			// Its own time again: the same work, not a new request.
			if _, err := e.r.RunDue(ctx); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(time.Minute) // 08:31:05: the next time
			if _, err := e.r.RunDue(ctx); err != nil {
				t.Fatal(err)
			}
			// The busy skip's outcome, then its time marked handled.
			waitFor(t, "the busy skip to mark its time", func() bool {
				got, _ := e.st.Routine(ctx, rt.ID)
				return got.LastRun != nil
			})
			if got, _ := e.st.Routine(ctx, rt.ID); !got.LastRun.Equal(slot1.Add(time.Minute)) {
				t.Fatalf("last run after the busy skip: %v", got.LastRun)
			}
			runs, _ := e.st.WorkRuns(ctx, 0)
			if len(runs) != 2 || runs[0].State != store.WorkSkip || runs[0].Reason != string(ReasonBusy) ||
				runs[0].DedupKey != RoutineDedupKey(rt.ID, slot1.Add(time.Minute)) || runs[1].State != store.WorkRunning {
				t.Fatalf("runs %+v", runs)
			}
			close(release)
			e.r.Wait()
			first, _ := e.st.WorkRun(ctx, runs[1].ID)
			if first.State != store.WorkDone || first.Delivered == nil {
				t.Fatalf("first run %+v", first)
			}
			if got, _ := e.st.Routine(ctx, rt.ID); !got.LastRun.Equal(slot1.Add(time.Minute)) {
				t.Fatalf("the slow run moved the last run back to %v", got.LastRun)
			}
			if len(e.srv.Requests()) != 1 {
				t.Fatalf("%d model calls, want 1", len(e.srv.Requests()))
			}
			checkOneOutcomeEach(t, e.st)
		})
	}
}

// waitFor polls cond until it holds or 20 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRestartMidRoutine: Spirit stops in the middle of a routine (the
// first process is frozen, a second opens the same database file), and
// the lawyer hears the routine's answer exactly once.
func TestRestartMidRoutine(t *testing.T) {
	cases := []struct {
		name string
		// The first process stops after the delivery (its nudge exists,
		// its outcome does not) or before it (the model is still thinking).
		afterDelivery bool
	}{
		{"stopped after delivering", true},
		{"stopped while the model thought", false},
	}
	for _, c := range cases {
		for _, protocol := range protocols {
			t.Run(c.name+"/"+protocol, func(t *testing.T) {
				e := newEnv(t, protocol)
				ctx := t.Context()
				msg := "Two closings and the Howard SNDA wait on you today."
				e.clock.Set(time.Date(2026, 11, 25, 8, 0, 0, 0, e.clock.Now().Location()))
				rt, err := AddRoutine(ctx, e.st, "30 8 * * 1-5", "What is waiting on me today?")
				if err != nil {
					t.Fatal(err)
				}
				e.clock.Set(time.Date(2026, 11, 25, 8, 30, 10, 0, e.clock.Now().Location()))
				hold := make(chan struct{})
				defer close(hold)
				if c.afterDelivery {
					e.mu.Lock()
					e.hold = hold
					e.mu.Unlock()
					e.srv.Push(scripted.ToolCalls(notify("a", msg)))
				} else {
					e.srv.Push(scripted.ToolCalls(notify("a", msg)).After(20 * time.Second))
				}
				if _, err := e.r.RunDue(ctx); err != nil {
					t.Fatal(err)
				}
				if c.afterDelivery {
					waitFor(t, "the first delivery", func() bool { return len(e.delivered()) == 1 })
				} else {
					waitFor(t, "the first model call", func() bool { return len(e.srv.Requests()) == 1 })
				}

				// The second process: the same file, a new store and runner.
				st2, err := store.Open(ctx, e.path)
				if err != nil {
					t.Fatal(err)
				}
				defer st2.Close()
				st2.Now = e.clock.Now
				e.clock.Advance(5 * time.Minute)
				e.opt.Deliver = func(ctx context.Context, d Delivery) (int64, error) {
					n, err := st2.CreateNudge(ctx, store.Nudge{Kind: nudge.KindInfo, Message: d.Message, Subject: d.Subject})
					if err != nil {
						return 0, err
					}
					e.mu.Lock()
					e.deliveries = append(e.deliveries, d)
					e.mu.Unlock()
					return n.ID, nil
				}
				r2 := e.runner(st2)
				if n, err := r2.Recover(ctx); err != nil || n != 1 {
					t.Fatalf("recovered %d, %v", n, err)
				}
				if !c.afterDelivery {
					e.srv.Push(scripted.ToolCalls(notify("b", msg)))
				}
				if _, err := r2.RunDue(ctx); err != nil {
					t.Fatal(err)
				}
				r2.Wait()

				runs, err := st2.WorkRuns(ctx, 0)
				if err != nil || len(runs) != 2 {
					t.Fatalf("runs %+v, %v", runs, err)
				}
				if runs[1].State != store.WorkError || !strings.Contains(runs[1].Reason, "interrupted") {
					t.Errorf("the stopped run: %+v", runs[1])
				}
				if c.afterDelivery {
					// Caught up, and held back before any model call.
					if runs[0].State != store.WorkSkip || runs[0].Reason != string(ReasonDuplicate) || len(e.srv.Requests()) != 1 {
						t.Errorf("the catch-up: %+v after %d model calls", runs[0], len(e.srv.Requests()))
					}
				} else {
					if runs[0].State != store.WorkDone || runs[0].Delivered == nil {
						t.Errorf("the catch-up: %+v", runs[0])
					}
					// Five minutes late: the model hears the routine's time.
					reqs := e.srv.Requests()
					if len(reqs) != 2 || !strings.Contains(reqs[1].Messages[0].Text, "This was due at Wed 08:30") {
						t.Errorf("the catch-up's prompt: %+v", reqs[len(reqs)-1].Messages)
					}
				}
				if got, _ := st2.Routine(ctx, rt.ID); got.LastRun == nil || !got.LastRun.Equal(time.Date(2026, 11, 25, 8, 30, 0, 0, e.clock.Now().Location())) {
					t.Errorf("last run %v", got.LastRun)
				}
				ns, _ := st2.Nudges(ctx)
				if len(ns) != 1 || ns[0].Message != msg || len(e.delivered()) != 1 {
					t.Fatalf("the lawyer was told %d times: %+v", len(ns), ns)
				}
				checkOneOutcomeEach(t, st2)
			})
		}
	}
}

// TestConcurrentSources: different sources run side by side; the same
// text from two of them at once is delivered once.
func TestConcurrentSources(t *testing.T) {
	e := newEnv(t, llm.ProtocolOpenAI)
	e.setPolicy(pace.Policy{MaxPerHour: 10})
	texts := []string{"Marcy needs the SNDA.", "Marcy needs the SNDA.", "The title company called.", "Filing due at 5."}
	for i, s := range texts {
		e.srv.Push(scripted.ToolCalls(notify(fmt.Sprint(i), s)))
	}
	sources := []Source{SourceHeartbeat, RoutineSource(1), SourceWebhook, "webhook:ci"}
	var wg sync.WaitGroup
	outs := make([]Outcome, len(sources))
	for i, src := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := e.r.Run(t.Context(), Request{Source: src, Prompt: "p"})
			if err != nil {
				t.Error(err)
			}
			outs[i] = o
		}()
	}
	wg.Wait()
	delivered, dup := map[string]int{}, 0
	for _, o := range outs {
		switch {
		case o.Delivered:
			delivered[o.Notice.Message]++
		case o.Status == store.WorkSkip && o.Reason == ReasonDuplicate:
			dup++
		default:
			t.Errorf("unexpected outcome %+v", o)
		}
	}
	if len(delivered) != 3 || dup != 1 {
		t.Fatalf("delivered %v, %d duplicates; want 3 texts once each and 1 duplicate", delivered, dup)
	}
	for m, n := range delivered {
		if n != 1 {
			t.Errorf("%q delivered %d times", m, n)
		}
	}
	checkOneOutcomeEach(t, e.st)
}

// TestStartAndOutcome is the webhook's path: accepted at once with an id,
// its outcome found later by that id.
func TestStartAndOutcome(t *testing.T) {
	e := newEnv(t, llm.ProtocolAnthropic)
	e.srv.Push(scripted.ToolCalls(notify("a", "The build report is in.")).After(200 * time.Millisecond))
	run, err := e.r.Start(t.Context(), Request{Source: SourceWebhook, Prompt: "Summarise the nightly report.", DedupKey: "nightly-2026-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if run.ID == 0 || run.State != store.WorkQueued || run.DedupKey != "nightly-2026-11-25" {
		t.Fatalf("accepted %+v", run)
	}
	var o Outcome
	waitFor(t, "the outcome", func() bool {
		var ok bool
		o, ok, err = e.r.Outcome(t.Context(), run.ID)
		return err == nil && ok
	})
	if o.Status != store.WorkDone || !o.Delivered || o.ID != run.ID {
		t.Fatalf("outcome %+v", o)
	}
	// The same key again: no model call.
	o2, err := e.r.Run(t.Context(), Request{Source: SourceWebhook, Prompt: "again", DedupKey: "nightly-2026-11-25"})
	if err != nil || o2.Reason != ReasonDuplicate || len(e.srv.Requests()) != 1 {
		t.Fatalf("same key: %+v, %v, %d calls", o2, err, len(e.srv.Requests()))
	}

	bad := []struct {
		name string
		req  Request
	}{
		{"no source", Request{Prompt: "p"}},
		{"bad source", Request{Source: "Web Hook", Prompt: "p"}},
		{"no prompt", Request{Source: SourceWebhook, Prompt: "  "}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			if _, err := e.r.Start(t.Context(), c.req); !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
	if _, _, err := e.r.Outcome(t.Context(), 999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing outcome: %v", err)
	}
	checkOneOutcomeEach(t, e.st)
}

// TestCloseEndsBackgroundWork: quitting ends a running request in an
// outcome, and a routine's time stays due for the next start.
func TestCloseEndsBackgroundWork(t *testing.T) {
	e := newEnv(t, llm.ProtocolAnthropic)
	ctx := t.Context()
	e.clock.Set(time.Date(2026, 11, 25, 8, 0, 0, 0, e.clock.Now().Location()))
	rt, err := AddRoutine(ctx, e.st, "30 8 * * *", "What is waiting on me today?")
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Set(time.Date(2026, 11, 25, 8, 31, 0, 0, e.clock.Now().Location()))
	e.srv.Push(scripted.ToolCalls(notify("a", "x")).After(20 * time.Second))
	if _, err := e.r.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the model call", func() bool { return len(e.srv.Requests()) == 1 })
	e.r.Close()
	runs, _ := e.st.WorkRuns(ctx, 0)
	if len(runs) != 1 || runs[0].State != store.WorkError || !strings.Contains(runs[0].Reason, "cancel") {
		t.Fatalf("runs %+v", runs)
	}
	if got, _ := e.st.Routine(ctx, rt.ID); got.LastRun != nil {
		t.Fatalf("a cut-short run marked its time handled: %v", got.LastRun)
	}
	checkOneOutcomeEach(t, e.st)
}

// TestRoutineCommands is what `spirit work add|run` and Settings call.
func TestRoutineCommands(t *testing.T) {
	e := newEnv(t, llm.ProtocolAnthropic)
	ctx := t.Context()
	if _, err := AddRoutine(ctx, e.st, "30 8 * *", "p"); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("bad spec: %v", err)
	}
	if _, err := AddRoutine(ctx, e.st, "30 8 * * 1-5", " "); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("empty prompt: %v", err)
	}
	if rs, _ := e.st.Routines(ctx); len(rs) != 0 {
		t.Fatalf("refused routines were stored: %+v", rs)
	}
	rt, err := AddRoutine(ctx, e.st, " 30  8 * * mon-fri ", "What is waiting on me today?")
	if err != nil || rt.Cron != "30 8 * * mon-fri" {
		t.Fatalf("added %+v, %v", rt, err)
	}
	bad, good := "61 8 * * *", "0  9 * * *"
	if _, err := UpdateRoutine(ctx, e.st, rt.ID, store.RoutineUpdate{Cron: &bad}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("bad update: %v", err)
	}
	if got, err := UpdateRoutine(ctx, e.st, rt.ID, store.RoutineUpdate{Cron: &good}); err != nil || got.Cron != "0 9 * * *" {
		t.Fatalf("update %+v, %v", got, err)
	}

	// Run now, whatever the schedule; the schedule's own times stay.
	before, _ := e.st.Routine(ctx, rt.ID)
	e.srv.Push(scripted.ToolCalls(notify("a", "Nothing urgent; two drafts wait for review.")))
	o, err := e.r.RunRoutine(ctx, rt.ID)
	if err != nil || o.Status != store.WorkDone || !o.Delivered || o.Source != RoutineSource(rt.ID) {
		t.Fatalf("run now: %+v, %v", o, err)
	}
	if after, _ := e.st.Routine(ctx, rt.ID); !reflect.DeepEqual(after.LastRun, before.LastRun) {
		t.Fatalf("run now moved the last run: %v → %v", before.LastRun, after.LastRun)
	}
	if _, err := e.r.RunRoutine(ctx, 999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing routine: %v", err)
	}
	checkOneOutcomeEach(t, e.st)
}

// TestRequestDeliversItsOwnNudge: a calendar request that shows its own
// kind of nudge (a meeting offer with its own subject) delivers through
// it, not the app's; the run records that nudge; and the hourly cap
// counts it once.
func TestRequestDeliversItsOwnNudge(t *testing.T) {
	e := newEnv(t, "openai")
	e.policy = pace.Policy{MaxPerHour: 2}
	offer := func(key string) Request {
		return Request{Source: SourceCalendar, DedupKey: "meeting:" + key,
			Work: func(context.Context, Request) (Result, error) {
				return Result{Notice: &Notice{Message: "Meeting with Marcy Howard in 15 min (" + key + ")"}}, nil
			},
			Deliver: func(ctx context.Context, d Delivery) (int64, error) {
				n, err := e.st.CreateNudge(ctx, store.Nudge{Kind: nudge.KindMeeting, Message: d.Message, Subject: nudge.MeetingSubject(key)})
				return n.ID, err
			}}
	}
	o := e.run(offer("call@x"))
	if o.Status != store.WorkDone || !o.Delivered || o.NudgeID == 0 {
		t.Fatalf("outcome %+v", o)
	}
	n, err := e.st.Nudge(t.Context(), o.NudgeID)
	if err != nil || n.Kind != nudge.KindMeeting || n.Subject != nudge.MeetingSubject("call@x") {
		t.Fatalf("nudge %+v (%v)", n, err)
	}
	if len(e.deliveries) != 0 {
		t.Errorf("the app's deliver was called: %+v", e.deliveries)
	}
	// The cap is 2: the first offer counts once, so a second fits.
	if o := e.run(offer("other@x")); !o.Delivered {
		t.Fatalf("second offer %+v, want delivered (the first counted once)", o)
	}
	if o := e.run(offer("third@x")); o.Reason != ReasonHourlyCap {
		t.Fatalf("third offer %+v, want the hourly cap", o)
	}
}
