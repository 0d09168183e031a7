package oauth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/httpguard"
	"github.com/spirit-app/spirit/agents/httpguard/guardtest"
	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/agents/mail/oauth/oauthtest"
)

// TestClientBearerStaysOnOrigin: a REST service that redirects to another
// origin (the same host on another port) gets the bearer token and the
// request's body sent nowhere: the call fails saying where the service
// pointed, and the other server sees nothing of the token or the body. The
// refusal is not retried.
func TestClientBearerStaysOnOrigin(t *testing.T) {
	const secretBody = `{"subject":"Settlement terms, privileged"}`
	for _, tc := range []struct {
		name   string
		method string
		status int
	}{
		{"GET, 302", http.MethodGet, http.StatusFound},
		{"GET, 307", http.MethodGet, http.StatusTemporaryRedirect},
		{"POST, 307", http.MethodPost, http.StatusTemporaryRedirect},
		{"PATCH, 308", http.MethodPatch, http.StatusPermanentRedirect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := guardtest.NewWitness(t, nil)
			var asked atomic.Int32
			redirect := guardtest.RedirectTo(other.URL+"/v1/thing", tc.status)
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				redirect.ServeHTTP(w, r)
			}))
			t.Cleanup(api.Close)
			c := &oauth.Client{Service: "Test API", Tokens: static("bearer-secret-77"), HTTP: api.Client(), Sleep: (&oauthtest.Sleeper{}).Sleep}
			var body []byte
			if tc.method != http.MethodGet {
				body = []byte(secretBody)
			}
			_, err := c.Do(t.Context(), oauth.Request{Method: tc.method, URL: api.URL + "/v1/thing", Body: body})
			for _, l := range other.Leaked("bearer-secret-77", "privileged") {
				t.Errorf("the other server got it: %s", l)
			}
			var re *httpguard.RedirectError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), "another address ("+other.URL+")") {
				t.Errorf("Do = %v, want a *httpguard.RedirectError naming %s", err, other.URL)
			}
			if n := asked.Load(); n != 1 {
				t.Errorf("the service was asked %d times: a refused redirect is not worth a retry", n)
			}
		})
	}
}

// TestClientOrigin: a Client bound to its service's origin sends nothing
// to a URL elsewhere (a link in an answer, a stored cursor): the request
// fails before it is sent.
func TestClientOrigin(t *testing.T) {
	other := guardtest.NewWitness(t, nil)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) }))
	t.Cleanup(api.Close)
	c := &oauth.Client{Service: "Test API", Tokens: static("bearer-secret-78"), HTTP: api.Client(), Origin: api.URL + "/v1"}
	if err := c.DoJSON(t.Context(), http.MethodGet, api.URL+"/v1/ok", nil, nil, nil); err != nil {
		t.Fatalf("a request on the origin: %v", err)
	}
	err := c.DoJSON(t.Context(), http.MethodGet, other.URL+"/v1/next?$skiptoken=1", nil, nil, nil)
	var oe *httpguard.OriginError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), other.URL) {
		t.Errorf("a request elsewhere: %v, want a *httpguard.OriginError naming %s", err, other.URL)
	}
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the other server got %d requests", n)
	}
}

// TestTokenRequestsStayOnOrigin: a token endpoint that redirects a token
// request (307 keeps the POST and its body) to another origin gets the
// refresh token, the authorization code, its PKCE verifier and the client
// secret, or the device code, sent nowhere: the refresh, the exchange and
// the device flow's poll fail saying where the endpoint pointed.
func TestTokenRequestsStayOnOrigin(t *testing.T) {
	t.Run("refresh", func(t *testing.T) {
		other := guardtest.NewWitness(t, nil)
		tokenURL := httptest.NewServer(guardtest.RedirectTo(other.URL+"/token", http.StatusTemporaryRedirect))
		t.Cleanup(tokenURL.Close)
		cfg := &oauth2.Config{ClientID: "spirit-test-client", ClientSecret: "client-secret-91",
			Endpoint: oauth2.Endpoint{TokenURL: tokenURL.URL + "/token", AuthStyle: oauth2.AuthStyleInParams}}
		src := oauth.NewTokenSource(cfg, &oauth2.Token{AccessToken: "old", RefreshToken: "refresh-secret-92", Expiry: time.Now().Add(-time.Minute)},
			oauth.TokenSourceOptions{})
		_, err := src.Token()
		for _, l := range other.Leaked("refresh-secret-92", "client-secret-91") {
			t.Errorf("the other server got it: %s", l)
		}
		if err == nil || !strings.Contains(err.Error(), "another address ("+other.URL+")") {
			t.Errorf("Token = %v, want an error naming %s", err, other.URL)
		}
	})
	t.Run("loopback exchange", func(t *testing.T) {
		other := guardtest.NewWitness(t, nil)
		tokenURL := httptest.NewServer(guardtest.RedirectTo(other.URL+"/token", http.StatusTemporaryRedirect))
		t.Cleanup(tokenURL.Close)
		cfg := oauth.GoogleConfig("spirit-google.apps.googleusercontent.com", "client-secret-93")
		cfg.Endpoint.AuthURL = "https://accounts.example.test/o/oauth2/auth"
		cfg.Endpoint.TokenURL = tokenURL.URL + "/token"
		done := make(chan browserResult, 1)
		_, err := oauth.LoopbackFlow{
			Config: cfg,
			OpenBrowser: func(authURL string) error {
				u, err := url.Parse(authURL)
				if err != nil {
					return err
				}
				q := u.Query()
				redirect(t, q.Get("redirect_uri"), url.Values{"code": {"auth-code-secret-94"}, "state": {q.Get("state")}}, done)
				return nil
			},
			Timeout: 30 * time.Second,
		}.SignIn(t.Context())
		<-done
		for _, l := range other.Leaked("auth-code-secret-94", "client-secret-93", "code_verifier") {
			t.Errorf("the other server got it: %s", l)
		}
		if err == nil || !strings.Contains(err.Error(), "another address ("+other.URL+")") {
			t.Errorf("SignIn = %v, want an error naming %s", err, other.URL)
		}
	})
	t.Run("device poll", func(t *testing.T) {
		other := guardtest.NewWitness(t, nil)
		fake := &fakeMicrosoft{t: t, interval: 1, script: []string{"ok"}}
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/token") {
				guardtest.RedirectTo(other.URL+"/token", http.StatusTemporaryRedirect).ServeHTTP(w, r)
				return
			}
			fake.ServeHTTP(w, r)
		}))
		t.Cleanup(front.Close)
		_, err := oauth.DeviceFlow{Config: msConfig(front.URL), Show: func(oauth.DeviceCode) error { return nil }}.SignIn(t.Context())
		for _, l := range other.Leaked(deviceCode) {
			t.Errorf("the other server got it: %s", l)
		}
		if err == nil || !strings.Contains(err.Error(), "another address ("+other.URL+")") {
			t.Errorf("SignIn = %v, want an error naming %s", err, other.URL)
		}
	})
}
