//go:build darwin

package a11y

import (
	"context"
	"time"
)

// Reader is not implemented on macOS yet: every call returns
// ErrUnsupported, so callers use OCR.
//
// The real implementation needs the AX API through cgo
// (ApplicationServices): the Accessibility permission, checked with
// AXIsProcessTrustedWithOptions (without it every call fails, which maps
// to ErrUnavailable); AXUIElementCreateApplication(pid), its
// kAXWindowsAttribute matched by kAXTitleAttribute; then the subtree read
// a level at a time with AXUIElementCopyMultipleAttributeValues (role,
// subrole, title, description, value, children), as the AT-SPI reader
// batches a level, with AXUIElementSetMessagingTimeout bounding each
// call. Thunderbird on macOS is Gecko, whose AXList / AXGroup /
// AXStaticText tree maps onto the same Nodes HeaderFromTree reads (the
// banner is an AXGroup with subrole AXLandmarkBanner); Apple Mail's
// header is native and needs its own mapping, to be found on a Mac with
// Accessibility Inspector. macOS has no org.a11y.Status switch.
type Reader struct{}

// Open returns ErrUnsupported on macOS.
func Open(ctx context.Context) (*Reader, error) { return nil, ErrUnsupported }

// MessageHeader returns ErrUnsupported on macOS.
func (r *Reader) MessageHeader(ctx context.Context, w Window) (MessageHeader, error) {
	return MessageHeader{}, ErrUnsupported
}

// Enabled returns ErrUnsupported on macOS.
func (r *Reader) Enabled(ctx context.Context) (bool, error) { return false, ErrUnsupported }

// Close does nothing.
func (r *Reader) Close() error { return nil }

// Changes returns ErrUnsupported: the pane is watched by its pixels.
func (r *Reader) Changes(ctx context.Context, w Window) (<-chan time.Time, error) {
	return nil, ErrUnsupported
}
