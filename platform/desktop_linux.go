package platform

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Desktop talks to the X11 server through its own connection. Every X error
// comes back as a value here: unlike Xlib's default handler, a window that
// vanishes mid-call never kills the process.
type Desktop struct {
	conn *xgb.Conn
	root xproto.Window

	mu    sync.Mutex
	atoms map[string]xproto.Atom
}

// OpenDesktop connects to the X server named by $DISPLAY.
func OpenDesktop() (*Desktop, error) {
	if os.Getenv("DISPLAY") == "" {
		if os.Getenv("WAYLAND_DISPLAY") != "" {
			return nil, fmt.Errorf("wayland session without XWayland DISPLAY: %w", ErrUnsupported)
		}
		return nil, errors.New("no display: DISPLAY is not set")
	}
	conn, err := xgb.NewConn()
	if err != nil {
		return nil, fmt.Errorf("connect to X display %s: %w", os.Getenv("DISPLAY"), err)
	}
	setup := xproto.Setup(conn)
	return &Desktop{
		conn:  conn,
		root:  setup.DefaultScreen(conn).Root,
		atoms: map[string]xproto.Atom{},
	}, nil
}

// Close ends the connection.
func (d *Desktop) Close() error {
	d.conn.Close()
	return nil
}

func (d *Desktop) atom(name string) (xproto.Atom, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a, ok := d.atoms[name]; ok {
		return a, nil
	}
	r, err := xproto.InternAtom(d.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, fmt.Errorf("intern atom %s: %w", name, err)
	}
	d.atoms[name] = r.Atom
	return r.Atom, nil
}

func (d *Desktop) cardinals(win xproto.Window, prop string) ([]uint32, error) {
	a, err := d.atom(prop)
	if err != nil {
		return nil, err
	}
	r, err := xproto.GetProperty(d.conn, false, win, a, xproto.GetPropertyTypeAny, 0, 1024).Reply()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", prop, err)
	}
	if r.Format != 32 {
		return nil, nil
	}
	out := make([]uint32, 0, r.ValueLen)
	for i := 0; i+4 <= len(r.Value); i += 4 {
		out = append(out, xgb.Get32(r.Value[i:]))
	}
	return out, nil
}

// ScreenRect is the whole root window.
func (d *Desktop) ScreenRect() (image.Rectangle, error) {
	g, err := xproto.GetGeometry(d.conn, xproto.Drawable(d.root)).Reply()
	if err != nil {
		return image.Rectangle{}, fmt.Errorf("root geometry: %w", err)
	}
	return image.Rect(0, 0, int(g.Width), int(g.Height)), nil
}

// WorkArea is the screen less panels and docks (_NET_WORKAREA of the current
// desktop), falling back to the whole screen when no EWMH window manager says.
func (d *Desktop) WorkArea() (image.Rectangle, error) {
	screen, err := d.ScreenRect()
	if err != nil {
		return image.Rectangle{}, err
	}
	wa, err := d.cardinals(d.root, "_NET_WORKAREA")
	if err != nil || len(wa) < 4 {
		return screen, nil
	}
	idx := 0
	if cur, err := d.cardinals(d.root, "_NET_CURRENT_DESKTOP"); err == nil && len(cur) == 1 && int(cur[0])*4+4 <= len(wa) {
		idx = int(cur[0]) * 4
	}
	r := image.Rect(int(wa[idx]), int(wa[idx+1]), int(wa[idx]+wa[idx+2]), int(wa[idx+1]+wa[idx+3]))
	if r.Empty() {
		return screen, nil
	}
	return r.Intersect(screen), nil
}

// WindowSize is the size of the client window in pixels.
func (d *Desktop) WindowSize(xid uint32) (WindowSize, error) {
	g, err := xproto.GetGeometry(d.conn, xproto.Drawable(xid)).Reply()
	if err != nil {
		return WindowSize{}, fmt.Errorf("window geometry: %w", err)
	}
	return WindowSize{W: int(g.Width), H: int(g.Height)}, nil
}

// ActiveWindow is the window the EWMH window manager reports as focused, or 0.
func (d *Desktop) ActiveWindow() (uint32, error) {
	v, err := d.cardinals(d.root, "_NET_ACTIVE_WINDOW")
	if err != nil {
		return 0, err
	}
	if len(v) == 0 {
		return 0, nil
	}
	return v[0], nil
}

// Activate asks the window manager to focus xid, as a pager would.
func (d *Desktop) Activate(xid uint32) error {
	return d.clientMessage(xproto.Window(xid), "_NET_ACTIVE_WINDOW", 2, uint32(xproto.TimeCurrentTime), 0)
}

