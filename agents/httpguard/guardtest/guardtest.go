// Package guardtest is the other end of the tests that Spirit's secrets
// stay with the server they were entered for: a Witness is a real
// loopback server standing for "another origin" (the same host on another
// port), which records everything it receives so that a test can assert a
// secret never reached it.
package guardtest

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// maxSeenBody bounds what a Witness keeps of one request's body.
const maxSeenBody = 1 << 20

// Seen is one request a Witness received.
type Seen struct {
	Method, URL string
	Header      http.Header
	Body        []byte
}

// Witness is a loopback HTTP server that records every request.
type Witness struct {
	*httptest.Server
	mu   sync.Mutex
	seen []Seen
}

// NewWitness starts a witness on 127.0.0.1 that answers with answer (nil:
// 401 with an empty body, what a server that never got the credential
// would say); it is closed when the test ends.
func NewWitness(t testing.TB, answer http.Handler) *Witness {
	t.Helper()
	if answer == nil {
		answer = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	}
	w := &Witness{}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxSeenBody))
		w.mu.Lock()
		w.seen = append(w.seen, Seen{Method: r.Method, URL: r.URL.String(), Header: r.Header.Clone(), Body: body})
		w.mu.Unlock()
		answer.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.Close)
	return w
}

// Requests returns a copy of what the witness received so far.
func (w *Witness) Requests() []Seen {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Seen(nil), w.seen...)
}

// Leaked says where any of secrets reached the witness: in a request's
// URL, a header (also inside a Basic credential's base64) or its body.
// Empty secrets are ignored.
func (w *Witness) Leaked(secrets ...string) []string {
	var out []string
	for i, s := range w.Requests() {
		for _, sec := range secrets {
			if sec == "" {
				continue
			}
			where := func(part string) {
				out = append(out, fmt.Sprintf("request %d (%s %s): %q in %s", i+1, s.Method, s.URL, sec, part))
			}
			if strings.Contains(s.URL, sec) {
				where("the URL")
			}
			for k, vs := range s.Header {
				for _, v := range vs {
					if strings.Contains(v, sec) {
						where("header " + k)
					}
					if scheme, cred, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Basic") {
						if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil && strings.Contains(string(dec), sec) {
							where("the Basic credential of header " + k)
						}
					}
				}
			}
			if strings.Contains(string(s.Body), sec) {
				where("the body")
			}
		}
	}
	return out
}

// RedirectTo answers every request with a redirect of the given status
// to target, which is not derived from the request: what the second
// server gets is only what the client sends along.
func RedirectTo(target string, status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, io.LimitReader(r.Body, maxSeenBody))
		http.Redirect(w, r, target, status)
	})
}
