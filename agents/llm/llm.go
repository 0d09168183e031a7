// Package llm is the one small interface Spirit's agents use to talk to a
// language model, with implementations for Anthropic's Messages API and for
// OpenAI-compatible chat completions (OpenAI, Azure OpenAI, OpenRouter,
// Ollama, LM Studio, Gemini's OpenAI endpoint).
//
// Keeping the agents on this interface, not on an SDK, lets tests swap in the
// scripted server (package scripted) and lets users switch vendors in
// Settings without touching agent code.
package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/spirit-app/spirit/agents/httpguard"
)

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Normalised stop reasons. Anthropic's names are used for both providers so
// agent loops need a single switch; unknown provider values pass through.
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
)

// Message is one turn of a conversation. A "tool" message carries the
// results of the tool calls the assistant made in the previous turn.
type Message struct {
	Role        string // user | assistant | tool
	Text        string
	Images      []Image
	ToolCalls   []ToolCall
	ToolResults []ToolResult
}

// Image is an inline image, sent base64-encoded in the provider's native
// image block. MIME is e.g. "image/png" or "image/jpeg".
type Image struct {
	MIME string
	Data []byte
}

// Tool is a function the model may call. Schema is a JSON Schema object
// describing the input.
type Tool struct {
	Name, Description string
	Schema            json.RawMessage
}

// ToolCall is the model asking to run a tool. Input is always valid JSON.
type ToolCall struct {
	ID, Name string
	Input    json.RawMessage
}

// ToolResult answers the ToolCall whose ID is CallID.
type ToolResult struct {
	CallID, Content string
	IsError         bool
}

// Request is one completion request. An empty Model uses Config.Model; a zero
// MaxTokens uses Config.MaxTokens.
type Request struct {
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int
	Model     string
}

// Response is the model's answer.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	StopReason string
	Usage      Usage
}

// Usage counts tokens as reported by the provider.
type Usage struct {
	InputTokens, OutputTokens int
}

// Provider completes a conversation. Implementations are safe for
// concurrent use.
type Provider interface {
	Complete(ctx context.Context, req Request) (Response, error)
	Name() string
}

// Config configures a provider. The API key is passed in by the caller (which
// keeps it in the OS keychain) and is never logged or put in an error.
type Config struct {
	APIKey  string
	BaseURL string // empty: the vendor's public endpoint
	Model   string // default model when Request.Model is empty

	// Timeout bounds one Complete call including its retries, so the user
	// never waits longer than this for an answer. Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times a request failing with 408/409/429/5xx
	// or a connection error is retried, honouring Retry-After. Zero means
	// DefaultMaxRetries; negative disables retries.
	MaxRetries int
	// HTTPClient is used for all requests; nil means a fresh http.Client.
	// Either way a redirect to another origin is refused and an answer is
	// cut at MaxAnswerBytes (see httpClient).
	HTTPClient *http.Client

	// MaxTokens is the default output limit. Zero means DefaultMaxTokens.
	MaxTokens int
	// Counters, if set, accumulates per-model usage and cost.
	Counters *Counters
	// Logger receives one debug line per call and a warning per failure;
	// nil means slog.Default().
	Logger *slog.Logger
}

// Wire protocols New knows.
const (
	ProtocolAnthropic = "anthropic" // Anthropic Messages API
	ProtocolOpenAI    = "openai"    // OpenAI-compatible chat completions
)

// New returns the provider speaking protocol (ProtocolAnthropic or
// ProtocolOpenAI) with cfg.
func New(protocol string, cfg Config) (Provider, error) {
	switch protocol {
	case ProtocolAnthropic:
		p, err := NewAnthropic(cfg)
		if err != nil {
			return nil, err
		}
		return p, nil
	case ProtocolOpenAI:
		p, err := NewOpenAI(cfg)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, fmt.Errorf("unknown protocol %q: use %s or %s", protocol, ProtocolAnthropic, ProtocolOpenAI)
}

// Defaults applied to a zero Config field.
const (
	DefaultTimeout    = 2 * time.Minute
	DefaultMaxRetries = 2
	DefaultMaxTokens  = 4096
)

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c Config) maxRetries() int {
	switch {
	case c.MaxRetries < 0:
		return 0
	case c.MaxRetries == 0:
		return DefaultMaxRetries
	}
	return c.MaxRetries
}

func (c Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// MaxAnswerBytes bounds one answer read from a provider: a model's
// longest answer (tens of thousands of tokens, with tool calls) is well
// under a MiB.
const MaxAnswerBytes = 16 << 20

// httpClient is the client the SDKs send with. A redirect to another
// origin than the provider's is refused, not followed: net/http would
// take x-api-key and api-key along wherever it led, Authorization to the
// same host on another port, and for 307 and 308 the lawyer's prompt.
func (c Config) httpClient() *http.Client {
	hc := c.HTTPClient
	if hc == nil {
		// No client-level Timeout: the per-call context deadline bounds requests.
		hc = &http.Client{}
	}
	guarded := httpguard.StayOnOrigin(hc, "your API key and your request")
	guarded.Transport = httpguard.LimitBody(httpguard.Transport(hc), MaxAnswerBytes)
	return guarded
}

// Role names an agent role that may use its own model.
type Role string

// Agent roles.
const (
	RoleTriage  Role = "triage"
	RoleAnalyst Role = "analyst"
	RoleAgent   Role = "agent"
)

// Roles picks a model per agent role, e.g. a cheap model for triage and a
// stronger one for analysis. An empty entry means "the provider's default".
type Roles struct {
	Triage, Analyst, Agent string
}

// Model returns the model configured for role, or "" to use the provider's
// default model.
func (r Roles) Model(role Role) string {
	switch role {
	case RoleTriage:
		return r.Triage
	case RoleAnalyst:
		return r.Analyst
	case RoleAgent:
		return r.Agent
	}
	return ""
}

// Apply returns req with its Model set for role, unless req already names a
// model.
func (r Roles) Apply(role Role, req Request) Request {
	if req.Model == "" {
		req.Model = r.Model(role)
	}
	return req
}
