package api

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
)

// The API's own view of what it sends: the shapes below are the wire format,
// and a change to an internal type reaches a client only through the
// conversion function of its view (AgentOf, NudgeOf, EntryOf). Their JSON
// is what the API sent before it had views (views_test.go holds it to
// that). Enumerations keep the named string types of their packages
// (task.Phase, store.AgentStatus, store.Kind, store.NudgeState): their
// values are the vocabulary clients read.

// Agent is what a client may see of a task agent: its saved state without
// its conversation with the model, which stays in the process; the world
// log (AgentDetail.Entries) tells the agent's story instead.
type Agent struct {
	Session   string            `json:"session"`
	Prompt    string            `json:"prompt"`
	Need      string            `json:"need"`
	Origin    string            `json:"origin,omitempty"`
	Context   AgentContext      `json:"context"`
	Phase     task.Phase        `json:"phase"`
	Status    store.AgentStatus `json:"status"` // the latest lifecycle record
	Waiting   int64             `json:"waiting,omitempty"`
	State     AgentState        `json:"state"`
	Attempts  int               `json:"attempts"`
	Runs      int               `json:"runs"`
	Escalated bool              `json:"escalated,omitempty"`
	Result    string            `json:"result,omitempty"`
	Created   time.Time         `json:"created"`
	Updated   time.Time         `json:"updated"`
	// StatusAt is when the latest lifecycle record was written.
	StatusAt time.Time `json:"status_at"`
}

// AgentContext is what an agent starts from besides its prompt.
type AgentContext struct {
	MessageID string `json:"message_id,omitempty"`
	Subject   string `json:"subject,omitempty"`
	ThreadID  int64  `json:"conversation_id,omitempty"` // its thread in the mail index
	// To are the only recipients the task's draft may have (a reply the
	// lawyer accepted as Spirit proposed it).
	To    []string `json:"to,omitempty"`
	Check string   `json:"check,omitempty"`
	// Document is the title the agent's result is kept under (a brief).
	Document string `json:"document,omitempty"`
}

// AgentState is an agent's working memory without the conversation: its
// plan and where it stands in it, what paused it, its budgets and drafts.
type AgentState struct {
	Plan []string `json:"plan,omitempty"`
	// Step is the index of the plan step under way; len(Plan) means all
	// steps are done and the agent is finishing.
	Step int `json:"step"`
	// Pending is the tool call (ask_user, request_approval) that paused
	// the agent; Done the calls of the same turn that ran before it.
	Pending  *ToolCall    `json:"pending,omitempty"`
	Done     []ToolResult `json:"done,omitempty"`
	Approval int64        `json:"approval,omitempty"`
	// Budgets used over all runs.
	Tokens     int `json:"tokens"`
	ModelCalls int `json:"model_calls"`
	Notices    int `json:"notices,omitempty"`
	Nudged     int `json:"nudged,omitempty"`
	// NotBefore holds a budget-limited agent back until then.
	NotBefore time.Time `json:"not_before,omitzero"`
	Drafts    []Draft   `json:"drafts,omitempty"`
	Declined  bool      `json:"declined,omitempty"`
	Summary   string    `json:"summary,omitempty"`
}

// ToolCall is a tool call an agent made. Its field names are capitalised on
// the wire, as they always were.
type ToolCall struct {
	ID    string          `json:"ID"`
	Name  string          `json:"Name"`
	Input json.RawMessage `json:"Input"`
}

// ToolResult answers the ToolCall whose ID is CallID.
type ToolResult struct {
	CallID  string `json:"CallID"`
	Content string `json:"Content"`
	IsError bool   `json:"IsError"`
}

// Draft is a draft an agent saved in a mailbox.
type Draft struct {
	AccountID int64  `json:"account_id"`
	RemoteID  string `json:"remote_id"`
	MessageID string `json:"message_id,omitempty"`
	Folder    string `json:"folder,omitempty"`
	InReplyTo string `json:"in_reply_to,omitempty"`
	Subject   string `json:"subject"`
}

// AgentDetail is the body of GET /agents/{id}: the agent (plan, step,
// phase, result) and its history from the world log.
type AgentDetail struct {
	Agent
	Entries []Entry `json:"entries"`
	// Documents are what the agent wrote for the lawyer to keep (a
	// meeting brief), oldest first.
	Documents []store.Document `json:"documents,omitempty"`
}

