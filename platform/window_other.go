//go:build !linux && !darwin && !windows

package platform

import (
	"context"
	"image"
)

// Display is the window system as Spirit's sight needs it. On this system
// Spirit cannot see the screen: every call reports ErrUnsupported.
type Display struct{}

// OpenDisplay reports ErrUnsupported here.
func OpenDisplay(string) (*Display, error) { return nil, ErrUnsupported }

func (d *Display) Close() error                                        { return nil }
func (d *Display) Foreground(context.Context) (Window, error)          { return Window{}, ErrUnsupported }
func (d *Display) VisibleWindows(context.Context) ([]Window, error)    { return nil, ErrUnsupported }
func (d *Display) WatchForeground(context.Context, func()) error       { return ErrUnsupported }
func (d *Display) Monitors(context.Context) ([]image.Rectangle, error) { return nil, ErrUnsupported }
func (d *Display) Grab(context.Context, image.Rectangle) (*image.RGBA, error) {
	return nil, ErrUnsupported
}
