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

// CalendarBackend is the part of the Backend that serves calendars:
// `spirit calendar add` beside a running Spirit asks it to sync now.
type CalendarBackend interface {
	// SyncCalendars starts a sync of every calendar without waiting for
	// it; its errors show in /health as always.
	SyncCalendars(ctx context.Context) error
}

// syncNow serves a POST that asks for a sync at once (POST /mail/sync,
// POST /calendars/sync): 202, the sync runs on.
func (h *handler) syncNow(start func(Backend, context.Context) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := start(h.b, r.Context()); err != nil {
			h.fail(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusAccepted)
	}
}

// SyncMail calls POST /mail/sync, asking the running Spirit to sync mail
// now.
func (c *Client) SyncMail(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/mail/sync", nil, nil)
}

// SyncCalendars calls POST /calendars/sync, asking the running Spirit to
// sync its calendars now.
func (c *Client) SyncCalendars(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/calendars/sync", nil, nil)
}
