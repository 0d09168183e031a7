package oauth_test

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/agents/mail/oauth/oauthtest"
)

// TestClientMaxBody: an answer over its request's MaxBody fails with
// ErrTooLarge after reading at most one byte past it, and is not retried.
func TestClientMaxBody(t *testing.T) {
	answer := func(n int, sayLength bool) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			if sayLength {
				w.Header().Set("Content-Length", strconv.Itoa(n))
			}
			w.WriteHeader(http.StatusOK)
			if !sayLength {
				w.(http.Flusher).Flush() // chunked: the length is not said
			}
			io.WriteString(w, strings.Repeat("x", n))
		}
	}
	half := func(r io.Reader) io.Reader { return io.LimitReader(r, 1000) }
	for _, tc := range []struct {
		name    string
		answer  func(w http.ResponseWriter)
		maxBody int64
		filter  func(io.Reader) io.Reader
		wantErr bool
	}{
		{name: "at the limit", answer: answer(1000, true), maxBody: 1000},
		{name: "over, length said", answer: answer(1001, true), maxBody: 1000, wantErr: true},
		{name: "over, length not said", answer: answer(5000, false), maxBody: 1000, wantErr: true},
		{name: "over, but filtered to the limit", answer: answer(2000, true), maxBody: 1000, filter: half},
		{name: "over the default", answer: answer(oauth.DefaultMaxBody+1, false), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &api{answers: []func(http.ResponseWriter){tc.answer, tc.answer}}
			c, u := newClient(t, a, static("tok"), &oauthtest.Sleeper{})
			resp, err := c.Do(t.Context(), oauth.Request{Method: http.MethodGet, URL: u, MaxBody: tc.maxBody, Filter: tc.filter})
			if tc.wantErr {
				if !errors.Is(err, oauth.ErrTooLarge) {
					t.Fatalf("Do: %v, want ErrTooLarge", err)
				}
			} else if err != nil || int64(len(resp.Body)) > max(tc.maxBody, 1) {
				t.Fatalf("Do: %v", err)
			}
			if len(a.auth) != 1 {
				t.Errorf("%d requests, want 1 (no retry)", len(a.auth))
			}
		})
	}
}
