package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
)

const testKey = "sk-test-DO-NOT-LEAK-4f2a9c"

type kit struct {
	name, model string
	// native is the recorded Block of an image in this protocol.
	native string
	make   func(cfg llm.Config, srv *scripted.Server) (llm.Provider, error)
}

func kits() []kit {
	return []kit{
		{"anthropic", "claude-sonnet-4-5", "image/base64", func(cfg llm.Config, srv *scripted.Server) (llm.Provider, error) {
			cfg.BaseURL = srv.URL()
			return llm.NewAnthropic(cfg)
		}},
		{"openai", "gpt-4o", "image_url/data", func(cfg llm.Config, srv *scripted.Server) (llm.Provider, error) {
			cfg.BaseURL = srv.URL() + "/v1"
			return llm.NewOpenAI(cfg)
		}},
	}
}

// forEach runs f as a parallel subtest per provider.
func forEach(t *testing.T, f func(t *testing.T, k kit)) {
	for _, k := range kits() {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			f(t, k)
		})
	}
}

// newProvider builds k's provider against a fresh scripted server; log
// collects everything the provider logs.
func newProvider(t *testing.T, k kit, cfg llm.Config, steps ...scripted.Reply) (llm.Provider, *scripted.Server, *bytes.Buffer) {
	t.Helper()
	srv := scripted.New(t, steps...)
	var log bytes.Buffer
	cfg.APIKey = testKey
	cfg.Model = k.model
	cfg.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := k.make(cfg, srv)
	if err != nil {
		t.Fatalf("new provider: %v", err)
	}
	return p, srv, &log
}

func userSays(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Text: s} }

func TestPlainText(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		p, srv, log := newProvider(t, k, llm.Config{}, scripted.Text("Good morning."))
		resp, err := p.Complete(context.Background(), llm.Request{
			System:   "You are Spirit.",
			Messages: []llm.Message{userSays("hello")},
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "Good morning." || resp.StopReason != llm.StopEndTurn || len(resp.ToolCalls) != 0 {
			t.Errorf("response = %+v", resp)
		}
		if resp.Usage != (llm.Usage{InputTokens: 10, OutputTokens: 5}) {
			t.Errorf("usage = %+v", resp.Usage)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("got %d requests, want 1", len(reqs))
		}
		r := reqs[0]
		if r.Protocol != k.name || r.Model != k.model || r.System != "You are Spirit." || r.MaxTokens != llm.DefaultMaxTokens {
			t.Errorf("recorded protocol=%q model=%q system=%q max=%d", r.Protocol, r.Model, r.System, r.MaxTokens)
		}
		if len(r.Messages) != 1 || r.Messages[0].Role != "user" || r.Messages[0].Text != "hello" {
			t.Errorf("recorded messages = %+v", r.Messages)
		}
		if len(r.AuthHeaders) == 0 {
			t.Error("no credential header was sent")
		}
		assertNoKey(t, "recorded headers", headerDump(r.Header))
		assertNoKey(t, "request body", string(r.Body))
		assertNoKey(t, "log", log.String())
	})
}

func TestToolRoundTrip(t *testing.T) {
	call := llm.ToolCall{ID: "call_1", Name: "search_mail", Input: json.RawMessage(`{"query":"Smith v Jones"}`)}
	tools := []llm.Tool{{
		Name:        "search_mail",
		Description: "Search the user's mail.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
	}}
	forEach(t, func(t *testing.T, k kit) {
		p, srv, _ := newProvider(t, k, llm.Config{},
			scripted.ToolCalls(call), scripted.Text("Two mails mention Smith v Jones."))
		ctx := context.Background()
		conv := []llm.Message{userSays("Any mail about Smith v Jones?")}
		first, err := p.Complete(ctx, llm.Request{Messages: conv, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if first.StopReason != llm.StopToolUse || len(first.ToolCalls) != 1 {
			t.Fatalf("first response = %+v", first)
		}
		got := first.ToolCalls[0]
		if got.ID != call.ID || got.Name != call.Name || !jsonEqual(got.Input, call.Input) {
			t.Errorf("tool call = %+v (input %s)", got, got.Input)
		}
		conv = append(conv,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: first.ToolCalls},
			llm.Message{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: got.ID, Content: "2 results"}}})
		final, err := p.Complete(ctx, llm.Request{Messages: conv, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if final.Text != "Two mails mention Smith v Jones." || final.StopReason != llm.StopEndTurn {
			t.Errorf("final response = %+v", final)
		}

		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("got %d requests, want 2", len(reqs))
		}
		for i, r := range reqs {
			if len(r.Tools) != 1 || r.Tools[0].Name != "search_mail" || r.Tools[0].Description != "Search the user's mail." ||
				!jsonEqual(r.Tools[0].Schema, tools[0].Schema) {
				t.Errorf("request %d tools = %+v", i, r.Tools)
			}
		}
		msgs := reqs[1].Messages
		if len(msgs) != 3 {
			t.Fatalf("second request has %d messages, want 3: %+v", len(msgs), msgs)
		}
		a := msgs[1]
		if a.Role != "assistant" || len(a.ToolCalls) != 1 || a.ToolCalls[0].ID != "call_1" ||
			a.ToolCalls[0].Name != "search_mail" || !jsonEqual(a.ToolCalls[0].Input, call.Input) {
			t.Errorf("assistant turn = %+v", a)
		}
		// Anthropic carries tool results in a user turn, OpenAI in a tool message.
		wantRole := map[string]string{"anthropic": "user", "openai": "tool"}[k.name]
		res := msgs[2]
		if res.Role != wantRole || len(res.ToolResults) != 1 || res.ToolResults[0].CallID != "call_1" ||
			res.ToolResults[0].Content != "2 results" {
			t.Errorf("tool result turn = %+v, want role %q", res, wantRole)
		}
	})
}

