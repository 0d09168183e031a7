package api

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

const (
	fuzzAddr  = "127.0.0.1:47110"
	fuzzToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

var fuzzMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodHead, "PATCH", "OPTIONS"}

// FuzzAPI sends arbitrary requests through the real handler (Host and
// token checks, routing, body decoding, validation) to the test backend.
// The API faces every local program and, through DNS rebinding, web
// pages; what must hold for any request:
//   - the answer is one of the statuses the API documents, never a 500
//     (the test backend does not fail, so a 500 is a panic or a response
//     that could not be encoded), with a JSON body ({"error": "…"} when it
//     is an error);
//   - without the right Host and token nothing reaches the backend;
//   - a request refused as malformed (400, 405, 413, 415) reaches nothing
//     either;
//   - what reaches the backend was validated: /say text trimmed, not
//     empty, at most 2000 characters; a nudge's kind, message and detail
//     as documented.
func FuzzAPI(f *testing.F) {
	for _, s := range []struct {
		method      uint8
		path, ctype string
		body        string
	}{
		{0, "/health", "", ""},
		{0, "/world?since=5&limit=2000", "", ""},
		{1, "/say", "application/json", `{"text":"  remind me to call Marcy tomorrow at 3  "}`},
		{1, "/say", "application/json; charset=utf-8", `{"text":"a"} {"text":"b"}`},
		{1, "/say", "text/plain", `{"text":"x"}`},
		{1, "/say", "application/json", `{"text":"x","extra":1}`},
		{1, "/say", "application/json", `{"text":` + strings.Repeat(`"`, 3)},
		{0, "/nudges", "", ""},
		{1, "/nudges", "application/json", `{"kind":"info","message":"Filing due","detail":"{\"options\":[\"a\",\"b\"]}"}`},
		{1, "/nudges", "application/json", `{"kind":"Info!","message":""}`},
		{1, "/nudges/7/respond", "application/json", `{"action":"answer:Tuesday","text":"at 4 instead"}`},
		{1, "/nudges/-1/respond", "application/json", `{"action":"accept"}`},
		{1, "/show", "", ""},
		{0, "/agents", "", ""},
		{0, "/agents/task-1", "", ""},
		{1, "/agents/task-1/cancel", "application/json", ""},
		{2, "/say", "application/json", `{"text":"x"}`},
		{0, "/../health", "", ""},
	} {
		f.Add(s.method, s.path, s.ctype, []byte(s.body), uint8(0))
	}
	f.Add(uint8(0), "/health", "", []byte(nil), uint8(1)) // no token
	f.Add(uint8(0), "/health", "", []byte(nil), uint8(2)) // wrong token
	f.Add(uint8(0), "/health", "", []byte(nil), uint8(3)) // foreign Host
	f.Add(uint8(1), "/say", "application/json", bytes.Repeat([]byte(" "), maxBodyBytes+1), uint8(0))

	h := newHandler(nil, slog.New(slog.DiscardHandler), fuzzAddr, fuzzToken)
	f.Fuzz(func(t *testing.T, method uint8, path, ctype string, body []byte, auth uint8) {
		if _, err := url.ParseRequestURI(path); err != nil || !strings.HasPrefix(path, "/") ||
			strings.ContainsAny(path, " \r\n\t\x00#") || !utf8.ValidString(path) {
			t.Skip("not a request target http.Server would pass on")
		}
		b := &fakeBackend{}
		h.b = b // one backend per input: what reached it is this input's doing
		m := fuzzMethods[int(method)%len(fuzzMethods)]
		r := httptest.NewRequest(m, "http://"+fuzzAddr+path, bytes.NewReader(body))
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		switch auth % 4 {
		case 0:
			r.Header.Set("Authorization", "Bearer "+fuzzToken)
		case 2:
			r.Header.Set("Authorization", "Bearer "+fuzzToken[1:])
		case 3:
			r.Header.Set("Authorization", "Bearer "+fuzzToken)
			r.Host = "spirit.attacker.example:47110"
		}
		w := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(w, r)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s %s did not answer within 10s", m, path)
		}

		res := w.Result()
		out, _ := io.ReadAll(res.Body)
		req := m + " " + path
		calls := b.Calls()
		switch res.StatusCode {
		case http.StatusOK, http.StatusCreated, http.StatusNoContent:
		case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusMethodNotAllowed,
			http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
			if calls != 0 {
				t.Fatalf("%s refused with %d, yet the backend was called %d times", req, res.StatusCode, calls)
			}
		case http.StatusNotFound, http.StatusConflict:
			// The fake's agents and nudges: an unknown id, an agent
			// already ended.
		case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			// ServeMux sends a path that is not clean ("/a/../health",
			// "//say") to the clean one, in its own plain words; a
			// client following it meets the checks above again.
			if calls != 0 || !strings.HasPrefix(res.Header.Get("Location"), "/") {
				t.Fatalf("%s: redirect to %q after %d backend calls", req, res.Header.Get("Location"), calls)
			}
			return
		default:
			t.Fatalf("%s: status %d: %s", req, res.StatusCode, out)
		}
		if auth%4 != 0 && calls != 0 {
			t.Fatalf("%s without the token or from a foreign Host reached the backend (status %d)", req, res.StatusCode)
		}
		if res.StatusCode == http.StatusNoContent {
			return
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Fatalf("%s: status %d with Content-Type %q", req, res.StatusCode, ct)
		}
		if !json.Valid(out) {
			t.Fatalf("%s: status %d with a body that is not JSON: %q", req, res.StatusCode, out)
		}
		if res.StatusCode >= 400 {
			var e errorResponse
			if json.Unmarshal(out, &e) != nil || e.Error == "" {
				t.Fatalf("%s: status %d without an error message: %s", req, res.StatusCode, out)
			}
		}

		if text := b.seen().sayText; calls > 0 && text != "" {
			if text != strings.TrimSpace(text) || utf8.RuneCountInString(text) > maxTextRunes {
				t.Fatalf("%s: /say passed on %q", req, text)
			}
		}
		if n := b.notifiedNudge(); n.Kind != "" || n.Message != "" {
			if !kindRe.MatchString(n.Kind) || n.Message == "" || n.Message != strings.TrimSpace(n.Message) ||
				utf8.RuneCountInString(n.Message) > maxMessageRunes || utf8.RuneCountInString(n.ActionPrompt) > maxTextRunes {
				t.Fatalf("%s: notify passed on %+v", req, n)
			}
			if d := strings.TrimSpace(n.Detail); d != "" && (!json.Valid([]byte(d)) || d[0] != '{') {
				t.Fatalf("%s: notify passed on detail %q", req, n.Detail)
			}
		}
	})
}
