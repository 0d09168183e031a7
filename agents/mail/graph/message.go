package graph

import (
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
)

// Graph's JSON shapes, as the message resource documents them; only the
// fields Spirit reads or writes.

type emailAddress struct {
	Name    string `json:"name,omitempty"`
	Address string `json:"address"`
}

type recipient struct {
	EmailAddress emailAddress `json:"emailAddress"`
}

type itemBody struct {
	ContentType string `json:"contentType"` // "text" or "html"
	Content     string `json:"content"`
}

type internetHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type extendedProperty struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

type message struct {
	ID string `json:"id"`
	// Removed marks a delta entry for a message deleted from, or moved
	// out of, the folder: {"@removed": {"reason": "deleted"}}.
	Removed *struct {
		Reason string `json:"reason"`
	} `json:"@removed,omitempty"`
	ConversationID    string `json:"conversationId,omitempty"`
	InternetMessageID string `json:"internetMessageId,omitempty"`
	// Subject and Body are pointers to tell "absent" (a partial delta
	// entry) from empty.
	Subject          *string            `json:"subject,omitempty"`
	Body             *itemBody          `json:"body,omitempty"`
	From             *recipient         `json:"from,omitempty"`
	ToRecipients     []recipient        `json:"toRecipients,omitempty"`
	CcRecipients     []recipient        `json:"ccRecipients,omitempty"`
	ReceivedDateTime time.Time          `json:"receivedDateTime,omitzero"`
	SentDateTime     time.Time          `json:"sentDateTime,omitzero"`
	IsDraft          bool               `json:"isDraft,omitempty"`
	Headers          []internetHeader   `json:"internetMessageHeaders,omitempty"`
	ExtendedProps    []extendedProperty `json:"singleValueExtendedProperties,omitempty"`
}

// convert maps a Graph message to Spirit's.
func convert(m message, folderName string) mail.Message {
	out := mail.Message{
		RemoteID:       m.ID,
		Folder:         folderName,
		MessageID:      mail.MsgID(m.InternetMessageID),
		ConversationID: m.ConversationID,
		Draft:          m.IsDraft,
		To:             addresses(m.ToRecipients),
		Cc:             addresses(m.CcRecipients),
	}
	if m.Subject != nil {
		out.Subject = *m.Subject
	}
	if m.From != nil {
		out.From = address(*m.From)
	}
	// The Date header's moment: sentDateTime; drafts have none yet.
	out.Date = m.SentDateTime
	if out.Date.IsZero() {
		out.Date = m.ReceivedDateTime
	}
	if m.Body != nil {
		out.Body = m.Body.Content
		if strings.EqualFold(m.Body.ContentType, "html") {
			// Graph ignored the Prefer header.
			out.Body = mail.HTMLToText(m.Body.Content)
		}
	}
	for _, h := range m.Headers {
		switch key := strings.ToLower(h.Name); {
		case key == "in-reply-to":
			if id := mail.MsgID(h.Value); id != "" {
				out.InReplyTo = id
			}
		case key == "references":
			out.References = mail.MsgIDs(h.Value)
		case key == "message-id" && out.MessageID == "":
			out.MessageID = mail.MsgID(h.Value)
		default:
			out.Headers = mail.AddBulkHeader(out.Headers, h.Name, h.Value)
		}
	}
	for _, p := range m.ExtendedProps {
		switch {
		case sameProp(p.ID, propInReplyTo) && out.InReplyTo == "":
			out.InReplyTo = mail.MsgID(p.Value)
		case sameProp(p.ID, propReferences) && len(out.References) == 0:
			out.References = mail.MsgIDs(p.Value)
		}
	}
	return out
}

// sameProp compares extended property ids, which Graph may return in
// another case or with another number of digits ("String 0x1042" or
// "string 0x1042", "Integer 0x0E08" or "Integer 0xe08").
func sameProp(a, b string) bool {
	ta, na, okA := strings.Cut(strings.Join(strings.Fields(a), " "), " ")
	tb, nb, okB := strings.Cut(b, " ")
	if !okA || !okB || !strings.EqualFold(ta, tb) {
		return false
	}
	tag := func(s string) (uint64, bool) {
		s = strings.ToLower(s)
		if !strings.HasPrefix(s, "0x") {
			return 0, false
		}
		n, err := strconv.ParseUint(s[2:], 16, 32)
		return n, err == nil
	}
	ia, okA := tag(na)
	ib, okB := tag(nb)
	if okA && okB {
		return ia == ib
	}
	return strings.EqualFold(na, nb)
}

func address(r recipient) mail.Address {
	return mail.Address{Name: r.EmailAddress.Name, Email: r.EmailAddress.Address}
}

func addresses(rs []recipient) []mail.Address {
	if len(rs) == 0 {
		return nil
	}
	out := make([]mail.Address, len(rs))
	for i, r := range rs {
		out[i] = address(r)
	}
	return out
}

func recipients(as []mail.Address) []recipient {
	out := make([]recipient, len(as))
	for i, a := range as {
		out[i] = recipient{EmailAddress: emailAddress{Name: a.Name, Address: a.Email}}
	}
	return out
}
