package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// maxResponseBytes bounds what the client reads from a response; a full
// page of world entries is far below it.
const maxResponseBytes = 16 << 20

// ReadInfo reads dataDir/api.json. An error matching fs.ErrNotExist means
// no Spirit instance has published its API there.
func ReadInfo(dataDir string) (Info, error) {
	data, err := os.ReadFile(filepath.Join(dataDir, InfoFile))
	if err != nil {
		return Info{}, fmt.Errorf("api: read %s: %w", InfoFile, err)
	}
	var info Info
	if err := json.Unmarshal(data, &info); err != nil {
		return Info{}, fmt.Errorf("api: parse %s: %w", InfoFile, err)
	}
	if err := info.check(); err != nil {
		return Info{}, err
	}
	return info, nil
}

// check makes sure the token can only ever be sent to this machine.
func (i Info) check() error {
	host, port, err := net.SplitHostPort(i.Addr)
	if err != nil {
		return fmt.Errorf("api: bad addr %q: %w", i.Addr, err)
	}
	if host != "127.0.0.1" && host != "localhost" {
		return fmt.Errorf("api: addr %q is not on 127.0.0.1", i.Addr)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return fmt.Errorf("api: addr %q has no valid port", i.Addr)
	}
	if i.Token == "" {
		return errors.New("api: empty token")
	}
	return nil
}

// StatusError is a non-2xx response from the server. It matches
// ErrBadRequest, ErrNotFound, ErrConflict and ErrTooMany under errors.Is according to
// its status code, and store.ErrBusy when the server's database was busy.
type StatusError struct {
	Code    int    // HTTP status code
	Message string // the server's "error" text
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("api: %d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

// Is lets callers write errors.Is(err, api.ErrNotFound) on either side.
func (e *StatusError) Is(target error) bool {
	switch target {
	case ErrBadRequest:
		return e.Code == http.StatusBadRequest
	case ErrNotFound:
		return e.Code == http.StatusNotFound
	case ErrConflict:
		return e.Code == http.StatusConflict
	case ErrTooMany:
		return e.Code == http.StatusTooManyRequests
	case store.ErrBusy:
		return e.Code == http.StatusServiceUnavailable && e.Message == BusyMessage
	}
	return false
}

// Client calls a running Spirit's API. It is safe for concurrent use.
// Deadlines come from the ctx passed to each call.
type Client struct {
	base  string // "http://127.0.0.1:PORT"
	token string
	err   error // set when info is unusable; returned by every call
	hc    *http.Client
}

// NewClient returns a client for the server described by info, typically
// from ReadInfo. If info does not point at 127.0.0.1, every call fails
// rather than send the token elsewhere.
func NewClient(info Info) *Client {
	tr := &http.Transport{
		Proxy:               nil, // never route the token through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        4,
		IdleConnTimeout:     30 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
	}
	return &Client{
		base:  "http://" + info.Addr,
		token: info.Token,
		err:   info.check(),
		hc: &http.Client{
			Transport: tr,
			// The API never redirects; following one could leak the token.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// Health calls GET /health.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	err := c.do(ctx, http.MethodGet, "/health", nil, &h)
	return h, err
}

// World calls GET /world: entries with ID > since, at most limit of them.
// limit <= 0 leaves the choice to the server (200; it allows up to 1000).
func (c *Client) World(ctx context.Context, since int64, limit int) ([]Entry, error) {
	q := url.Values{}
	q.Set("since", strconv.FormatInt(since, 10))
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var resp worldResponse
	if err := c.do(ctx, http.MethodGet, "/world?"+q.Encode(), nil, &resp); err != nil {
		return nil, err
	}
	return resp.Entries, nil
}

// Say calls POST /say: text is handled as if the lawyer had spoken it.
func (c *Client) Say(ctx context.Context, text string) (SayResult, error) {
	var res SayResult
	err := c.do(ctx, http.MethodPost, "/say", sayRequest{Text: text}, &res)
	return res, err
}

// Nudges calls GET /nudges.
func (c *Client) Nudges(ctx context.Context) ([]Nudge, error) {
	var resp nudgesResponse
	if err := c.do(ctx, http.MethodGet, "/nudges", nil, &resp); err != nil {
		return nil, err
	}
	return resp.Nudges, nil
}

// Notify calls POST /nudges.
func (c *Client) Notify(ctx context.Context, n NewNudge) (Nudge, error) {
	var out Nudge
	err := c.do(ctx, http.MethodPost, "/nudges", n, &out)
	return out, err
}

// Respond calls POST /nudges/{id}/respond with action (ActionAccept,
// ActionDismiss or ActionSnooze) and optional text, returning the updated
// nudge.
func (c *Client) Respond(ctx context.Context, id int64, action, text string) (Nudge, error) {
	var n Nudge
	path := "/nudges/" + strconv.FormatInt(id, 10) + "/respond"
	err := c.do(ctx, http.MethodPost, path, respondRequest{Action: action, Text: text}, &n)
	return n, err
}

// Show calls POST /show, asking the running Spirit to bring its UI forward.
func (c *Client) Show(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/show", nil, nil)
}

// Agents calls GET /agents: the task agents, newest first.
func (c *Client) Agents(ctx context.Context) ([]Agent, error) {
	var resp agentsResponse
	if err := c.do(ctx, http.MethodGet, "/agents", nil, &resp); err != nil {
		return nil, err
	}
	return resp.Agents, nil
}

// Agent calls GET /agents/{id}: one agent with its world-log entries. An
// unknown id is an error matching ErrNotFound.
func (c *Client) Agent(ctx context.Context, id string) (AgentDetail, error) {
	var d AgentDetail
	err := c.do(ctx, http.MethodGet, "/agents/"+url.PathEscape(id), nil, &d)
	return d, err
}

// CancelAgent calls POST /agents/{id}/cancel and returns the cancelled
// agent. An agent that has already ended is an error matching ErrConflict.
func (c *Client) CancelAgent(ctx context.Context, id string) (Agent, error) {
	var t Agent
	err := c.do(ctx, http.MethodPost, "/agents/"+url.PathEscape(id)+"/cancel", nil, &t)
	return t, err
}

// do sends in (if not nil) as JSON and decodes the response into out (if
// not nil). Non-2xx responses become a *StatusError.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	if c.err != nil {
		return c.err
	}
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("api: %s %s: encode request: %w", method, path, err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("api: %s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("api: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	rd := io.LimitReader(resp.Body, maxResponseBytes)

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(resp.StatusCode, rd)
	}
	if out == nil {
		io.Copy(io.Discard, rd) // drain so the connection can be reused
		return nil
	}
	if err := json.NewDecoder(rd).Decode(out); err != nil {
		return fmt.Errorf("api: %s %s: decode response: %w", method, path, err)
	}
	return nil
}

// statusError builds a *StatusError from an error response, falling back to
// the status text when the body is not the API's JSON error.
func statusError(code int, body io.Reader) *StatusError {
	var e errorResponse
	if err := json.NewDecoder(body).Decode(&e); err != nil || e.Error == "" {
		e.Error = http.StatusText(code)
	}
	return &StatusError{Code: code, Message: e.Error}
}
