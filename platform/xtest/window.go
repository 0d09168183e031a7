//go:build linux

package xtest

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"sync"

	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/xproto"
)

// WindowSpec describes a test window to create. (WindowInfo describes any
// window found on the display.)
type WindowSpec struct {
	Title           string // set as _NET_WM_NAME and WM_NAME
	Class, Instance string // WM_CLASS
	PID             int    // _NET_WM_PID; 0 leaves it unset
	// Rect is the client area in root coordinates; openbox is told the
	// position was user-specified, so it keeps it.
	Rect image.Rectangle
	// Color fills the window, unless Image is set.
	Color color.RGBA
	// Image, if set, is the window's content (a background pixmap, so
	// the server repaints it without a client).
	Image image.Image
}

// Window is a test window made by NewWindow or CreateWindow.
type Window struct {
	ID   uint32
	d    *Display
	once sync.Once
}

// NewWindow creates and maps a window and waits until openbox manages it
// (it appears in _NET_CLIENT_LIST) and it is viewable; without a window
// manager (NoWM) only the latter. It is destroyed at cleanup if the test
// has not destroyed it.
func (d *Display) NewWindow(ctx context.Context, spec WindowSpec) (*Window, error) {
	w, err := d.CreateWindow(spec)
	if err != nil {
		return nil, err
	}
	viewable := func() (bool, error) {
		a, err := xproto.GetWindowAttributes(d.conn, xproto.Window(w.ID)).Reply()
		return err == nil && a.MapState == xproto.MapStateViewable, err
	}
	err = Poll(ctx, func() (bool, error) {
		if d.wm == nil {
			return viewable()
		}
		clients, err := d.Prop32(d.root, "_NET_CLIENT_LIST")
		if err != nil {
			return false, err
		}
		for _, c := range clients {
			if c == w.ID {
				return viewable()
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("window %q not managed: %w", spec.Title, err)
	}
	return w, nil
}

// CreateWindow creates and maps a window without waiting for the window
// manager: for tests that race it.
func (d *Display) CreateWindow(spec WindowSpec) (*Window, error) {
	c := d.conn
	id, err := xproto.NewWindowId(c)
	if err != nil {
		return nil, err
	}
	r := spec.Rect
	if r.Empty() {
		r = image.Rect(100, 100, 500, 400)
	}
	mask := uint32(xproto.CwBackPixel)
	vals := []uint32{pixel(spec.Color)}
	var pix xproto.Pixmap
	if spec.Image != nil {
		if pix, err = d.pixmap(spec.Image); err != nil {
			return nil, err
		}
		mask, vals = xproto.CwBackPixmap, []uint32{uint32(pix)}
	}
	err = xproto.CreateWindowChecked(c, d.screen.RootDepth, id, d.root,
		int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()), 0,
		xproto.WindowClassInputOutput, d.screen.RootVisual, mask, vals).Check()
	if pix != 0 {
		xproto.FreePixmap(c, pix) // the window holds its own reference
	}
	if err != nil {
		return nil, fmt.Errorf("create window: %w", err)
	}
	w := &Window{ID: uint32(id), d: d}
	d.t.Cleanup(func() { w.Destroy() })

	x, y, wd, ht := uint32(r.Min.X), uint32(r.Min.Y), uint32(r.Dx()), uint32(r.Dy())
	hints := []uint32{sizeHintUSPosition | sizeHintUSSize, x, y, wd, ht, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if err := d.setCardinals(id, "WM_NORMAL_HINTS", "WM_SIZE_HINTS", hints); err != nil {
		return nil, fmt.Errorf("set WM_NORMAL_HINTS: %w", err)
	}
	if spec.PID != 0 {
		if err := d.setCardinals(id, "_NET_WM_PID", "CARDINAL", []uint32{uint32(spec.PID)}); err != nil {
			return nil, fmt.Errorf("set _NET_WM_PID: %w", err)
		}
	}
	if spec.Class != "" || spec.Instance != "" {
		v := spec.Instance + "\x00" + spec.Class + "\x00"
		if err := xproto.ChangePropertyChecked(c, xproto.PropModeReplace, id, xproto.AtomWmClass,
			xproto.AtomString, 8, uint32(len(v)), []byte(v)).Check(); err != nil {
			return nil, fmt.Errorf("set WM_CLASS: %w", err)
		}
	}
	if err := w.SetTitle(spec.Title); err != nil {
		return nil, err
	}
	if err := xproto.MapWindowChecked(c, id).Check(); err != nil {
		return nil, fmt.Errorf("map window: %w", err)
	}
	return w, nil
}

// SetTitle sets _NET_WM_NAME (UTF-8) and WM_NAME.
func (w *Window) SetTitle(title string) error {
	d := w.d
	utf8Type, err := d.Atom("UTF8_STRING")
	if err != nil {
		return err
	}
	netName, err := d.Atom("_NET_WM_NAME")
	if err != nil {
		return err
	}
	id := xproto.Window(w.ID)
	if err := xproto.ChangePropertyChecked(d.conn, xproto.PropModeReplace, id, netName, utf8Type, 8,
		uint32(len(title)), []byte(title)).Check(); err != nil {
		return fmt.Errorf("set _NET_WM_NAME: %w", err)
	}
	if err := xproto.ChangePropertyChecked(d.conn, xproto.PropModeReplace, id, xproto.AtomWmName, utf8Type, 8,
		uint32(len(title)), []byte(title)).Check(); err != nil {
		return fmt.Errorf("set WM_NAME: %w", err)
	}
	return nil
}

// Destroy destroys the window; later calls do nothing.
func (w *Window) Destroy() {
	w.once.Do(func() { xproto.DestroyWindowChecked(w.d.conn, xproto.Window(w.ID)).Check() })
}

// Frame is the window's outer rectangle (client area plus openbox's
// decorations) in root coordinates.
func (w *Window) Frame() (image.Rectangle, error) {
	_, frame, err := w.d.geometry(xproto.Window(w.ID))
	return frame, err
}

// Client is the window's client area in root coordinates.
func (w *Window) Client() (image.Rectangle, error) {
	client, _, err := w.d.geometry(xproto.Window(w.ID))
	return client, err
}

// SplitMonitors makes the screen two RandR monitors side by side, like a
// dual-head setup: the left one takes over the real output, so the
// automatic whole-screen monitor disappears.
func (d *Display) SplitMonitors(leftWidth int) error {
	c := d.conn
	// Not randr.Init: it writes xgb's process-wide event tables, which
	// every connection's reader goroutine reads (a data race with the
	// code under test). Registering the opcode on this connection is
	// enough for requests.
	ext, err := xproto.QueryExtension(c, 5, "RANDR").Reply()
	if err != nil || !ext.Present {
		return fmt.Errorf("randr: not available (%v)", err)
	}
	c.ExtLock.Lock()
	c.Extensions["RANDR"] = ext.MajorOpcode
	c.ExtLock.Unlock()
	if _, err := randr.QueryVersion(c, 1, 5).Reply(); err != nil {
		return fmt.Errorf("randr version: %w", err)
	}
	res, err := randr.GetScreenResourcesCurrent(c, d.root).Reply()
	if err != nil || len(res.Outputs) == 0 {
		return fmt.Errorf("randr outputs: %v", err)
	}
	for i, m := range []struct {
		name string
		x, w int
		outs []randr.Output
	}{
		{"xtest-left", 0, leftWidth, res.Outputs[:1]},
		{"xtest-right", leftWidth, d.Width - leftWidth, nil},
	} {
		a, err := d.Atom(m.name)
		if err != nil {
			return err
		}
		info := randr.MonitorInfo{Name: a, Primary: i == 0, X: int16(m.x), Y: 0,
			Width: uint16(m.w), Height: uint16(d.Height), WidthInMillimeters: uint32(m.w / 4),
			HeightInMillimeters: uint32(d.Height / 4), NOutput: uint16(len(m.outs)), Outputs: m.outs}
		if err := randr.SetMonitorChecked(c, d.root, info).Check(); err != nil {
			return fmt.Errorf("set monitor %s: %w", m.name, err)
		}
	}
	return nil
}

// pixmap uploads img as a root-depth pixmap (32 bpp, B G R X).
func (d *Display) pixmap(img image.Image) (xproto.Pixmap, error) {
	c := d.conn
	b := img.Bounds()
	pix, err := xproto.NewPixmapId(c)
	if err != nil {
		return 0, err
	}
	if err := xproto.CreatePixmapChecked(c, d.screen.RootDepth, pix, xproto.Drawable(d.root),
		uint16(b.Dx()), uint16(b.Dy())).Check(); err != nil {
		return 0, fmt.Errorf("create pixmap: %w", err)
	}
	gc, err := xproto.NewGcontextId(c)
	if err != nil {
		return 0, err
	}
	if err := xproto.CreateGCChecked(c, gc, xproto.Drawable(pix), 0, nil).Check(); err != nil {
		return 0, fmt.Errorf("create gc: %w", err)
	}
	defer xproto.FreeGC(c, gc)
	// PutImage requests must fit the maximum request length: send rows in
	// chunks of at most 256 KB.
	w := b.Dx()
	rows := max(1, (256<<10)/(4*w))
	for y0 := 0; y0 < b.Dy(); y0 += rows {
		n := min(rows, b.Dy()-y0)
		data := make([]byte, 4*w*n)
		for y := range n {
			for x := range w {
				r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y0+y).RGBA()
				i := 4 * (y*w + x)
				data[i], data[i+1], data[i+2] = byte(bl>>8), byte(g>>8), byte(r>>8)
			}
		}
		if err := xproto.PutImageChecked(c, xproto.ImageFormatZPixmap, xproto.Drawable(pix), gc,
			uint16(w), uint16(n), 0, int16(y0), 0, d.screen.RootDepth, data).Check(); err != nil {
			return 0, fmt.Errorf("put image: %w", err)
		}
	}
	return pix, nil
}

func pixel(c color.RGBA) uint32 { return uint32(c.R)<<16 | uint32(c.G)<<8 | uint32(c.B) }

// SetImage replaces the window's content with img and has the server
// repaint it.
func (w *Window) SetImage(img image.Image) error {
	d := w.d
	pix, err := d.pixmap(img)
	if err != nil {
		return err
	}
	defer xproto.FreePixmap(d.conn, pix)
	return w.setBackground(xproto.CwBackPixmap, uint32(pix))
}

// SetColor fills the window with c.
func (w *Window) SetColor(c color.RGBA) error {
	return w.setBackground(xproto.CwBackPixel, pixel(c))
}

func (w *Window) setBackground(mask, val uint32) error {
	d := w.d
	id := xproto.Window(w.ID)
	if err := xproto.ChangeWindowAttributesChecked(d.conn, id, mask, []uint32{val}).Check(); err != nil {
		return fmt.Errorf("set background: %w", err)
	}
	// Width and height 0 mean the whole window.
	if err := xproto.ClearAreaChecked(d.conn, false, id, 0, 0, 0, 0).Check(); err != nil {
		return fmt.Errorf("repaint: %w", err)
	}
	// A round trip: the repaint is done when the server answers.
	_, err := xproto.GetInputFocus(d.conn).Reply()
	return err
}
