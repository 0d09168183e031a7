package oauth_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/agents/mail/oauth/oauthtest"
)

const (
	echoRefresh = "M.C507_BAY.0.U.-Cg9rXk2refresh"
	echoSecret  = "GOCSPX-Qm2t7client-secret"
	echoAccess  = "EwBwA8l6BAAUaccess0token"
)

// TestTokenEndpointEchoIsScrubbed: a token endpoint that quotes the
// refresh request back, in its error_description or in a body that is not
// OAuth JSON at all, leaks neither the refresh token nor the client secret.
func TestTokenEndpointEchoIsScrubbed(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantErr     error // nil: only the scrubbing is checked
	}{
		{"error_description quotes the request", http.StatusBadRequest, "application/json",
			`{"error":"invalid_grant","error_description":"AADSTS70000: refresh token ` + echoRefresh + ` of client with secret ` + echoSecret + ` is expired"}`,
			oauth.ErrSignInRequired},
		{"raw body echoes the form", http.StatusInternalServerError, "text/plain",
			"cannot handle grant_type=refresh_token&refresh_token=" + echoRefresh + "&client_id=c&client_secret=" + echoSecret,
			nil},
		{"HTML page echoes the token", http.StatusBadGateway, "text/html",
			"<html><body>upstream rejected <code>" + echoRefresh + "</code> (" + echoSecret + ")</body></html>",
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			t.Cleanup(srv.Close)
			cfg := &oauth2.Config{ClientID: "c", ClientSecret: echoSecret,
				Endpoint: oauth2.Endpoint{TokenURL: srv.URL + "/token", AuthStyle: oauth2.AuthStyleInParams}}
			src := oauth.NewTokenSource(cfg, &oauth2.Token{AccessToken: echoAccess, RefreshToken: echoRefresh, Expiry: time.Now().Add(-time.Minute)},
				oauth.TokenSourceOptions{HTTPClient: srv.Client()})

			_, err := src.Token()
			if err == nil {
				t.Fatal("refresh succeeded against a failing endpoint")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			var re *oauth2.RetrieveError
			if !errors.As(err, &re) {
				t.Errorf("err = %v no longer reaches the *oauth2.RetrieveError", err)
			}
			got := err.Error()
			if strings.Contains(got, echoRefresh) || strings.Contains(got, echoSecret) {
				t.Errorf("error holds a credential: %s", got)
			}
			if !strings.Contains(got, "[redacted]") {
				t.Errorf("error dropped the endpoint's words instead of scrubbing them: %s", got)
			}
		})
	}
}

// TestServiceErrorEchoIsScrubbed: a service error answer quoting the bearer
// token (Graph and Gmail go through Client) leaks it neither into the
// error nor into the log.
func TestServiceErrorEchoIsScrubbed(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"message quotes the token", http.StatusBadRequest, `{"error":{"code":"InvalidAuthenticationToken","message":"token ` + echoAccess + ` is malformed"}}`},
		{"token at the cut", http.StatusBadRequest, strings.Repeat("x", 495) + " " + echoAccess},
		{"retried 5xx quotes the header", http.StatusBadGateway, "proxy error; request had Authorization: Bearer " + echoAccess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &api{}
			for range oauth.DefaultMaxAttempts {
				a.answers = append(a.answers, func(w http.ResponseWriter) {
					w.WriteHeader(tt.status)
					w.Write([]byte(tt.body))
				})
			}
			var log bytes.Buffer
			c, url := newClient(t, a, static(echoAccess), &oauthtest.Sleeper{})
			c.Logger = slog.New(slog.NewTextHandler(&log, nil))
			_, err := c.Do(context.Background(), oauth.Request{Method: http.MethodGet, URL: url})
			var apiErr *oauth.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tt.status {
				t.Fatalf("err = %v, want an *APIError with status %d", err, tt.status)
			}
			if got := err.Error(); strings.Contains(got, echoAccess) || strings.Contains(got, echoAccess[:12]) {
				t.Errorf("error holds the access token: %s", got)
			}
			if strings.Contains(log.String(), echoAccess) {
				t.Errorf("log holds the access token:\n%s", log.String())
			}
		})
	}
}
