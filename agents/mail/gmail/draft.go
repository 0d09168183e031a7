package gmail

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/spirit-app/spirit/agents/mail"
)

// metadata is messages.get with format=metadata.
type metadata struct {
	ID       string   `json:"id"`
	ThreadID string   `json:"threadId"`
	LabelIDs []string `json:"labelIds"`
	Payload  struct {
		Headers []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"headers"`
	} `json:"payload"`
}

func (m metadata) header(name string) string {
	for _, h := range m.Payload.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func (c *Connector) metadata(ctx context.Context, id string, headers ...string) (metadata, error) {
	q := url.Values{"format": {"metadata"}, "metadataHeaders": headers}
	var m metadata
	err := c.api.DoJSON(ctx, http.MethodGet, c.base+"/messages/"+url.PathEscape(id)+"?"+q.Encode(), nil, nil, &m)
	return m, err
}

// CreateDraft saves d in the mailbox's drafts (POST drafts). Gmail files a
// draft into a thread only when the request names the threadId, the
// message carries In-Reply-To and References, and the subjects match; so a
// reply is sent with d.ConversationID as threadId, and what d lacks
// (thread, ids, subject) is read from the message d.ReplyToRemoteID.
//
// DraftRef.RemoteID is the draft's message id, the id Sync delivers it
// under; MessageID is the Message-ID Gmail gave it.
func (c *Connector) CreateDraft(ctx context.Context, d mail.Draft) (mail.DraftRef, error) {
	threadID, inReplyTo, refs, subject := d.ConversationID, d.InReplyTo, d.References, d.Subject
	if d.ReplyToRemoteID != "" && (threadID == "" || inReplyTo == "" || subject == "") {
		orig, err := c.metadata(ctx, d.ReplyToRemoteID, "Message-ID", "References", "Subject")
		if err != nil {
			return mail.DraftRef{}, fmt.Errorf("gmail: reading the message answered: %w", err)
		}
		if threadID == "" {
			threadID = orig.ThreadID
		}
		if inReplyTo == "" {
			inReplyTo = mail.MsgID(orig.header("Message-ID"))
			if len(refs) == 0 && inReplyTo != "" {
				refs = append(mail.MsgIDs(orig.header("References")), inReplyTo)
			}
		}
		if subject == "" {
			subject = replySubject(orig.header("Subject"))
		}
	}
	if len(refs) == 0 && inReplyTo != "" {
		refs = []string{inReplyTo}
	}

	raw, err := buildMessage(d, subject, inReplyTo, refs, c.now())
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("gmail: composing the draft: %w", err)
	}
	type draftMessage struct {
		Raw      string `json:"raw"`
		ThreadID string `json:"threadId,omitempty"`
	}
	in := struct {
		Message draftMessage `json:"message"`
	}{draftMessage{Raw: base64.URLEncoding.EncodeToString(raw), ThreadID: threadID}}
	var out struct {
		ID      string `json:"id"`
		Message struct {
			ID       string `json:"id"`
			ThreadID string `json:"threadId"`
		} `json:"message"`
	}
	if err := c.api.DoJSON(ctx, http.MethodPost, c.base+"/drafts", nil, in, &out); err != nil {
		return mail.DraftRef{}, fmt.Errorf("gmail: creating the draft: %w", err)
	}
	ref := mail.DraftRef{RemoteID: out.Message.ID, Folder: "Drafts"}
	// Gmail assigns the Message-ID; reading it back is a courtesy to the
	// index, not worth failing the draft for.
	if meta, err := c.metadata(ctx, out.Message.ID, "Message-ID"); err != nil {
		c.log.Warn("reading the draft's Message-ID", "id", out.Message.ID, "err", err)
	} else {
		ref.MessageID = mail.MsgID(meta.header("Message-ID"))
	}
	c.log.Info("draft saved", "draft_id", out.ID, "message_id", out.Message.ID, "thread_id", out.Message.ThreadID)
	return ref, nil
}

func headerOf(key, value string) gomail.Header {
	return gomail.HeaderFromMap(map[string][]string{key: {value}})
}

// replySubject is "Re: " plus subject, without stacking prefixes.
func replySubject(subject string) string {
	dec := headerOf("Subject", subject)
	if s, err := dec.Subject(); err == nil {
		subject = s
	}
	if strings.HasPrefix(strings.ToLower(subject), "re:") {
		return subject
	}
	return "Re: " + subject
}

// buildMessage writes d as an RFC 822 text/plain message in UTF-8,
// quoted-printable. From is left out: Gmail sets the account's address.
func buildMessage(d mail.Draft, subject, inReplyTo string, refs []string, now time.Time) ([]byte, error) {
	var h gomail.Header
	h.SetDate(now)
	h.SetSubject(subject)
	h.SetAddressList("To", gomailAddresses(d.To))
	h.SetAddressList("Cc", gomailAddresses(d.Cc))
	if id := strings.Trim(inReplyTo, "<> "); id != "" {
		h.SetMsgIDList("In-Reply-To", []string{id})
	}
	var ids []string
	for _, r := range refs {
		if id := strings.Trim(r, "<> "); id != "" {
			ids = append(ids, id)
		}
	}
	h.SetMsgIDList("References", ids)
	h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	var buf bytes.Buffer
	w, err := gomail.CreateSingleInlineWriter(&buf, h)
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(w, d.Body); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func gomailAddresses(as []mail.Address) []*gomail.Address {
	out := make([]*gomail.Address, len(as))
	for i, a := range as {
		out[i] = &gomail.Address{Name: a.Name, Address: a.Email}
	}
	return out
}
