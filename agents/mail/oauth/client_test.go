package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/agents/mail/oauth/oauthtest"
)

func TestTokenSourceRefreshAndSave(t *testing.T) {
	ts := oauthtest.NewTokenServer(t)
	var saved []*oauth2.Token
	src := oauth.NewTokenSource(ts.Config(), ts.Token("old", time.Now().Add(-time.Minute)), oauth.TokenSourceOptions{
		Save: func(tok *oauth2.Token) error { saved = append(saved, tok); return nil },
	})
	tok, err := src.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "access-1" || tok.RefreshToken != ts.RefreshToken {
		t.Errorf("token = %+v, want access-1 keeping the refresh token", tok)
	}
	if len(saved) != 1 || saved[0].AccessToken != "access-1" {
		t.Errorf("saved = %v", saved)
	}
	// Valid now: no second refresh.
	if tok2, _ := src.Token(); tok2.AccessToken != "access-1" || ts.Refreshes() != 1 {
		t.Errorf("second Token = %v after %d refreshes", tok2.AccessToken, ts.Refreshes())
	}
}

func TestTokenSourceInvalidate(t *testing.T) {
	ts := oauthtest.NewTokenServer(t)
	old := ts.Token("looks-valid", time.Now().Add(time.Hour))
	src := oauth.NewTokenSource(ts.Config(), old, oauth.TokenSourceOptions{})
	if tok, _ := src.Token(); tok.AccessToken != "looks-valid" {
		t.Fatalf("Token = %v", tok.AccessToken)
	}
	src.Invalidate(old)
	if tok, _ := src.Token(); tok.AccessToken != "access-1" {
		t.Errorf("after Invalidate Token = %v, want access-1", tok.AccessToken)
	}
	// A late 401 for the old token must not refresh again.
	src.Invalidate(old)
	if tok, _ := src.Token(); tok.AccessToken != "access-1" || ts.Refreshes() != 1 {
		t.Errorf("Token = %v after %d refreshes, want access-1 after 1", tok.AccessToken, ts.Refreshes())
	}
}

func TestTokenSourceRefreshRefused(t *testing.T) {
	ts := oauthtest.NewTokenServer(t)
	ts.Fail("invalid_grant")
	src := oauth.NewTokenSource(ts.Config(), ts.Token("old", time.Now().Add(-time.Minute)), oauth.TokenSourceOptions{})
	_, err := src.Token()
	if !errors.Is(err, oauth.ErrSignInRequired) || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("err = %v, want ErrSignInRequired mentioning invalid_grant", err)
	}
	noRefresh := oauth.NewTokenSource(ts.Config(), &oauth2.Token{AccessToken: "x", Expiry: time.Now().Add(-time.Minute)}, oauth.TokenSourceOptions{})
	if _, err := noRefresh.Token(); !errors.Is(err, oauth.ErrSignInRequired) {
		t.Errorf("without a refresh token err = %v", err)
	}
}

// api is a REST endpoint that answers from a script of statuses and
// records the Authorization headers it saw.
type api struct {
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	auth    []string
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.auth = append(a.auth, r.Header.Get("Authorization"))
	if len(a.answers) == 0 {
		w.Write([]byte(`{"ok":true}`))
		return
	}
	answer := a.answers[0]
	a.answers = a.answers[1:]
	answer(w)
}

func status(code int, header ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		w.Write([]byte(`{"error":{"code":"Busy","message":"try later"}}`))
	}
}

func newClient(t *testing.T, a *api, src oauth2.TokenSource, sl *oauthtest.Sleeper) (*oauth.Client, string) {
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return &oauth.Client{
		Service: "Test API",
		Tokens:  src,
		HTTP:    srv.Client(),
		Sleep:   sl.Sleep,
		Now:     func() time.Time { return time.Date(2026, 6, 18, 12, 0, 0, 0, time.UTC) },
	}, srv.URL + "/v1/thing"
}

func static(tok string) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok})
}

