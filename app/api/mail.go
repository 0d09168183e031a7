package api

import (
	"context"
	"net/http"
)

// MailBackend is the part of the Backend that serves mail: `spirit mail
// add` run beside a running Spirit asks it to sync the new account now
// rather than at its next round.
type MailBackend interface {
	// SyncMail starts a sync of every mail account without waiting for
	// it; the sync's progress and errors show where they always do.
	SyncMail(ctx context.Context) error
}

// syncMail serves POST /mail/sync: 202, the sync runs on.
func (h *handler) syncMail(w http.ResponseWriter, r *http.Request) {
	if err := h.b.SyncMail(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusAccepted)
}

// SyncMail calls POST /mail/sync, asking the running Spirit to sync mail
// now.
func (c *Client) SyncMail(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/mail/sync", nil, nil)
}
