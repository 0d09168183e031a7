package nudge

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Question is a question nudge's Detail: the likely answers the agent
// offers (at most 4, each at most 60 runes, as ask_user stores them). The
// lawyer may also type an answer.
type Question struct {
	Options []string `json:"options"`
}

// Approval is an approval nudge's Detail: the exact action asked for, in
// full. An approval whose Detail cannot be read, or has neither Fields nor
// Body, must not be approvable.
type Approval struct {
	Tool   string  `json:"tool"`  // the tool the approval is for, e.g. "create_draft"
	Title  string  `json:"title"` // e.g. "Draft reply"
	Fields []Field `json:"fields"`
	Body   string  `json:"body"` // the text the lawyer may edit (Edit)
}

// CommitmentOffer is a commitment nudge's Detail: the deadline the lawyer
// promised and the time the bubble offers to remind them at, which Set
// uses exactly as offered.
type CommitmentOffer struct {
	Task     string    `json:"task"`
	Deadline time.Time `json:"deadline"`
	RemindAt time.Time `json:"remind_at"`
}

// MeetingOffer is a meeting nudge's Detail: the occurrence it is about,
// as it was when offered, so that a moved meeting is noticed and Brief me
// knows who is coming.
type MeetingOffer struct {
	Key      string          `json:"key"`
	Title    string          `json:"title,omitempty"`
	Location string          `json:"location,omitempty"`
	Start    time.Time       `json:"start"`
	End      time.Time       `json:"end"`
	People   []MeetingPerson `json:"people,omitempty"` // besides the lawyer
	// Threads are the open threads' ids in the mail index when offered.
	Threads []int64 `json:"threads,omitempty"`
}

// MeetingPerson is one of a meeting's people.
type MeetingPerson struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email"`
}

// DocumentRef is the Detail of a nudge that brings a kept document (a
// meeting brief): its id in the store and, so the bubble needs no lookup,
// its title and Markdown.
type DocumentRef struct {
	Document int64  `json:"document"`
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
}

// Suggestion is a suggestion nudge's Detail when its Do it drafts a reply
// that code checked (package proposal): the lawyer's thread and the
// recipients, its people. Do it starts the task with exactly these, and
// the task may draft to no one else.
type Suggestion struct {
	Thread int64    `json:"conversation_id"`
	To     []string `json:"to"`
}

// Field is one labelled line of an approval, e.g. To: Marcy Howard.
type Field struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// Detail encodes v as a nudge's Detail.
func Detail(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("nudge detail: %w", err)
	}
	return string(b), nil
}

// ReadDetail decodes a nudge's Detail into v. An empty (or blank) Detail is
// no detail: v is left as it is and the error is nil.
func ReadDetail(detail string, v any) error {
	if strings.TrimSpace(detail) == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(detail), v); err != nil {
		return fmt.Errorf("nudge detail: %w", err)
	}
	return nil
}
