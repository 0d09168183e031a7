package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/httpguard"
	"github.com/spirit-app/spirit/agents/redact"
)

// signIn is what a request of this package carries, for the errors of
// httpguard: a token, a refresh token, a client secret, a code.
const signIn = "your sign-in"

// ErrThrottled matches an *APIError for a request the service kept
// throttling past the retry budget: try the whole operation later.
var ErrThrottled = errors.New("throttled by the service")

// ErrTooLarge matches the error for an answer longer than its request's
// MaxBody. The request is not retried: the answer would be as long again.
// Nor is one the service redirected to another origin (an
// *httpguard.RedirectError).
var ErrTooLarge = errors.New("answer too large")

// Defaults of Client.
const (
	DefaultMaxAttempts = 5
	DefaultMaxWait     = 2 * time.Minute
	// maxBackoff caps the exponential backoff used when the service names
	// no wait (Google's guidance: 1, 2, 4… seconds up to about 32-64).
	maxBackoff = 32 * time.Second
	// DefaultMaxBody bounds an answer read into memory when its request
	// names no MaxBody: plenty for a page of a listing or a message's
	// metadata. A download of a whole message sets its own, from the
	// message cap.
	DefaultMaxBody = 16 << 20
)

// Client sends one mail service's REST requests. It adds the bearer token;
// on a 401 it invalidates the token (see Invalidator), refreshes, and
// retries once; it waits out throttling (429, 503, and what Decode calls
// throttled) for Retry-After or with exponential backoff, up to
// MaxAttempts; it retries other 5xx answers and network errors for
// idempotent requests only (a repeated POST could create a second draft);
// and it turns error answers into *APIError.
type Client struct {
	// Service names the service in errors: "Microsoft Graph", "Gmail".
	Service string
	Tokens  oauth2.TokenSource
	// HTTP sends the requests; nil means http.DefaultClient. It must not
	// add authorization itself. A redirect to another origin than the
	// request's is refused (httpguard.StayOnOrigin): it would take the
	// token and the body along.
	HTTP *http.Client
	// Origin, when set (the service's base URL), is the only origin the
	// token goes to: a request for a URL elsewhere (a link in an answer,
	// a stored cursor) fails with an *httpguard.OriginError before it is
	// sent.
	Origin string
	// Decode reads the service's error body; nil keeps the raw text.
	Decode func(status int, header http.Header, body []byte) ErrorDetail
	// MaxAttempts bounds the tries of one request (0: DefaultMaxAttempts).
	MaxAttempts int
	// MaxWait is the longest single wait; a longer Retry-After fails the
	// request with ErrThrottled at once (0: DefaultMaxWait).
	MaxWait time.Duration
	// Sleep waits d or until ctx is done; nil means a timer. Tests inject
	// a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads the clock for Retry-After dates; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// ErrorDetail is what a service's error body says.
type ErrorDetail struct {
	Code      string // Graph's error.code, Gmail's errors[].reason
	Message   string
	RequestID string
	// Throttled marks throttling answers beyond 429 and 503, such as
	// Gmail's 403 rateLimitExceeded.
	Throttled bool
}

// APIError is a service's error answer.
type APIError struct {
	Service, Method, Path string
	Status                int
	ErrorDetail
	// RetryAfter is the wait the service asked for, if any.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s: %d %s", e.Service, e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Code != "" {
		b.WriteString(": " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.RequestID != "" {
		b.WriteString(" [request-id " + e.RequestID + "]")
	}
	return b.String()
}

// Unwrap lets errors.Is match ErrSignInRequired for a 401 that survived a
// token refresh, and ErrThrottled for throttling.
func (e *APIError) Unwrap() error {
	switch {
	case e.Status == http.StatusUnauthorized:
		return ErrSignInRequired
	case e.throttled():
		return ErrThrottled
	}
	return nil
}

func (e *APIError) throttled() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable || e.Throttled
}

// Request is one REST call.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
	// MaxBody bounds the answer read into memory (0: DefaultMaxBody); a
	// longer one fails the request with an error wrapping ErrTooLarge.
	MaxBody int64
	// Filter, if set, reads a successful answer through it, before
	// MaxBody counts it: a caller can drop what it would not keep anyway
	// (Graph's message bodies past what the index keeps).
	Filter func(io.Reader) io.Reader
}

