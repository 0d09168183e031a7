package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/digest"
)

// DigestBackend is the part of the Backend that serves the analysis loop
// (agents/digest): the HUD line, the digest, the context it was written
// from, and its configuration.
type DigestBackend interface {
	// DigestLast returns the latest analysis; ErrNotFound before the first.
	DigestLast(ctx context.Context) (digest.Analysis, error)
	// DigestHistory returns up to limit analyses, newest first.
	DigestHistory(ctx context.Context, limit int) ([]digest.Analysis, error)
	// DigestContext returns the context window an analysis would look
	// at now.
	DigestContext(ctx context.Context) (digest.Context, error)
	// DigestConfig returns the configuration in force.
	DigestConfig(ctx context.Context) (digest.Config, error)
	// SetDigestConfig changes it; a value out of bounds is an error
	// matching ErrBadRequest, and changes nothing.
	SetDigestConfig(ctx context.Context, u digest.ConfigUpdate) (digest.Config, error)
}

// History limits of GET /agent/history.
const (
	defaultAgentHistory = 20
	maxAgentHistory     = digest.HistorySize
)

// AgentDigest is the body of GET /agent/digest: the latest digest, the
// input of Spirit's own reasoning.
type AgentDigest struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	HUD        string    `json:"hud"`
	Digest     string    `json:"digest"`
	Source     string    `json:"source"`
	CurrentApp string    `json:"current_app,omitempty"`
	AppHistory []string  `json:"app_history"`
}

// AgentWindow is the body of GET /agent/context: the window an analysis
// would look at now, and code's HUD line for it.
type AgentWindow struct {
	digest.Context
	WindowSeconds float64 `json:"window_seconds"`
	HUD           string  `json:"hud"`
}

// AgentConfig is the body of GET and POST /agent/config.
type AgentConfig struct {
	Enabled         bool    `json:"enabled"`
	Interval        string  `json:"interval"` // "30s"
	IntervalSeconds float64 `json:"interval_seconds"`
	Window          string  `json:"window"` // "2m0s"
	WindowSeconds   float64 `json:"window_seconds"`
	// Model is the model asked; "" is the provider's fast (triage) model.
	Model string `json:"model"`
}

// AgentConfigOf is the API's view of a configuration.
func AgentConfigOf(c digest.Config) AgentConfig {
	return AgentConfig{Enabled: c.Enabled, Interval: c.Interval.String(), IntervalSeconds: c.Interval.Seconds(),
		Window: c.Window.String(), WindowSeconds: c.Window.Seconds(), Model: c.Model}
}

// AgentConfigChange is the body of POST /agent/config: the fields to
// change. interval and window are seconds (30) or a duration ("30s",
// "2m").
type AgentConfigChange struct {
	Enabled  *bool           `json:"enabled,omitempty"`
	Interval json.RawMessage `json:"interval,omitempty"`
	Window   json.RawMessage `json:"window,omitempty"`
	Model    *string         `json:"model,omitempty"`
}

type agentHistoryResponse struct {
	Analyses []digest.Analysis `json:"analyses"`
}

func (h *handler) agentRoutes() {
	h.mux.HandleFunc("GET /agent/digest", h.agentDigest)
	h.mux.HandleFunc("GET /agent/last", h.agentLast)
	h.mux.HandleFunc("GET /agent/history", h.agentHistory)
	h.mux.HandleFunc("GET /agent/context", h.agentContext)
	h.mux.HandleFunc("GET /agent/config", h.agentConfig)
	h.mux.HandleFunc("POST /agent/config", h.setAgentConfig)
}

func (h *handler) agentDigest(w http.ResponseWriter, r *http.Request) {
	a, err := h.b.DigestLast(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, AgentDigest{ID: a.ID, At: a.At, HUD: a.HUD, Digest: a.Digest, Source: a.Source,
		CurrentApp: a.CurrentApp, AppHistory: nonNil(a.AppHistory)})
}

