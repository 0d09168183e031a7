package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
)

// execute runs the agent from its saved state: plan if it has none, then
// one model turn after another until it pauses, finishes or a per-run
// budget runs out. The state is saved after every turn.
func (r *Runner) execute(ctx context.Context, t *Task) (outcome, error) {
	p, model, err := r.opt.Provider(ctx)
	if err != nil {
		return 0, err
	}
	b := r.opt.Budget
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, b.Wall)
	defer cancel()
	run := &runUse{start: r.opt.Now()}

	if err := r.logActive(ctx, t, fmt.Sprintf("run %d started", t.Runs)); err != nil {
		return 0, err
	}
	if len(t.State.Plan) == 0 {
		if err := r.plan(ctx, t, p, model, run); err != nil {
			return 0, err
		}
	}
	if len(t.State.Messages) == 0 {
		t.State.Messages = []llm.Message{{Role: llm.RoleUser, Text: r.kickoff(t)}}
	}
	repairTurn(t)
	tools := r.agentTools()
	for {
		if why := run.over(b, r.opt.Now()); why != "" {
			r.opt.Log.Info("agents: run budget reached", "session", t.Session, "why", why)
			return outBudget, nil
		}
		resp, err := p.Complete(ctx, llm.Request{System: r.systemPrompt(ctx, t), Messages: t.State.Messages,
			Tools: tools, Model: model})
		run.calls++
		t.State.ModelCalls++
		if err != nil {
			if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				// The run's wall clock ran out mid-call: a budget
				// checkpoint, not a failure.
				return outBudget, nil
			}
			return 0, fmt.Errorf("model: %w", err)
		}
		used := resp.Usage.InputTokens + resp.Usage.OutputTokens
		run.tokens += used
		t.State.Tokens += used
		t.State.Messages = append(t.State.Messages, llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			// A model that answers in prose is reminded of the protocol
			// twice; then its words are taken as the result.
			t.State.Nudged++
			if t.State.Nudged > 2 {
				if strings.TrimSpace(resp.Text) == "" {
					return 0, fmt.Errorf("%w: the model stopped answering with tool calls", errFatal)
				}
				t.State.Summary = trim(resp.Text, 300)
				t.Result = resp.Text
				return outFinished, r.finish(ctx, t)
			}
			r.addGuidance(t, "Continue with the tools. Call step_done when a step is done, or finish_task when all are.")
			if err := r.save(ctx, t, ""); err != nil {
				return 0, err
			}
			continue
		}
		t.State.Nudged = 0
		out, done, err := r.turn(ctx, t, resp.ToolCalls)
		if err != nil {
			return 0, err
		}
		if done {
			return out, nil
		}
	}
}

// repairTurn answers the tool calls of a turn that a stop cut short
// (saved after the model's turn, before its results), so the conversation
// stays one both wire protocols accept.
func repairTurn(t *Task) {
	msgs := t.State.Messages
	last := len(msgs) - 1
	if last < 0 || msgs[last].Role != llm.RoleAssistant || len(msgs[last].ToolCalls) == 0 || t.State.Pending != nil {
		return
	}
	results := make([]llm.ToolResult, 0, len(msgs[last].ToolCalls))
	for _, c := range msgs[last].ToolCalls {
		results = append(results, llm.ToolResult{CallID: c.ID, IsError: true,
			Content: "not run: Spirit was interrupted; call it again if it is still needed"})
	}
	t.State.Messages = append(msgs, llm.Message{Role: llm.RoleTool, ToolResults: results})
}

// runUse counts what one run has used.
type runUse struct {
	start  time.Time
	calls  int
	tokens int
}

func (u *runUse) over(b Budget, now time.Time) string {
	switch {
	case u.calls >= b.Steps:
		return fmt.Sprintf("%d model calls this run", u.calls)
	case u.tokens >= b.Tokens:
		return fmt.Sprintf("%d tokens this run", u.tokens)
	case now.Sub(u.start) >= b.Wall:
		return "wall time for this run"
	}
	return ""
}