// Nudge is a proposal shown to the lawyer, as the API sends it.
type Nudge struct {
	ID           int64     `json:"id"`
	Created      time.Time `json:"created"`
	Kind         string    `json:"kind"` // glance, reminder, question, approval, help, info, …
	Message      string    `json:"message"`
	ActionPrompt string    `json:"action_prompt,omitempty"`
	Subject      string    `json:"subject,omitempty"` // what it is about, e.g. "reminder:12"
	// Detail is what the bubble shows beyond the message, as JSON by kind:
	// a question's options, an approval's exact action.
	Detail  string           `json:"detail,omitempty"`
	State   store.NudgeState `json:"state"`
	Answer  string           `json:"answer,omitempty"`
	Updated time.Time        `json:"updated"`
}

// Entry is one world-log entry, as the API sends it.
type Entry struct {
	ID         int64             `json:"id"`
	TS         time.Time         `json:"ts"`
	Kind       store.Kind        `json:"kind"`
	Source     string            `json:"source,omitempty"`
	Identifier string            `json:"identifier,omitempty"`
	Status     store.AgentStatus `json:"status,omitempty"`
	Session    string            `json:"session,omitempty"`
	Text       string            `json:"text"`
	Need       string            `json:"need,omitempty"`
}

// AgentOf is the view of t a client may see. It is the one place the
// conversation (t.State.Messages) is left behind.
func AgentOf(t task.Task) Agent {
	s := t.State
	a := Agent{
		Session: t.Session,
		Prompt:  t.Prompt,
		Need:    t.Need,
		Origin:  t.Origin,
		Context: AgentContext{
			MessageID: t.Context.MessageID,
			Subject:   t.Context.Subject,
			ThreadID:  t.Context.ThreadID,
			To:        t.Context.To,
			Check:     t.Context.Check,
			Document:  t.Context.Document,
		},
		Phase:   t.Phase,
		Status:  t.Status,
		Waiting: t.Waiting,
		State: AgentState{
			Plan:       slices.Clone(s.Plan),
			Step:       s.Step,
			Approval:   s.Approval,
			Tokens:     s.Tokens,
			ModelCalls: s.ModelCalls,
			Notices:    s.Notices,
			Nudged:     s.Nudged,
			NotBefore:  s.NotBefore,
			Declined:   s.Declined,
			Summary:    s.Summary,
		},
		Attempts:  t.Attempts,
		Runs:      t.Runs,
		Escalated: t.Escalated,
		Result:    t.Result,
		Created:   t.Created,
		Updated:   t.Updated,
		StatusAt:  t.StatusAt,
	}
	if p := s.Pending; p != nil {
		a.State.Pending = &ToolCall{ID: p.ID, Name: p.Name, Input: slices.Clone(p.Input)}
	}
	if s.Done != nil {
		a.State.Done = make([]ToolResult, len(s.Done))
		for i, r := range s.Done {
			a.State.Done[i] = ToolResult{CallID: r.CallID, Content: r.Content, IsError: r.IsError}
		}
	}
	if s.Drafts != nil {
		a.State.Drafts = make([]Draft, len(s.Drafts))
		for i, d := range s.Drafts {
			a.State.Drafts[i] = Draft{AccountID: d.AccountID, RemoteID: d.RemoteID, MessageID: d.MessageID,
				Folder: d.Folder, InReplyTo: d.InReplyTo, Subject: d.Subject}
		}
	}
	return a
}

// NudgeOf is the view of n a client sees.
func NudgeOf(n store.Nudge) Nudge {
	return Nudge{
		ID:           n.ID,
		Created:      n.Created,
		Kind:         n.Kind,
		Message:      n.Message,
		ActionPrompt: n.ActionPrompt,
		Subject:      n.Subject,
		Detail:       n.Detail,
		State:        n.State,
		Answer:       n.Answer,
		Updated:      n.Updated,
	}
}

// EntryOf is the view of e a client sees.
func EntryOf(e store.Entry) Entry {
	return Entry{
		ID:         e.ID,
		TS:         e.TS,
		Kind:       e.Kind,
		Source:     e.Source,
		Identifier: e.Identifier,
		Status:     e.Status,
		Session:    e.Session,
		Text:       e.Text,
		Need:       e.Need,
	}
}

// String renders the entry in the world log's plain-text line format
// (store.Entry.String, which defines it).
func (e Entry) String() string {
	return store.Entry{ID: e.ID, TS: e.TS, Kind: e.Kind, Source: e.Source, Identifier: e.Identifier,
		Status: e.Status, Session: e.Session, Text: e.Text, Need: e.Need}.String()
}

// Views converts each of ts with of (AgentOf, NudgeOf, EntryOf), keeping
// nil as nil:
//
//	entries := api.Views(es, api.EntryOf)
func Views[T, V any](ts []T, of func(T) V) []V {
	if ts == nil {
		return nil
	}
	out := make([]V, len(ts))
	for i, t := range ts {
		out[i] = of(t)
	}
	return out
}
