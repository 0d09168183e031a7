//go:build windows

package a11y

import (
	"context"
	"time"
)

// Reader is not implemented on Windows yet: every call returns
// ErrUnsupported, so callers use OCR.
//
// The real implementation needs UI Automation through COM (CoInitializeEx
// on a locked OS thread, CUIAutomation / IUIAutomation): ElementFromHandle
// on the foreground HWND (the window Spirit's screen watcher reports),
// then FindAll with a condition tree (ControlType, IsOffscreen false)
// instead of walking, one cross-process call as AT-SPI's Collection is
// here, and an IUIAutomationCacheRequest (Name, ControlType, HelpText,
// AriaRole, AriaProperties) so a subtree comes back in one round trip.
// Thunderbird and new Outlook (WebView2) are web documents whose header
// maps onto the same Nodes HeaderFromTree reads (ControlType List and
// ListItem, Text, Group with AriaRole "banner"; HelpText carries the
// tooltip); Outlook classic's reading pane is native and needs its own
// mapping, to be found on a real Outlook with Inspect.exe. UI Automation
// is always on (Windows has no org.a11y.Status), but a provider that hangs
// blocks the caller: every call needs a worker thread and a timeout.
type Reader struct{}

// Open returns ErrUnsupported on Windows.
func Open(ctx context.Context) (*Reader, error) { return nil, ErrUnsupported }

// MessageHeader returns ErrUnsupported on Windows.
func (r *Reader) MessageHeader(ctx context.Context, w Window) (MessageHeader, error) {
	return MessageHeader{}, ErrUnsupported
}

// Enabled returns ErrUnsupported on Windows.
func (r *Reader) Enabled(ctx context.Context) (bool, error) { return false, ErrUnsupported }

// Close does nothing.
func (r *Reader) Close() error { return nil }

// Changes returns ErrUnsupported: the pane is watched by its pixels.
func (r *Reader) Changes(ctx context.Context, w Window) (<-chan time.Time, error) {
	return nil, ErrUnsupported
}
