package llm

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// call runs one completion attempt sequence (the SDK retries inside do)
// under the per-call timeout, then logs, counts and normalises the error.
// classify turns a non-context SDK error into an *Error with a redacted
// detail; it is only called when the context did not end the call.
func call(ctx context.Context, cfg Config, provider, model string,
	do func(ctx context.Context) (Response, error),
	classify func(err error) *Error,
) (Response, error) {
	start := time.Now()
	callCtx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()

	resp, err := do(callCtx)
	log := cfg.logger()
	if err != nil {
		var e *Error
		switch {
		case errors.As(err, &e):
			// Already normalised (e.g. a response we could not map).
		case callCtx.Err() != nil:
			e = contextError(&Error{}, ctx, callCtx)
		default:
			e = classify(err)
		}
		e.Provider, e.Model = provider, model
		e.Detail = redact(e.Detail, cfg.APIKey)
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
