package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// Request limits.
const (
	maxBodyBytes      = 64 << 10
	maxTextRunes      = 2000
	defaultWorldLimit = 200
	maxWorldLimit     = 1000
)

// handler checks every request (panic recovery, Host, token) and then
// routes it. It is built by Start, once the address and token are known.
type handler struct {
	b     Backend
	log   *slog.Logger
	token []byte
	// The only Host values accepted: anything else may be a DNS-rebinding
	// page in a browser reaching 127.0.0.1 under a name it controls.
	hostIP, hostName string
	mux              *http.ServeMux
}

func newHandler(b Backend, log *slog.Logger, addr, token string) *handler {
	_, port, _ := net.SplitHostPort(addr) // addr comes from our own listener
	h := &handler{
		b:        b,
		log:      log,
		token:    []byte(token),
		hostIP:   "127.0.0.1:" + port,
		hostName: "localhost:" + port,
		mux:      http.NewServeMux(),
	}
	h.mux.HandleFunc("GET /health", h.health)
	h.mux.HandleFunc("GET /world", h.world)
	h.mux.HandleFunc("POST /say", h.say)
	h.mux.HandleFunc("GET /nudges", h.nudges)
	h.mux.HandleFunc("POST /nudges", h.notify)
	h.mux.HandleFunc("POST /nudges/{id}/respond", h.respond)
	h.mux.HandleFunc("POST /show", h.show)
	h.mux.HandleFunc("GET /agents", h.agents)
	h.mux.HandleFunc("GET /agents/{id}", h.agent)
	h.mux.HandleFunc("POST /agents/{id}/cancel", h.cancelAgent)
	h.mux.HandleFunc("POST /mail/sync", h.syncNow(Backend.SyncMail))
	h.mux.HandleFunc("POST /calendars/sync", h.syncNow(Backend.SyncCalendars))
	h.workRoutes()
	h.agentRoutes()
	h.worldRoutes()
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Limit the body here, with the server's own writer, so that an
	// oversized body also makes the server close the connection.
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	sw := &statusWriter{ResponseWriter: w}
	start := time.Now()
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v) // net/http's way to abort a response; it handles this
			}
			h.log.Error("api: handler panicked", "method", r.Method, "path", r.URL.Path,
				"panic", v, "stack", string(debug.Stack()))
			if !sw.wrote {
				h.writeError(sw, http.StatusInternalServerError, "internal error")
			}
		}
		h.log.Debug("api: request", "method", r.Method, "path", r.URL.Path,
			"status", sw.status, "duration", time.Since(start))
	}()

	if r.Host != h.hostIP && !strings.EqualFold(r.Host, h.hostName) {
		h.writeError(sw, http.StatusForbidden, "forbidden Host header")
		return
	}
	if !h.authorized(r) {
		sw.Header().Set("WWW-Authenticate", "Bearer")
		h.writeError(sw, http.StatusUnauthorized, "missing or invalid bearer token")
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	// A request whose write finds another program holding the database
	// locked answers "busy" after one wait, not after one wait per write.
	r = r.WithContext(store.WaitOnce(ctx))
	if fallback, pattern := h.mux.Handler(r); pattern == "" {
		h.unrouted(sw, r, fallback)
		return
	}
	h.mux.ServeHTTP(sw, r)
}

// authorized reports whether r carries the bearer token. The comparison is
// constant-time so response timing does not reveal how much of a guess
// was right.
func (h *handler) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), h.token) == 1
}

// unrouted answers in JSON what the mux would have answered in plain text:
// 405 (with its Allow header) for a known path with the wrong method, 404
// for anything else.
func (h *handler) unrouted(w http.ResponseWriter, r *http.Request, fallback http.Handler) {
	c := &captureWriter{header: http.Header{}}
	fallback.ServeHTTP(c, r)
	if c.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", c.header.Get("Allow"))
		h.writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	h.writeError(w, http.StatusNotFound, "not found")
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	hl := h.b.Health(r.Context())
	// Empty objects rather than null keep clients' lives simple.
	if hl.Subsystems == nil {
		hl.Subsystems = map[string]Subsystem{}
	}
	if hl.Counters == nil {
		hl.Counters = map[string]int64{}
	}
	h.writeJSON(w, http.StatusOK, hl)
}

