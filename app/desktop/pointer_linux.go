//go:build linux

package desktop

import (
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// pointerProbe tells whether the pointer is over a window. The toolkit
// reports the pointer entering a window but never leaving it (GLFW's leave
// event goes unheard), so an open bubble asks the X server itself, on a
// connection of its own.
type pointerProbe struct{ conn *xgb.Conn }

func openPointerProbe() (*pointerProbe, error) {
	c, err := xgb.NewConn()
	if err != nil {
		return nil, fmt.Errorf("pointer watch: connect to X: %w", err)
	}
	return &pointerProbe{conn: c}, nil
}

// over reports whether the pointer is inside window xid.
func (p *pointerProbe) over(xid uint32) (bool, error) {
	w := xproto.Window(xid)
	ptr := xproto.QueryPointer(p.conn, w)
	geom := xproto.GetGeometry(p.conn, xproto.Drawable(w))
	r, err := ptr.Reply()
	if err != nil {
		return false, fmt.Errorf("query pointer: %w", err)
	}
	g, err := geom.Reply()
	if err != nil {
		return false, fmt.Errorf("window geometry: %w", err)
	}
	x, y := int(r.WinX), int(r.WinY)
	return r.SameScreen && x >= 0 && y >= 0 && x < int(g.Width) && y < int(g.Height), nil
}

func (p *pointerProbe) close() { p.conn.Close() }
