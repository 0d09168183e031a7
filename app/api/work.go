package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on a work request's body.
const (
	maxWorkPromptRunes = 8000
	maxDedupKeyRunes   = 200
	maxCronRunes       = 200
)

// WorkBackend is the work runner's side of the API (issue 14): work from
// a local webhook, its outcome, and the lawyer's routines. A Backend that
// does not implement it answers these routes 404.
type WorkBackend interface {
	// StartWork queues a request and returns its run, before the work
	// is done. A source that cannot be used is an error matching
	// ErrBadRequest; while too many requests from outside are in flight,
	// one matching ErrTooMany.
	StartWork(ctx context.Context, w NewWork) (WorkRun, error)
	// WorkRun returns run id as it stands; ErrNotFound for an unknown id.
	WorkRun(ctx context.Context, id int64) (WorkRun, error)
	// Routines returns the routines, oldest first.
	Routines(ctx context.Context) ([]Routine, error)
	// AddRoutine stores a routine; a cron spec or prompt that is not
	// valid is an error matching ErrBadRequest that says why.
	AddRoutine(ctx context.Context, r NewRoutine) (Routine, error)
	// RemoveRoutine deletes routine id; ErrNotFound for an unknown id.
	RemoveRoutine(ctx context.Context, id int64) error
	// RunRoutine starts routine id now, whatever its schedule, and
	// returns its run; ErrNotFound for an unknown id.
	RunRoutine(ctx context.Context, id int64) (WorkRun, error)
}

// NewWork is the body of POST /work.
type NewWork struct {
	Prompt string `json:"prompt"`
	// Source names the caller, e.g. "efile" or "script:backup":
	// lower-case letters, digits, '.', '_', '-' and at most one ':'. Its
	// runs are the webhook's, "webhook:<source>" ("webhook" without one),
	// whatever it calls itself: never one of Spirit's own parts.
	Source string `json:"source,omitempty"`
	// DedupKey keeps the same news from being delivered twice in a day.
	DedupKey string `json:"dedup_key,omitempty"`
}

// WorkRun is a run of work: queued, running, or ended with its outcome
// (GET /work/{id}; POST /work answers with it too).
type WorkRun struct {
	ID     int64  `json:"id"`
	Source string `json:"source"`
	// State is queued, running, done, skip or error.
	State string `json:"state"`
	// Reason is a skip's reason (duplicate, outside-active-hours, ack, …).
	Reason string `json:"reason,omitempty"`
	// Error is an error's text, or why a delivery failed.
	Error     string `json:"error,omitempty"`
	Delivered bool   `json:"delivered"`
	// Message is what the work asked to tell the lawyer, delivered or not.
	Message      string    `json:"message,omitempty"`
	Action       string    `json:"action,omitempty"`
	NudgeID      int64     `json:"nudge_id,omitempty"`
	Created      time.Time `json:"created"`
	DurationMS   int64     `json:"duration_ms"`
	InputTokens  int       `json:"input_tokens"`
	OutputTokens int       `json:"output_tokens"`
	CostUSD      float64   `json:"cost_usd"`
}

// Ended reports whether the run has its outcome.
func (w WorkRun) Ended() bool { return w.State == "done" || w.State == "skip" || w.State == "error" }

// Routine is a job the lawyer scheduled.
type Routine struct {
	ID      int64      `json:"id"`
	Cron    string     `json:"cron"`
	Prompt  string     `json:"prompt"`
	Enabled bool       `json:"enabled"`
	Created time.Time  `json:"created"`
	LastRun *time.Time `json:"last_run,omitempty"`
	// Next is its next scheduled time, if enabled.
	Next *time.Time `json:"next,omitempty"`
}

// NewRoutine is the body of POST /work/routines.
type NewRoutine struct {
	Cron   string `json:"cron"`
	Prompt string `json:"prompt"`
}

type (
	routinesResponse struct {
		Routines []Routine `json:"routines"`
	}
)

// workRoutes adds the work routes; newHandler calls it.
func (h *handler) workRoutes() {
	h.mux.HandleFunc("POST /work", h.startWork)
	h.mux.HandleFunc("GET /work/{id}", h.workRun)
	h.mux.HandleFunc("GET /work/routines", h.routines)
	h.mux.HandleFunc("POST /work/routines", h.addRoutine)
	h.mux.HandleFunc("DELETE /work/routines/{id}", h.removeRoutine)
	h.mux.HandleFunc("POST /work/routines/{id}/run", h.runRoutine)
}

// work is the backend's work side; false answers 404.
func (h *handler) work(w http.ResponseWriter) (WorkBackend, bool) {
	wb, ok := h.b.(WorkBackend)
	if !ok {
		h.writeError(w, http.StatusNotFound, "not found")
	}
	return wb, ok
}

