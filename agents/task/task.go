// Package task runs Spirit's task agents: what happens after the lawyer
// says yes. An agent plans a few steps, carries them out with tool calls,
// asks the lawyer when it must (questions and approvals pause it, with its
// state saved), and finishes with a result that a verifier checks against
// the agent's need. A keeper, pure code on a timer, makes sure no agent is
// left active forever.
//
// Every step, tool call, question and answer goes to the world log, with
// the agent's lifecycle (start → active → finish → verified, retry,
// failed). The tasks table holds only what a restart needs to go on.
package task

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
)

// Phase is where a task stands in Spirit's hands.
type Phase string

const (
	PhaseQueued    Phase = "queued"    // ready for its next run
	PhaseRunning   Phase = "running"   // a run is under way
	PhaseWaiting   Phase = "waiting"   // waits for the lawyer (question, approval, help)
	PhaseFinished  Phase = "finished"  // done and verified
	PhaseCancelled Phase = "cancelled" // stopped by the lawyer
	PhaseFailed    Phase = "failed"    // gave up; the lawyer may still help
)

// Open reports whether the task can still run again.
func (p Phase) Open() bool {
	return p == PhaseQueued || p == PhaseRunning || p == PhaseWaiting
}

// Checks name how the verifier decides on a need.
const (
	CheckDraft = "draft" // code: a draft was saved in the mailbox by this task
	CheckModel = "model" // a model compares the result with the need
)

// Context is what the agent starts from besides its prompt.
type Context struct {
	// MessageID and Subject name the email the task is about, when it
	// came from a glance nudge.
	MessageID string `json:"message_id,omitempty"`
	Subject   string `json:"subject,omitempty"`
	ThreadID  int64  `json:"conversation_id,omitempty"` // its thread in the mail index
	// To, if set, are the only recipients a draft of this task may have,
	// on ThreadID only: the lawyer accepted a reply Spirit proposed, to
	// the thread's people as code read them (package proposal), and the
	// agent may not add or swap anyone (resolveDraft).
	To []string `json:"to,omitempty"`
	// Check, if set, lets the verifier decide in code (CheckDraft).
	Check string `json:"check,omitempty"`
	// Document, if set, is the title of the document the verified result
	// is kept as (a meeting brief): the lawyer reads and copies it in the
	// bubble and in Activity.
	Document string `json:"document,omitempty"`
}

// Task is one agent's saved state.
type Task struct {
	Session   string            `json:"session"`
	Prompt    string            `json:"prompt"`
	Need      string            `json:"need"`
	Origin    string            `json:"origin,omitempty"`
	Context   Context           `json:"context"`
	Phase     Phase             `json:"phase"`
	Status    store.AgentStatus `json:"status"` // the latest lifecycle record
	Waiting   int64             `json:"waiting,omitempty"`
	State     State             `json:"state"`
	Attempts  int               `json:"attempts"`
	Runs      int               `json:"runs"`
	Escalated bool              `json:"escalated,omitempty"`
	Result    string            `json:"result,omitempty"`
	Created   time.Time         `json:"created"`
	Updated   time.Time         `json:"updated"`
	// StatusAt is when the latest lifecycle record was written.
	StatusAt time.Time `json:"status_at"`
}

// State is an agent's working memory, saved after every turn so a paused,
// interrupted or budget-limited agent goes on where it stopped.
type State struct {
	Plan []string `json:"plan,omitempty"`
	// Step is the index of the plan step under way; len(Plan) means all
	// steps are done and the agent is finishing.
	Step     int           `json:"step"`
	Messages []llm.Message `json:"messages,omitempty"`
	// Pending is the tool call (ask_user, request_approval) that paused
	// the agent; the lawyer's answer becomes its result. Done holds the
	// results of the calls of the same turn that ran before the pause.
	Pending *llm.ToolCall    `json:"pending,omitempty"`
	Done    []llm.ToolResult `json:"done,omitempty"`
	// Approval is the approvals row Pending asked for.
	Approval int64 `json:"approval,omitempty"`
	// Budgets used over all runs.
	Tokens     int `json:"tokens"`
	ModelCalls int `json:"model_calls"`
	Notices    int `json:"notices,omitempty"` // notify_user calls
	Nudged     int `json:"nudged,omitempty"`  // replies without a tool call in a row
	// NotBefore holds a budget-limited agent back until then.
	NotBefore time.Time `json:"not_before,omitzero"`
	// Drafts saved by this task (create_draft), for the verifier.
	Drafts []SavedDraft `json:"drafts,omitempty"`
	// Declined is set when the lawyer denied an approval and approved
	// nothing after it: finishing without the action is then honest.
	Declined bool   `json:"declined,omitempty"`
	Summary  string `json:"summary,omitempty"`
}

