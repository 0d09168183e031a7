package platform

import (
	"context"
	"fmt"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// SetFocusable sets xid's ICCCM input hint: whether the window manager may
// give it the keyboard. Set it before mapping a window that must not take
// the focus when it appears.
func (d *Desktop) SetFocusable(xid uint32, focusable bool) error {
	// WM_HINTS: flags=InputHint(1), input. Nine CARD32s per ICCCM.
	hints := make([]byte, 9*4)
	xgb.Put32(hints[0:], 1)
	if focusable {
		xgb.Put32(hints[4:], 1)
	}
	if err := xproto.ChangePropertyChecked(d.conn, xproto.PropModeReplace, xproto.Window(xid),
		xproto.AtomWmHints, xproto.AtomWmHints, 32, 9, hints).Check(); err != nil {
		return fmt.Errorf("set WM_HINTS: %w", err)
	}
	return nil
}

// Focus gives xid the keyboard because the lawyer asked for it (a click, a
// hotkey): its input hint goes on, and once the window is mapped the window
// manager is asked to activate it. It waits up to a second for the map.
func (d *Desktop) Focus(ctx context.Context, xid uint32) error {
	if err := d.SetFocusable(xid, true); err != nil {
		return err
	}
	deadline := time.Now().Add(time.Second)
	for {
		a, err := xproto.GetWindowAttributes(d.conn, xproto.Window(xid)).Reply()
		if err != nil {
			return fmt.Errorf("window attributes: %w", err)
		}
		if a.MapState == xproto.MapStateViewable {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("window %d is not shown", xid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return d.Activate(xid)
}
