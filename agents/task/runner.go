package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// Drafter saves a draft in one of the lawyer's mail accounts. It changes
// the mailbox: the runner calls it only for an approved action.
type Drafter interface {
	CreateDraft(ctx context.Context, accountID int64, d mail.Draft) (mail.DraftRef, error)
}

// Reminders makes and lists the lawyer's reminders.
type Reminders interface {
	Create(ctx context.Context, task string, due *time.Time, every string, heardAt time.Time) (store.Reminder, error)
	List(ctx context.Context) ([]store.Reminder, error)
}

// Listener is told what agents do, to show it. Calls come from any
// goroutine and must not block.
type Listener interface {
	// NudgeCreated shows a question, approval, help or result nudge.
	NudgeCreated(store.Nudge)
	// NudgeClosed withdraws a nudge the agent no longer waits on.
	NudgeClosed(id int64)
	// Working reports how many agents run now.
	Working(n int)
	// Verified says an agent's result was checked and is done.
	Verified(session string)
	// Lifecycle reports a lifecycle record just written for session
	// (start, active, retry, finish, verified, failed).
	Lifecycle(session string, status store.AgentStatus)
}

// Budget bounds one run of an agent; past a bound the agent saves its
// state and goes on in a later run. MaxRuns bounds all runs together.
type Budget struct {
	Steps  int           // model calls per run
	Wall   time.Duration // wall-clock time per run
	Tokens int           // input+output tokens per run
	// MaxRuns is how many runs an agent gets in all (budget
	// continuations, restarts and retries after errors) before it fails.
	MaxRuns int
	// Pause is how long a budget-limited agent waits before its next run.
	Pause time.Duration
}

// DefaultBudget suits drafting a reply: a few searches and reads, an
// approval, a draft.
var DefaultBudget = Budget{Steps: 12, Wall: 3 * time.Minute, Tokens: 120_000, MaxRuns: 8, Pause: 2 * time.Second}

// MaxRetries is how often the verifier sends an agent back with guidance
// before it fails and asks the lawyer for help.
const MaxRetries = 3

// Options configure a Runner.
type Options struct {
	Store *store.Store
	Index *index.Index
	// Provider returns the model provider and the model for agents;
	// ErrNoProvider when none is configured.
	Provider  func(ctx context.Context) (llm.Provider, string, error)
	Drafts    Drafter
	Reminders Reminders
	Listener  Listener
	// Tools are more read-only tools for the agents (the app's
	// list_open_commitments), the same values the work runner is given.
	Tools  []Tool
	Budget Budget
	// Concurrency is how many agents run at once; 0 means 2.
	Concurrency int
	Now         func() time.Time
	Log         *slog.Logger
}

// Runner starts, runs, pauses, resumes and cancels task agents.
type Runner struct {
	opt  Options
	wake chan struct{}

	mu      sync.Mutex
	running map[string]context.CancelFunc
	wg      sync.WaitGroup

	// toolStarted, if set (benchmarks), is called as each tool call starts.
	toolStarted func(session, tool string)
}

