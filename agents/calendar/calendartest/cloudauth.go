package calendartest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"testing"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/platform/secrets"
)

// grant is what an issued token allows.
type grant struct {
	scopes []string
	expiry time.Time
}

// tokens is the OAuth side of a fake cloud service: a token endpoint
// (RFC 6749 §6, refresh only) and the tokens it issued with their scopes.
type tokens struct {
	mu        sync.Mutex
	access    map[string]grant
	refresh   map[string][]string
	codes     map[string][]string
	n         int
	refreshes int
}

func newTokens() *tokens {
	return &tokens{access: map[string]grant{}, refresh: map[string][]string{}, codes: map[string][]string{}}
}

// signIn issues a token as a finished sign-in would, granting scopes;
// expired makes its access token one the service refuses.
func (s *tokens) signIn(prefix string, expired bool, scopes ...string) *oauth2.Token {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	access, refresh := fmt.Sprintf("%s-access-%d", prefix, s.n), fmt.Sprintf("%s-refresh-%d", prefix, s.n)
	expiry := time.Now().Add(time.Hour)
	s.access[access] = grant{scopes: scopes, expiry: expiry}
	if expired {
		// Valid to the client's eye, refused by the service: the
		// client learns it from a 401 and refreshes.
		s.access[access] = grant{scopes: scopes, expiry: time.Now().Add(-time.Minute)}
	}
	s.refresh[refresh] = scopes
	return (&oauth2.Token{AccessToken: access, TokenType: "Bearer", RefreshToken: refresh, Expiry: expiry}).
		WithExtra(map[string]any{"scope": strings.Join(scopes, " ")})
}

// Refreshes counts the refresh requests the token endpoint answered.
func (s *tokens) Refreshes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshes
}

// Code is an authorization code, as the consent page would redirect
// with, that the token endpoint exchanges for a grant of scopes.
func (s *tokens) Code(scopes ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	code := fmt.Sprintf("code-%d", s.n)
	s.codes[code] = scopes
	return code
}

// serveToken is the token endpoint: refresh tokens and authorization
// codes.
func (s *tokens) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var scopes []string
	var ok bool
	switch r.PostForm.Get("grant_type") {
	case "refresh_token":
		s.refreshes++
		scopes, ok = s.refresh[r.PostForm.Get("refresh_token")]
	case "authorization_code":
		scopes, ok = s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token or code"})
		return
	}
	s.n++
	access, refresh := fmt.Sprintf("refreshed-access-%d", s.n), fmt.Sprintf("new-refresh-%d", s.n)
	s.access[access] = grant{scopes: scopes, expiry: time.Now().Add(time.Hour)}
	out := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "scope": strings.Join(scopes, " ")}
	if r.PostForm.Get("grant_type") == "authorization_code" {
		s.refresh[refresh] = scopes
		out["refresh_token"] = refresh
	}
	writeJSON(w, http.StatusOK, out)
}

// check reads the bearer token: 401 when unknown or expired, 403 when it
// grants none of anyOf.
func (s *tokens) check(r *http.Request, anyOf ...string) int {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	g, known := s.access[tok]
	s.mu.Unlock()
	switch {
	case !ok || !known || time.Now().After(g.expiry):
		return http.StatusUnauthorized
	case !slices.ContainsFunc(anyOf, func(sc string) bool { return slices.Contains(g.scopes, sc) }):
		return http.StatusForbidden
	}
	return http.StatusOK
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ClientID is the app registration the fakes' accounts sign in with.
const ClientID = "spirit-test-client"

// addAccount stores a signed-in mail account of kind whose sign-in is tok.
func addAccount(t testing.TB, ix *index.Index, sec secrets.Store, kind, address string, cfg accounts.OAuthConfig, tok *oauth2.Token) index.Account {
	t.Helper()
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ix.AddAccount(context.Background(), index.Account{Kind: kind, Name: address, Address: address, Config: raw})
	if err != nil {
		t.Fatal(err)
	}
	if err := accounts.SaveToken(context.Background(), sec, a.ID, tok); err != nil {
		t.Fatal(err)
	}
	return a
}

// Account adds a Microsoft 365 mail account for dana@firm.com whose
// sign-in is tok and whose Graph is g.
func (g *Graph) Account(t testing.TB, ix *index.Index, sec secrets.Store, tok *oauth2.Token) index.Account {
	return addAccount(t, ix, sec, index.KindGraph, "dana@firm.com",
		accounts.OAuthConfig{ClientID: ClientID, BaseURL: g.BaseURL, TokenURL: g.URL + "/token"}, tok)
}

// Account adds a Gmail account for Primary whose sign-in is tok and whose
// Google Calendar is g.
func (g *Google) Account(t testing.TB, ix *index.Index, sec secrets.Store, tok *oauth2.Token) index.Account {
	return addAccount(t, ix, sec, index.KindGmail, Primary,
		accounts.OAuthConfig{ClientID: ClientID, CalendarURL: g.BaseURL, TokenURL: g.URL + "/token"}, tok)
}

// journal is what a fake keeps of the client's requests: the query
// strings of its reads and the bodies of the events it created.
type journal struct {
	mu      sync.Mutex
	asked   []string
	created []json.RawMessage
}

func (j *journal) ask(query string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.asked = append(j.asked, query)
}

// create records a created event's body and returns its number, from 1.
func (j *journal) create(body json.RawMessage) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.created = append(j.created, body)
	return len(j.created)
}

// Requests lists the query strings of the event reads so far.
func (j *journal) Requests() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.asked)
}

// Created is the bodies of the events created.
func (j *journal) Created() []json.RawMessage {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.created)
}
