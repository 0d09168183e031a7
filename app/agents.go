package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
)

// newRunner wires the task agents to Spirit: the configured provider, the
// mail accounts for drafts, the reminders, and the UI.
func (c *Core) newRunner() *task.Runner {
	return task.NewRunner(task.Options{
		Store:     c.store,
		Index:     index.New(c.store),
		Provider:  c.agentProvider,
		Drafts:    drafter{c},
		Reminders: c.rem,
		Listener:  agentListener{c},
		Now:       c.now,
		Log:       c.log.With("part", "agents"),
	})
}

// agentProvider returns the provider and model for task agents.
func (c *Core) agentProvider(ctx context.Context) (llm.Provider, string, error) {
	s, err := setup.Load(ctx, c.store)
	if err != nil {
		return nil, "", fmt.Errorf("model provider settings: %w", err)
	}
	if !s.Configured() {
		return nil, "", task.ErrNoProvider
	}
	sec, err := c.secrets()
	if err != nil {
		return nil, "", fmt.Errorf("keychain: %w", err)
	}
	p, err := setup.Provider(ctx, s, sec, c.llmCounters)
	if err != nil {
		return nil, "", err
	}
	if p == nil {
		return nil, "", task.ErrNoProvider
	}
	return p, s.Roles.Agent, nil
}

// drafter saves drafts through the account's own connector.
type drafter struct{ c *Core }

func (d drafter) CreateDraft(ctx context.Context, accountID int64, dr mail.Draft) (mail.DraftRef, error) {
	a, err := index.New(d.c.store).Account(ctx, accountID)
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("mail account %d: %w", accountID, err)
	}
	sec, err := d.c.secrets()
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("keychain: %w", err)
	}
	conn, err := accounts.Connect(ctx, a, sec, d.c.log)
	if err != nil {
		return mail.DraftRef{}, err
	}
	defer conn.Close()
	ref, err := conn.CreateDraft(ctx, dr)
	if err == nil {
		// Let the index learn of the draft soon, so the thread shows it.
		if m := d.c.mailSync(); m != nil {
			m.SyncNow()
		}
	}
	return ref, err
}

// agentListener shows what agents do.
type agentListener struct{ c *Core }

func (l agentListener) NudgeCreated(n store.Nudge) {
	notify := ""
	if n.Kind == task.KindResult {
		notify = "Spirit"
	}
	l.c.present(n, notify)
}

func (l agentListener) NudgeClosed(id int64) { l.c.withdraw(id) }

func (l agentListener) Working(n int) {
	if p := l.c.ui(); p != nil {
		p.Working(n)
	}
}

func (l agentListener) Verified(string) {
	if p := l.c.ui(); p != nil {
		p.TaskDone()
	}
}

// startTask starts an agent for what the lawyer asked, or tells them
// plainly why it cannot run.
func (c *Core) startTask(ctx context.Context, nt task.NewTask) (task.Task, error) {
	if c.tasks == nil {
		return task.Task{}, errors.New("agents are not running")
	}
	t, err := c.tasks.Start(ctx, nt)
	if errors.Is(err, task.ErrNoProvider) {
		c.nudge(ctx, store.Nudge{Kind: kindInfo, Message: task.ErrNoProvider.Error() + ".", ActionPrompt: nt.Prompt})
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
	if mid, ok := strings.CutPrefix(n.Subject, "glance:"); ok {
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
	_, err := c.startTask(ctx, nt)
	if errors.Is(err, task.ErrNoProvider) {
		return nil // already told, plainly
	}
	return err
}

// agentAnswer hands an answer to a question, approval or help nudge to
// the agent waiting on it.
func (c *Core) agentAnswer(ctx context.Context, n store.Nudge, choice, text string) error {
	if c.tasks == nil {
		return errors.New("agents are not running")
	}
	if choice == api.ActionSnooze {
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
func (c *Core) Agents(ctx context.Context) ([]task.Task, error) {
	return task.List(ctx, c.store, 200)
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
	t.State.Messages = nil // the conversation is internal; the log tells the story
	return api.AgentDetail{Task: t, Entries: es}, nil
}

// CancelAgent implements api.Backend.
func (c *Core) CancelAgent(ctx context.Context, session string) (task.Task, error) {
	if c.tasks == nil {
		return task.Task{}, errors.New("agents are not running")
	}
	t, err := c.tasks.Cancel(ctx, session, "the lawyer")
	switch {
	case errors.Is(err, task.ErrNotFound):
		return task.Task{}, fmt.Errorf("agent %s: %w", session, api.ErrNotFound)
	case errors.Is(err, task.ErrClosed):
		return task.Task{}, fmt.Errorf("agent %s has already ended: %w", session, api.ErrConflict)
	}
	return t, err
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
