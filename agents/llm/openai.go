package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI talks to any OpenAI-compatible chat completions endpoint through
// the official openai-go SDK: OpenAI itself, Azure OpenAI (v1 API base URL),
// OpenRouter, Ollama, LM Studio or Gemini's OpenAI-compatible endpoint.
type OpenAI struct {
	cfg  Config
	chat openai.ChatCompletionService
	// completionTokens selects max_completion_tokens (OpenAI and Azure,
	// required by reasoning models) over the older max_tokens that local
	// and third-party servers understand.
	completionTokens bool
}

// NewOpenAI returns a provider for an OpenAI-compatible endpoint. The API
// key may be empty for local servers such as Ollama.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	// We build the service directly rather than with openai.NewClient,
	// which would read OPENAI_* environment variables (a second key, org,
	// base URL) behind the caller's back.
	opts := []option.RequestOption{
		option.WithHTTPClient(cfg.httpClient()),
		// The SDK retries 408/409/429/5xx and connection errors with
		// exponential backoff and honours Retry-After(-Ms).
		option.WithMaxRetries(cfg.maxRetries()),
		option.WithRequestTimeout(cfg.timeout()),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	} else {
		opts = append(opts, option.WithEnvironmentProduction())
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	host := ""
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || u.Host == "" {
			return nil, &Error{Provider: "openai", Kind: ErrBadRequest, Detail: "base URL is not a valid URL"}
		}
		host = strings.ToLower(u.Hostname())
	}
	azure := strings.HasSuffix(host, ".azure.com")
	if azure && cfg.APIKey != "" {
		// Azure's v1 API takes the key in "api-key"; keep the bearer too.
		opts = append(opts, option.WithHeader("api-key", cfg.APIKey))
	}
	return &OpenAI{
		cfg:              cfg,
		chat:             openai.NewChatCompletionService(opts...),
		completionTokens: host == "" || host == "api.openai.com" || azure,
	}, nil
}

// Name implements Provider.
func (p *OpenAI) Name() string { return "openai" }

// Complete implements Provider.
func (p *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	model := pickModel(p.cfg, req)
	if model == "" {
		return Response{}, &Error{Provider: p.Name(), Kind: ErrBadRequest, Detail: "no model configured"}
	}
	params, err := openaiParams(req, model)
	if err != nil {
		return Response{}, &Error{Provider: p.Name(), Model: model, Kind: ErrBadRequest, Detail: err.Error()}
	}
	if n := int64(pickMaxTokens(p.cfg, req)); p.completionTokens {
		params.MaxCompletionTokens = openai.Int(n)
	} else {
		params.MaxTokens = openai.Int(n)
	}
	return call(ctx, p.cfg, p.Name(), model, func(ctx context.Context) (Response, error) {
		cc, err := p.chat.New(ctx, params)
		if err != nil {
			return Response{}, err
		}
		return openaiResponse(cc)
	}, openaiClassify)
}

func openaiParams(req Request, model string) (openai.ChatCompletionNewParams, error) {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		if len(t.Schema) > 0 {
			var schema map[string]any
			if err := json.Unmarshal(t.Schema, &schema); err != nil {
				return params, fmt.Errorf("tool %q: schema is not a JSON object: %w", t.Name, err)
			}
			fn.Parameters = shared.FunctionParameters(schema)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleAssistant:
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Text != "" {
				a.Content.OfString = openai.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID: c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name: c.Name, Arguments: string(rawOrEmpty(c.Input)),
						},
					},
				})
			}
			if m.Text == "" && len(a.ToolCalls) == 0 {
				return params, fmt.Errorf("message %d (assistant) is empty", i)
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case RoleUser, RoleTool:
			// Chat completions have no error flag on tool results: say it.
			for _, r := range m.ToolResults {
				content := r.Content
				if r.IsError {
					content = "Error: " + content
				}
				params.Messages = append(params.Messages, openai.ToolMessage(content, r.CallID))
			}
			if m.Text == "" && len(m.Images) == 0 {
				if len(m.ToolResults) == 0 {
					return params, fmt.Errorf("message %d (%s) is empty", i, m.Role)
				}
				continue
			}
			if len(m.Images) == 0 {
				params.Messages = append(params.Messages, openai.UserMessage(m.Text))
				continue
			}
			var parts []openai.ChatCompletionContentPartUnionParam
			if m.Text != "" {
				parts = append(parts, openai.TextContentPart(m.Text))
			}
			for _, img := range m.Images {
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
					URL: "data:" + img.MIME + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
				}))
			}
			params.Messages = append(params.Messages, openai.UserMessage(parts))
		default:
			return params, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return params, nil
}

func openaiResponse(cc *openai.ChatCompletion) (Response, error) {
	if len(cc.Choices) == 0 {
		return Response{}, &Error{Kind: ErrBadResponse, Detail: "no choices in response"}
	}
	ch := cc.Choices[0]
	r := Response{
		Text:  ch.Message.Content,
		Usage: Usage{InputTokens: int(cc.Usage.PromptTokens), OutputTokens: int(cc.Usage.CompletionTokens)},
	}
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: toolArgs(tc.Function.Arguments)})
	}
	switch ch.FinishReason {
	case "stop":
		r.StopReason = StopEndTurn
	case "tool_calls", "function_call":
		r.StopReason = StopToolUse
	case "length":
		r.StopReason = StopMaxTokens
	default:
		r.StopReason = ch.FinishReason
	}
	// Some compatible servers report "stop" even when calling tools.
	if len(r.ToolCalls) > 0 && r.StopReason == StopEndTurn {
		r.StopReason = StopToolUse
	}
	return r, nil
}

// toolArgs keeps ToolCall.Input valid JSON: smaller models on compatible
// servers sometimes emit broken arguments, which become a JSON string so
// the agent can report the problem back to the model instead of crashing.
func toolArgs(s string) json.RawMessage {
	switch {
	case strings.TrimSpace(s) == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(s)):
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func openaiClassify(err error) *Error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		e := &Error{Status: apiErr.StatusCode, Kind: kindForStatus(apiErr.StatusCode), Detail: apiErr.Message}
		if e.Detail == "" {
			e.Detail = apiErr.RawJSON()
		}
		return e
	}
	return classifyTransport(err)
}
