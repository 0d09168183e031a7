package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Error kinds; test with errors.Is(err, llm.ErrAuth) etc.
var (
	ErrAuth        = errors.New("the API key was rejected")
	ErrRateLimited = errors.New("rate limited by the provider")
	ErrUnavailable = errors.New("the provider is unavailable")
	ErrBadRequest  = errors.New("the provider rejected the request")
	ErrBadResponse = errors.New("the provider sent a malformed response")
	ErrTimeout     = errors.New("the model did not answer in time")
	// ErrCanceled: Spirit stopped waiting (quitting, or the lawyer
	// cancelled the task); the provider may be perfectly well.
	ErrCanceled = errors.New("the model call was cancelled")
)

// Error is returned by every Provider in this package. Its text never
// contains the API key or other credentials (Detail is scrubbed with
// package redact), and it deliberately does not unwrap to the SDK's error,
// whose text includes the raw response body (which some vendors use to
// echo the key back).
type Error struct {
	Provider string
	Model    string
	Status   int    // HTTP status, 0 if none was received
	Kind     error  // one of the Err* values above
	Detail   string // the provider's own message, scrubbed, or what ended the call
	ctxErr   error  // context.DeadlineExceeded or context.Canceled, if that ended the call
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", e.Provider)
	if e.Model != "" {
		fmt.Fprintf(&b, " (%s)", e.Model)
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	switch e.Kind {
	case ErrAuth:
		b.WriteString("; check the API key in Settings")
	case ErrRateLimited:
		b.WriteString("; try again shortly or check the account's quota")
	case ErrBadRequest:
		if e.Status == 404 {
			b.WriteString("; check the model name and base URL in Settings")
		}
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Unwrap exposes the kind and any context error, never the SDK error.
func (e *Error) Unwrap() []error {
	if e.ctxErr != nil {
		return []error{e.Kind, e.ctxErr}
	}
	return []error{e.Kind}
}

// kindForStatus maps an HTTP status to an error kind.
func kindForStatus(status int) error {
	switch {
	case status == 401 || status == 403:
		return ErrAuth
	case status == 429:
		return ErrRateLimited
	case status == 408:
		return ErrTimeout
	case status >= 500:
		return ErrUnavailable
	case status >= 400:
		return ErrBadRequest
	}
	return ErrBadResponse
}

// contextError says why a call that started at start ended without an
// answer, since "unavailable" sends the lawyer to check a provider that is
// fine: Spirit cancelled it (parent cancelled: quitting, or the task was
// cancelled), the caller's time budget ran out (parent's deadline: the
// glance allows 10 s), or the call's own timeout did.
func contextError(parent context.Context, start time.Time, timeout time.Duration) *Error {
	switch err := parent.Err(); {
	case errors.Is(err, context.Canceled):
		e := &Error{Kind: ErrCanceled, Detail: "Spirit stopped waiting for the answer (it is quitting, or the task was cancelled)", ctxErr: err}
		if cause := context.Cause(parent); cause != nil && cause != err {
			e.Detail = "Spirit stopped waiting for the answer: " + cause.Error()
		}
		return e
	case err != nil:
		budget := timeout
		if dl, ok := parent.Deadline(); ok {
			budget = dl.Sub(start)
		}
		return &Error{Kind: ErrTimeout, Detail: fmt.Sprintf("waited %s, the time allowed for this step", roundBudget(budget)), ctxErr: err}
	}
	return &Error{Kind: ErrTimeout, Detail: fmt.Sprintf("waited %s, the timeout of one model call", roundBudget(timeout)), ctxErr: context.DeadlineExceeded}
}

// roundBudget drops the microseconds that pass between setting a deadline
// and starting the call: "10s", not "9.999812s".
func roundBudget(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// truncate keeps error details readable when a server returns a page of
// HTML, cutting at a rune boundary.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
