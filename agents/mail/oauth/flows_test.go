package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail/oauth"
)

// fakeMicrosoft implements the Microsoft identity platform's device-code
// endpoints: POST {tenant}/oauth2/v2.0/devicecode and .../token with the
// device_code grant, answering the token polls from a script.
type fakeMicrosoft struct {
	t        *testing.T
	interval int // seconds, as Microsoft sends it

	mu     sync.Mutex
	script []string // token answers in order: an OAuth error code, or "ok"
	polls  []time.Time
	scope  string
}

const (
	deviceCode = "device-code-123"
	userCode   = "ABCD-EFGH"
)

func (f *fakeMicrosoft) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if got := r.PostForm.Get("client_id"); got != "spirit-ms" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client", "error_description": "client " + got})
		return
	}
	switch r.URL.Path {
	case "/common/oauth2/v2.0/devicecode":
		f.scope = r.PostForm.Get("scope")
		writeJSON(w, http.StatusOK, map[string]any{
			"device_code":      deviceCode,
			"user_code":        userCode,
			"verification_uri": "https://microsoft.com/devicelogin",
			"expires_in":       900,
			"interval":         f.interval,
			"message":          "To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code ABCD-EFGH to authenticate.",
		})
	case "/common/oauth2/v2.0/token":
		f.polls = append(f.polls, time.Now())
		if r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code" ||
			r.PostForm.Get("device_code") != deviceCode {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		if len(f.script) == 0 {
			f.t.Error("token endpoint polled after the script ended")
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		answer := f.script[0]
		f.script = f.script[1:]
		if answer != "ok" {
			writeJSON(w, http.StatusBadRequest, map[string]string{
				"error": answer, "error_description": "AADSTS: " + answer,
			})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"token_type":    "Bearer",
			"scope":         "Mail.ReadWrite User.Read",
			"expires_in":    3599,
			"access_token":  "ms-access",
			"refresh_token": "ms-refresh",
		})
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// handlerTransport serves requests with a handler in-process. The device
// flow tests run in a synctest bubble, whose fake clock lets RFC 8628's
// polling intervals (5 s, +5 s on slow_down) pass at once, and bubbles must
// not use the real network.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

func msConfig(authority string) *oauth2.Config {
	cfg := oauth.MicrosoftConfig("spirit-ms", "")
	cfg.Endpoint = oauth.MicrosoftEndpoint(authority, "")
	return cfg
}

func TestDeviceFlowPendingSlowDownSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &fakeMicrosoft{t: t, interval: 5, script: []string{"authorization_pending", "slow_down", "ok"}}
		ctx := context.WithValue(t.Context(), oauth2.HTTPClient, &http.Client{Transport: handlerTransport{fake}})
		var shown []oauth.DeviceCode
		start := time.Now()
		tok, err := oauth.DeviceFlow{
			Config: msConfig("https://login.example.test"),
			Show:   func(c oauth.DeviceCode) error { shown = append(shown, c); return nil },
		}.SignIn(ctx)
		if err != nil {
			t.Fatalf("SignIn: %v", err)
		}
		if tok.AccessToken != "ms-access" || tok.RefreshToken != "ms-refresh" {
			t.Errorf("token = %+v", tok)
		}
		if len(shown) != 1 || shown[0].UserCode != userCode || shown[0].VerificationURI != "https://microsoft.com/devicelogin" {
			t.Errorf("shown = %+v", shown)
		}
		if got := shown[0].Expires.Sub(start); got != 900*time.Second {
			t.Errorf("code expires after %v, want 15m", got)
		}
		if fake.scope != "offline_access Mail.ReadWrite User.Read Calendars.ReadWrite" {
			t.Errorf("scope = %q", fake.scope)
		}
		// Polls 5 s apart, then 10 s after slow_down (RFC 8628 section 3.5).
		var gaps []time.Duration
		prev := start
		for _, p := range fake.polls {
			gaps = append(gaps, p.Sub(prev))
			prev = p
		}
		want := []time.Duration{5 * time.Second, 5 * time.Second, 10 * time.Second}
		if !equalDurations(gaps, want) {
			t.Errorf("poll gaps = %v, want %v", gaps, want)
		}
	})
}

func TestDeviceFlowDeclinedAndExpired(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   error
	}{
		{"authorization_declined", oauth.ErrAccessDenied},
		{"expired_token", oauth.ErrCodeExpired},
		{"bad_verification_code", nil},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := &fakeMicrosoft{t: t, interval: 5, script: []string{"authorization_pending", tc.answer}}
				ctx := context.WithValue(t.Context(), oauth2.HTTPClient, &http.Client{Transport: handlerTransport{fake}})
				_, err := oauth.DeviceFlow{
					Config: msConfig("https://login.example.test"),
					Show:   func(oauth.DeviceCode) error { return nil },
				}.SignIn(ctx)
				if err == nil {
					t.Fatal("SignIn succeeded")
				}
				if tc.want != nil && !errors.Is(err, tc.want) {
					t.Errorf("err = %v, want %v", err, tc.want)
				}
				if !strings.Contains(err.Error(), tc.answer) {
					t.Errorf("err = %v, want the service's code %q in it", err, tc.answer)
				}
			})
		})
	}
}

