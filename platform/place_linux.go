package platform

import (
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// ICCCM WM_SIZE_HINTS: 18 CARD32s; flags first, then the (obsolete but
// still read) x and y.
const (
	sizeHintsLen = 18
	usPosition   = 1 << 0 // the user asked for this position
	pPosition    = 1 << 2 // the program asked for it
)

// PlaceAt puts the unmapped window xid at x, y (its top-left corner, in
// screen pixels) so that the window manager keeps it there when it is next
// shown. Window managers place a newly mapped window by their own policy
// (openbox: under the pointer, or centred) unless its WM_NORMAL_HINTS say
// the user chose the position (USPosition); moving it after it appears
// makes it jump, and a click aimed at where it first appeared misses.
// The rest of the hints (the toolkit's size limits) are kept. It returns
// once the X server has applied both changes, so a map sent on another
// connection afterwards sees them.
func (d *Desktop) PlaceAt(xid uint32, x, y int) error {
	win := xproto.Window(xid)
	r, err := xproto.GetProperty(d.conn, false, win, xproto.AtomWmNormalHints,
		xproto.AtomWmSizeHints, 0, sizeHintsLen).Reply()
	if err != nil {
		return fmt.Errorf("read WM_NORMAL_HINTS: %w", err)
	}
	var old []uint32
	if r.Format == 32 {
		for i := 0; i+4 <= len(r.Value); i += 4 {
			old = append(old, xgb.Get32(r.Value[i:]))
		}
	}
	hints := userPlaced(old, x, y)
	buf := make([]byte, 4*len(hints))
	for i, v := range hints {
		xgb.Put32(buf[4*i:], v)
	}
	if err := xproto.ChangePropertyChecked(d.conn, xproto.PropModeReplace, win, xproto.AtomWmNormalHints,
		xproto.AtomWmSizeHints, 32, uint32(len(hints)), buf).Check(); err != nil {
		return fmt.Errorf("set WM_NORMAL_HINTS: %w", err)
	}
	// Checked: the reply is the round trip that orders this before the
	// toolkit's map request.
	if err := xproto.ConfigureWindowChecked(d.conn, win, xproto.ConfigWindowX|xproto.ConfigWindowY,
		[]uint32{uint32(int32(x)), uint32(int32(y))}).Check(); err != nil {
		return fmt.Errorf("move window: %w", err)
	}
	return nil
}

// userPlaced returns WM_SIZE_HINTS old (possibly empty or short) with the
// position x, y marked as the user's and the program's choice, every other
// field kept.
func userPlaced(old []uint32, x, y int) []uint32 {
	h := make([]uint32, sizeHintsLen)
	copy(h, old)
	h[0] |= usPosition | pPosition
	h[1], h[2] = uint32(int32(x)), uint32(int32(y))
	return h
}