// NewRunner returns a runner; call Run to let agents work.
func NewRunner(opt Options) *Runner {
	if opt.Budget == (Budget{}) {
		opt.Budget = DefaultBudget
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = 2
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Index == nil {
		opt.Index = index.New(opt.Store)
	}
	return &Runner{opt: opt, wake: make(chan struct{}, 1), running: map[string]context.CancelFunc{}}
}

// NewTask is what the lawyer asked for.
type NewTask struct {
	Prompt  string
	Need    string // the criterion for done; derived from Prompt when empty
	Origin  string // "nudge-12", "voice", "bubble", "api"
	Context Context
}

// Start records a new agent and queues its first run. Without a model
// provider no agent is started: ErrNoProvider says what to do.
func (r *Runner) Start(ctx context.Context, nt NewTask) (Task, error) {
	nt.Prompt = strings.TrimSpace(nt.Prompt)
	if nt.Prompt == "" {
		return Task{}, errors.New("start agent: empty task")
	}
	if _, _, err := r.opt.Provider(ctx); err != nil {
		return Task{}, fmt.Errorf("start agent: %w", err)
	}
	if nt.Context.Check == "" && looksLikeDraft(nt.Prompt) {
		nt.Context.Check = CheckDraft
	}
	if nt.Need == "" {
		nt.Need = needFor(nt)
	}
	session := newSession()
	cj, err := json.Marshal(nt.Context)
	if err != nil {
		return Task{}, fmt.Errorf("start agent: %w", err)
	}
	now := r.opt.Now()
	err = r.opt.Store.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tasks (session, prompt, need, origin, context, phase, state, created, updated)
			VALUES (?, ?, ?, ?, ?, 'queued', '{}', ?, ?)`, session, nt.Prompt, nt.Need, nt.Origin, string(cj), now.UnixMilli(), now.UnixMilli()); err != nil {
			return err
		}
		_, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusStart, Session: session,
			Text: trim(nt.Prompt, 300) + originNote(nt.Origin), Need: nt.Need})
		return err
	})
	if err != nil {
		return Task{}, fmt.Errorf("start agent: %w", err)
	}
	r.poke()
	return Get(ctx, r.opt.Store, session)
}

func originNote(origin string) string {
	if origin == "" {
		return ""
	}
	return " (from " + origin + ")"
}

// looksLikeDraft tells a drafting task, whose need code can check.
func looksLikeDraft(prompt string) bool {
	p := strings.ToLower(prompt)
	return strings.Contains(p, "draft") && (strings.Contains(p, "reply") || strings.Contains(p, "respon") ||
		strings.Contains(p, "email") || strings.Contains(p, "answer") || strings.Contains(p, "note to"))
}

func needFor(nt NewTask) string {
	if nt.Context.Check == CheckDraft {
		return "a draft for this task is saved in the mailbox's Drafts, approved by the lawyer"
	}
	return "the task is done as asked: " + trim(nt.Prompt, 200)
}

// poke wakes the dispatcher.
func (r *Runner) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run dispatches queued agents until ctx ends, then waits for the runs
// under way to save their state. Agents whose run vanished with an
// earlier process are resumed first (see Keep).
func (r *Runner) Run(ctx context.Context) error {
	defer r.wg.Wait()
	if _, err := r.Keep(ctx, r.opt.Now()); err != nil {
		r.opt.Log.Error("agents: keeper at start", "err", err)
	}
	for {
		next := r.dispatch(ctx)
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-r.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// dispatch starts runs for queued agents and returns how long to wait
// before looking again.
func (r *Runner) dispatch(ctx context.Context) time.Duration {
	wait := time.Minute
	queued, err := List(ctx, r.opt.Store, 0, PhaseQueued)
	if err != nil {
		if ctx.Err() == nil {
			r.opt.Log.Error("agents: list queued", "err", err)
		}
		return 5 * time.Second
	}
	now := r.opt.Now()
	// Oldest first.
	for i := len(queued) - 1; i >= 0; i-- {
		t := queued[i]
		if d := t.State.NotBefore.Sub(now); d > 0 {
			wait = min(wait, d)
			continue
		}
		// The run is registered before the claim, so the keeper never
		// takes a claimed task for one whose run vanished.
		rctx, cancel := context.WithCancel(ctx)
		r.mu.Lock()
		busy := len(r.running) >= r.opt.Concurrency
		_, already := r.running[t.Session]
		if !busy && !already {
			r.running[t.Session] = cancel
		}
		r.mu.Unlock()
		if busy {
			cancel()
			break
		}
		if already {
			cancel()
			continue
		}
		if !r.claim(ctx, t.Session) {
			r.mu.Lock()
			delete(r.running, t.Session)
			r.mu.Unlock()
			cancel()
			continue
		}
		r.mu.Lock()
		n := len(r.running)
		r.mu.Unlock()
		r.working(n)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.runTask(rctx, t.Session)
			cancel()
			r.mu.Lock()
			delete(r.running, t.Session)
			n := len(r.running)
			r.mu.Unlock()
			r.working(n)
			r.poke()
		}()
	}
	return wait
}

func (r *Runner) working(n int) {
	if r.opt.Listener != nil {
		r.opt.Listener.Working(n)
	}
}

// Running is the number of agents running now.
func (r *Runner) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.running)
}

// claim moves a queued task to running; false if something else got it.
func (r *Runner) claim(ctx context.Context, session string) bool {
	var ok bool
	err := r.opt.Store.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET phase = 'running', runs = runs + 1, updated = ?
			WHERE session = ? AND phase = 'queued'`, r.opt.Now().UnixMilli(), session)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	if err != nil {
		r.opt.Log.Error("agents: claim", "session", session, "err", err)
		return false
	}
	return ok
}

