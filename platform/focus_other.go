//go:build !linux && !windows

package platform

import "context"

// SetFocusable reports ErrUnsupported here.
func (d *Desktop) SetFocusable(uint32, bool) error { return ErrUnsupported }

// Focus reports ErrUnsupported here.
func (d *Desktop) Focus(context.Context, uint32) error { return ErrUnsupported }