// PrepareFloating marks a mapped window as Spirit's floating chrome: above
// other windows, out of the taskbar and pager, and never given keyboard focus
// by the window manager (ICCCM input hint off). Window managers clear part of
// this on hide and show, so call it after every show.
func (d *Desktop) PrepareFloating(xid uint32, focusable bool) error {
	win := xproto.Window(xid)
	// WM_HINTS: flags=InputHint(1), input. Nine CARD32s per ICCCM.
	hints := make([]byte, 9*4)
	xgb.Put32(hints[0:], 1)
	if focusable {
		xgb.Put32(hints[4:], 1)
	}
	if err := xproto.ChangePropertyChecked(d.conn, xproto.PropModeReplace, win,
		xproto.AtomWmHints, xproto.AtomWmHints, 32, 9, hints).Check(); err != nil {
		return fmt.Errorf("set WM_HINTS: %w", err)
	}
	for _, state := range []string{"_NET_WM_STATE_ABOVE", "_NET_WM_STATE_SKIP_TASKBAR", "_NET_WM_STATE_SKIP_PAGER"} {
		a, err := d.atom(state)
		if err != nil {
			return err
		}
		const netWMStateAdd = 1
		if err := d.clientMessage(win, "_NET_WM_STATE", netWMStateAdd, uint32(a), 0); err != nil {
			return err
		}
	}
	return nil
}

func (d *Desktop) clientMessage(win xproto.Window, msgType string, data ...uint32) error {
	t, err := d.atom(msgType)
	if err != nil {
		return err
	}
	var l [5]uint32
	copy(l[:], data)
	ev := xproto.ClientMessageEvent{
		Format: 32,
		Window: win,
		Type:   t,
		Data:   xproto.ClientMessageDataUnionData32New(l[:]),
	}
	mask := uint32(xproto.EventMaskSubstructureNotify | xproto.EventMaskSubstructureRedirect)
	if err := xproto.SendEventChecked(d.conn, false, d.root, mask, string(ev.Bytes())).Check(); err != nil {
		return fmt.Errorf("send %s: %w", msgType, err)
	}
	return nil
}

// WatchRoot calls fn whenever the screen is resized or the work area changes
// (a panel appears, a monitor is added), and when the focused window changes,
// until ctx ends. It uses its own connection so events never interleave with
// requests on d's.
func (d *Desktop) WatchRoot(ctx context.Context, fn func(RootEvent)) error {
	conn, err := xgb.NewConn()
	if err != nil {
		return fmt.Errorf("connect to X display: %w", err)
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	workarea, err := d.atom("_NET_WORKAREA")
	if err != nil {
		conn.Close()
		return err
	}
	active, err := d.atom("_NET_ACTIVE_WINDOW")
	if err != nil {
		conn.Close()
		return err
	}
	mask := uint32(xproto.EventMaskPropertyChange | xproto.EventMaskStructureNotify)
	if err := xproto.ChangeWindowAttributesChecked(conn, root, xproto.CwEventMask, []uint32{mask}).Check(); err != nil {
		conn.Close()
		return fmt.Errorf("watch root window: %w", err)
	}
	go func() {
		<-ctx.Done()
		conn.Close() // unblocks WaitForEvent
	}()
	go func() {
		for {
			ev, xerr := conn.WaitForEvent()
			if ev == nil && xerr == nil {
				return // connection closed
			}
			switch e := ev.(type) {
			case xproto.PropertyNotifyEvent:
				switch e.Atom {
				case workarea:
					fn(WorkAreaChanged)
				case active:
					fn(ActiveChanged)
				}
			case xproto.ConfigureNotifyEvent:
				if e.Window == root {
					fn(WorkAreaChanged)
				}
			}
		}
	}()
	return nil
}

// CaptureProbe reads one pixel of the root window: it fails where the
// server refuses screen reads (some Wayland sessions' XWayland).
func (d *Desktop) CaptureProbe() error {
	if _, err := xproto.GetImage(d.conn, xproto.ImageFormatZPixmap, xproto.Drawable(d.root), 0, 0, 1, 1, 0xffffffff).Reply(); err != nil {
		return fmt.Errorf("read screen: %w", err)
	}
	return nil
}

// WindowPID is the process that owns xid, from _NET_WM_PID (0 when unset).
func (d *Desktop) WindowPID(xid uint32) (int, error) {
	v, err := d.cardinals(xproto.Window(xid), "_NET_WM_PID")
	if err != nil || len(v) == 0 {
		return 0, err
	}
	return int(v[0]), nil
}