// outcome is how a run ended.
type outcome int

const (
	outPaused   outcome = iota // waits for the lawyer
	outFinished                // called finish_task
	outBudget                  // a per-run budget ran out
)

// runTask runs one agent until it pauses, finishes, runs out of budget or
// fails, and saves where it stands.
func (r *Runner) runTask(ctx context.Context, session string) {
	t, err := Get(ctx, r.opt.Store, session)
	if err != nil {
		r.opt.Log.Error("agents: load", "session", session, "err", err)
		return
	}
	out, err := r.execute(ctx, &t)
	// State is saved with a context that outlives a shutdown, so a run
	// stopped by Quit resumes on the next start.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	switch {
	case err != nil && ctx.Err() != nil:
		r.interrupted(sctx, t)
	case err != nil:
		r.runFailed(sctx, t, err)
	case out == outBudget:
		r.continueLater(sctx, t)
	case out == outFinished:
		r.verify(sctx, t)
	}
}

// interrupted saves a run stopped by shutdown or cancel; a cancelled task
// is already closed and stays so.
func (r *Runner) interrupted(ctx context.Context, t Task) {
	err := r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
		cur.State = t.State
		cur.Phase = PhaseQueued
		return r.event(ctx, tx, t.Session, "interrupted; will resume from the saved state")
	})
	if err != nil && !errors.Is(err, ErrClosed) {
		r.opt.Log.Error("agents: save interrupted run", "session", t.Session, "err", err)
	}
}

// continueLater queues the next run after a budget checkpoint.
func (r *Runner) continueLater(ctx context.Context, t Task) {
	if t.Runs >= r.opt.Budget.MaxRuns {
		r.fail(ctx, t.Session, fmt.Sprintf("gave up after %d runs without finishing", t.Runs))
		return
	}
	err := r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
		cur.State = t.State
		cur.State.NotBefore = r.opt.Now().Add(r.opt.Budget.Pause)
		cur.Phase = PhaseQueued
		_, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusActive, Session: t.Session,
			Text: "run budget reached; continuing in a later run"})
		return err
	})
	if err != nil {
		r.opt.Log.Error("agents: continue later", "session", t.Session, "err", err)
	}
	r.poke()
}

// runFailed handles a run that ended in an error: transient errors get
// another run later, until the run budget is spent.
func (r *Runner) runFailed(ctx context.Context, t Task, runErr error) {
	r.opt.Log.Warn("agents: run failed", "session", t.Session, "err", runErr)
	// A rejected key or request (no model set, a model the provider does
	// not have) will not mend by waiting: the lawyer has to change Settings.
	permanent := errors.Is(runErr, ErrNoProvider) || errors.Is(runErr, errFatal) ||
		errors.Is(runErr, llm.ErrAuth) || errors.Is(runErr, llm.ErrBadRequest)
	if permanent || t.Runs >= r.opt.Budget.MaxRuns {
		r.fail(ctx, t.Session, "stopped: "+plain(runErr))
		return
	}
	err := r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
		cur.State = t.State
		cur.State.NotBefore = r.opt.Now().Add(time.Duration(t.Runs) * 10 * time.Second)
		cur.Phase = PhaseQueued
		return r.event(ctx, tx, t.Session, "run failed, will retry: "+trim(runErr.Error(), 200))
	})
	if err != nil {
		r.opt.Log.Error("agents: save failed run", "session", t.Session, "err", err)
	}
}

// errFatal marks errors no later run can mend (a model that keeps
// ignoring the protocol).
var errFatal = errors.New("agent cannot go on")

func plain(err error) string {
	// A provider's error says what to fix after its "provider (model): "
	// prefix; the wrapping before it is for the log.
	var le *llm.Error
	if errors.As(err, &le) {
		msg := le.Error()
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return msg
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) && !errors.Is(err, ErrNoProvider) {
		return msg[i+2:]
	}
	return msg
}