func TestImageIsNativeBlock(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nnot really a png")
	forEach(t, func(t *testing.T, k kit) {
		p, srv, _ := newProvider(t, k, llm.Config{}, scripted.Text("A screenshot of a contract."))
		_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{
			Role: llm.RoleUser, Text: "What is on screen?",
			Images: []llm.Image{{MIME: "image/png", Data: png}},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		m := srv.Requests()[0].Messages[0]
		if len(m.Images) != 1 {
			t.Fatalf("recorded %d images, want 1", len(m.Images))
		}
		img := m.Images[0]
		if img.MIME != "image/png" || !bytes.Equal(img.Data, png) || img.Block != k.native {
			t.Errorf("image = MIME %q, %d bytes, block %q; want block %q", img.MIME, len(img.Data), img.Block, k.native)
		}
		if m.Text != "What is on screen?" {
			t.Errorf("text = %q", m.Text)
		}
	})
}

func TestRetryAfterIsHonoured(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		p, srv, _ := newProvider(t, k, llm.Config{MaxRetries: 2},
			scripted.HTTPError(http.StatusTooManyRequests, "1"), scripted.Text("ok"))
		start := time.Now()
		resp, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "ok" {
			t.Errorf("text = %q", resp.Text)
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("got %d requests, want 2 (one retry)", len(reqs))
		}
		if gap := reqs[1].At.Sub(reqs[0].At); gap < 950*time.Millisecond || gap > 3*time.Second {
			t.Errorf("retry came after %v, want about 1s (Retry-After: 1)", gap)
		}
		t.Logf("total %v", time.Since(start))
	})
}

func TestServerErrorsAreRetried(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		p, srv, _ := newProvider(t, k, llm.Config{MaxRetries: 2},
			scripted.HTTPError(500, ""), scripted.HTTPError(503, ""), scripted.Text("ok"))
		resp, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "ok" || len(srv.Requests()) != 3 {
			t.Errorf("text %q after %d requests, want ok after 3", resp.Text, len(srv.Requests()))
		}
	})
}

func TestServerErrorsExhaustRetries(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		c := llm.NewCounters(nil)
		p, srv, _ := newProvider(t, k, llm.Config{MaxRetries: -1, Counters: c}, scripted.HTTPError(502, ""))
		_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}})
		if !errors.Is(err, llm.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("got %d requests with retries disabled", n)
		}
		if s := c.Snapshot().Models[k.model]; s.Calls != 1 || s.Errors != 1 {
			t.Errorf("counters = %+v", s)
		}
	})
}

func TestMalformedJSON(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		// Only one step: a retry would exhaust the script and fail the test.
		p, _, _ := newProvider(t, k, llm.Config{}, scripted.Malformed())
		_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}})
		if !errors.Is(err, llm.ErrBadResponse) {
			t.Fatalf("err = %v, want ErrBadResponse", err)
		}
		if !strings.Contains(err.Error(), "malformed response") {
			t.Errorf("error is not clear: %v", err)
		}
	})
}

func TestTimeout(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		p, _, _ := newProvider(t, k, llm.Config{Timeout: 300 * time.Millisecond},
			scripted.Text("too late").After(5*time.Second), scripted.Text("too late"), scripted.Text("too late"))
		start := time.Now()
		_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}})
		elapsed := time.Since(start)
		if !errors.Is(err, llm.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want ErrTimeout wrapping DeadlineExceeded", err)
		}
		if elapsed < 250*time.Millisecond || elapsed > 1500*time.Millisecond {
			t.Errorf("failed after %v, want about 300ms", elapsed)
		}
	})
}

