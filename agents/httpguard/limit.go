package httpguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ErrTooLarge matches the error of an answer longer than LimitBody allows.
var ErrTooLarge = errors.New("answer too large")

// TooLargeError is an answer past its limit.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: more than %s", ErrTooLarge, sizeText(e.Limit))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// LimitBody returns a RoundTripper whose answers carry at most n bytes of
// body: one that says up front it is longer fails at once, one that turns
// out longer fails the read past n with a *TooLargeError (so a caller
// reading it whole never holds more than n). next nil is
// http.DefaultTransport. It guards what is read whole; a caller that
// must tell an answer of exactly n bytes from a longer one gets that
// told: n bytes read, then the error.
func LimitBody(next http.RoundTripper, n int64) http.RoundTripper {
	return limited{next: transport(next), n: n}
}

type limited struct {
	next http.RoundTripper
	n    int64
}

func (l limited) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > l.n {
		resp.Body.Close()
		return nil, &TooLargeError{Limit: l.n}
	}
	resp.Body = &limitedBody{rc: resp.Body, left: l.n, limit: l.n}
	return resp, nil
}

type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells an answer of exactly the limit from a
		// longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, &TooLargeError{Limit: b.limit}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// StallError is a server that went silent for longer than StallTimeout
// allows.
type StallError struct{ After time.Duration }

func (e *StallError) Error() string {
	return fmt.Sprintf("the server sent nothing for %s", e.After)
}

// StallTimeout returns a RoundTripper whose requests fail with a
// *StallError when the server sends nothing for d: no answer within d of
// the request, or no byte of the body within d of the last. Unlike
// http.Client.Timeout it lets a long download run for as long as it
// moves. next nil is http.DefaultTransport.
func StallTimeout(next http.RoundTripper, d time.Duration) http.RoundTripper {
	return stalling{next: transport(next), d: d}
}

type stalling struct {
	next http.RoundTripper
	d    time.Duration
}

func (s stalling) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	stalled := &StallError{After: s.d}
	timer := time.AfterFunc(s.d, func() { cancel(stalled) })
	resp, err := s.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		if errors.Is(context.Cause(ctx), stalled) {
			err = stalled
		}
		cancel(nil)
		return nil, err
	}
	timer.Reset(s.d)
	resp.Body = &stallingBody{rc: resp.Body, ctx: ctx, cancel: cancel, timer: timer, d: s.d, stalled: stalled}
	return resp, nil
}

type stallingBody struct {
	rc      io.ReadCloser
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer
	d       time.Duration
	stalled *StallError
}

func (b *stallingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.d)
	}
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), b.stalled) {
		err = b.stalled
	}
	return n, err
}

func (b *stallingBody) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel(nil)
	return err
}