// transition changes a task in one transaction, only if it is in one of
// from; otherwise ErrClosed.
func (r *Runner) transition(ctx context.Context, session string, from []Phase, fn func(tx *sql.Tx, t *Task) error) error {
	return r.opt.Store.Tx(ctx, func(tx *sql.Tx) error {
		t, err := getTask(ctx, tx, session)
		if err != nil {
			return err
		}
		ok := false
		for _, p := range from {
			ok = ok || t.Phase == p
		}
		if !ok {
			return fmt.Errorf("%s is %s: %w", session, t.Phase, ErrClosed)
		}
		if err := fn(tx, &t); err != nil {
			return err
		}
		return saveTx(ctx, tx, t, r.opt.Now())
	})
}

// event logs a fact about an agent (a step, a tool call, an answer).
func (r *Runner) event(ctx context.Context, tx *sql.Tx, session, text string) error {
	_, err := r.opt.Store.AppendEventTx(ctx, tx, store.Event{Source: "agent", Identifier: session, Text: trim(text, 600)})
	return err
}

// fail marks an agent failed and asks the lawyer for help.
func (r *Runner) fail(ctx context.Context, session, why string) {
	var n store.Nudge
	var closed int64
	err := r.transition(ctx, session, []Phase{PhaseQueued, PhaseRunning, PhaseWaiting}, func(tx *sql.Tx, t *Task) error {
		var err error
		if closed, err = r.withdrawTx(ctx, tx, t); err != nil {
			return err
		}
		t.Phase, t.State.Pending = PhaseFailed, nil
		if _, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusFailed, Session: session, Text: why}); err != nil {
			return err
		}
		n, err = r.helpNudgeTx(ctx, tx, t, why)
		return err
	})
	if err != nil {
		r.opt.Log.Error("agents: mark failed", "session", session, "err", err)
		return
	}
	if r.opt.Listener != nil {
		if closed > 0 {
			r.opt.Listener.NudgeClosed(closed)
		}
		r.opt.Listener.NudgeCreated(n)
	}
}

// helpNudgeTx raises the "Need help" nudge for a failed agent and makes
// the agent wait on it.
func (r *Runner) helpNudgeTx(ctx context.Context, tx *sql.Tx, t *Task, why string) (store.Nudge, error) {
	n, err := r.opt.Store.CreateNudgeTx(ctx, tx, store.Nudge{Kind: nudge.KindHelp,
		Message:      trim(fmt.Sprintf("I couldn't finish “%s”: %s", trim(t.Prompt, 80), why), 240),
		ActionPrompt: t.Prompt, Subject: nudge.TaskSubject(t.Session)})
	if err != nil {
		return store.Nudge{}, err
	}
	t.Waiting = n.ID
	return n, nil
}

// withdrawTx expires the nudge t waits on, if any, and returns its id.
func (r *Runner) withdrawTx(ctx context.Context, tx *sql.Tx, t *Task) (int64, error) {
	if t.Waiting == 0 {
		return 0, nil
	}
	id := t.Waiting
	t.Waiting = 0
	return id, r.opt.Store.CloseNudgeTx(ctx, tx, id, store.NudgeExpired)
}

// stopRun ends the run of session in this process, if it has one.
func (r *Runner) stopRun(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cancel, ok := r.running[session]; ok {
		cancel()
	}
}

// Cancel stops an agent: its run ends, its open question or approval is
// withdrawn, and it is logged as failed with the reason.
func (r *Runner) Cancel(ctx context.Context, session, by string) (Task, error) {
	var closed int64
	err := r.transition(ctx, session, []Phase{PhaseQueued, PhaseRunning, PhaseWaiting, PhaseFailed}, func(tx *sql.Tx, t *Task) error {
		var err error
		if closed, err = r.withdrawTx(ctx, tx, t); err != nil {
			return err
		}
		if err := denyPendingTx(ctx, tx, session, r.opt.Now()); err != nil {
			return err
		}
		t.Phase, t.State.Pending = PhaseCancelled, nil
		_, err = r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusFailed, Session: session,
			Text: "cancelled by " + by})
		return err
	})
	if err != nil {
		return Task{}, fmt.Errorf("cancel %s: %w", session, err)
	}
	r.stopRun(session)
	if closed > 0 && r.opt.Listener != nil {
		r.opt.Listener.NudgeClosed(closed)
	}
	return Get(ctx, r.opt.Store, session)
}

