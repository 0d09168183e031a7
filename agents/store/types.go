package store

import (
	"fmt"
	"strings"
	"time"
)

// Kind tells the two shapes of world-log entry apart.
type Kind string

const (
	KindEvent Kind = "event" // a fact: no lifecycle is tracked
	KindAgent Kind = "agent" // a step in an agent's tracked lifecycle
)

// AgentStatus is one step of an agent's lifecycle:
// start → active → finish → verified, with retry and failed on the side.
type AgentStatus string

const (
	StatusStart    AgentStatus = "start"
	StatusActive   AgentStatus = "active"
	StatusFinish   AgentStatus = "finish"
	StatusVerified AgentStatus = "verified"
	StatusRetry    AgentStatus = "retry"
	StatusFailed   AgentStatus = "failed"
)

// Valid reports whether s is one of the six lifecycle statuses.
func (s AgentStatus) Valid() bool {
	switch s {
	case StatusStart, StatusActive, StatusFinish, StatusVerified, StatusRetry, StatusFailed:
		return true
	}
	return false
}

// Event is a fact for the world log, as written by its producer.
type Event struct {
	Source     string // voice, screen, user, api, system, agent, …
	Identifier string // what the fact is about: a session, a window, a nudge id
	Text       string
}

// AgentRecord is one lifecycle step for the world log.
type AgentRecord struct {
	Status  AgentStatus
	Session string // the agent's session id
	Text    string
	Need    string // the criterion for done; usually given with start
}

// Entry is one line of the world log as stored. For events, Source and
// Identifier are set; for agent records, Status, Session and Need.
type Entry struct {
	ID         int64       `json:"id"`
	TS         time.Time   `json:"ts"`
	Kind       Kind        `json:"kind"`
	Source     string      `json:"source,omitempty"`
	Identifier string      `json:"identifier,omitempty"`
	Status     AgentStatus `json:"status,omitempty"`
	Session    string      `json:"session,omitempty"`
	Text       string      `json:"text"`
	Need       string      `json:"need,omitempty"`
}

// String renders the entry in the world log's plain-text line format:
//
//	[ts][event:source][identifier] text
//	[ts][agent:status][session] text | need: criteria
func (e Entry) String() string {
	ts := e.TS.Local().Format(time.RFC3339)
	text := oneLine(e.Text)
	if e.Kind == KindAgent {
		line := fmt.Sprintf("[%s][agent:%s][%s] %s", ts, e.Status, e.Session, text)
		if e.Need != "" {
			line += " | need: " + oneLine(e.Need)
		}
		return line
	}
	return fmt.Sprintf("[%s][event:%s][%s] %s", ts, e.Source, e.Identifier, text)
}

// oneLine keeps each entry on one line of the plain-text format.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Agent is the latest known state of one agent session.
type Agent struct {
	Session   string      `json:"session"`
	Status    AgentStatus `json:"status"`
	Text      string      `json:"text"`
	Need      string      `json:"need,omitempty"`
	Started   time.Time   `json:"started"`
	Updated   time.Time   `json:"updated"`
	LastEntry int64       `json:"last_entry"`
}

// NudgeState is where a nudge stands with the lawyer.
type NudgeState string

const (
	NudgeShown     NudgeState = "shown"
	NudgeAccepted  NudgeState = "accepted"
	NudgeDismissed NudgeState = "dismissed"
	NudgeSnoozed   NudgeState = "snoozed"
	NudgeExpired   NudgeState = "expired"
)

// Valid reports whether s is a known nudge state.
func (s NudgeState) Valid() bool {
	switch s {
	case NudgeShown, NudgeAccepted, NudgeDismissed, NudgeSnoozed, NudgeExpired:
		return true
	}
	return false
}

// Nudge is one proposal shown to the lawyer and what became of it.
type Nudge struct {
	ID           int64     `json:"id"`
	Created      time.Time `json:"created"`
	Kind         string    `json:"kind"` // glance, reminder, question, approval, help, info
	Message      string    `json:"message"`
	ActionPrompt string    `json:"action_prompt,omitempty"`
	Subject      string    `json:"subject,omitempty"` // what it is about, e.g. "reminder-12" (see package nudge)
	// Detail is what the bubble shows beyond the message, as JSON by kind:
	// a question's options, an approval's exact action.
	Detail  string     `json:"detail,omitempty"`
	State   NudgeState `json:"state"`
	Answer  string     `json:"answer,omitempty"`
	Updated time.Time  `json:"updated"`
}
