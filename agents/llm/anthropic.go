package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// Anthropic talks to Anthropic's Messages API through the official SDK.
type Anthropic struct {
	cfg    Config
	client anthropic.Client
}

// NewAnthropic returns a provider for the Anthropic Messages API.
func NewAnthropic(cfg Config) (*Anthropic, error) {
	if cfg.APIKey == "" {
		return nil, &Error{Provider: "anthropic", Kind: ErrAuth, Detail: "no API key set"}
	}
	opts := []option.RequestOption{
		// The SDK otherwise reads ANTHROPIC_* variables and config profiles,
		// which could add a second, unexpected credential to our requests.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(cfg.httpClient()),
		// The SDK retries 408/409/429/5xx and connection errors with
		// exponential backoff and honours Retry-After(-Ms).
		option.WithMaxRetries(cfg.maxRetries()),
		// An explicit per-attempt timeout also stops the SDK from refusing
		// non-streaming calls whose max_tokens suggests more than 10 minutes;
		// our per-call deadline (the same value) bounds the whole call anyway.
		option.WithRequestTimeout(cfg.timeout()),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return &Anthropic{cfg: cfg, client: anthropic.NewClient(opts...)}, nil
}

// Name implements Provider.
func (p *Anthropic) Name() string { return "anthropic" }

// Complete implements Provider.
func (p *Anthropic) Complete(ctx context.Context, req Request) (Response, error) {
	model := pickModel(p.cfg, req)
	if model == "" {
		return Response{}, &Error{Provider: p.Name(), Kind: ErrBadRequest, Detail: "no model configured"}
	}
	params, err := anthropicParams(req, model, pickMaxTokens(p.cfg, req))
	if err != nil {
		return Response{}, &Error{Provider: p.Name(), Model: model, Kind: ErrBadRequest, Detail: err.Error()}
	}
	return call(ctx, p.cfg, p.Name(), model, func(ctx context.Context) (Response, error) {
		msg, err := p.client.Messages.New(ctx, params)
		if err != nil {
			return Response{}, err
		}
		return anthropicResponse(msg), nil
	}, anthropicClassify)
}

func anthropicParams(req Request, model string, maxTokens int) (anthropic.MessageNewParams, error) {
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: int64(maxTokens),
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		schema, err := anthropicSchema(t.Schema)
		if err != nil {
			return params, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tp := &anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	for i, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		role := anthropic.MessageParamRoleUser
		switch m.Role {
		case RoleAssistant:
			role = anthropic.MessageParamRoleAssistant
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, rawOrEmpty(c.Input), c.Name))
			}
		case RoleUser, RoleTool:
			// Tool results must come first in a user turn.
			for _, r := range m.ToolResults {
				blocks = append(blocks, anthropic.NewToolResultBlock(r.CallID, r.Content, r.IsError))
			}
			// Images before text, as Anthropic recommends.
			for _, img := range m.Images {
				blocks = append(blocks, anthropic.NewImageBlockBase64(img.MIME, base64.StdEncoding.EncodeToString(img.Data)))
			}
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
		default:
			return params, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if len(blocks) == 0 {
			return params, fmt.Errorf("message %d (%s) is empty", i, m.Role)
		}
		// Anthropic wants alternating turns: merge a tool-result turn and a
		// following user turn (or two tool turns) into one.
		if n := len(params.Messages); n > 0 && params.Messages[n-1].Role == role {
			params.Messages[n-1].Content = append(params.Messages[n-1].Content, blocks...)
			continue
		}
		params.Messages = append(params.Messages, anthropic.MessageParam{Role: role, Content: blocks})
	}
	return params, nil
}

// anthropicSchema splits a JSON Schema object into the SDK's typed fields.
func anthropicSchema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	var s anthropic.ToolInputSchemaParam
	if len(raw) == 0 {
		return s, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, fmt.Errorf("schema is not a JSON object: %w", err)
	}
	s.Properties = m["properties"]
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	delete(m, "properties")
	delete(m, "required")
	delete(m, "type")
	if len(m) > 0 {
		s.ExtraFields = m
	}
	return s, nil
}

func anthropicResponse(msg *anthropic.Message) Response {
	var r Response
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Input: rawOrEmpty(b.Input)})
		}
	}
	r.Text = strings.Join(text, "")
	r.StopReason = string(msg.StopReason)
	r.Usage = Usage{InputTokens: int(msg.Usage.InputTokens), OutputTokens: int(msg.Usage.OutputTokens)}
	return r
}

func anthropicClassify(err error) *Error {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		e := &Error{Status: apiErr.StatusCode, Kind: kindForStatus(apiErr.StatusCode)}
		// Anthropic errors look like {"type":"error","error":{"type":..,"message":..}}.
		var body struct {
			Error struct{ Message string } `json:"error"`
		}
		if json.Unmarshal([]byte(apiErr.RawJSON()), &body) == nil && body.Error.Message != "" {
			e.Detail = body.Error.Message
		} else {
			e.Detail = apiErr.RawJSON()
		}
		return e
	}
	return classifyTransport(err)
}

// classifyTransport handles errors with no HTTP error status: a body that is
// not JSON, or a connection failure.
func classifyTransport(err error) *Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	msg := err.Error()
	// Both SDKs report an undecodable 200 body as "error parsing response
	// json: ..." without a typed error to match on.
	if errors.As(err, &syn) || errors.As(err, &typ) || strings.Contains(msg, "parsing response json") {
		return &Error{Kind: ErrBadResponse, Detail: msg}
	}
	return &Error{Kind: ErrUnavailable, Detail: msg}
}

// rawOrEmpty makes sure tool input is a JSON object even when absent.
func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || string(r) == "null" {
		return json.RawMessage("{}")
	}
	return r
}
