package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWhyACallFailed: the error says what happened (Spirit cancelled, a
// time budget ran out, the provider is down) instead of calling every
// unanswered call "unavailable".
func TestWhyACallFailed(t *testing.T) {
	start := time.Now().Add(-time.Minute)
	cancelled := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}
	tests := []struct {
		name  string
		err   func() *Error
		want  string
		is    []error
		isNot []error
	}{
		{
			name: "the lawyer cancelled, or Spirit quit",
			err:  func() *Error { return contextError(cancelled(), start, DefaultTimeout) },
			want: "anthropic (claude-haiku-4-5): the model call was cancelled: Spirit stopped waiting for the answer (it is quitting, or the task was cancelled)",
			is:   []error{ErrCanceled, context.Canceled}, isNot: []error{ErrUnavailable, ErrTimeout},
		},
		{
			name: "cancelled with a cause",
			err: func() *Error {
				ctx, cancel := context.WithCancelCause(context.Background())
				cancel(errors.New("the agent was cancelled from Activity"))
				return contextError(ctx, start, DefaultTimeout)
			},
			want: "anthropic (claude-haiku-4-5): the model call was cancelled: Spirit stopped waiting for the answer: the agent was cancelled from Activity",
			is:   []error{ErrCanceled, context.Canceled}, isNot: []error{ErrUnavailable, ErrTimeout},
		},
		{
			name: "the caller's budget ran out (the glance's 10 s)",
			err: func() *Error {
				ctx, cancel := context.WithDeadline(context.Background(), start.Add(10*time.Second))
				t.Cleanup(cancel)
				return contextError(ctx, start, DefaultTimeout)
			},
			want: "anthropic (claude-haiku-4-5): the model did not answer in time: waited 10s, the time allowed for this step",
			is:   []error{ErrTimeout, context.DeadlineExceeded}, isNot: []error{ErrUnavailable, ErrCanceled},
		},
		{
			name: "the call's own timeout",
			err:  func() *Error { return contextError(context.Background(), start, 90*time.Second) },
			want: "anthropic (claude-haiku-4-5): the model did not answer in time: waited 1m30s, the timeout of one model call",
			is:   []error{ErrTimeout, context.DeadlineExceeded}, isNot: []error{ErrUnavailable, ErrCanceled},
		},
		{
			name: "a short budget",
			err: func() *Error {
				ctx, cancel := context.WithDeadline(context.Background(), start.Add(250*time.Millisecond+3*time.Microsecond))
				t.Cleanup(cancel)
				return contextError(ctx, start, DefaultTimeout)
			},
			want: "anthropic (claude-haiku-4-5): the model did not answer in time: waited 250ms, the time allowed for this step",
			is:   []error{ErrTimeout, context.DeadlineExceeded}, isNot: []error{ErrUnavailable},
		},
		{
			name: "the provider is down (5xx)",
			err: func() *Error {
				return &Error{Status: 503, Kind: kindForStatus(503), Detail: "Overloaded"}
			},
			want: "anthropic (claude-haiku-4-5): the provider is unavailable (HTTP 503): Overloaded",
			is:   []error{ErrUnavailable}, isNot: []error{ErrTimeout, ErrCanceled, context.Canceled},
		},
		{
			name: "nothing listens",
			err: func() *Error {
				return classifyTransport(errors.New(`Post "http://127.0.0.1:1/v1/messages": dial tcp 127.0.0.1:1: connect: connection refused`))
			},
			want: `anthropic (claude-haiku-4-5): the provider is unavailable: Post "http://127.0.0.1:1/v1/messages": dial tcp 127.0.0.1:1: connect: connection refused`,
			is:   []error{ErrUnavailable}, isNot: []error{ErrTimeout, ErrCanceled},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.err()
			e.Provider, e.Model = "anthropic", "claude-haiku-4-5"
			if got := e.Error(); got != tt.want {
				t.Errorf("Error()\n got %q\nwant %q", got, tt.want)
			}
			for _, k := range tt.is {
				if !errors.Is(e, k) {
					t.Errorf("errors.Is(err, %v) = false, want true", k)
				}
			}
			for _, k := range tt.isNot {
				if errors.Is(e, k) {
					t.Errorf("errors.Is(err, %v) = true, want false", k)
				}
			}
		})
	}
}