func (h *handler) agentLast(w http.ResponseWriter, r *http.Request) {
	a, err := h.b.DigestLast(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	a.AppHistory = nonNil(a.AppHistory)
	h.writeJSON(w, http.StatusOK, a)
}

func (h *handler) agentHistory(w http.ResponseWriter, r *http.Request) {
	limit, err := intParam(r.URL.Query().Get("limit"), defaultAgentHistory)
	if err != nil || limit < 1 {
		h.fail(w, r, badRequest("limit must be a positive integer"))
		return
	}
	as, err := h.b.DigestHistory(r.Context(), int(min(limit, maxAgentHistory)))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if as == nil {
		as = []digest.Analysis{}
	}
	for i := range as {
		as[i].AppHistory = nonNil(as[i].AppHistory)
	}
	h.writeJSON(w, http.StatusOK, agentHistoryResponse{Analyses: as})
}

func (h *handler) agentContext(w http.ResponseWriter, r *http.Request) {
	c, err := h.b.DigestContext(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	c.Timeline, c.Utterances = nonNil(c.Timeline), nonNil(c.Utterances)
	h.writeJSON(w, http.StatusOK, AgentWindow{Context: c, WindowSeconds: c.Window.Seconds(), HUD: digest.HUD(c)})
}

func (h *handler) agentConfig(w http.ResponseWriter, r *http.Request) {
	c, err := h.b.DigestConfig(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, AgentConfigOf(c))
}

func (h *handler) setAgentConfig(w http.ResponseWriter, r *http.Request) {
	var req AgentConfigChange
	if err := decodeJSON(r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	u := digest.ConfigUpdate{Enabled: req.Enabled, Model: req.Model}
	var err error
	if u.Interval, err = durationField("interval", req.Interval); err != nil {
		h.fail(w, r, err)
		return
	}
	if u.Window, err = durationField("window", req.Window); err != nil {
		h.fail(w, r, err)
		return
	}
	if u == (digest.ConfigUpdate{}) {
		h.fail(w, r, badRequest("nothing to change: give enabled, interval, window or model"))
		return
	}
	c, err := h.b.SetDigestConfig(r.Context(), u)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.writeJSON(w, http.StatusOK, AgentConfigOf(c))
}

// durationField reads seconds (30, 1.5) or a duration ("30s", "2m");
// absent is nil.
func durationField(name string, raw json.RawMessage) (*time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var secs float64
	if err := json.Unmarshal(raw, &secs); err == nil {
		d := time.Duration(secs * float64(time.Second))
		return &d, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		s = strings.TrimSpace(s)
		if d, err := time.ParseDuration(s); err == nil {
			return &d, nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			d := time.Duration(f * float64(time.Second))
			return &d, nil
		}
	}
	return nil, badRequest("%s must be seconds (30) or a duration (\"30s\", \"2m\")", name)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// AgentDigest calls GET /agent/digest. Before the first analysis the
// error matches ErrNotFound.
func (c *Client) AgentDigest(ctx context.Context) (AgentDigest, error) {
	var d AgentDigest
	err := c.do(ctx, http.MethodGet, "/agent/digest", nil, &d)
	return d, err
}

// AgentLast calls GET /agent/last.
func (c *Client) AgentLast(ctx context.Context) (digest.Analysis, error) {
	var a digest.Analysis
	err := c.do(ctx, http.MethodGet, "/agent/last", nil, &a)
	return a, err
}

// AgentHistory calls GET /agent/history?limit=N; limit <= 0 leaves the
// choice to the server (20).
func (c *Client) AgentHistory(ctx context.Context, limit int) ([]digest.Analysis, error) {
	path := "/agent/history"
	if limit > 0 {
		path += "?" + url.Values{"limit": {strconv.Itoa(limit)}}.Encode()
	}
	var resp agentHistoryResponse
	if err := c.do(ctx, http.MethodGet, path, nil, &resp); err != nil {
		return nil, err
	}
	return resp.Analyses, nil
}

// AgentWindow calls GET /agent/context.
func (c *Client) AgentWindow(ctx context.Context) (AgentWindow, error) {
	var ac AgentWindow
	err := c.do(ctx, http.MethodGet, "/agent/context", nil, &ac)
	return ac, err
}

// SetAgentConfig calls POST /agent/config.
func (c *Client) SetAgentConfig(ctx context.Context, change AgentConfigChange) (AgentConfig, error) {
	var out AgentConfig
	err := c.do(ctx, http.MethodPost, "/agent/config", change, &out)
	return out, err
}
