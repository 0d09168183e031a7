//go:build !linux && !windows && !darwin

package a11y

import (
	"context"
	"time"
)

// Reader has no implementation on this OS: every call returns
// ErrUnsupported. (On the BSDs the Linux AT-SPI reader would work as is;
// Spirit ships no build for them.)
type Reader struct{}

// Open returns ErrUnsupported.
func Open(ctx context.Context) (*Reader, error) { return nil, ErrUnsupported }

// MessageHeader returns ErrUnsupported.
func (r *Reader) MessageHeader(ctx context.Context, w Window) (MessageHeader, error) {
	return MessageHeader{}, ErrUnsupported
}

// Enabled returns ErrUnsupported.
func (r *Reader) Enabled(ctx context.Context) (bool, error) { return false, ErrUnsupported }

// Close does nothing.
func (r *Reader) Close() error { return nil }

// Changes returns ErrUnsupported: the pane is watched by its pixels.
func (r *Reader) Changes(ctx context.Context, w Window) (<-chan time.Time, error) {
	return nil, ErrUnsupported
}
