//go:build !linux && !windows

package platform

import (
	"context"
	"image"
)

// Desktop answers window-manager questions; on this system docking uses the
// toolkit's own positioning and these calls report ErrUnsupported.
type Desktop struct{}

// OpenDesktop reports ErrUnsupported here.
func OpenDesktop() (*Desktop, error) { return nil, ErrUnsupported }

func (d *Desktop) Close() error                                     { return nil }
func (d *Desktop) ScreenRect() (image.Rectangle, error)             { return image.Rectangle{}, ErrUnsupported }
func (d *Desktop) WorkArea() (image.Rectangle, error)               { return image.Rectangle{}, ErrUnsupported }
func (d *Desktop) WindowSize(uint32) (WindowSize, error)            { return WindowSize{}, ErrUnsupported }
func (d *Desktop) ActiveWindow() (uint32, error)                    { return 0, ErrUnsupported }
func (d *Desktop) Activate(uint32) error                            { return ErrUnsupported }
func (d *Desktop) PrepareFloating(uint32, bool) error               { return ErrUnsupported }
func (d *Desktop) WatchRoot(context.Context, func(RootEvent)) error { return ErrUnsupported }
func (d *Desktop) WindowPID(uint32) (int, error)                    { return 0, ErrUnsupported }
func (d *Desktop) CaptureProbe() error                              { return ErrUnsupported }
func (d *Desktop) GrabHotkey(context.Context, Hotkey, func()) error { return ErrUnsupported }
