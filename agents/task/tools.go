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
	"github.com/spirit-app/spirit/agents/mail/mailtools"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// Tool names. Write tools change something outside Spirit and run only
// against a recorded approval.
const (
	toolSearchEmail     = mailtools.SearchEmailName
	toolReadThread      = mailtools.ReadThreadName
	toolCreateDraft     = "create_draft"
	toolCreateReminder  = "create_reminder"
	toolListReminders   = "list_reminders"
	toolNotifyUser      = "notify_user"
	toolAskUser         = "ask_user"
	toolRequestApproval = "request_approval"
	toolStepDone        = "step_done"
	toolFinish          = "finish_task"
	toolPlan            = "submit_plan"
)

// writeTools need the lawyer's approval, checked in code.
var writeTools = map[string]bool{toolCreateDraft: true}

// IsWriteTool reports whether name changes something outside Spirit.
func IsWriteTool(name string) bool { return writeTools[name] }

const (
	maxLogRunes = 240 // per tool input/output in the world log
	maxNotices  = 3   // notify_user calls per task
)

func schema(s string) json.RawMessage { return json.RawMessage(s) }

// Tool is a read-only tool given to the agents from outside: its
// definition and its handler together, as package mailtools' and package
// work's tools are, so one value serves both runners.
type Tool interface {
	Name() string
	Tool() llm.Tool
	Run(ctx context.Context, raw json.RawMessage) (string, error)
}

// agentTools are the agents' own tools, then the ones given in Options.
func (r *Runner) agentTools() []llm.Tool {
	ts := ownTools()
	for _, t := range r.opt.Tools {
		ts = append(ts, t.Tool())
	}
	return ts
}