// Response is a successful answer, read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends r and returns the 2xx answer, or an *APIError.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	maxAttempts := c.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxAttempts
	}
	path := r.URL
	if u, err := url.Parse(r.URL); err == nil {
		path = u.Path
	}
	if c.Origin != "" {
		o, err := httpguard.ParseOrigin(c.Origin)
		if err == nil {
			err = httpguard.CheckOrigin(r.URL, o, signIn)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s %s: %w", c.Service, r.Method, path, err)
		}
	}
	log := logger(c.Logger)
	reauthorized := false
	for attempt := 1; ; attempt++ {
		tok, err := c.Tokens.Token()
		if err != nil {
			// TokenSource scrubs its errors; another source may not.
			return nil, fmt.Errorf("%s %s %s: %w", c.Service, r.Method, path, redact.Err(err))
		}
		// The service's answers may echo the bearer token: scrub what
		// comes back before it is logged or becomes an error.
		scrub := redact.New(tok.AccessToken)
		resp, err := c.send(ctx, r, tok)
		if err != nil {
			err = scrub.Error(err)
			var elsewhere *httpguard.RedirectError
			if ctx.Err() != nil || !idempotent(r.Method) || attempt >= maxAttempts || errors.Is(err, ErrTooLarge) || errors.As(err, &elsewhere) {
				return nil, fmt.Errorf("%s %s %s: %w", c.Service, r.Method, path, err)
			}
			wait := backoff(attempt)
			log.Warn("oauth: request failed, retrying", "service", c.Service, "path", path, "err", err, "wait", wait)
			if err := c.sleep(ctx, wait); err != nil {
				return nil, fmt.Errorf("%s %s %s: %w", c.Service, r.Method, path, err)
			}
			continue
		}
		if resp.Status >= 200 && resp.Status < 300 {
			return resp, nil
		}

		apiErr := &APIError{Service: c.Service, Method: r.Method, Path: path, Status: resp.Status}
		if c.Decode != nil {
			apiErr.ErrorDetail = c.Decode(resp.Status, resp.Header, resp.Body)
		} else {
			apiErr.Message = strings.TrimSpace(string(resp.Body))
		}
		apiErr.Code = scrubDetail(scrub, apiErr.Code, 512)
		apiErr.Message = scrubDetail(scrub, apiErr.Message, 512)
		apiErr.RequestID = scrubDetail(scrub, apiErr.RequestID, 512)
		apiErr.RetryAfter = c.retryAfter(resp.Header)

		if resp.Status == http.StatusUnauthorized && !reauthorized {
			// The token looked valid but was refused: expired early,
			// revoked, or the clocks disagree. Refresh once.
			reauthorized = true
			if inv, ok := c.Tokens.(Invalidator); ok {
				inv.Invalidate(tok)
			}
			log.Info("oauth: access token refused, refreshing", "service", c.Service, "path", path)
			attempt-- // a refresh is not a retry of the service's limits
			continue
		}
		retry := apiErr.throttled() ||
			(resp.Status >= 500 && idempotent(r.Method))
		if !retry || attempt >= maxAttempts {
			return nil, apiErr
		}
		wait := apiErr.RetryAfter
		if wait == 0 {
			wait = backoff(attempt)
		}
		if wait > c.maxWait() {
			return nil, apiErr
		}
		log.Warn("oauth: service busy, waiting", "service", c.Service, "path", path,
			"status", resp.Status, "code", apiErr.Code, "wait", wait, "attempt", attempt)
		if err := c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s %s %s: waiting to retry: %w", c.Service, r.Method, path, err)
		}
	}
}

// DoJSON sends in (when not nil) as JSON and decodes the answer into out
// (when not nil).
func (c *Client) DoJSON(ctx context.Context, method, url string, header http.Header, in, out any) error {
	return c.DoJSONRequest(ctx, Request{Method: method, URL: url, Header: header}, in, out)
}

// DoJSONRequest is DoJSON for a request with its own MaxBody or Filter;
// r.Body is replaced by in.
func (c *Client) DoJSONRequest(ctx context.Context, r Request, in, out any) error {
	method := r.Method
	r.Header = r.Header.Clone()
	r.Body = nil
	if in != nil {
		body, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s %s: encoding the request: %w", c.Service, method, err)
		}
		r.Body = body
		if r.Header == nil {
			r.Header = http.Header{}
		}
		r.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(ctx, r)
	if err != nil {
		return err
	}
	if out == nil || len(resp.Body) == 0 {
		return nil
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return fmt.Errorf("%s %s: decoding the answer: %w", c.Service, method, err)
	}
	return nil
}

func (c *Client) send(ctx context.Context, r Request, tok *oauth2.Token) (*Response, error) {
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Accept", "application/json")
	tok.SetAuthHeader(req)
	resp, err := httpguard.StayOnOrigin(c.HTTP, signIn).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	limit := r.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	var answer io.Reader = resp.Body
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if r.Filter != nil && ok {
		answer = r.Filter(answer)
	} else if resp.ContentLength > limit {
		// Said up front: not a byte of it needs reading.
		return nil, fmt.Errorf("%w: %d bytes, over the %d a request may take", ErrTooLarge, resp.ContentLength, limit)
	}
	// One byte past the limit tells an answer at the limit from a longer
	// one; reading stops there, whatever the rest.
	data, err := io.ReadAll(io.LimitReader(answer, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: over the %d bytes a request may take", ErrTooLarge, limit)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// retryAfter reads Retry-After: delay seconds or an HTTP date (RFC 9110).
func (c *Client) retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(s, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		now := time.Now
		if c.Now != nil {
			now = c.Now
		}
		return max(t.Sub(now()), 0)
	}
	return 0
}

func (c *Client) maxWait() time.Duration {
	if c.MaxWait > 0 {
		return c.MaxWait
	}
	return DefaultMaxWait
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backoff is the wait before retry number attempt (1-based) when the
// service named none: 1 s, 2 s, 4 s… capped, plus up to half again at
// random so that clients throttled together do not return together.
func backoff(attempt int) time.Duration {
	d := min(time.Second<<min(attempt-1, 10), maxBackoff)
	return d + rand.N(d/2)
}

// scrubDetail scrubs a service's text of credentials, then cuts it to n
// bytes (at a rune boundary) so that an HTML page stays readable. Scrubbing
// first matters: a cut through a secret would leave a part that no longer
// matches. The first 64 KiB are plenty for n and bound the scrubber's work.
func scrubDetail(scrub *redact.Scrubber, s string, n int) string {
	s = strings.TrimSpace(s)
	s = scrub.String(s[:min(len(s), 64<<10)])
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// idempotent reports whether repeating the method cannot duplicate an
// effect. PATCH is included: Spirit only patches fields to fixed values.
func idempotent(method string) bool {
	return method != http.MethodPost
}
