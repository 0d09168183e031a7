// Package scripted is a fake model provider for tests. It serves both the
// Anthropic Messages wire protocol (POST /v1/messages) and OpenAI chat
// completions (POST /v1/chat/completions) on 127.0.0.1, answers each request
// with the next step of a script, and records what it received so tests can
// assert on the exact wire shapes the real SDKs produce.
//
// Point an Anthropic client at URL() and an OpenAI client at URL()+"/v1".
package scripted

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
)

// Reply is one script step. The zero value answers with an empty text.
type Reply struct {
	Text      string
	ToolCalls []llm.ToolCall
	// Token counts reported in the usage fields.
	InputTokens, OutputTokens int
	// StopReason overrides the protocol's natural stop reason.
	StopReason string

	// Delay holds the answer back, returning early if the client goes away.
	Delay time.Duration
	// Status, if set and not 200, answers with an error of that status in
	// the protocol's error shape, with ErrorMessage as its message.
	Status       int
	RetryAfter   string // Retry-After header value, if any
	ErrorMessage string
	// Malformed answers 200 with a body that is not valid JSON.
	Malformed bool
}

// Text is a step answering with text, reporting 10 input and 5 output tokens.
func Text(s string) Reply { return Reply{Text: s, InputTokens: 10, OutputTokens: 5} }

// ToolCalls is a step answering with tool calls, reporting 10 input and 5
// output tokens.
func ToolCalls(calls ...llm.ToolCall) Reply {
	return Reply{ToolCalls: calls, InputTokens: 10, OutputTokens: 5}
}

// Malformed is a step answering 200 with a broken JSON body.
func Malformed() Reply { return Reply{Malformed: true} }

// HTTPError is a step answering with status and, unless empty, a
// Retry-After header.
func HTTPError(status int, retryAfter string) Reply {
	return Reply{Status: status, RetryAfter: retryAfter, ErrorMessage: http.StatusText(status)}
}

// After returns r delayed by d.
func (r Reply) After(d time.Duration) Reply { r.Delay = d; return r }

// Image is an image block as received.
type Image struct {
	MIME string
	Data []byte
	// Block is the wire form: "image/base64" for Anthropic image blocks,
	// "image_url/data" for OpenAI image_url parts with a data URL.
	Block string
}

// Message is one received message, protocol differences flattened.
type Message struct {
	Role        string
	Text        string
	Images      []Image
	ToolCalls   []llm.ToolCall
	ToolResults []llm.ToolResult
}

// Tool is one tool offered to the model.
type Tool struct {
	Name, Description string
	Schema            json.RawMessage
}

// Request is what the server received.
type Request struct {
	Protocol string // "anthropic" or "openai"
	Path     string
	At       time.Time
	// Header is the request headers minus credentials.
	Header http.Header
	// AuthHeaders names the headers that carried a credential (their
	// values are not recorded).
	AuthHeaders []string
	Model       string
	MaxTokens   int
	System      string
	Messages    []Message
	Tools       []Tool
	Body        []byte // raw JSON body
}

// Server is a running scripted provider.
type Server struct {
	t    testing.TB
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []Request
	next []Reply
}

// New starts a server on 127.0.0.1 answering with steps in order; it is
// closed when the test ends.
func New(t testing.TB, steps ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, next: steps}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base URL, e.g. "http://127.0.0.1:4711".
func (s *Server) URL() string { return s.srv.URL }

// Push appends steps to the script.
func (s *Server) Push(steps ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = append(s.next, steps...)
}

// Requests returns a copy of what was received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

