package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
)

// startTask starts an agent for what the lawyer asked, or tells them
// plainly why it cannot run.
func (c *Core) startTask(ctx context.Context, nt task.NewTask) (task.Task, error) {
	t, err := c.tasks.Start(ctx, nt)
	if errors.Is(err, task.ErrNoProvider) {
		c.nudge(ctx, store.Nudge{Kind: nudge.KindInfo, Message: task.ErrNoProvider.Error() + ".", ActionPrompt: nt.Prompt})
		return task.Task{}, err
	}
	return t, err
}

// taskFromNudge starts the agent a nudge proposed: its action prompt, or
// the lawyer's own words when they typed an instruction instead.
func (c *Core) taskFromNudge(ctx context.Context, n store.Nudge, text string) error {
	prompt := n.ActionPrompt
	if text = strings.TrimSpace(text); text != "" {
		if prompt != "" {
			prompt = text + "\n(Spirit had proposed: " + n.ActionPrompt + ")"
		} else {
			prompt = text
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return nil
	}
	nt := task.NewTask{Prompt: prompt, Origin: fmt.Sprintf("nudge-%d", n.ID)}
	if mid, ok := nudge.GlanceMessage(n.Subject); ok {
		nt.Context = task.Context{MessageID: mid}
		// Name the thread, so the agent need not search for it.
		if id, subject, err := index.New(c.store).ThreadOfMessage(ctx, mid); err == nil {
			nt.Context.ThreadID, nt.Context.Subject = id, subject
		}
		// "Draft it" on a glance: the need is a draft, checked in code.
		// The lawyer's own words may ask for anything: a model judges.
		nt.Context.Check = task.CheckDraft
		if text != "" {
			nt.Context.Check = task.CheckModel
		}
	}
	if n.Kind == string(nudge.KindSuggestion) {
		var sg nudge.Suggestion
		if err := nudge.ReadDetail(n.Detail, &sg); err != nil {
			return fmt.Errorf("suggestion %d: %w", n.ID, err)
		}
		if sg.Thread > 0 && len(sg.To) > 0 {
			// The reply work proposed, on the thread and to the people
			// code checked. As accepted, the task may draft nothing else;
			// the lawyer's own words may ask for more (and every draft
			// still waits for their approval).
			nt.Context.ThreadID, nt.Context.Check = sg.Thread, task.CheckDraft
			if th, err := index.New(c.store).ReadEmailThread(ctx, sg.Thread); err == nil {
				nt.Context.Subject = th.Subject
			}
			if text == "" {
				nt.Context.To = sg.To
			} else {
				nt.Context.Check = task.CheckModel
			}
		}
	}
	_, err := c.startTask(ctx, nt)
	if errors.Is(err, task.ErrNoProvider) {
		return nil // already told, plainly
	}
	return err
}

// agentAnswer hands an answer to a question, approval or help nudge to
// the agent waiting on it.
func (c *Core) agentAnswer(ctx context.Context, n store.Nudge, choice, text string) error {
	if choice == nudge.Snooze {
		return nil // "not now": the agent keeps waiting
	}
	err := c.tasks.Answer(ctx, n, choice, text)
	if errors.Is(err, task.ErrClosed) || errors.Is(err, task.ErrNotFound) {
		c.log.Info("answer for an agent that has ended", "nudge", n.ID, "err", err)
		return nil
	}
	return err
}

// Agents implements api.Backend.
func (c *Core) Agents(ctx context.Context) ([]api.Agent, error) {
	ts, err := task.List(ctx, c.store, 200)
	if err != nil {
		return nil, err
	}
	return api.Views(ts, api.AgentOf), nil
}

// Agent implements api.Backend.
func (c *Core) Agent(ctx context.Context, session string) (api.AgentDetail, error) {
	t, err := task.Get(ctx, c.store, session)
	if errors.Is(err, task.ErrNotFound) {
		return api.AgentDetail{}, fmt.Errorf("agent %s: %w", session, api.ErrNotFound)
	}
	if err != nil {
		return api.AgentDetail{}, err
	}
	es, err := c.store.SessionEntries(ctx, session, 500)
	if err != nil {
		return api.AgentDetail{}, err
	}
	docs, err := c.store.Documents(ctx, session, 0)
	if err != nil {
		return api.AgentDetail{}, err
	}
	return api.AgentDetail{Agent: api.AgentOf(t), Entries: api.Views(es, api.EntryOf), Documents: docs}, nil
}

// CancelAgent implements api.Backend.
func (c *Core) CancelAgent(ctx context.Context, session string) (api.Agent, error) {
	t, err := c.tasks.Cancel(ctx, session, "the lawyer")
	switch {
	case errors.Is(err, task.ErrNotFound):
		return api.Agent{}, fmt.Errorf("agent %s: %w", session, api.ErrNotFound)
	case errors.Is(err, task.ErrClosed):
		return api.Agent{}, fmt.Errorf("agent %s has already ended: %w", session, api.ErrConflict)
	}
	return api.AgentOf(t), err
}

// agentsHealth summarises the agents for /health.
func (c *Core) agentsHealth(ctx context.Context, counters map[string]int64) api.Subsystem {
	open, err := task.List(ctx, c.store, 0, task.PhaseQueued, task.PhaseRunning, task.PhaseWaiting, task.PhaseFailed)
	if err != nil {
		return api.Subsystem{State: "error", Detail: err.Error()}
	}
	var waiting, failed int64
	for _, t := range open {
		switch t.Phase {
		case task.PhaseWaiting:
			waiting++
		case task.PhaseFailed:
			failed++
		}
	}
	running := int64(c.tasks.Running())
	counters["agents_running"], counters["agents_waiting"], counters["agents_failed"] = running, waiting, failed
	state := "idle"
	switch {
	case running > 0:
		state = "working"
	case waiting+failed > 0:
		state = "waiting"
	}
	return api.Subsystem{State: state, Detail: fmt.Sprintf("%d running, %d waiting for you, %d need help", running, waiting, failed)}
}