// Answer hands the lawyer's answer to the agent waiting on nudge n and
// queues it to go on. choice is nudge.Accept, nudge.Dismiss, nudge.Edit (an
// approval with an edited body in text) or a nudge.AnswerChoice (a
// question); text is what the lawyer typed. It is a nudge.Responder for
// the kinds question, approval and help.
func (r *Runner) Answer(ctx context.Context, n store.Nudge, choice, text string) error {
	session, ok := nudge.TaskSession(n.Subject)
	if !ok {
		return fmt.Errorf("nudge %d belongs to no agent: %w", n.ID, ErrNotFound)
	}
	text = strings.TrimSpace(text)
	var closed bool
	err := r.transition(ctx, session, []Phase{PhaseWaiting, PhaseFailed}, func(tx *sql.Tx, t *Task) error {
		if t.Waiting != n.ID {
			return fmt.Errorf("%s no longer waits on nudge %d: %w", session, n.ID, ErrClosed)
		}
		t.Waiting = 0
		switch n.Kind {
		case nudge.KindQuestion:
			return r.answerQuestion(ctx, tx, t, choice, text)
		case nudge.KindApproval:
			return r.answerApproval(ctx, tx, t, choice, text)
		case nudge.KindHelp:
			if choice == nudge.Dismiss {
				t.Phase = PhaseCancelled
				closed = true
				_, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusFailed, Session: session,
					Text: "the lawyer chose to stop"})
				return err
			}
			guidance := "The lawyer asked you to try again."
			if text != "" {
				guidance = "The lawyer's guidance: " + text
			}
			t.Attempts = 0
			t.Escalated = false
			t.Phase = PhaseQueued
			t.State.NotBefore = time.Time{}
			r.addGuidance(t, guidance)
			_, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusRetry, Session: session,
				Text: "human input: " + trim(guidance, 300)})
			return err
		}
		return fmt.Errorf("nudge kind %q is not an agent's", n.Kind)
	})
	if err != nil {
		return fmt.Errorf("answer agent %s: %w", session, err)
	}
	if !closed {
		r.poke()
	}
	return nil
}

func (r *Runner) answerQuestion(ctx context.Context, tx *sql.Tx, t *Task, choice, text string) error {
	var answer string
	option, isOption := nudge.AnswerOption(choice)
	switch {
	case isOption:
		answer = option
		if text != "" {
			answer += " — " + text
		}
	case choice == nudge.Dismiss:
		answer = ""
	default:
		answer = text
	}
	result := "The lawyer answered: " + answer
	if answer == "" {
		result = "The lawyer dismissed the question without answering. Do not ask again; finish with what you can and say what is missing."
	}
	if err := r.event(ctx, tx, t.Session, "answer: "+orDash(answer)); err != nil {
		return err
	}
	return r.resume(t, result)
}

func orDash(s string) string {
	if s == "" {
		return "(dismissed)"
	}
	return s
}

// resume gives the paused call its result and queues the agent.
func (r *Runner) resume(t *Task, result string) error {
	if t.State.Pending == nil {
		return fmt.Errorf("%s has no paused call", t.Session)
	}
	results := append(t.State.Done, llm.ToolResult{CallID: t.State.Pending.ID, Content: result})
	t.State.Messages = append(t.State.Messages, llm.Message{Role: llm.RoleTool, ToolResults: results})
	t.State.Pending, t.State.Done, t.State.Approval = nil, nil, 0
	t.State.NotBefore = time.Time{}
	t.Phase = PhaseQueued
	return nil
}

// addGuidance puts a note for the agent's next turn into its conversation.
func (r *Runner) addGuidance(t *Task, text string) {
	msgs := t.State.Messages
	// Both wire protocols carry text after tool results in the same turn,
	// so guidance joins the last user or tool turn rather than breaking
	// the turn order.
	if last := len(msgs) - 1; last >= 0 && (msgs[last].Role == llm.RoleUser || msgs[last].Role == llm.RoleTool) {
		msgs[last].Text = strings.TrimSpace(msgs[last].Text + "\n\n" + text)
		return
	}
	t.State.Messages = append(msgs, llm.Message{Role: llm.RoleUser, Text: text})
}
