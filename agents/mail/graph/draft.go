package graph

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/spirit-app/spirit/agents/mail"
)

// draftFields is what CreateDraft writes: a new message, or a patch of the
// reply Graph prepared.
type draftFields struct {
	Subject      string      `json:"subject,omitempty"`
	Body         *itemBody   `json:"body,omitempty"`
	ToRecipients []recipient `json:"toRecipients,omitempty"`
	CcRecipients []recipient `json:"ccRecipients,omitempty"`
}

// CreateDraft saves d in the mailbox's Drafts.
//
// A reply goes through POST /me/messages/{id}/createReply, then a PATCH of
// its body and recipients. Graph lets clients set only X- headers, so a
// message created with POST /me/messages cannot carry In-Reply-To or
// References; createReply has Exchange fill them in, along with the
// conversationId and conversationIndex that Outlook threads by, and the
// original's reply state. The PATCH then replaces the body with exactly
// the text the lawyer approved (dropping Outlook's quoted original) and
// the recipients with the approved ones.
//
// The message answered is d.ReplyToRemoteID, or else the message whose
// Message-ID is d.InReplyTo. When neither is found, the draft is saved as
// a new, unthreaded message.
func (c *Connector) CreateDraft(ctx context.Context, d mail.Draft) (mail.DraftRef, error) {
	replyTo := d.ReplyToRemoteID
	if replyTo == "" && d.InReplyTo != "" {
		id, err := c.findByMessageID(ctx, d.InReplyTo)
		if err != nil {
			return mail.DraftRef{}, fmt.Errorf("graph: finding the message answered: %w", err)
		}
		replyTo = id
	}
	fields := draftFields{
		Subject:      d.Subject,
		Body:         &itemBody{ContentType: "text", Content: d.Body},
		ToRecipients: recipients(d.To),
		CcRecipients: recipients(d.Cc),
	}

	var draft message
	if replyTo != "" {
		u := c.endpoint("/me/messages/" + url.PathEscape(replyTo) + "/createReply")
		err := c.api.DoJSON(ctx, http.MethodPost, u, nil, struct{}{}, &draft)
		switch {
		case isStatus(err, http.StatusNotFound):
			c.log.Warn("message answered is gone, saving an unthreaded draft", "remote_id", replyTo)
			replyTo = ""
		case err != nil:
			return mail.DraftRef{}, fmt.Errorf("graph: creating the reply: %w", err)
		}
	}

	if replyTo == "" {
		if err := c.api.DoJSON(ctx, http.MethodPost, c.endpoint("/me/messages"), nil, fields, &draft); err != nil {
			return mail.DraftRef{}, fmt.Errorf("graph: creating the draft: %w", err)
		}
	} else {
		u := c.endpoint("/me/messages/" + url.PathEscape(draft.ID))
		if err := c.api.DoJSON(ctx, http.MethodPatch, u, nil, fields, &draft); err != nil {
			// Don't leave Outlook's half-made reply in Drafts.
			if derr := c.api.DoJSON(ctx, http.MethodDelete, u, nil, nil, nil); derr != nil {
				c.log.Error("removing the unfinished reply draft", "remote_id", draft.ID, "err", derr)
			}
			return mail.DraftRef{}, fmt.Errorf("graph: writing the reply: %w", err)
		}
	}
	c.log.Info("draft saved", "remote_id", draft.ID, "reply", replyTo != "")
	return mail.DraftRef{RemoteID: draft.ID, MessageID: mail.MsgID(draft.InternetMessageID), Folder: "Drafts"}, nil
}

// findByMessageID returns the id of the mailbox's message with RFC 5322
// Message-ID msgID, or "" when there is none.
func (c *Connector) findByMessageID(ctx context.Context, msgID string) (string, error) {
	// OData string literals double their single quotes.
	filter := "internetMessageId eq '" + strings.ReplaceAll(mail.MsgID(msgID), "'", "''") + "'"
	u := c.endpoint("/me/messages", "$filter", filter, "$select", "id", "$top", "1")
	var p deltaPage
	if err := c.api.DoJSON(ctx, http.MethodGet, u, nil, nil, &p); err != nil {
		return "", err
	}
	if len(p.Value) == 0 {
		return "", nil
	}
	return p.Value[0].ID, nil
}
