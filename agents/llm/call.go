package llm

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/spirit-app/spirit/agents/redact"
)

// maxDetail bounds an error's Detail: some servers answer with a page of
// HTML.
const maxDetail = 300

// call runs one completion attempt sequence (the SDK retries inside do)
// under the per-call timeout, then logs, counts and normalises the error.
// classify turns a non-context SDK error into an *Error with the provider's
// detail, which call scrubs and shortens; it is only called when no
// deadline or cancellation ended the call.
func call(ctx context.Context, cfg Config, provider, model string,
	do func(ctx context.Context) (Response, error),
	classify func(err error) *Error,
) (Response, error) {
	start := time.Now()
	timeout := cfg.timeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	resp, err := do(callCtx)
	log := cfg.logger()
	if err != nil {
		var e *Error
		switch {
		case errors.As(err, &e):
			// Already normalised (e.g. a response we could not map).
		case callCtx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
			// The second: the SDK's per-attempt timeout, which equals ours.
			e = contextError(ctx, start, timeout)
		default:
			e = classify(err)
		}
		e.Provider, e.Model = provider, model
		// Scrub before cutting: a cut through the key would leave a
		// prefix that no longer matches it. The first 64 KiB are plenty
		// for maxDetail and bound the scrubber's work on a page of HTML.
		e.Detail = truncate(redact.String(e.Detail[:min(len(e.Detail), 64<<10)], cfg.APIKey), maxDetail)
		cfg.Counters.AddError(model)
		log.LogAttrs(ctx, slog.LevelWarn, "llm call failed",
			slog.String("provider", provider), slog.String("model", model),
			slog.Duration("elapsed", time.Since(start)), slog.String("error", e.Error()))
		return Response{}, e
	}
	cfg.Counters.Add(model, resp.Usage)
	log.LogAttrs(ctx, slog.LevelDebug, "llm call",
		slog.String("provider", provider), slog.String("model", model),
		slog.Duration("elapsed", time.Since(start)),
		slog.Int("input_tokens", resp.Usage.InputTokens),
		slog.Int("output_tokens", resp.Usage.OutputTokens),
		slog.Int("tool_calls", len(resp.ToolCalls)),
		slog.String("stop", resp.StopReason))
	return resp, nil
}

// pickModel resolves the model for req; callers reject an empty result with
// a clear error rather than letting the vendor answer a vague 400.
func pickModel(cfg Config, req Request) string {
	if req.Model != "" {
		return req.Model
	}
	return cfg.Model
}

func pickMaxTokens(cfg Config, req Request) int {
	switch {
	case req.MaxTokens > 0:
		return req.MaxTokens
	case cfg.MaxTokens > 0:
		return cfg.MaxTokens
	}
	return DefaultMaxTokens
}
