// Package api is Spirit's local control API: a small JSON-over-HTTP server
// bound to 127.0.0.1 that the CLI, tests, headless mode and a second Spirit
// instance (single-instance handoff) use to talk to the running one, plus the
// client they use to do so.
//
// Discovery is by file: Start writes dataDir/api.json (mode 0600) holding the
// address and a fresh bearer token. Only someone who can read that file can
// drive Spirit, so the token is what keeps other local users and web pages
// out; the Host check additionally defeats DNS-rebinding attacks.
package api

import (
	"context"
	"errors"

	"github.com/spirit-app/spirit/agents/digest"
	"github.com/spirit-app/spirit/agents/work"
)

// InfoFile is the name of the discovery file Start writes in the data dir.
const InfoFile = "api.json"

// The actions accepted by POST /nudges/{id}/respond and Backend.RespondNudge.
const (
	ActionAccept  = "accept"
	ActionDismiss = "dismiss"
	ActionSnooze  = "snooze"
	// ActionEdit approves an agent's approval with the text as its edited
	// body; ActionAnswerPrefix+option answers an agent's question.
	ActionEdit         = "edit"
	ActionAnswerPrefix = "answer:"
)

// Errors a Backend returns (wrapped with %w) to choose the response status.
// The full text of such an error is sent to the client, so it should describe
// what was wrong with the request, not how the backend works. Any other error
// becomes a 500 with a generic message and is only logged.
//
// A *StatusError returned by Client matches these with errors.Is too. An
// error matching store.ErrBusy becomes a 503 with BusyMessage, which a
// *StatusError matches in turn.
var (
	ErrBadRequest = errors.New("bad request") // 400
	ErrNotFound   = errors.New("not found")   // 404
	ErrConflict   = errors.New("conflict")    // 409, e.g. the nudge is already closed
	// ErrTooMany: the backend has as much work from outside as it takes;
	// 429 with Retry-After.
	ErrTooMany = errors.New("too many requests")
)

// tooManyRetrySeconds is the Retry-After of a 429: about the time the
// runs in flight take to end.
const tooManyRetrySeconds = 60

// BusyMessage is the error text of a 503 answered because another program
// held the database locked for longer than Spirit waits.
const BusyMessage = "the database is busy"

// Backend is what the API drives: the running Spirit app, or a fake in tests.
// Its methods are called concurrently, one goroutine per request.
type Backend interface {
	// Health reports uptime, subsystem states and counters.
	Health(ctx context.Context) Health
	// World returns up to limit world-log entries with ID > since, oldest first.
	World(ctx context.Context, since int64, limit int) ([]Entry, error)
	// Say handles text as if the lawyer had spoken it.
	Say(ctx context.Context, text string) (SayResult, error)
	// Nudges returns the nudges currently open.
	Nudges(ctx context.Context) ([]Nudge, error)
	// Notify records a nudge from a local integration and shows it.
	Notify(ctx context.Context, n NewNudge) (Nudge, error)
	// RespondNudge applies action (ActionAccept, ActionDismiss or
	// ActionSnooze) with optional text and returns the updated nudge.
	RespondNudge(ctx context.Context, id int64, action, text string) (Nudge, error)
	// Show brings Spirit's UI forward.
	Show(ctx context.Context) error
	AgentBackend
	MailBackend
	CalendarBackend
	DigestBackend
	WorldBackend
}

// Health is the body of GET /health.
type Health struct {
	Status        string               `json:"status"` // "ok", "degraded", …
	Version       string               `json:"version"`
	UptimeSeconds float64              `json:"uptime_seconds"`
	Subsystems    map[string]Subsystem `json:"subsystems"`
	Counters      map[string]int64     `json:"counters"`
	// Database shows another program holding spirit.db locked (a backup or
	// sync tool, a database browser) before anything is lost to it.
	Database DatabaseHealth `json:"database"`
	// Agent is the analysis loop's state and counters (agents/digest);
	// absent where there is no loop.
	Agent *digest.Stats `json:"agent,omitempty"`
	// Work is the work runner's counters (heartbeat, routines, webhook):
	// runs, deliveries, skips by reason, errors, tokens and cost since
	// Spirit started; absent where there is no runner.
	Work *work.Stats `json:"work,omitempty"`
}

// DatabaseHealth is spirit.db's busy state in GET /health.
type DatabaseHealth struct {
	// BusyWaits counts writes since start that waited for another
	// program's lock and gave up.
	BusyWaits int64 `json:"busy_waits"`
	// PendingEvents is how many world-log events wait in memory for the
	// lock; they are written, in order, once it is free, and lost if
	// Spirit stops first.
	PendingEvents int `json:"pending_events"`
}

// Subsystem is the state of one part of Spirit (voice, screen, store, …).
type Subsystem struct {
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
}

// SayResult is the body of the POST /say response.
type SayResult struct {
	Intent  string `json:"intent"`
	Reply   string `json:"reply,omitempty"`
	Handled bool   `json:"handled"`
	// Agent is the session of the task agent the words started, if any.
	Agent string `json:"agent,omitempty"`
}

// NewNudge is the body of POST /nudges: a proposal a local integration
// (a script, a test, a future work runner) wants shown to the lawyer.
type NewNudge struct {
	// Kind is "info" or a kind of the integration's own naming
	// ("file_review"), lower-case letters and _; Spirit's own kinds
	// (nudge.SpiritsOwn: an agent's approval or question, a glance, a
	// reminder) are refused.
	Kind         string `json:"kind"`
	Message      string `json:"message"` // one short sentence
	ActionPrompt string `json:"action_prompt,omitempty"`
	// Detail is what the bubble shows beyond the message, as JSON by kind
	// (Nudge.Detail), e.g. a question's {"options":[…]}.
	Detail string `json:"detail,omitempty"`
}

// Info is the content of api.json: where the API listens and its token.
type Info struct {
	Addr  string `json:"addr"`
	Token string `json:"token"`
}

// Request and response bodies that are not part of the Backend contract.
type (
	sayRequest struct {
		Text string `json:"text"`
	}
	respondRequest struct {
		Action string `json:"action"`
		Text   string `json:"text"`
	}
	worldResponse struct {
		Entries []Entry `json:"entries"`
	}
	nudgesResponse struct {
		Nudges []Nudge `json:"nudges"`
	}
	errorResponse struct {
		Error string `json:"error"`
	}
)
