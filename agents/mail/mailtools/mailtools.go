// Package mailtools holds the read-only mail tools that both the glance
// analyst and the task agents offer their models, search_email and
// read_email_thread: each tool's name, schema and handler (tools.go), and
// the JSON they render the mail index as. One definition keeps what a
// model sees of the lawyer's mail the same everywhere; where the callers
// differ, Mail says so.
package mailtools

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// Hit is one search_email result.
type Hit struct {
	ConversationID  string         `json:"conversation_id"`
	Subject         string         `json:"subject"`
	Participants    []mail.Address `json:"participants"`
	MessageCount    int            `json:"message_count"`
	LatestMessageID string         `json:"latest_message_id"`
	LatestFrom      mail.Address   `json:"latest_from"`
	LatestDate      string         `json:"latest_date"`
	Snippet         string         `json:"snippet"`
	LatestFromMe    bool           `json:"latest_from_me"`
	Drafts          int            `json:"drafts,omitempty"`
	Match           string         `json:"match,omitempty"`
}

// Thread is one read_email_thread result.
type Thread struct {
	ConversationID string    `json:"conversation_id"`
	Subject        string    `json:"subject"`
	Messages       []Message `json:"messages"`
}

// Message is one message of a Thread. Body is untrusted text from the
// mail; the prompts say so.
type Message struct {
	MessageID string         `json:"message_id"`
	From      mail.Address   `json:"from"`
	To        []mail.Address `json:"to,omitempty"`
	Cc        []mail.Address `json:"cc,omitempty"`
	Date      string         `json:"date"`
	FromMe    bool           `json:"from_me"`
	Draft     bool           `json:"draft,omitempty"`
	// Automated says a machine sent it (an out-of-office answer, a
	// portal's notice, a list): the model is told, so it does not draft
	// a reply to a robot.
	Automated mail.Automation `json:"automated,omitempty"`
	Body      string          `json:"body"`
}

// Clock formats dates as the lawyer's mail client shows them: in loc.
type Clock struct{ Loc *time.Location }

// Date renders t.
func (c Clock) Date(t time.Time) string {
	if c.Loc != nil {
		t = t.In(c.Loc)
	}
	return t.Format("Mon 2006-01-02 15:04 MST")
}

// Hits renders search results.
func Hits(hits []index.ThreadHit, c Clock) []Hit {
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		out = append(out, Hit{
			ConversationID: strconv.FormatInt(h.ThreadID, 10), Subject: h.Subject,
			Participants: h.Participants, MessageCount: h.MessageCount,
			LatestMessageID: h.Latest.MessageID, LatestFrom: h.Latest.From,
			LatestDate: c.Date(h.Latest.Date), Snippet: h.Latest.Snippet,
			LatestFromMe: h.LatestFromMe, Drafts: h.Drafts, Match: h.Match,
		})
	}
	return out
}

// ThreadOf renders msgs of thread t, each body cut at bodyRunes. isMe,
// if set, marks messages from the lawyer's own addresses that the index
// did not.
func ThreadOf(t index.Thread, msgs []index.ThreadMessage, c Clock, bodyRunes int, isMe func(email string) bool) Thread {
	v := Thread{ConversationID: strconv.FormatInt(t.ID, 10), Subject: t.Subject}
	for _, m := range msgs {
		v.Messages = append(v.Messages, Message{
			MessageID: m.MessageID, From: m.From, To: m.To, Cc: m.Cc, Date: c.Date(m.Date),
			FromMe: m.FromMe || (isMe != nil && isMe(m.From.Email)), Draft: m.Draft,
			Automated: m.Automated, Body: Shorten(m.Body, bodyRunes),
		})
	}
	return v
}

// ConversationID reads a conversation_id argument, written by models as a
// string or a number.
func ConversationID(raw json.RawMessage) (int64, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		s = string(raw)
	}
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("bad conversation_id %s: use one from search_email", raw)
	}
	return id, nil
}

// JSON encodes a tool result without HTML escaping, so that Message-IDs
// reach the model as written ("<…>", not "\u003c…").
func JSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode result: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// Shorten cuts s to n runes, marking the cut.
func Shorten(s string, n int) string {
	if r := []rune(s); n > 0 && len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
