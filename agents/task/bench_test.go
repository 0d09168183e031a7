package task

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/nudge"
)

// TestBenchAgents prints `BENCH accept_to_tool_ms` (from starting an
// accepted task to its first tool call, time inside the provider
// excluded; p50 over the runs) and `BENCH worldlog_bytes_per_agent` (the
// world-log lines of one complete drafting run: plan, search, read,
// approval, draft, finish, verification) for `make bench`. It runs only
// with SPIRIT_BENCH=1 and asserts nothing about time.
func TestBenchAgents(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to run the agents benchmark")
	}
	e := newEnv(t, "anthropic")
	e.stop()
	tp := &scripted.Timed{Provider: newProvider(t, "anthropic", e.srv)}
	e.opt.Provider = func(context.Context) (llm.Provider, string, error) { return tp, "m", nil }
	first := make(chan time.Time, 1)
	e.r = NewRunner(e.opt)
	e.r.toolStarted = func(string, string) {
		select {
		case first <- time.Now():
		default:
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	const runs = 20
	var lat []float64
	var bytes []int
	for i := range runs {
		args := e.draftReply(fmt.Sprintf("Marcy,\n\nDraft %d on 4.2(b).\n\nNadia", i))
		e.srv.Push(
			plan("Read the thread", "Draft the reply for approval"),
			scripted.ToolCalls(call("c1", toolSearchEmail, map[string]any{"query": "SNDA"})),
			scripted.ToolCalls(call("c2", toolReadThread, map[string]any{"conversation_id": fmt.Sprint(e.thread)})),
			scripted.ToolCalls(call("c3", toolRequestApproval, map[string]any{"action": "create_draft", "args": args})),
		)
		select {
		case <-first:
		default:
		}
		tp.Take()
		start := time.Now()
		tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Draft a reply to Marcy Howard on SNDA §4.2(b)"})
		if err != nil {
			t.Fatal(err)
		}
		at := <-first
		lat = append(lat, float64(at.Sub(start)-tp.Take())/float64(time.Millisecond))
		n := e.l.next(t, nudge.KindApproval)
		e.srv.Push(
			scripted.ToolCalls(call("c4", toolCreateDraft, args)),
			scripted.ToolCalls(call("c5", toolFinish, map[string]any{"summary": "Reply saved in Drafts"})),
		)
		if err := e.r.Answer(t.Context(), n, nudge.Accept, ""); err != nil {
			t.Fatal(err)
		}
		waitPhase(t, e.st, tk.Session, PhaseFinished)
		e.l.next(t, nudge.KindResult)
		es, err := e.st.SessionEntries(t.Context(), tk.Session, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := 0
		for _, en := range es {
			b += len(en.String()) + 1
		}
		bytes = append(bytes, b)
	}
	slices.Sort(lat)
	slices.Sort(bytes)
	fmt.Printf("BENCH accept_to_tool_ms %.2f ms\n", lat[len(lat)/2])
	fmt.Printf("BENCH worldlog_bytes_per_agent %d bytes\n", bytes[len(bytes)/2])
}