// given is the tool of Options.Tools named name, if any.
func (r *Runner) given(name string) (Tool, bool) {
	for _, t := range r.opt.Tools {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

func ownTools() []llm.Tool {
	draftProps := `"conversation_id":{"type":"string","description":"conversation_id of the thread to reply to (from search_email); omit for a new email"},` +
		`"to":{"type":"array","items":{"type":"string"},"description":"recipients as \"Name <address>\"; for a reply, defaults to the sender of the message answered"},` +
		`"cc":{"type":"array","items":{"type":"string"}},` +
		`"subject":{"type":"string","description":"for a reply, defaults to Re: and the thread's subject"},` +
		`"body":{"type":"string","description":"the full text of the email, signed as the lawyer"}`
	return []llm.Tool{
		// The mail tools' definitions need no index.
		mailtools.SearchEmail{}.Tool(),
		mailtools.ReadThread{}.Tool(),
		{Name: toolCreateDraft, Description: "Save an email draft in the lawyer's Drafts folder (never sends). Changes the mailbox: " +
			"only after request_approval for exactly these arguments was approved.", Schema: schema(`{"type":"object","properties":{` + draftProps + `},"required":["body"]}`)},
		{Name: toolCreateReminder, Description: "Create a reminder for the lawyer.", Schema: schema(`{"type":"object","properties":{` +
			`"text":{"type":"string","description":"what to remind them of, e.g. call Marcy Howard"},` +
			`"due":{"type":"string","description":"local date and time, YYYY-MM-DD HH:MM"}},"required":["text","due"]}`)},
		{Name: toolListReminders, Description: "List the lawyer's open reminders.", Schema: schema(`{"type":"object","properties":{}}`)},
		{Name: toolNotifyUser, Description: "Tell the lawyer something short without waiting for an answer. Use sparingly.", Schema: schema(`{"type":"object","properties":{` +
			`"message":{"type":"string","maxLength":200}},"required":["message"]}`)},
		{Name: toolAskUser, Description: "Ask the lawyer a question you cannot answer from their mail; you pause until they answer.", Schema: schema(`{"type":"object","properties":{` +
			`"question":{"type":"string","maxLength":200},` +
			`"options":{"type":"array","items":{"type":"string"},"maxItems":4,"description":"short likely answers; the lawyer may also type their own"}},"required":["question"]}`)},
		{Name: toolRequestApproval, Description: "Ask the lawyer to approve an action that changes something (create_draft). They see it in full; you pause until they decide.", Schema: schema(`{"type":"object","properties":{` +
			`"action":{"type":"string","enum":["create_draft"]},` +
			`"args":{"type":"object","description":"exactly the arguments you will pass to the action","properties":{` + draftProps + `},"required":["body"]},` +
			`"reason":{"type":"string","description":"one line on why"}},"required":["action","args"]}`)},
		{Name: toolStepDone, Description: "Mark the current plan step done.", Schema: schema(`{"type":"object","properties":{` +
			`"note":{"type":"string","description":"what the step found or did, one line"}},"required":["note"]}`)},
		{Name: toolFinish, Description: "Finish the task. Call once, last.", Schema: schema(`{"type":"object","properties":{` +
			`"summary":{"type":"string","description":"one line for the lawyer: what was done, or what was not and why"},` +
			`"result":{"type":"string","description":"the outcome in full"}},"required":["summary"]}`)},
	}
}

func planTool() llm.Tool {
	return llm.Tool{Name: toolPlan, Description: "Give the plan: 1 to 6 short steps.", Schema: schema(`{"type":"object","properties":{` +
		`"steps":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":6}},"required":["steps"]}`)}
}

type planArgs struct {
	Steps []string `json:"steps"`
}

type finishArgs struct {
	Summary string `json:"summary"`
	Result  string `json:"result"`
}

// runTool runs one tool call that does not pause the agent, logs it, and
// returns its result. Failures are results the model can read, not
// errors: it may try another way.
func (r *Runner) runTool(ctx context.Context, t *Task, c llm.ToolCall) llm.ToolResult {
	if r.toolStarted != nil {
		r.toolStarted(t.Session, c.Name)
	}
	content, err := r.tool(ctx, t, c)
	res := llm.ToolResult{CallID: c.ID, Content: content}
	if err != nil {
		res = errResult(c, err.Error())
	}
	line := fmt.Sprintf("tool %s %s → %s", c.Name, trim(string(c.Input), maxLogRunes), trim(res.Content, maxLogRunes))
	if res.IsError {
		line = fmt.Sprintf("tool %s %s → error: %s", c.Name, trim(string(c.Input), maxLogRunes), trim(res.Content, maxLogRunes))
	}
	if lerr := r.opt.Store.Tx(ctx, func(tx *sql.Tx) error { return r.event(ctx, tx, t.Session, line) }); lerr != nil {
		r.opt.Log.Warn("agents: log tool call", "err", lerr)
	}
	return res
}

// errRefused marks a write without approval.
var errRefused = errors.New("refused")

func (r *Runner) tool(ctx context.Context, t *Task, c llm.ToolCall) (string, error) {
	switch c.Name {
	case toolSearchEmail:
		return mailtools.SearchEmail{Mail: r.mail()}.Run(ctx, c.Input)
	case toolReadThread:
		return mailtools.ReadThread{Mail: r.mail()}.Run(ctx, c.Input)
	case toolCreateDraft:
		return r.createDraft(ctx, t, c.Input)
	case toolCreateReminder:
		return r.createReminder(ctx, c.Input)
	case toolListReminders:
		if r.opt.Reminders == nil {
			return "", errors.New("reminders are not available")
		}
		rs, err := r.opt.Reminders.List(ctx)
		if err != nil {
			return "", fmt.Errorf("list failed: %w", err)
		}
		type rv struct {
			Text string `json:"text"`
			Due  string `json:"due,omitempty"`
		}
		out := []rv{}
		for _, rm := range rs {
			v := rv{Text: rm.Task}
			if rm.Due != nil {
				v.Due = r.local(*rm.Due)
			}
			out = append(out, v)
		}
		return mailtools.JSON(out)
	case toolNotifyUser:
		var a struct{ Message string }
		if err := json.Unmarshal(c.Input, &a); err != nil || strings.TrimSpace(a.Message) == "" {
			return "", errors.New("notify_user needs a message")
		}
		if t.State.Notices >= maxNotices {
			return "", errors.New("not shown: you have told the lawyer enough; put the rest in finish_task")
		}
		t.State.Notices++
		var n store.Nudge
		err := r.opt.Store.Tx(ctx, func(tx *sql.Tx) error {
			var err error
			n, err = r.opt.Store.CreateNudgeTx(ctx, tx, store.Nudge{Kind: nudge.KindInfo, Message: trim(a.Message, 200), Subject: nudge.TaskSubject(t.Session)})
			return err
		})
		if err != nil {
			return "", fmt.Errorf("could not show it: %w", err)
		}
		if r.opt.Listener != nil {
			r.opt.Listener.NudgeCreated(n)
		}
		return "shown", nil
	case toolStepDone:
		var a struct{ Note string }
		_ = json.Unmarshal(c.Input, &a)
		step := t.State.Step
		if step < len(t.State.Plan) {
			t.State.Step++
		}
		text := fmt.Sprintf("step %d/%d done: %s", min(step+1, len(t.State.Plan)), len(t.State.Plan), trim(a.Note, 200))
		if err := r.logActive(ctx, t, text); err != nil {
			return "", err
		}
		if t.State.Step < len(t.State.Plan) {
			return fmt.Sprintf("Next, step %d: %s", t.State.Step+1, t.State.Plan[t.State.Step]), nil
		}
		return "All steps are done: call finish_task.", nil
	case toolPlan:
		return "", errors.New("the plan is already set; carry it out")
	}
	if gt, ok := r.given(c.Name); ok {
		return gt.Run(ctx, c.Input)
	}
	return "", fmt.Errorf("unknown tool %q", c.Name)
}

func (r *Runner) createReminder(ctx context.Context, raw json.RawMessage) (string, error) {
	if r.opt.Reminders == nil {
		return "", errors.New("reminders are not available")
	}
	var a struct{ Text, Due string }
	if err := json.Unmarshal(raw, &a); err != nil || strings.TrimSpace(a.Text) == "" {
		return "", errors.New("create_reminder needs text and due")
	}
	now := r.opt.Now()
	due, err := time.ParseInLocation("2006-01-02 15:04", strings.TrimSpace(a.Due), now.Location())
	if err != nil {
		if due, err = time.Parse(time.RFC3339, strings.TrimSpace(a.Due)); err != nil {
			return "", fmt.Errorf("due %q is not YYYY-MM-DD HH:MM", a.Due)
		}
	}
	if !due.After(now) {
		return "", fmt.Errorf("due %s is in the past", r.local(due))
	}
	rm, err := r.opt.Reminders.Create(ctx, strings.TrimSpace(a.Text), &due, "", now)
	if err != nil {
		return "", fmt.Errorf("could not create it: %w", err)
	}
	return fmt.Sprintf("reminder %d set for %s", rm.ID, r.local(due)), nil
}

// mail is the mail the task agents' mail tools read: every message of a
// thread, with dates in the lawyer's time zone and the default limits.
func (r *Runner) mail() mailtools.Mail {
	return mailtools.Mail{Index: r.opt.Index, Clock: r.clock()}
}

func (r *Runner) clock() mailtools.Clock { return mailtools.Clock{Loc: r.opt.Now().Location()} }

func (r *Runner) local(t time.Time) string { return r.clock().Date(t) }
