// Package mail reads the lawyer's mail for Spirit: connectors to mail
// services (IMAP, Microsoft Graph, Gmail, local mbox/Maildir) feed a local
// full-text index in Spirit's database, on which the glance's read-only
// tools run. The only write is CreateDraft, which the task agent may call
// only after the lawyer approved it.
package mail

import (
	"context"
	"time"
)

// Address is one mailbox.
type Address struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email"`
}

// Message is one email as a connector delivers it and the index keeps it.
type Message struct {
	// RemoteID identifies the message at its service (IMAP folder+UID,
	// Graph or Gmail id, a Maildir file name); unique within the account.
	RemoteID string `json:"remote_id"`
	Folder   string `json:"folder,omitempty"` // "INBOX", "Sent", "Drafts", …
	// RFC 5322 threading headers, angle brackets kept: "<abc@host>".
	MessageID  string   `json:"message_id,omitempty"`
	InReplyTo  string   `json:"in_reply_to,omitempty"`
	References []string `json:"references,omitempty"`
	// ConversationID is the service's own thread id (Graph conversationId,
	// Gmail threadId), when it has one.
	ConversationID string    `json:"conversation_id,omitempty"`
	Subject        string    `json:"subject"`
	From           Address   `json:"from"`
	To             []Address `json:"to,omitempty"`
	Cc             []Address `json:"cc,omitempty"`
	Date           time.Time `json:"date"`
	// Body is the plain-text body (HTML converted to text); attachments
	// are not kept.
	Body string `json:"body"`
	// Headers that tell bulk mail apart (List-Id, List-Unsubscribe,
	// Precedence, Auto-Submitted, X-Auto-Response-Suppress…; see
	// IsBulkHeader and AddBulkHeader), lower-case keys.
	Headers map[string]string `json:"headers,omitempty"`
	Draft   bool              `json:"draft,omitempty"`
	Deleted bool              `json:"deleted,omitempty"` // a sync tombstone: remove from the index
}

// Draft is a reply or new message to be saved in the account's Drafts.
type Draft struct {
	To, Cc     []Address
	Subject    string
	Body       string
	InReplyTo  string   // Message-ID being answered
	References []string // thread's References plus InReplyTo
	// ConversationID and ReplyToRemoteID let services that thread by id
	// (Graph, Gmail) attach the draft to the thread.
	ConversationID  string
	ReplyToRemoteID string
}

// DraftRef says where a draft was saved.
type DraftRef struct {
	RemoteID  string `json:"remote_id"`
	MessageID string `json:"message_id,omitempty"`
	Folder    string `json:"folder,omitempty"`
}

// Connector is one mail account at its service.
type Connector interface {
	// Sync delivers the messages added, changed or deleted since cursor
	// ("" for a first, full sync), in any order, to fn, and returns the
	// cursor for the next call. An error from fn stops the sync. A sync
	// interrupted midway is simply repeated from the old cursor: the index
	// upserts by RemoteID.
	Sync(ctx context.Context, cursor string, fn func(Message) error) (next string, err error)
	// CreateDraft saves d in the account's drafts. It changes the mailbox:
	// callers must hold the lawyer's approval.
	CreateDraft(ctx context.Context, d Draft) (DraftRef, error)
	// Close releases connections.
	Close() error
}

// Progress reports a sync's advance: done of total messages (total 0 when
// unknown).
type Progress func(done, total int)