func (h *handler) world(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since, err := intParam(q.Get("since"), 0)
	if err != nil || since < 0 {
		h.fail(w, r, badRequest("since must be a non-negative integer"))
		return
	}
	limit, err := intParam(q.Get("limit"), defaultWorldLimit)
	if err != nil || limit < 1 {
		h.fail(w, r, badRequest("limit must be a positive integer"))
		return
	}
	// Clamp rather than reject: callers page with since anyway.
	limit = min(limit, maxWorldLimit)

	entries, err := h.b.World(r.Context(), since, int(limit))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if entries == nil {
		entries = []Entry{}
	}
	h.writeJSON(w, http.StatusOK, worldResponse{Entries: entries})
}

func (h *handler) say(w http.ResponseWriter, r *http.Request) {
	var req sayRequest
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	text, err := cleanText(req.Text)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if text == "" {
		h.fail(w, r, badRequest("text is required"))
		return
	}
	res, err := h.b.Say(r.Context(), text)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, res)
}

func (h *handler) nudges(w http.ResponseWriter, r *http.Request) {
	nudges, err := h.b.Nudges(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if nudges == nil {
		nudges = []Nudge{}
	}
	h.writeJSON(w, http.StatusOK, nudgesResponse{Nudges: nudges})
}

// maxMessageRunes bounds a nudge's message: it must fit a bubble.
const maxMessageRunes = 500

var kindRe = regexp.MustCompile(`^[a-z][a-z_]{0,31}$`)

func (h *handler) notify(w http.ResponseWriter, r *http.Request) {
	var req NewNudge
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	if !kindRe.MatchString(req.Kind) {
		h.fail(w, r, badRequest("kind must be 1-32 lower-case letters or _"))
		return
	}
	if nudge.SpiritsOwn(req.Kind) && !ownKindsFromOutside {
		h.fail(w, r, badRequest(`kind %q is Spirit's own: use "info", or a kind of your own such as "file_review"`, req.Kind))
		return
	}
	req.Message = strings.TrimSpace(req.Message)
	if req.Message == "" {
		h.fail(w, r, badRequest("message is required"))
		return
	}
	if utf8.RuneCountInString(req.Message) > maxMessageRunes {
		h.fail(w, r, badRequest("message is too long (max %d characters)", maxMessageRunes))
		return
	}
	prompt, err := cleanText(req.ActionPrompt)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	req.ActionPrompt = prompt
	if d := strings.TrimSpace(req.Detail); d != "" && (!json.Valid([]byte(d)) || d[0] != '{') {
		h.fail(w, r, badRequest("detail must be a JSON object"))
		return
	}
	n, err := h.b.Notify(r.Context(), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusCreated, n)
}

func (h *handler) respond(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.fail(w, r, badRequest("nudge id must be a positive integer"))
		return
	}
	var req respondRequest
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	switch {
	case req.Action == ActionAccept, req.Action == ActionDismiss, req.Action == ActionSnooze, req.Action == ActionEdit:
	case strings.HasPrefix(req.Action, ActionAnswerPrefix) && len(req.Action) > len(ActionAnswerPrefix) && len(req.Action) <= 200:
	default:
		h.fail(w, r, badRequest("action must be one of %s, %s, %s, %s or %s<option>",
			ActionAccept, ActionDismiss, ActionSnooze, ActionEdit, ActionAnswerPrefix))
		return
	}
	text, err := cleanText(req.Text)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	n, err := h.b.RespondNudge(r.Context(), id, req.Action, text)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, n)
}