func TestClientRetryAfter(t *testing.T) {
	a := &api{answers: []func(http.ResponseWriter){
		status(429, "Retry-After", "1"),
		status(503, "Retry-After", "Thu, 18 Jun 2026 12:00:03 GMT"),
	}}
	sl := &oauthtest.Sleeper{}
	c, u := newClient(t, a, static("tok"), sl)
	if err := c.DoJSON(t.Context(), http.MethodGet, u, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := sl.Waits(); !equalDurations(got, []time.Duration{time.Second, 3 * time.Second}) {
		t.Errorf("waits = %v, want [1s 3s]", got)
	}
	if len(a.auth) != 3 || a.auth[2] != "Bearer tok" {
		t.Errorf("requests = %v", a.auth)
	}
}

func TestClientBackoffAndGiveUp(t *testing.T) {
	a := &api{}
	for range 5 {
		a.answers = append(a.answers, status(503))
	}
	sl := &oauthtest.Sleeper{}
	c, u := newClient(t, a, static("tok"), sl)
	c.MaxAttempts = 3
	err := c.DoJSON(t.Context(), http.MethodGet, u, nil, nil, nil)
	var apiErr *oauth.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || !errors.Is(err, oauth.ErrThrottled) {
		t.Fatalf("err = %v, want a throttled 503 APIError", err)
	}
	if !strings.Contains(err.Error(), "Busy") {
		t.Errorf("err = %v lacks the body", err)
	}
	waits := sl.Waits()
	if len(waits) != 2 || waits[0] < time.Second || waits[0] >= 1500*time.Millisecond ||
		waits[1] < 2*time.Second || waits[1] >= 3*time.Second {
		t.Errorf("waits = %v, want about 1s then 2s", waits)
	}
}

func TestClientRetryAfterTooLong(t *testing.T) {
	a := &api{answers: []func(http.ResponseWriter){status(429, "Retry-After", "3600")}}
	sl := &oauthtest.Sleeper{}
	c, u := newClient(t, a, static("tok"), sl)
	err := c.DoJSON(t.Context(), http.MethodGet, u, nil, nil, nil)
	var apiErr *oauth.APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != time.Hour {
		t.Fatalf("err = %v, want RetryAfter 1h", err)
	}
	if len(sl.Waits()) != 0 {
		t.Errorf("waited %v", sl.Waits())
	}
}

func TestClientNoRetryOfPostOnServerError(t *testing.T) {
	a := &api{answers: []func(http.ResponseWriter){status(500), status(500)}}
	sl := &oauthtest.Sleeper{}
	c, u := newClient(t, a, static("tok"), sl)
	if err := c.DoJSON(t.Context(), http.MethodPost, u, nil, map[string]string{"a": "b"}, nil); err == nil {
		t.Fatal("POST succeeded")
	}
	if len(a.auth) != 1 {
		t.Errorf("POST sent %d times, want once", len(a.auth))
	}
	if err := c.DoJSON(t.Context(), http.MethodGet, u, nil, nil, nil); err != nil {
		t.Errorf("GET after one 500: %v", err)
	}
}

func TestClientCancelWhileWaiting(t *testing.T) {
	a := &api{answers: []func(http.ResponseWriter){status(429, "Retry-After", "1")}}
	ctx, cancel := context.WithCancel(t.Context())
	c, u := newClient(t, a, static("tok"), &oauthtest.Sleeper{})
	c.Sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return oauth.Sleep(ctx, d)
	}
	if err := c.DoJSON(ctx, http.MethodGet, u, nil, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want canceled", err)
	}
}

func TestClientRefreshOn401(t *testing.T) {
	ts := oauthtest.NewTokenServer(t)
	src := oauth.NewTokenSource(ts.Config(), ts.Token("revoked", time.Now().Add(time.Hour)), oauth.TokenSourceOptions{})
	a := &api{answers: []func(http.ResponseWriter){status(401)}}
	c, u := newClient(t, a, src, &oauthtest.Sleeper{})
	if err := c.DoJSON(t.Context(), http.MethodGet, u, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Bearer revoked", "Bearer access-1"}; strings.Join(a.auth, ",") != strings.Join(want, ",") {
		t.Errorf("requests = %v, want %v", a.auth, want)
	}

	// Refused twice: a fresh token does not help either.
	a.answers = []func(http.ResponseWriter){status(401), status(401)}
	src.Invalidate(nil)
	err := c.DoJSON(t.Context(), http.MethodGet, u, nil, nil, nil)
	if !errors.Is(err, oauth.ErrSignInRequired) {
		t.Errorf("err = %v, want ErrSignInRequired", err)
	}
}