func TestDeviceFlowCodeExpiresWhilePending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script := make([]string, 200)
		for i := range script {
			script[i] = "authorization_pending"
		}
		fake := &fakeMicrosoft{t: t, interval: 5, script: script}
		ctx := context.WithValue(t.Context(), oauth2.HTTPClient, &http.Client{Transport: handlerTransport{fake}})
		_, err := oauth.DeviceFlow{
			Config: msConfig("https://login.example.test"),
			Show:   func(oauth.DeviceCode) error { return nil },
		}.SignIn(ctx)
		if !errors.Is(err, oauth.ErrCodeExpired) {
			t.Errorf("err = %v, want ErrCodeExpired", err)
		}
	})
}

// TestDeviceFlowOverHTTP runs the flow once over a real HTTP server, with
// a one-second interval and immediate success.
func TestDeviceFlowOverHTTP(t *testing.T) {
	fake := &fakeMicrosoft{t: t, interval: 1, script: []string{"ok"}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ctx := context.WithValue(t.Context(), oauth2.HTTPClient, srv.Client())
	tok, err := oauth.DeviceFlow{
		Config: msConfig(srv.URL),
		Show:   func(oauth.DeviceCode) error { return nil },
	}.SignIn(ctx)
	if err != nil || tok.AccessToken != "ms-access" {
		t.Fatalf("SignIn = %+v, %v", tok, err)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fakeGoogle implements Google's authorization-code endpoints: the consent
// page (simulated by the test's browser) and the token endpoint, which
// checks the PKCE code_verifier against the challenge the page received
// (RFC 7636 section 4.6).
type fakeGoogle struct {
	*httptest.Server
	t *testing.T

	mu        sync.Mutex
	codes     map[string]grant // authorization code → what the consent page saw
	exchanges int
}

type grant struct {
	challenge, redirectURI string
}

func newFakeGoogle(t *testing.T) *fakeGoogle {
	g := &fakeGoogle{t: t, codes: map[string]grant{}}
	g.Server = httptest.NewServer(http.HandlerFunc(g.token))
	t.Cleanup(g.Close)
	return g
}

func (g *fakeGoogle) config() *oauth2.Config {
	cfg := oauth.GoogleConfig("spirit-google.apps.googleusercontent.com", "not-so-secret")
	cfg.Endpoint.AuthURL = "https://accounts.example.test/o/oauth2/auth"
	cfg.Endpoint.TokenURL = g.URL + "/token"
	return cfg
}

// authorize is the consent page: it validates the authorization request
// and returns a code.
func (g *fakeGoogle) authorize(authURL string) (code string, q url.Values) {
	u, err := url.Parse(authURL)
	if err != nil {
		g.t.Fatalf("auth URL: %v", err)
	}
	q = u.Query()
	want := map[string]string{
		"response_type":         "code",
		"client_id":             "spirit-google.apps.googleusercontent.com",
		"code_challenge_method": "S256",
		"access_type":           "offline",
		"prompt":                "consent",
		"scope": oauth.GmailScopeReadonly + " " + oauth.GmailScopeCompose + " " + oauth.GoogleScopeCalendarEvents + " " +
			oauth.GoogleScopeCalendarListReadonly,
	}
	for k, v := range want {
		if q.Get(k) != v {
			g.t.Errorf("auth request %s = %q, want %q", k, q.Get(k), v)
		}
	}
	if !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") || q.Get("state") == "" || q.Get("code_challenge") == "" {
		g.t.Errorf("auth request = %v", q)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	code = "code-" + q.Get("state")[:6]
	g.codes[code] = grant{challenge: q.Get("code_challenge"), redirectURI: q.Get("redirect_uri")}
	return code, q
}

func (g *fakeGoogle) token(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/token" || r.ParseForm() != nil {
		http.NotFound(w, r)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.exchanges++
	f := r.PostForm
	gr, ok := g.codes[f.Get("code")]
	switch {
	case f.Get("grant_type") != "authorization_code" || !ok:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "Malformed auth code."})
	case f.Get("client_id") != "spirit-google.apps.googleusercontent.com" || f.Get("client_secret") != "not-so-secret":
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
	case f.Get("redirect_uri") != gr.redirectURI:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "redirect_uri_mismatch"})
	case oauth2.S256ChallengeFromVerifier(f.Get("code_verifier")) != gr.challenge:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "Invalid code verifier."})
	default:
		delete(g.codes, f.Get("code")) // codes are single-use
		writeJSON(w, http.StatusOK, map[string]any{
			"access_token": "g-access", "refresh_token": "g-refresh",
			"expires_in": 3599, "token_type": "Bearer", "scope": oauth.GmailScopeReadonly,
		})
	}
}