var credentialHeaders = []string{"Authorization", "X-Api-Key", "Api-Key"}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var protocol string
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		protocol = "openai"
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages"):
		protocol = "anthropic"
	default:
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{Protocol: protocol, Path: r.URL.Path, At: time.Now(), Header: r.Header.Clone(), Body: body}
	for _, h := range credentialHeaders {
		if rec.Header.Get(h) != "" {
			rec.AuthHeaders = append(rec.AuthHeaders, h)
		}
		rec.Header.Del(h)
	}
	if protocol == "openai" {
		err = parseOpenAI(body, &rec)
	} else {
		err = parseAnthropic(body, &rec)
	}
	if err != nil {
		s.t.Errorf("scripted: cannot parse %s request: %v", protocol, err)
	}

	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	var step Reply
	ok := len(s.next) > 0
	if ok {
		step, s.next = s.next[0], s.next[1:]
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("scripted: unexpected request %d (%s): script exhausted", len(s.Requests()), protocol)
		step = Reply{Status: http.StatusInternalServerError, ErrorMessage: "script exhausted"}
	}

	if step.Delay > 0 {
		timer := time.NewTimer(step.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case step.Status != 0 && step.Status != http.StatusOK:
		if step.RetryAfter != "" {
			w.Header().Set("Retry-After", step.RetryAfter)
		}
		w.WriteHeader(step.Status)
		_, _ = w.Write(errorBody(protocol, step))
	case step.Malformed:
		_, _ = io.WriteString(w, `{"id": "broken", "content": [{"type": "text", "text": "unterminated`)
	default:
		var out any
		if protocol == "openai" {
			out = openaiReply(rec.Model, step)
		} else {
			out = anthropicReply(rec.Model, step)
		}
		_ = json.NewEncoder(w).Encode(out)
	}
}

func errorBody(protocol string, step Reply) []byte {
	var v any
	if protocol == "openai" {
		v = map[string]any{"error": map[string]any{"message": step.ErrorMessage, "type": "error", "code": strconv.Itoa(step.Status)}}
	} else {
		v = map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": step.ErrorMessage}}
	}
	b, _ := json.Marshal(v)
	return b
}

func input(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("{}")
	}
	return r
}

func anthropicReply(model string, step Reply) any {
	content := []map[string]any{}
	if step.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": step.Text})
	}
	for _, c := range step.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input(c.Input)})
	}
	stop := step.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(step.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	return map[string]any{
		"id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": step.InputTokens, "output_tokens": step.OutputTokens},
	}
}

func openaiReply(model string, step Reply) any {
	msg := map[string]any{"role": "assistant", "content": nil}
	if step.Text != "" {
		msg["content"] = step.Text
	}
	var calls []map[string]any
	for _, c := range step.ToolCalls {
		calls = append(calls, map[string]any{
			"id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(input(c.Input))},
		})
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	stop := step.StopReason
	if stop == "" {
		stop = "stop"
		if len(calls) > 0 {
			stop = "tool_calls"
		}
	}
	return map[string]any{
		"id": "chatcmpl-scripted", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": stop}},
		"usage": map[string]any{
			"prompt_tokens": step.InputTokens, "completion_tokens": step.OutputTokens,
			"total_tokens": step.InputTokens + step.OutputTokens,
		},
	}
}

// textOrBlocks decodes a field that is either a string or a list of blocks.
func textOrBlocks(raw json.RawMessage) (string, []json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil, nil
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", nil, fmt.Errorf("content is neither string nor array: %w", err)
	}
	return "", blocks, nil
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

func parseAnthropic(body []byte, rec *Request) error {
	var req struct {
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	rec.Model, rec.MaxTokens = req.Model, req.MaxTokens
	sys, sysBlocks, err := textOrBlocks(req.System)
	if err != nil {
		return fmt.Errorf("system: %w", err)
	}
	for _, raw := range sysBlocks {
		var b block
		if err := json.Unmarshal(raw, &b); err != nil {
			return err
		}
		sys += b.Text
	}
	rec.System = sys
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
	}
	for _, m := range req.Messages {
		msg := Message{Role: m.Role}
		text, blocks, err := textOrBlocks(m.Content)
		if err != nil {
			return err
		}
		msg.Text = text
		for _, raw := range blocks {
			var b block
			if err := json.Unmarshal(raw, &b); err != nil {
				return err
			}
			switch b.Type {
			case "text":
				msg.Text += b.Text
			case "image":
				data, err := base64.StdEncoding.DecodeString(b.Source.Data)
				if err != nil {
					return fmt.Errorf("image data: %w", err)
				}
				msg.Images = append(msg.Images, Image{MIME: b.Source.MediaType, Data: data, Block: "image/" + b.Source.Type})
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Input: b.Input})
			case "tool_result":
				content, parts, err := textOrBlocks(b.Content)
				if err != nil {
					return err
				}
				for _, p := range parts {
					var pb block
					if err := json.Unmarshal(p, &pb); err != nil {
						return err
					}
					content += pb.Text
				}
				msg.ToolResults = append(msg.ToolResults, llm.ToolResult{CallID: b.ToolUseID, Content: content, IsError: b.IsError})
			default:
				return fmt.Errorf("unknown block type %q", b.Type)
			}
		}
		rec.Messages = append(rec.Messages, msg)
	}
	return nil
}

