package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar/caltools"
	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/platform/secrets"
)

// TestDraftItHandsTheAgentTheThread: "Draft it" on a glance nudge starts
// an agent that is told which thread the nudge was about, so it can read
// it without searching; typed words instead become the task, with the
// same thread.
func TestDraftItHandsTheAgentTheThread(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	c, st := newTestCore(t, dir)
	ix := index.New(st)
	a, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: "Nadia Petrov", Address: "nadia@firm.com"})
	if err != nil {
		t.Fatal(err)
	}
	msg := mail.Message{RemoteID: "1", Folder: "INBOX", MessageID: "<snda-42@howardlaw.com>", Subject: "SNDA - Brooklyn Gardens",
		From: mail.Address{Name: "Marcy Howard", Email: "marcy@howardlaw.com"}, To: []mail.Address{{Email: "nadia@firm.com"}},
		Date: time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC), Body: "Comments on 4.2(b) by Friday?"}
	if err := ix.Apply(ctx, a.ID, []mail.Message{msg}); err != nil {
		t.Fatal(err)
	}
	thread, subject, err := ix.ThreadOfMessage(ctx, msg.MessageID)
	if err != nil {
		t.Fatalf("thread of message %d: %v", thread, err)
	}
	if subject != msg.Subject {
		t.Fatalf("thread of message subject = %q, want %q", subject, msg.Subject)
	}

	plan, _ := json.Marshal(map[string]any{"steps": []string{"Read the thread"}})
	ask, _ := json.Marshal(map[string]any{"question": "Accept the 30-day cure period?"})
	srv := scripted.New(t)
	sec, err := secrets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := setup.Save(ctx, st, sec, setup.Settings{Kind: setup.OpenAI, BaseURL: srv.URL() + "/v1", Roles: llm.Roles{Analyst: "m"}}, "sk-test"); err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { c.tasks.Run(rctx); close(done) }()
	defer func() { stop(); <-done }()

	for i, typed := range []string{"", "Ask Marcy for a week more"} {
		srv.Push(scripted.ToolCalls(llm.ToolCall{ID: "p", Name: "submit_plan", Input: plan}),
			scripted.ToolCalls(llm.ToolCall{ID: "q", Name: "ask_user", Input: ask}))
		n, err := c.nudge(ctx, store.Nudge{Kind: nudge.KindGlance, Message: "Marcy Howard is waiting on your reply. Draft a reply?",
			ActionPrompt: "Draft a reply to Marcy Howard about SNDA - Brooklyn Gardens", Subject: nudge.GlanceSubject(msg.MessageID)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Answer(ctx, n.ID, nudge.Accept, typed); err != nil {
			t.Fatal(err)
		}
		var q store.Nudge
		deadline := time.Now().Add(10 * time.Second)
		for q.ID == 0 {
			ns, _ := st.Nudges(ctx, store.NudgeShown)
			for _, x := range ns {
				if x.Kind == nudge.KindQuestion && x.ID > n.ID {
					q = x
				}
			}
			if time.Now().After(deadline) {
				es, _ := st.Recent(ctx, 30)
				var b strings.Builder
				for _, e := range es {
					b.WriteString(e.String() + "\n")
				}
				t.Fatalf("run %d: no question from the agent; world log:\n%s", i, b.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		reqs := srv.Requests()
		first := reqs[len(reqs)-2].Messages[0].Text
		if want := fmt.Sprintf("conversation_id %d", thread); !strings.Contains(first, want) {
			t.Errorf("run %d: the agent's first message = %q, want it to name %q", i, first, want)
		}
		if want := "SNDA - Brooklyn Gardens"; !strings.Contains(first, want) {
			t.Errorf("run %d: the agent's first message = %q, want it to name the subject %q", i, first, want)
		}
		if typed != "" && !strings.HasPrefix(first, "Task: "+typed) {
			t.Errorf("typed words are not the task: %q", first)
		}
		session, _ := nudge.TaskSession(q.Subject)
		tk, err := task.Get(ctx, st, session)
		if err != nil {
			t.Fatal(err)
		}
		if want := typed == ""; (tk.Context.Check == task.CheckDraft) != want {
			t.Errorf("run %d: check %q", i, tk.Context.Check)
		}
	}
}

// TestFindAnHourReachesTheCalendarTools: "find me an hour with Marcy next
// week", typed or spoken, starts a task agent that is offered the
// calendar tools and reads the lawyer's free time through them, in the
// working hours of the settings.
func TestFindAnHourReachesTheCalendarTools(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	c, st := newTestCore(t, dir)
	srv := scripted.New(t)
	sec, err := secrets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := setup.Save(ctx, st, sec, setup.Settings{Kind: setup.OpenAI, BaseURL: srv.URL() + "/v1", Roles: llm.Roles{Analyst: "m"}}, "sk-test"); err != nil {
		t.Fatal(err)
	}
	shown := c.bus.(*events.Bus).Subscribe(events.NudgeShown, 64)
	defer shown.Unsubscribe()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { c.tasks.Run(rctx); close(done) }()
	defer func() { stop(); <-done }()

	plan, _ := json.Marshal(map[string]any{"steps": []string{"Find a free hour next week", "Propose it"}})
	slots, _ := json.Marshal(map[string]any{"duration_minutes": 60})
	ask, _ := json.Marshal(map[string]any{"question": "Which of these suits Marcy?"})
	for _, way := range []struct {
		name string
		say  func(string) (api.SayResult, error)
		text string
	}{
		{"typed", func(s string) (api.SayResult, error) { return c.Say(ctx, s) }, "find me an hour with Marcy next week"},
		{"spoken", func(s string) (api.SayResult, error) { return c.Heard(ctx, s, time.Now()) }, "Spirit, find me an hour with Marcy next week"},
	} {
		srv.Push(scripted.ToolCalls(llm.ToolCall{ID: "p", Name: "submit_plan", Input: plan}),
			scripted.ToolCalls(llm.ToolCall{ID: "s", Name: caltools.FindFreeSlotsName, Input: slots}),
			scripted.ToolCalls(llm.ToolCall{ID: "q", Name: "ask_user", Input: ask}))
		before := len(srv.Requests())
		res, err := way.say(way.text)
		if err != nil {
			t.Fatal(err)
		}
		if res.Intent != "task" || res.Agent == "" {
			t.Fatalf("%s: %+v, want a task agent", way.name, res)
		}
		waitNudge(t, shown, nudge.KindQuestion)
		reqs := srv.Requests()[before:]
		if len(reqs) < 3 {
			t.Fatalf("%s: %d model calls", way.name, len(reqs))
		}
		offered := map[string]bool{}
		for _, tl := range reqs[1].Tools {
			offered[tl.Name] = true
		}
		for _, name := range []string{caltools.ListUpcomingName, caltools.FindFreeSlotsName, caltools.CreateEventName} {
			if !offered[name] {
				t.Errorf("%s: %s not offered to the agent", way.name, name)
			}
		}
		last := reqs[2].Messages[len(reqs[2].Messages)-1]
		if len(last.ToolResults) != 1 || !strings.Contains(last.ToolResults[0].Content, `"working_hours":"mon-fri 08:00-19:00"`) {
			t.Errorf("%s: find_free_slots answered %+v", way.name, last.ToolResults)
		}
	}
}

// waitNudge waits for the next nudge of kind on sub.
func waitNudge(t *testing.T, sub *events.Subscription, kind string) store.Nudge {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-sub.C():
			if n := ev.Data.(store.Nudge); n.Kind == kind {
				return n
			}
		case <-deadline:
			t.Fatalf("no %s nudge within 20 s", kind)
		}
	}
}

// TestTaskAgentListsOpenCommitments: a task agent has the same
// list_open_commitments tool as the work runner, and reads the lawyer's
// real open commitments with it, in both protocols.
func TestTaskAgentListsOpenCommitments(t *testing.T) {
	for _, protocol := range []string{setup.Anthropic, setup.OpenAI} {
		t.Run(protocol, func(t *testing.T) {
			ctx := context.Background()
			p, _, srv := newWorkParts(t, protocol, time.Now)
			c := p.core
			if _, err := c.Heard(ctx, "I'll check the title commitment on Halcyon", time.Now()); err != nil {
				t.Fatal(err)
			}
			rctx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { c.tasks.Run(rctx); close(done) }()
			defer func() { stop(); <-done }()

			plan, _ := json.Marshal(map[string]any{"steps": []string{"List what I promised"}})
			finish, _ := json.Marshal(map[string]any{"summary": "One promise: the title commitment"})
			srv.Push(scripted.ToolCalls(llm.ToolCall{ID: "p", Name: "submit_plan", Input: plan}),
				scripted.ToolCalls(llm.ToolCall{ID: "l", Name: ListCommitmentsName, Input: json.RawMessage(`{}`)}),
				scripted.ToolCalls(llm.ToolCall{ID: "f", Name: "finish_task", Input: finish}),
				scripted.ToolCalls(llm.ToolCall{ID: "v", Name: "give_verdict", Input: json.RawMessage(`{"verdict":"verified"}`)}))
			tk, err := c.startTask(ctx, task.NewTask{Prompt: "What did I promise on calls today?", Origin: "voice"})
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the agent verified", func() bool {
				got, err := task.Get(ctx, p.core.store, tk.Session)
				return err == nil && got.Status == store.StatusVerified
			})
			reqs := srv.Requests()
			var offered bool
			for _, tl := range reqs[1].Tools {
				offered = offered || tl.Name == ListCommitmentsName
			}
			if !offered {
				t.Errorf("tools offered to the agent lack %s", ListCommitmentsName)
			}
			var result string
			for _, m := range reqs[2].Messages {
				for _, r := range m.ToolResults {
					if r.CallID == "l" {
						result = r.Content
					}
				}
			}
			if !strings.Contains(result, `"task":"check the title commitment on Halcyon"`) ||
				!strings.Contains(result, `"words":"I'll check the title commitment on Halcyon"`) {
				t.Errorf("list_open_commitments gave the agent %q", result)
			}
		})
	}
}