// turn runs the tool calls of one model turn. done is true when the run
// ends here (a pause or the finish).
func (r *Runner) turn(ctx context.Context, t *Task, calls []llm.ToolCall) (outcome, bool, error) {
	results := make([]llm.ToolResult, 0, len(calls))
	for i, c := range calls {
		switch c.Name {
		case toolAskUser, toolRequestApproval:
			// The calls after a pause are not run: the model asks again
			// once it has the answer.
			var skipped []llm.ToolResult
			for _, later := range calls[i+1:] {
				skipped = append(skipped, llm.ToolResult{CallID: later.ID, IsError: true,
					Content: "not run: you paused for the lawyer; call it again if still needed"})
			}
			res, paused, err := r.pause(ctx, t, c, append(results, skipped...))
			if err != nil {
				return 0, false, err
			}
			if paused {
				return outPaused, true, nil
			}
			// Refused (bad input): the model hears why and goes on.
			results = append(results, res)
		case toolFinish:
			var a finishArgs
			if err := json.Unmarshal(c.Input, &a); err != nil || strings.TrimSpace(a.Summary) == "" {
				results = append(results, errResult(c, "finish_task needs a summary (and the result)"))
				continue
			}
			for _, later := range calls[i+1:] {
				results = append(results, llm.ToolResult{CallID: later.ID, Content: "not run: the task is finished"})
			}
			results = append(results, llm.ToolResult{CallID: c.ID, Content: "recorded"})
			t.State.Messages = append(t.State.Messages, llm.Message{Role: llm.RoleTool, ToolResults: results})
			t.State.Summary = trim(a.Summary, 300)
			t.Result = strings.TrimSpace(a.Result)
			if t.Result == "" {
				t.Result = a.Summary
			}
			return outFinished, true, r.finish(ctx, t)
		default:
			results = append(results, r.runTool(ctx, t, c))
		}
	}
	t.State.Messages = append(t.State.Messages, llm.Message{Role: llm.RoleTool, ToolResults: results})
	return 0, false, r.save(ctx, t, "")
}

func errResult(c llm.ToolCall, msg string) llm.ToolResult {
	return llm.ToolResult{CallID: c.ID, Content: msg, IsError: true}
}

// appendAgent writes a lifecycle record inside tx and tells the listener.
// The listener hears of it just before the commit: it only refreshes what
// the lawyer sees, and a record lost with a failed commit is logged there.
func (r *Runner) appendAgent(ctx context.Context, tx *sql.Tx, rec store.AgentRecord) (store.Entry, error) {
	e, err := r.opt.Store.AppendAgentTx(ctx, tx, rec)
	if err == nil && r.opt.Listener != nil {
		r.opt.Listener.Lifecycle(rec.Session, rec.Status)
	}
	return e, err
}

// save writes the state of a running task, with an optional log line.
func (r *Runner) save(ctx context.Context, t *Task, note string) error {
	return r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
		cur.State, cur.Result = t.State, t.Result
		if note != "" {
			return r.event(ctx, tx, t.Session, note)
		}
		return nil
	})
}

func (r *Runner) logActive(ctx context.Context, t *Task, text string) error {
	return r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
		_, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusActive, Session: t.Session, Text: text})
		return err
	})
}

// finish records the agent's claim to be done; the verifier decides.
func (r *Runner) finish(ctx context.Context, t *Task) error {
	return r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
		cur.State, cur.Result = t.State, t.Result
		_, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusFinish, Session: t.Session,
			Text: t.State.Summary})
		return err
	})
}

// plan asks the model for a short list of steps.
func (r *Runner) plan(ctx context.Context, t *Task, p llm.Provider, model string, run *runUse) error {
	resp, err := p.Complete(ctx, llm.Request{System: r.planPrompt(ctx, t),
		Messages: []llm.Message{{Role: llm.RoleUser, Text: r.kickoff(t)}},
		Tools:    []llm.Tool{planTool()}, Model: model, MaxTokens: 1024})
	run.calls++
	t.State.ModelCalls++
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	used := resp.Usage.InputTokens + resp.Usage.OutputTokens
	run.tokens += used
	t.State.Tokens += used
	var steps []string
	for _, c := range resp.ToolCalls {
		if c.Name != toolPlan {
			continue
		}
		var a planArgs
		if err := json.Unmarshal(c.Input, &a); err == nil {
			steps = a.Steps
		}
	}
	if len(steps) == 0 {
		// A model without the tool still tends to answer with a list.
		steps = listLines(resp.Text)
	}
	var clean []string
	for _, s := range steps {
		if s = trim(s, 200); s != "" {
			clean = append(clean, s)
		}
	}
	if len(clean) == 0 {
		return fmt.Errorf("plan: the model gave no steps")
	}
	if len(clean) > maxPlanSteps {
		clean = clean[:maxPlanSteps]
	}
	t.State.Plan, t.State.Step = clean, 0
	return r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
		cur.State = t.State
		var b strings.Builder
		b.WriteString("plan:")
		for i, s := range clean {
			fmt.Fprintf(&b, " %d) %s", i+1, s)
		}
		_, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusActive, Session: t.Session, Text: b.String()})
		return err
	})
}

const maxPlanSteps = 6

// listLines reads "1. do x" / "- do y" lines.
func listLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimLeft(l, "-*• ")
		if i := strings.IndexAny(l, ".)"); i > 0 && i <= 2 && strings.Trim(l[:i], "0123456789") == "" {
			l = strings.TrimSpace(l[i+1:])
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