func parseOpenAI(body []byte, rec *Request) error {
	var req struct {
		Model               string `json:"model"`
		MaxTokens           int    `json:"max_tokens"`
		MaxCompletionTokens int    `json:"max_completion_tokens"`
		Messages            []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	rec.Model = req.Model
	rec.MaxTokens = max(req.MaxTokens, req.MaxCompletionTokens)
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters})
	}
	for _, m := range req.Messages {
		text, blocks, err := textOrBlocks(m.Content)
		if err != nil {
			return err
		}
		var images []Image
		for _, raw := range blocks {
			var b block
			if err := json.Unmarshal(raw, &b); err != nil {
				return err
			}
			switch b.Type {
			case "text":
				text += b.Text
			case "image_url":
				mime, data, err := parseDataURL(b.ImageURL.URL)
				if err != nil {
					return err
				}
				images = append(images, Image{MIME: mime, Data: data, Block: "image_url/data"})
			default:
				return fmt.Errorf("unknown content part type %q", b.Type)
			}
		}
		if m.Role == "system" || m.Role == "developer" {
			rec.System += text
			continue
		}
		msg := Message{Role: m.Role, Text: text, Images: images}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Input: json.RawMessage(c.Function.Arguments)})
		}
		if m.Role == "tool" {
			msg.ToolResults = []llm.ToolResult{{CallID: m.ToolCallID, Content: text}}
			msg.Text = ""
		}
		rec.Messages = append(rec.Messages, msg)
	}
	return nil
}

// parseDataURL decodes "data:MIME;base64,DATA".
func parseDataURL(u string) (string, []byte, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", nil, fmt.Errorf("image_url is not a data URL: %.40q", u)
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return "", nil, fmt.Errorf("data URL has no comma")
	}
	mime, ok := strings.CutSuffix(meta, ";base64")
	if !ok {
		return "", nil, fmt.Errorf("data URL is not base64")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, fmt.Errorf("data URL payload: %w", err)
	}
	return mime, data, nil
}

// Provider returns a real client of protocol ("anthropic" or "openai")
// pointed at s, with retries off so that each script step is one call.
func (s *Server) Provider(t testing.TB, protocol string) llm.Provider {
	t.Helper()
	cfg := llm.Config{APIKey: "test", Model: "test-model", MaxRetries: -1, BaseURL: s.URL()}
	if protocol == llm.ProtocolOpenAI {
		cfg.BaseURL += "/v1"
	}
	p, err := llm.New(protocol, cfg)
	if err != nil {
		t.Fatalf("scripted: %v", err)
	}
	return p
}

// Timed wraps a provider and adds up the time spent inside Complete, so a
// benchmark can tell its own orchestration from the provider's time.
type Timed struct {
	llm.Provider
	mu     sync.Mutex
	inside time.Duration
}

// Complete implements llm.Provider.
func (p *Timed) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	resp, err := p.Provider.Complete(ctx, req)
	d := time.Since(start)
	p.mu.Lock()
	p.inside += d
	p.mu.Unlock()
	return resp, err
}

// Take returns the time inside Complete since the last Take.
func (p *Timed) Take() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.inside
	p.inside = 0
	return d
}