func TestCallerCancel(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		p, _, _ := newProvider(t, k, llm.Config{}, scripted.Text("never").After(5*time.Second))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{userSays("hi")}})
		if !errors.Is(err, context.Canceled) || !errors.Is(err, llm.ErrCanceled) || errors.Is(err, llm.ErrTimeout) || errors.Is(err, llm.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrCanceled and context.Canceled, not ErrTimeout or ErrUnavailable", err)
		}
	})
}

func TestCountersAddUpUsage(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		c := llm.NewCounters(map[string]llm.Price{k.model: {InputPerMTok: 2, OutputPerMTok: 10}})
		p, _, _ := newProvider(t, k, llm.Config{Counters: c},
			scripted.Reply{Text: "a", InputTokens: 1000, OutputTokens: 200},
			scripted.Reply{Text: "b", InputTokens: 500, OutputTokens: 100})
		for range 2 {
			if _, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}}); err != nil {
				t.Fatal(err)
			}
		}
		s := c.Snapshot()
		got := s.Models[k.model]
		want := llm.ModelStats{Calls: 2, InputTokens: 1500, OutputTokens: 300, CostUSD: (1500*2 + 300*10) / 1e6, Priced: true}
		if got.Calls != want.Calls || got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens ||
			!nearly(got.CostUSD, want.CostUSD) || !got.Priced {
			t.Errorf("stats = %+v, want %+v", got, want)
		}
		if s.Total.InputTokens != 1500 || s.Total.OutputTokens != 300 {
			t.Errorf("total = %+v", s.Total)
		}
	})
}

func TestAPIKeyNeverLeaks(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		// Vendors echo (parts of) a bad key back in the error message.
		bad := scripted.HTTPError(http.StatusUnauthorized, "")
		bad.ErrorMessage = "Incorrect API key provided: " + testKey
		p, srv, log := newProvider(t, k, llm.Config{}, bad)
		_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}})
		if !errors.Is(err, llm.ErrAuth) {
			t.Fatalf("err = %v, want ErrAuth", err)
		}
		if !strings.Contains(err.Error(), "check the API key in Settings") {
			t.Errorf("error does not point to Settings: %v", err)
		}
		var e *llm.Error
		if !errors.As(err, &e) || e.Status != 401 {
			t.Errorf("err = %#v, want *llm.Error with status 401", err)
		}
		assertNoKey(t, "error", err.Error())
		assertNoKey(t, "error %+v", strings.ReplaceAll(strings.TrimSpace(formatV(err)), "\n", " "))
		assertNoKey(t, "log", log.String())
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("a 401 was retried: %d requests", n)
		}
	})
}

func TestConstructorErrors(t *testing.T) {
	if _, err := llm.NewAnthropic(llm.Config{}); !errors.Is(err, llm.ErrAuth) || !strings.Contains(err.Error(), "Settings") {
		t.Errorf("NewAnthropic without key: %v", err)
	}
	if _, err := llm.NewOpenAI(llm.Config{BaseURL: "::not a url"}); !errors.Is(err, llm.ErrBadRequest) {
		t.Errorf("NewOpenAI with bad URL: %v", err)
	}
	p, err := llm.NewOpenAI(llm.Config{BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}}); !errors.Is(err, llm.ErrBadRequest) {
		t.Errorf("no model: %v", err)
	}
}

func TestRoles(t *testing.T) {
	r := llm.Roles{Triage: "claude-haiku-4-5", Analyst: "claude-opus-4-1"}
	if got := r.Apply(llm.RoleTriage, llm.Request{}).Model; got != "claude-haiku-4-5" {
		t.Errorf("triage model = %q", got)
	}
	if got := r.Apply(llm.RoleAgent, llm.Request{}).Model; got != "" {
		t.Errorf("agent model = %q, want provider default", got)
	}
	if got := r.Apply(llm.RoleAnalyst, llm.Request{Model: "x"}).Model; got != "x" {
		t.Errorf("explicit model overridden: %q", got)
	}
}

func assertNoKey(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, testKey) {
		t.Errorf("%s contains the API key: %s", what, s)
	}
}

func headerDump(h http.Header) string {
	var b strings.Builder
	_ = h.Write(&b)
	return b.String()
}

func formatV(err error) string {
	var b strings.Builder
	for e := err; e != nil; e = errors.Unwrap(e) {
		b.WriteString(e.Error())
	}
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range u.Unwrap() {
			b.WriteString(e.Error())
		}
	}
	return b.String()
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func nearly(a, b float64) bool { d := a - b; return d < 1e-12 && d > -1e-12 }

// A large output budget must not trip the Anthropic SDK's "streaming is
// required" guard for non-streaming calls.
func TestLargeMaxTokens(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		p, srv, _ := newProvider(t, k, llm.Config{MaxTokens: 64000}, scripted.Text("ok"))
		if _, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hi")}}); err != nil {
			t.Fatal(err)
		}
		if got := srv.Requests()[0].MaxTokens; got != 64000 {
			t.Errorf("max tokens = %d", got)
		}
	})
}