func (h *handler) startWork(w http.ResponseWriter, r *http.Request) {
	wb, ok := h.work(w)
	if !ok {
		return
	}
	var req NewWork
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	req.Prompt, req.Source, req.DedupKey = strings.TrimSpace(req.Prompt), strings.TrimSpace(req.Source), strings.TrimSpace(req.DedupKey)
	switch {
	case req.Prompt == "":
		h.fail(w, r, badRequest("prompt is required: what Spirit should look into"))
		return
	case utf8.RuneCountInString(req.Prompt) > maxWorkPromptRunes:
		h.fail(w, r, badRequest("prompt is too long (max %d characters)", maxWorkPromptRunes))
		return
	case utf8.RuneCountInString(req.DedupKey) > maxDedupKeyRunes:
		h.fail(w, r, badRequest("dedup_key is too long (max %d characters)", maxDedupKeyRunes))
		return
	}
	run, err := wb.StartWork(r.Context(), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusAccepted, run)
}

// idParam reads a positive integer id from the path.
func idParam(r *http.Request, what string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("%s id must be a positive integer", what)
	}
	return id, nil
}

func (h *handler) workRun(w http.ResponseWriter, r *http.Request) {
	wb, ok := h.work(w)
	if !ok {
		return
	}
	id, err := idParam(r, "work")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	run, err := wb.WorkRun(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, run)
}

func (h *handler) routines(w http.ResponseWriter, r *http.Request) {
	wb, ok := h.work(w)
	if !ok {
		return
	}
	rs, err := wb.Routines(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if rs == nil {
		rs = []Routine{}
	}
	h.writeJSON(w, http.StatusOK, routinesResponse{Routines: rs})
}

func (h *handler) addRoutine(w http.ResponseWriter, r *http.Request) {
	wb, ok := h.work(w)
	if !ok {
		return
	}
	var req NewRoutine
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	req.Cron, req.Prompt = strings.TrimSpace(req.Cron), strings.TrimSpace(req.Prompt)
	switch {
	case req.Cron == "":
		h.fail(w, r, badRequest(`cron is required: when to run, e.g. "30 8 * * 1-5" for weekdays at 8:30`))
		return
	case utf8.RuneCountInString(req.Cron) > maxCronRunes:
		h.fail(w, r, badRequest("cron is too long (max %d characters)", maxCronRunes))
		return
	case req.Prompt == "":
		h.fail(w, r, badRequest("prompt is required: what Spirit should do then"))
		return
	case utf8.RuneCountInString(req.Prompt) > maxWorkPromptRunes:
		h.fail(w, r, badRequest("prompt is too long (max %d characters)", maxWorkPromptRunes))
		return
	}
	rt, err := wb.AddRoutine(r.Context(), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusCreated, rt)
}

func (h *handler) removeRoutine(w http.ResponseWriter, r *http.Request) {
	wb, ok := h.work(w)
	if !ok {
		return
	}
	id, err := idParam(r, "routine")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := wb.RemoveRoutine(r.Context(), id); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) runRoutine(w http.ResponseWriter, r *http.Request) {
	wb, ok := h.work(w)
	if !ok {
		return
	}
	id, err := idParam(r, "routine")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	run, err := wb.RunRoutine(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusAccepted, run)
}

// StartWork calls POST /work and returns the queued run.
func (c *Client) StartWork(ctx context.Context, w NewWork) (WorkRun, error) {
	var run WorkRun
	err := c.do(ctx, http.MethodPost, "/work", w, &run)
	return run, err
}

// WorkRun calls GET /work/{id}.
func (c *Client) WorkRun(ctx context.Context, id int64) (WorkRun, error) {
	var run WorkRun
	err := c.do(ctx, http.MethodGet, "/work/"+strconv.FormatInt(id, 10), nil, &run)
	return run, err
}

// Routines calls GET /work/routines.
func (c *Client) Routines(ctx context.Context) ([]Routine, error) {
	var resp routinesResponse
	if err := c.do(ctx, http.MethodGet, "/work/routines", nil, &resp); err != nil {
		return nil, err
	}
	return resp.Routines, nil
}

// AddRoutine calls POST /work/routines.
func (c *Client) AddRoutine(ctx context.Context, r NewRoutine) (Routine, error) {
	var rt Routine
	err := c.do(ctx, http.MethodPost, "/work/routines", r, &rt)
	return rt, err
}

// RemoveRoutine calls DELETE /work/routines/{id}.
func (c *Client) RemoveRoutine(ctx context.Context, id int64) error {
	return c.do(ctx, http.MethodDelete, "/work/routines/"+strconv.FormatInt(id, 10), nil, nil)
}

// RunRoutine calls POST /work/routines/{id}/run and returns the queued run.
func (c *Client) RunRoutine(ctx context.Context, id int64) (WorkRun, error) {
	var run WorkRun
	err := c.do(ctx, http.MethodPost, "/work/routines/"+strconv.FormatInt(id, 10)+"/run", nil, &run)
	return run, err
}