func (h *handler) show(w http.ResponseWriter, r *http.Request) {
	if err := h.b.Show(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

// agentsResponse is the body of GET /agents.
type agentsResponse struct {
	Agents []Agent `json:"agents"`
}

// maxSessionBytes bounds an agent id in a path ("task-" and 12 hex digits
// in practice).
const maxSessionBytes = 128

// sessionParam returns the {id} of an /agents/{id} path.
func sessionParam(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if id == "" || len(id) > maxSessionBytes || !utf8.ValidString(id) {
		return "", badRequest("agent id must be 1-%d bytes of UTF-8", maxSessionBytes)
	}
	return id, nil
}

func (h *handler) agents(w http.ResponseWriter, r *http.Request) {
	agents, err := h.b.Agents(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if agents == nil {
		agents = []Agent{}
	}
	h.writeJSON(w, http.StatusOK, agentsResponse{Agents: agents})
}

func (h *handler) agent(w http.ResponseWriter, r *http.Request) {
	id, err := sessionParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.b.Agent(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Entries == nil {
		d.Entries = []Entry{}
	}
	h.writeJSON(w, http.StatusOK, d)
}

func (h *handler) cancelAgent(w http.ResponseWriter, r *http.Request) {
	id, err := sessionParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	t, err := h.b.CancelAgent(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, t)
}

// httpError is a request problem found by this package, with its status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// fail writes the response for err. Only errors that describe the request
// are shown to the client; anything else is logged and answered with a
// generic 500 so that paths, SQL and the like never leave the process.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if he, ok := errors.AsType[*httpError](err); ok {
		h.writeError(w, he.status, he.msg)
		return
	}
	switch ctxErr := r.Context().Err(); {
	case errors.Is(err, store.ErrBusy):
		// Another program holds spirit.db locked: worth trying again soon.
		h.log.Warn("api: database busy", "route", r.Pattern, "err", err)
		w.Header().Set("Retry-After", "5")
		h.writeError(w, http.StatusServiceUnavailable, BusyMessage)
	case errors.Is(err, ErrBadRequest):
		h.writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, ErrNotFound):
		h.writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, ErrConflict):
		h.writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, ErrTooMany):
		w.Header().Set("Retry-After", strconv.Itoa(tooManyRetrySeconds))
		h.writeError(w, http.StatusTooManyRequests, err.Error())
	case ctxErr != nil && errors.Is(err, ctxErr):
		// The client went away or the request ran out of time: not a fault.
		h.log.Warn("api: request abandoned", "route", r.Pattern, "err", err)
		h.writeError(w, http.StatusServiceUnavailable, "request cancelled or timed out")
	default:
		h.log.Error("api: backend failed", "route", r.Pattern, "err", err)
		h.writeError(w, http.StatusInternalServerError, "internal error")
	}
}

func (h *handler) writeError(w http.ResponseWriter, status int, msg string) {
	h.writeJSON(w, status, errorResponse{Error: msg})
}

// writeJSON encodes v before writing anything, so an encoding failure can
// still become a clean 500 rather than a truncated body.
func (h *handler) writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		h.log.Error("api: encode response", "type", fmt.Sprintf("%T", v), "err", err)
		status, body = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "application/json; charset=utf-8")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n')) // a failed write means the client is gone
}

// decodeJSON decodes a body holding exactly one JSON object into dst,
// rejecting unknown fields, and turns each failure into a 400 (or 415) whose
// message says what to fix.
func decodeJSON(r *http.Request, dst any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return &httpError{status: http.StatusUnsupportedMediaType, msg: "Content-Type must be application/json"}
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return bodyError(err)
	}
	var extra json.RawMessage
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
		return nil
	case isTooLarge(err):
		return bodyError(err)
	default:
		return badRequest("request body must hold a single JSON object")
	}
}

func bodyError(err error) error {
	if isTooLarge(err) {
		return badRequest("request body too large (max %d bytes)", maxBodyBytes)
	}
	if errors.Is(err, io.EOF) {
		return badRequest("request body is empty")
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return badRequest("malformed JSON: body ends early")
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return badRequest("malformed JSON at byte %d", se.Offset)
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field == "" {
			return badRequest("request body must be a JSON object")
		}
		return badRequest("field %q must be of type %s", te.Field, te.Type)
	}
	// encoding/json has no error type for this one.
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return badRequest("unknown field %s", field)
	}
	return badRequest("malformed JSON")
}

func isTooLarge(err error) bool {
	_, ok := errors.AsType[*http.MaxBytesError](err)
	return ok
}

// cleanText trims s and checks its length in characters.
func cleanText(s string) (string, error) {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxTextRunes {
		return "", badRequest("text is too long (max %d characters)", maxTextRunes)
	}
	return s, nil
}

// intParam parses a query value, returning def when it is absent or empty.
func intParam(v string, def int64) (int64, error) {
	if v == "" {
		return def, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// statusWriter remembers whether and what a handler has written, so a
// recovered panic is answered only if nothing has been sent yet.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// captureWriter records the status and headers of the mux's plain-text
// fallback responses and discards their bodies.
type captureWriter struct {
	header http.Header
	status int
}

func (c *captureWriter) Header() http.Header { return c.header }

func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}

func (c *captureWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return len(p), nil
}