// SavedDraft records a draft the agent saved.
type SavedDraft struct {
	AccountID int64  `json:"account_id"`
	RemoteID  string `json:"remote_id"`
	MessageID string `json:"message_id,omitempty"`
	Folder    string `json:"folder,omitempty"`
	InReplyTo string `json:"in_reply_to,omitempty"`
	Subject   string `json:"subject"`
}

// ErrNotFound is returned for an unknown session.
var ErrNotFound = errors.New("no such agent")

// ErrNoProvider means no model provider is configured: agents need one.
var ErrNoProvider = errors.New("Spirit needs a model provider to do tasks: add one on the Model provider page of Settings")

// ErrClosed is returned when acting on a task that has already ended.
var ErrClosed = errors.New("agent has already ended")

func newSession() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "task-" + hex.EncodeToString(b[:])
}

const taskCols = `t.session, t.prompt, t.need, t.origin, t.context, t.phase, coalesce(t.waiting, 0), t.state,
	t.attempts, t.runs, t.escalated, t.result, t.created, t.updated, coalesce(a.status, 'start'), coalesce(a.updated, t.created)`

const taskFrom = ` FROM tasks t LEFT JOIN agents a ON a.session = t.session`

type scanner interface{ Scan(dest ...any) error }

func scanTask(sc scanner) (Task, error) {
	var (
		t                          Task
		ctxJSON, stateJSON         string
		created, updated, statusAt int64
		escalated                  int
	)
	if err := sc.Scan(&t.Session, &t.Prompt, &t.Need, &t.Origin, &ctxJSON, &t.Phase, &t.Waiting, &stateJSON,
		&t.Attempts, &t.Runs, &escalated, &t.Result, &created, &updated, &t.Status, &statusAt); err != nil {
		return Task{}, err
	}
	if ctxJSON != "" {
		if err := json.Unmarshal([]byte(ctxJSON), &t.Context); err != nil {
			return Task{}, fmt.Errorf("task %s: bad context: %w", t.Session, err)
		}
	}
	if err := json.Unmarshal([]byte(stateJSON), &t.State); err != nil {
		return Task{}, fmt.Errorf("task %s: bad saved state: %w", t.Session, err)
	}
	t.Escalated = escalated != 0
	t.Created, t.Updated, t.StatusAt = time.UnixMilli(created), time.UnixMilli(updated), time.UnixMilli(statusAt)
	return t, nil
}

// Get returns one task.
func Get(ctx context.Context, st *store.Store, session string) (Task, error) {
	t, err := getTask(ctx, st.Reader(), session)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Task{}, fmt.Errorf("load agent %s: %w", session, err)
	}
	return t, err
}

// rowQuerier is what *sql.DB and *sql.Tx have in common for one row.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func getTask(ctx context.Context, q rowQuerier, session string) (Task, error) {
	t, err := scanTask(q.QueryRowContext(ctx, `SELECT `+taskCols+taskFrom+` WHERE t.session = ?`, session))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("%s: %w", session, ErrNotFound)
	}
	return t, err
}

// List returns tasks, newest first; only those in phases when given.
// limit <= 0 means 200.
func List(ctx context.Context, st *store.Store, limit int, phases ...Phase) ([]Task, error) {
	if limit <= 0 {
		limit = 200
	}
	q := `SELECT ` + taskCols + taskFrom
	args := []any{}
	if len(phases) > 0 {
		q += ` WHERE t.phase IN (` + strings.TrimSuffix(strings.Repeat("?,", len(phases)), ",") + `)`
		for _, p := range phases {
			args = append(args, string(p))
		}
	}
	q += ` ORDER BY t.created DESC, t.rowid DESC LIMIT ?`
	args = append(args, limit)
	rows, err := st.Reader().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	var out []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("list agents: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	return out, nil
}

// saveTx writes t's mutable columns.
func saveTx(ctx context.Context, tx *sql.Tx, t Task, now time.Time) error {
	state, err := json.Marshal(t.State)
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	var waiting any
	if t.Waiting > 0 {
		waiting = t.Waiting
	}
	esc := 0
	if t.Escalated {
		esc = 1
	}
	_, err = tx.ExecContext(ctx, `UPDATE tasks SET need = ?, phase = ?, waiting = ?, state = ?, attempts = ?, runs = ?,
		escalated = ?, result = ?, updated = ? WHERE session = ?`,
		t.Need, string(t.Phase), waiting, string(state), t.Attempts, t.Runs, esc, t.Result, now.UnixMilli(), t.Session)
	return err
}

// trim shortens s for the world log, keeping it on one line.
func trim(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