type browserResult struct {
	status int
	page   string
}

// redirect plays the browser following Google's redirect to Spirit.
func redirect(t *testing.T, redirectURI string, params url.Values, done chan<- browserResult) {
	go func() {
		resp, err := http.Get(redirectURI + "/?" + params.Encode())
		if err != nil {
			t.Errorf("browser: %v", err)
			done <- browserResult{}
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		done <- browserResult{resp.StatusCode, string(body)}
	}()
}

func TestLoopbackFlowPKCE(t *testing.T) {
	g := newFakeGoogle(t)
	done := make(chan browserResult, 1)
	tok, err := oauth.LoopbackFlow{
		Config:      g.config(),
		AuthOptions: oauth.GoogleAuthOptions(),
		OpenBrowser: func(authURL string) error {
			code, q := g.authorize(authURL)
			redirect(t, q.Get("redirect_uri"), url.Values{"code": {code}, "state": {q.Get("state")}, "scope": {q.Get("scope")}}, done)
			return nil
		},
		Timeout: 30 * time.Second,
	}.SignIn(t.Context())
	if err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if tok.AccessToken != "g-access" || tok.RefreshToken != "g-refresh" {
		t.Errorf("token = %+v", tok)
	}
	page := <-done
	if page.status != http.StatusOK || !strings.Contains(page.page, "You can close this window") {
		t.Errorf("browser got %d %q", page.status, page.page)
	}
}

// TestFakeGoogleChecksVerifier makes sure the fake would catch a wrong
// PKCE verifier, so that the test above proves something.
func TestFakeGoogleChecksVerifier(t *testing.T) {
	g := newFakeGoogle(t)
	cfg := g.config()
	cfg.RedirectURL = "http://127.0.0.1:1"
	verifier := oauth2.GenerateVerifier()
	code, _ := g.authorize(cfg.AuthCodeURL("state-123456", oauth2.S256ChallengeOption(verifier), oauth2.AccessTypeOffline,
		oauth2.SetAuthURLParam("prompt", "consent")))
	ctx := context.WithValue(t.Context(), oauth2.HTTPClient, g.Client())
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier())); err == nil ||
		!strings.Contains(err.Error(), "Invalid code verifier") {
		t.Errorf("exchange with a wrong verifier: %v", err)
	}
}

func TestLoopbackFlowWrongState(t *testing.T) {
	g := newFakeGoogle(t)
	done := make(chan browserResult, 1)
	_, err := oauth.LoopbackFlow{
		Config:      g.config(),
		AuthOptions: oauth.GoogleAuthOptions(),
		OpenBrowser: func(authURL string) error {
			code, q := g.authorize(authURL)
			redirect(t, q.Get("redirect_uri"), url.Values{"code": {code}, "state": {"forged"}}, done)
			return nil
		},
	}.SignIn(t.Context())
	if !errors.Is(err, oauth.ErrStateMismatch) {
		t.Errorf("err = %v, want ErrStateMismatch", err)
	}
	page := <-done
	if page.status != http.StatusBadRequest || !strings.Contains(page.page, "Sign-in failed") {
		t.Errorf("browser got %d %q", page.status, page.page)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.exchanges != 0 {
		t.Errorf("the code was exchanged %d times despite the wrong state", g.exchanges)
	}
}

func TestLoopbackFlowDeclined(t *testing.T) {
	g := newFakeGoogle(t)
	done := make(chan browserResult, 1)
	_, err := oauth.LoopbackFlow{
		Config: g.config(),
		OpenBrowser: func(authURL string) error {
			u, _ := url.Parse(authURL)
			q := u.Query()
			redirect(t, q.Get("redirect_uri"), url.Values{"error": {"access_denied"}, "state": {q.Get("state")}}, done)
			return nil
		},
	}.SignIn(t.Context())
	if !errors.Is(err, oauth.ErrAccessDenied) {
		t.Errorf("err = %v, want ErrAccessDenied", err)
	}
	<-done
}

func TestLoopbackFlowTimeout(t *testing.T) {
	g := newFakeGoogle(t)
	_, err := oauth.LoopbackFlow{
		Config:      g.config(),
		OpenBrowser: func(string) error { return nil }, // the lawyer never comes back
		Timeout:     50 * time.Millisecond,
	}.SignIn(t.Context())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a deadline", err)
	}
}

func TestLoopbackFlowBrowserFails(t *testing.T) {
	g := newFakeGoogle(t)
	boom := errors.New("no browser")
	_, err := oauth.LoopbackFlow{
		Config:      g.config(),
		OpenBrowser: func(string) error { return boom },
	}.SignIn(t.Context())
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want %v", err, boom)
	}
}
