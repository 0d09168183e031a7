package secrets

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// tokenServer is an OAuth token endpoint that rotates the refresh token on
// every refresh, as Microsoft's does.
type tokenServer struct {
	mu       sync.Mutex
	calls    int
	gotRT    []string
	noRotate bool
}

func (s *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.gotRT = append(s.gotRT, r.Form.Get("refresh_token"))
	s.mu.Unlock()
	if r.Form.Get("grant_type") != "refresh_token" {
		http.Error(w, "bad grant", http.StatusBadRequest)
		return
	}
	if r.Form.Get("refresh_token") == "revoked" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant","error_description":"AADSTS70000"}`))
		return
	}
	resp := map[string]any{
		"access_token": "access-" + string(rune('0'+n)),
		"token_type":   "Bearer",
		"expires_in":   3600,
	}
	if !s.noRotate {
		resp["refresh_token"] = "refresh-" + string(rune('0'+n))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func tokenConfig(url string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: "spirit",
		Endpoint: oauth2.Endpoint{TokenURL: url, AuthStyle: oauth2.AuthStyleInParams},
		Scopes:   []string{"https://outlook.office.com/IMAP.AccessAsUser.All", "offline_access"},
	}
}

func TestTokenSourceRefreshSavesRotatedToken(t *testing.T) {
	srv := &tokenServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx := context.Background()
	st := testOpen(t, t.TempDir(), nil)
	expired := &oauth2.Token{AccessToken: "old", RefreshToken: "refresh-0", TokenType: "Bearer", Expiry: time.Now().Add(-time.Minute)}
	if err := SaveToken(ctx, st, "oauth/outlook", expired); err != nil {
		t.Fatal(err)
	}

	ts := TokenSource(ctx, st, "oauth/outlook", tokenConfig(hs.URL))
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "access-1" || srv.gotRT[0] != "refresh-0" {
		t.Fatalf("token %q after refresh with %q", tok.AccessToken, srv.gotRT)
	}
	saved, err := LoadToken(ctx, st, "oauth/outlook")
	if err != nil {
		t.Fatal(err)
	}
	if saved.RefreshToken != "refresh-1" || saved.AccessToken != "access-1" || !saved.Valid() {
		t.Fatalf("saved token %+v, want the rotated one", saved)
	}

	// Valid token: no further refresh.
	if tok, _ := ts.Token(); tok.AccessToken != "access-1" || srv.calls != 1 {
		t.Fatalf("second Token: %q after %d calls", tok.AccessToken, srv.calls)
	}

	// After a restart, a new token source uses the saved rotated token.
	saved.Expiry = time.Now().Add(-time.Minute)
	SaveToken(ctx, st, "oauth/outlook", saved)
	if tok, err := TokenSource(ctx, st, "oauth/outlook", tokenConfig(hs.URL)).Token(); err != nil || tok.AccessToken != "access-2" || srv.gotRT[1] != "refresh-1" {
		t.Fatalf("refresh after restart: %v, %v, sent %q", tok, err, srv.gotRT)
	}
}

func TestTokenSourceKeepsRefreshTokenWhenNotRotated(t *testing.T) {
	srv := &tokenServer{noRotate: true} // Google's behaviour
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx := context.Background()
	st := testOpen(t, t.TempDir(), nil)
	SaveToken(ctx, st, "oauth/gmail", &oauth2.Token{AccessToken: "old", RefreshToken: "keep-me", Expiry: time.Now().Add(-time.Hour)})
	if _, err := TokenSource(ctx, st, "oauth/gmail", tokenConfig(hs.URL)).Token(); err != nil {
		t.Fatal(err)
	}
	saved, _ := LoadToken(ctx, st, "oauth/gmail")
	if saved.RefreshToken != "keep-me" || saved.AccessToken != "access-1" {
		t.Fatalf("saved %+v, want the new access token with the old refresh token", saved)
	}
}

func TestTokenSourceSharedRefresh(t *testing.T) {
	// Two token sources on one account (sync and drafts): the second one
	// picks up the first one's refresh instead of refreshing again with a
	// rotated-out refresh token.
	srv := &tokenServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx := context.Background()
	st := testOpen(t, t.TempDir(), nil)
	SaveToken(ctx, st, "k", &oauth2.Token{AccessToken: "old", RefreshToken: "refresh-0", Expiry: time.Now().Add(-time.Hour)})
	a := TokenSource(ctx, st, "k", tokenConfig(hs.URL))
	b := TokenSource(ctx, st, "k", tokenConfig(hs.URL))
	ta, err := a.Token()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.Token()
	if err != nil {
		t.Fatal(err)
	}
	if ta.AccessToken != tb.AccessToken || srv.calls != 1 {
		t.Fatalf("tokens %q %q after %d refreshes, want one shared refresh", ta.AccessToken, tb.AccessToken, srv.calls)
	}
}

func TestTokenSourceErrors(t *testing.T) {
	srv := &tokenServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx := context.Background()
	st := testOpen(t, t.TempDir(), nil)

	if _, err := TokenSource(ctx, st, "none", tokenConfig(hs.URL)).Token(); !errors.Is(err, ErrNotFound) {
		t.Errorf("no stored token: %v, want ErrNotFound", err)
	}

	SaveToken(ctx, st, "revoked", &oauth2.Token{AccessToken: "old", RefreshToken: "revoked", Expiry: time.Now().Add(-time.Hour)})
	_, err := TokenSource(ctx, st, "revoked", tokenConfig(hs.URL)).Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("revoked refresh token: %v, want an oauth2.RetrieveError invalid_grant", err)
	}
	if saved, _ := LoadToken(ctx, st, "revoked"); saved.RefreshToken != "revoked" {
		t.Error("a failed refresh changed the stored token")
	}

	st.Set(ctx, "junk", "not json")
	if _, err := TokenSource(ctx, st, "junk", tokenConfig(hs.URL)).Token(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("junk token: %v, want ErrCorrupt", err)
	}
}
