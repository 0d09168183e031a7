package api

import (
	"context"
	"net/http"
	"regexp"

	"github.com/spirit-app/spirit/agents/store"
)

// WorldBackend is the part of the Backend that serves the world log's own
// verbs for local scripts and `spirit world`: check (entries since a
// consumer's cursor, advancing it) and event (log a fact).
type WorldBackend interface {
	// CheckWorld returns up to limit entries past consumer's cursor,
	// oldest first, and moves the cursor past them.
	CheckWorld(ctx context.Context, consumer string, limit int) ([]Entry, error)
	// LogWorldEvent appends a fact and returns it as stored.
	LogWorldEvent(ctx context.Context, source, identifier, text string) (Entry, error)
}

// Limits of the world verbs.
const (
	defaultCheckLimit  = 200
	maxIdentifierRunes = 200
)

// nameRe is a consumer's or a source's name: short, lower case, no spaces,
// so it reads well in the log and cannot pass for another column.
var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_.:-]{0,63}$`)

// WorldCheck is the body of POST /world/check.
type WorldCheck struct {
	Consumer string `json:"consumer"`
	Limit    int    `json:"limit,omitempty"` // 0: 200; at most 1000
}

// WorldEvent is the body of POST /world/events.
type WorldEvent struct {
	Source     string `json:"source"`
	Identifier string `json:"identifier"`
	Text       string `json:"text"`
}

func (h *handler) worldRoutes() {
	h.mux.HandleFunc("POST /world/check", h.checkWorld)
	h.mux.HandleFunc("POST /world/events", h.logWorldEvent)
}

func (h *handler) checkWorld(w http.ResponseWriter, r *http.Request) {
	var req WorldCheck
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := ValidConsumer(req.Consumer); err != nil {
		h.fail(w, r, err)
		return
	}
	if req.Limit < 0 {
		h.fail(w, r, badRequest("limit must not be negative"))
		return
	}
	limit := req.Limit
	if limit == 0 {
		limit = defaultCheckLimit
	}
	es, err := h.b.CheckWorld(r.Context(), req.Consumer, min(limit, maxWorldLimit))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, worldResponse{Entries: nonNil(es)})
}

func (h *handler) logWorldEvent(w http.ResponseWriter, r *http.Request) {
	var req WorldEvent
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := ValidWorldEvent(req); err != nil {
		h.fail(w, r, err)
		return
	}
	text, err := cleanText(req.Text)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	e, err := h.b.LogWorldEvent(r.Context(), req.Source, req.Identifier, text)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusCreated, e)
}

// ValidWorldEvent checks an event a script logs, the same way through the
// API and straight to the database; the error says what to fix.
func ValidWorldEvent(e WorldEvent) error {
	switch {
	case !nameRe.MatchString(e.Source):
		return badRequest("source must be 1-64 lower-case letters, digits, or _ . : - (e.g. bash, chrome, file)")
	case store.OwnSource(e.Source):
		// A line under it would read as that part's: an agent's step, the
		// lawyer's answer.
		return badRequest("source %q is Spirit's own: name your script instead (e.g. bash, backup)", e.Source)
	case len([]rune(e.Identifier)) > maxIdentifierRunes:
		return badRequest("identifier is too long (max %d characters)", maxIdentifierRunes)
	}
	text, err := cleanText(e.Text)
	if err != nil {
		return err
	}
	if text == "" {
		return badRequest("text is required")
	}
	return nil
}

// ValidConsumer checks the name a script reads the world log under, the
// same way through the API and straight to the database: one of Spirit's
// own cursors (the heartbeat's) is not a script's to move.
func ValidConsumer(consumer string) error {
	switch {
	case !nameRe.MatchString(consumer):
		return badRequest("consumer must be 1-64 lower-case letters, digits, or _ . : -")
	case store.OwnCursor(consumer):
		return badRequest("consumer %q is Spirit's own: name your script's own (e.g. supervisor)", consumer)
	}
	return nil
}

// CheckWorld calls POST /world/check.
func (c *Client) CheckWorld(ctx context.Context, consumer string, limit int) ([]Entry, error) {
	var resp worldResponse
	if err := c.do(ctx, http.MethodPost, "/world/check", WorldCheck{Consumer: consumer, Limit: limit}, &resp); err != nil {
		return nil, err
	}
	return resp.Entries, nil
}

// LogWorldEvent calls POST /world/events.
func (c *Client) LogWorldEvent(ctx context.Context, e WorldEvent) (Entry, error) {
	var out Entry
	err := c.do(ctx, http.MethodPost, "/world/events", e, &out)
	return out, err
}
