package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Error kinds; test with errors.Is(err, llm.ErrAuth) etc.
var (
	ErrAuth        = errors.New("the API key was rejected")
	ErrRateLimited = errors.New("rate limited by the provider")
	ErrUnavailable = errors.New("the provider is unavailable")
	ErrBadRequest  = errors.New("the provider rejected the request")
	ErrBadResponse = errors.New("the provider sent a malformed response")
	ErrTimeout     = errors.New("the model did not answer in time")
)

// Error is returned by every Provider in this package. Its text never
// contains the API key, and it deliberately does not unwrap to the SDK's
// error, whose text includes the raw response body (which some vendors use
// to echo the key back).
type Error struct {
	Provider string
	Model    string
	Status   int    // HTTP status, 0 if none was received
	Kind     error  // one of the Err* values above
	Detail   string // the provider's own message, redacted
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

// contextError builds the error for a call ended by its context: ErrTimeout
// for our own per-call deadline, otherwise the caller's cancellation.
func contextError(base *Error, parent, call context.Context) *Error {
	switch {
	case parent.Err() != nil:
		base.Kind = ErrUnavailable
		base.Detail = "request cancelled"
		base.ctxErr = parent.Err()
	default:
		base.Kind = ErrTimeout
		base.ctxErr = call.Err()
	}
	return base
}

// redact removes every occurrence of key from s. Keys shorter than 8 bytes
// are still redacted; an empty key leaves s alone.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// truncate keeps error details readable when a server returns a page of HTML.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
