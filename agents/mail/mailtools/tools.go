package mailtools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// Tool names.
const (
	SearchEmailName = "search_email"
	ReadThreadName  = "read_email_thread"
)

// Defaults for a zero Mail field.
const (
	// DefaultSearchLimit caps the threads one search returns.
	DefaultSearchLimit = 10
	// DefaultBodyRunes bounds each message body in a thread result, so
	// that one long thread cannot exhaust the model's context.
	DefaultBodyRunes = 4000
)

// Tool is one mail tool: its name, its definition for the model and its
// handler, together.
type Tool interface {
	// Name is the name the model calls the tool by.
	Name() string
	// Tool is the definition offered to the model.
	Tool() llm.Tool
	// Run runs one call with the model's input and returns the JSON
	// result. Every tool is read-only.
	Run(ctx context.Context, raw json.RawMessage) (string, error)
}

// Mail is what the mail tools read and how a caller wants it read. Only
// Index is needed to run a tool; the other fields are what differs
// between callers, and their zero values are the task agents' use.
type Mail struct {
	Index *index.Index
	// Clock formats the dates of results.
	Clock Clock
	// SearchLimit caps search_email's threads; zero means
	// DefaultSearchLimit.
	SearchLimit int
	// BodyRunes bounds each body read_email_thread returns; zero means
	// DefaultBodyRunes.
	BodyRunes int
	// Seen, if set, picks the messages of a thread the model may read,
	// e.g. only those the user could have seen.
	Seen func(msgs []index.ThreadMessage) []index.ThreadMessage
	// IsMe, if set, marks messages from the lawyer's own addresses that
	// the index did not.
	IsMe func(email string) bool
	// Strict is for a caller that ends on any tool error (the glance
	// analyst: no room for a confused model). Input fields the schema
	// lacks are refused, and errors keep their cause for the caller's
	// log. Otherwise unknown fields are ignored and errors are worded
	// for the model, which reads them and may try another way.
	Strict bool
	// Wording words the schemas for the caller's model.
	Wording Wording
}

// Wording is how the tools' schemas describe them to a model. An empty
// field keeps the default wording, the task agents'.
type Wording struct {
	// Search describes search_email.
	Search string
	// Query and Subject describe its query and subject arguments;
	// subject has no description by default.
	Query, Subject string
	// ConversationID describes read_email_thread's argument.
	ConversationID string
}

// Default wording.
const (
	defaultSearchWording = "Search the lawyer's mail. Read-only."
	defaultQueryWording  = "words to find in subjects, names and bodies"
	senderWording        = "a name or address of someone who wrote in the thread"
	readWording          = "Read one email thread, oldest message first. Read-only."
	defaultIDWording     = "conversation_id from search_email"
)

// Tools returns the mail tools over m: search_email, then
// read_email_thread.
func (m Mail) Tools() []Tool { return []Tool{SearchEmail{m}, ReadThread{m}} }

// Find returns the mail tool named name, if there is one.
func (m Mail) Find(name string) (Tool, bool) {
	for _, t := range m.Tools() {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// SearchEmail is the search_email tool: threads matching words, a sender
// or a subject, newest first.
type SearchEmail struct{ Mail }

// Name is SearchEmailName.
func (SearchEmail) Name() string { return SearchEmailName }

// Tool defines search_email for the model.
func (t SearchEmail) Tool() llm.Tool {
	w := t.Wording
	subject := `{"type":"string"}`
	if w.Subject != "" {
		subject = `{"type":"string","description":` + quote(w.Subject) + `}`
	}
	return llm.Tool{Name: SearchEmailName, Description: or(w.Search, defaultSearchWording), Schema: json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":` + quote(or(w.Query, defaultQueryWording)) + `},` +
		`"sender":{"type":"string","description":` + quote(senderWording) + `},` +
		`"subject":` + subject + `},"required":["query"]}`)}
}

// Run searches the index and returns the hits as JSON.
func (t SearchEmail) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Query   string `json:"query"`
		Sender  string `json:"sender"`
		Subject string `json:"subject"`
	}
	if err := t.decode(raw, &a); err != nil {
		return "", err
	}
	hits, err := t.Index.SearchEmail(ctx, index.SearchQuery{Query: a.Query, Sender: a.Sender, Subject: a.Subject, Limit: or(t.SearchLimit, DefaultSearchLimit)})
	if err != nil {
		if t.Strict {
			return "", fmt.Errorf("search: %w", err)
		}
		return "", fmt.Errorf("search failed: %w", err)
	}
	return JSON(Hits(hits, t.Clock))
}

// ReadThread is the read_email_thread tool: one thread, oldest message
// first.
type ReadThread struct{ Mail }

// Name is ReadThreadName.
func (ReadThread) Name() string { return ReadThreadName }

// Tool defines read_email_thread for the model.
func (t ReadThread) Tool() llm.Tool {
	return llm.Tool{Name: ReadThreadName, Description: readWording, Schema: json.RawMessage(`{"type":"object","properties":{` +
		`"conversation_id":{"type":"string","description":` + quote(or(t.Wording.ConversationID, defaultIDWording)) + `}},"required":["conversation_id"]}`)}
}

// Run reads the thread and returns it as JSON.
func (t ReadThread) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		ConversationID json.RawMessage `json:"conversation_id"`
	}
	if err := t.decode(raw, &a); err != nil {
		return "", err
	}
	id, err := ConversationID(a.ConversationID)
	if err != nil {
		return "", err
	}
	th, err := t.Index.ReadEmailThread(ctx, id)
	if err != nil {
		if t.Strict {
			return "", fmt.Errorf("read thread %d: %w", id, err)
		}
		return "", fmt.Errorf("no such thread %d", id)
	}
	msgs := th.Messages
	if t.Seen != nil {
		msgs = t.Seen(msgs)
	}
	return JSON(ThreadOf(th, msgs, t.Clock, or(t.BodyRunes, DefaultBodyRunes), t.IsMe))
}

// decode reads a tool's input into v, refusing unknown fields if Strict.
func (m Mail) decode(raw json.RawMessage, v any) error {
	if !m.Strict {
		if err := json.Unmarshal(raw, v); err != nil {
			return fmt.Errorf("bad input: %w", err)
		}
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

// quote writes s as a JSON string.
func quote(s string) string {
	q, _ := JSON(s) // a string always encodes
	return q
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
