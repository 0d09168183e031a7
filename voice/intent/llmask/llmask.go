// Package llmask lets the command grammar's model fallback (intent.Asker)
// use a configured model provider, over either wire protocol. It is apart
// from package intent so the grammar itself needs no model client.
package llmask

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/voice/intent"
)

// DefaultTimeout bounds one question: the lawyer is waiting for an answer
// to something they said.
const DefaultTimeout = 10 * time.Second

// maxTokens is plenty for one small tool call.
const maxTokens = 300

// ErrNoAnswer is returned when the model neither called the tool nor wrote
// a JSON object.
var ErrNoAnswer = errors.New("the model gave no answer in the expected shape")

// Asker asks Provider, with Model (empty: the provider's default).
type Asker struct {
	Provider llm.Provider
	Model    string
	Timeout  time.Duration // zero: DefaultTimeout
}

var _ intent.Asker = Asker{}

// Ask implements intent.Asker: the tool's input when the model called the
// tool once, else a JSON object the model wrote as its whole text answer.
func (a Asker) Ask(ctx context.Context, q intent.Question) (json.RawMessage, error) {
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := a.Provider.Complete(ctx, llm.Request{
		System:    q.System,
		Model:     a.Model,
		MaxTokens: maxTokens,
		// The only tool offered, so the only thing the model can do is
		// answer in its shape.
		Tools:    []llm.Tool{{Name: q.Tool.Name, Description: q.Tool.Description, Schema: q.Tool.Schema}},
		Messages: []llm.Message{{Role: llm.RoleUser, Text: q.User}},
	})
	if err != nil {
		return nil, fmt.Errorf("complete: %w", err)
	}
	switch {
	case len(resp.ToolCalls) == 1 && resp.ToolCalls[0].Name == q.Tool.Name:
		return resp.ToolCalls[0].Input, nil
	case len(resp.ToolCalls) > 0:
		return nil, fmt.Errorf("%w: %d tool calls, first %q", ErrNoAnswer, len(resp.ToolCalls), resp.ToolCalls[0].Name)
	}
	if obj, ok := jsonObject(resp.Text); ok {
		return obj, nil
	}
	return nil, ErrNoAnswer
}

// jsonObject finds the answer in a text reply: the whole text, or a
// fenced code block, must be one JSON object.
func jsonObject(text string) (json.RawMessage, bool) {
	s := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		rest = strings.TrimPrefix(rest, "json")
		body, _, closed := strings.Cut(rest, "```")
		if !closed {
			return nil, false
		}
		s = strings.TrimSpace(body)
	}
	if !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
		return nil, false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}
