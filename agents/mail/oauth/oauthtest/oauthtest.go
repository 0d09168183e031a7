// Package oauthtest provides fakes for testing code that uses package
// oauth: a token endpoint that refreshes tokens, and a sleeper that
// records waits instead of waiting.
package oauthtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TokenServer is an OAuth token endpoint (RFC 6749 section 6) that
// accepts one refresh token and issues access tokens "access-1",
// "access-2"…
type TokenServer struct {
	*httptest.Server
	ClientID     string
	RefreshToken string

	mu        sync.Mutex
	issued    []string
	failCode  string // when set, refreshes fail with this OAuth error code
	refreshes int
}

// NewTokenServer starts a token server at /token, closed with the test.
func NewTokenServer(t testing.TB) *TokenServer {
	s := &TokenServer{ClientID: "spirit-test-client", RefreshToken: "refresh-1"}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Config returns a client configuration pointing at the server.
func (s *TokenServer) Config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: s.ClientID,
		Endpoint: oauth2.Endpoint{
			TokenURL:  s.URL + "/token",
			AuthStyle: oauth2.AuthStyleInParams,
		},
	}
}

// Token returns a stored token as after sign-in: access token access,
// expiring at expiry, with the server's refresh token.
func (s *TokenServer) Token(access string, expiry time.Time) *oauth2.Token {
	return &oauth2.Token{AccessToken: access, TokenType: "Bearer", RefreshToken: s.RefreshToken, Expiry: expiry}
}

// Fail makes later refreshes fail with the OAuth error code (e.g.
// "invalid_grant"); "" restores success.
func (s *TokenServer) Fail(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failCode = code
}

// Refreshes counts the refresh requests received.
func (s *TokenServer) Refreshes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshes
}

// Issued returns the access tokens issued so far.
func (s *TokenServer) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issued...)
}

func (s *TokenServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/token" {
		http.NotFound(w, r)
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshes++
	switch {
	case r.PostForm.Get("grant_type") != "refresh_token":
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "only refresh_token here")
	case r.PostForm.Get("client_id") != s.ClientID:
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client")
	case s.failCode != "":
		oauthError(w, http.StatusBadRequest, s.failCode, "The refresh token has expired or was revoked.")
	case r.PostForm.Get("refresh_token") != s.RefreshToken:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
	default:
		access := fmt.Sprintf("access-%d", len(s.issued)+1)
		s.issued = append(s.issued, access)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"access_token": access,
			"token_type":   "Bearer",
			"expires_in":   3600,
			"scope":        r.PostForm.Get("scope"),
		})
	}
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

// Sleeper records the waits a client asks for and returns at once, so
// tests check retry timing without sleeping.
type Sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d; it fails only when ctx is already done.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Waits returns the recorded waits.
func (s *Sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}
