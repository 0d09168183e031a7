package llm_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
)

// rawProvider builds the provider for protocol against a server answering
// every request with h; log collects what the provider logs.
func rawProvider(t *testing.T, protocol, key string, cfg llm.Config, h http.HandlerFunc) (llm.Provider, *bytes.Buffer) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var log bytes.Buffer
	cfg.APIKey = key
	cfg.Model = "m-1"
	cfg.MaxRetries = -1
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	cfg.BaseURL = srv.URL
	if protocol == llm.ProtocolOpenAI {
		cfg.BaseURL += "/v1"
	}
	p, err := llm.New(protocol, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, &log
}

// TestAPIKeyEchoIsScrubbed: however a server or a proxy in front of it
// echoes the key, neither the error nor the log holds it. (The OpenAI SDK
// drops bodies that are not JSON; they must not leak there either.)
func TestAPIKeyEchoIsScrubbed(t *testing.T) {
	const key = "sk-live/Q7m+Zr2-pXw9echoed"
	basic := base64.StdEncoding.EncodeToString([]byte(":" + key))
	tests := []struct {
		name, contentType, body string
	}{
		{"JSON message quoting the key", "application/json",
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + key + `"}}`},
		{"key at the 300-character cut", "text/plain",
			strings.Repeat("x", 280) + " " + key},
		{"proxy page with the key JSON-escaped", "text/html",
			`<pre>{"headers":{"x-api-key":"` + strings.ReplaceAll(key, "/", `\/`) + `"}}</pre>`},
		{"proxy echoing a Basic credential", "text/plain",
			"401 from upstream for Authorization: Basic " + basic},
		{"JSON message with the key in base64", "application/json",
			`{"error":{"type":"invalid_request_error","message":"upstream refused Authorization: Basic ` + basic + `"}}`},
	}
	for _, protocol := range []string{llm.ProtocolAnthropic, llm.ProtocolOpenAI} {
		for _, tt := range tests {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				p, log := rawProvider(t, protocol, key, llm.Config{}, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", tt.contentType)
					w.WriteHeader(http.StatusUnauthorized)
					w.Write([]byte(tt.body))
				})
				_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}})
				if !errors.Is(err, llm.ErrAuth) {
					t.Fatalf("err = %v, want ErrAuth", err)
				}
				for what, s := range map[string]string{"error": err.Error(), "log": log.String()} {
					if strings.Contains(s, key[:16]) || strings.Contains(s, strings.ReplaceAll(key, "/", `\/`)[:16]) || strings.Contains(s, basic) {
						t.Errorf("%s holds the key: %s", what, s)
					}
				}
			})
		}
	}
}

// TestCallerDeadlineIsATimeout: a call that outlives the caller's budget
// (the glance allows 10 s) is a timeout that names the budget, not an
// unavailable provider.
func TestCallerDeadlineIsATimeout(t *testing.T) {
	for _, protocol := range []string{llm.ProtocolAnthropic, llm.ProtocolOpenAI} {
		t.Run(protocol, func(t *testing.T) {
			// The server never answers. It lets go when the client hangs up
			// (noticed once the body is read) or the test ends.
			done := make(chan struct{})
			p, log := rawProvider(t, protocol, testKey, llm.Config{}, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				select {
				case <-r.Context().Done():
				case <-done:
				}
			})
			t.Cleanup(func() { close(done) }) // before the server's Close, which waits for the handler
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{userSays("hi")}})
			if !errors.Is(err, llm.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, llm.ErrUnavailable) {
				t.Fatalf("err = %v, want ErrTimeout and DeadlineExceeded, not ErrUnavailable", err)
			}
			for what, s := range map[string]string{"error": err.Error(), "log": log.String()} {
				if !strings.Contains(s, "did not answer in time: waited ") || !strings.Contains(s, "the time allowed for this step") {
					t.Errorf("%s does not say the budget ran out: %s", what, s)
				}
				if strings.Contains(s, "unavailable") || strings.Contains(s, "request cancelled") {
					t.Errorf("%s blames the provider: %s", what, s)
				}
			}
		})
	}
}
