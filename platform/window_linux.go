package platform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Display is the window system as Spirit's sight needs it: which window is
// in front, when that changes, which monitors exist and what they show.
//
// On Linux it speaks X11 through xgb, so every X error is a value: a window
// that closes at any instant yields an error, where Xlib's default handler
// (robotgo's path) would exit the process on BadWindow. Its methods are
// safe for concurrent use.
type Display struct {
	name     string   // display name, for WatchForeground's own connection
	x        *Desktop // request connection and atom cache
	hostname string   // tells local PIDs from those of remote X clients
	pix      pixelFormat
	randr    bool // RandR ≥ 1.5 (GetMonitors) is usable
	xinerama bool
}

// OpenDisplay connects to the X server called name; "" means $DISPLAY.
func OpenDisplay(name string) (*Display, error) {
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	if name == "" {
		if os.Getenv("WAYLAND_DISPLAY") != "" {
			return nil, fmt.Errorf("wayland session without XWayland DISPLAY: %w", ErrUnsupported)
		}
		return nil, errors.New("no display: DISPLAY is not set")
	}
	conn, err := xgb.NewConnDisplay(name)
	if err != nil {
		return nil, fmt.Errorf("connect to X display %s: %w", name, err)
	}
	setup := xproto.Setup(conn)
	screen := setup.DefaultScreen(conn)
	host, _ := os.Hostname()
	d := &Display{
		name:     name,
		x:        &Desktop{conn: conn, root: screen.Root, atoms: map[string]xproto.Atom{}},
		hostname: host,
		pix:      pixelFormatOf(setup, screen),
	}
	d.randr, d.xinerama = d.initExtensions()
	return d, nil
}

// Close ends the connection. Watches started by WatchForeground have their
// own connection and end with their context.
func (d *Display) Close() error {
	d.x.conn.Close()
	return nil
}

// titleLongs bounds a title read, in 32-bit units (8 KiB): longer window
// titles exist only by accident and would be truncated by any UI anyway.
const titleLongs = 2048

// snapshotAttempts bounds how often Foreground looks again when the
// foreground window closes or changes while it reads it.
const snapshotAttempts = 5

// Foreground returns the focused top-level window (EWMH _NET_ACTIVE_WINDOW),
// or a zero Window when nothing has the focus.
//
// Title, PID, class and frame are read in one pipelined batch, then the
// active window is read again: if it changed meanwhile the batch may mix two
// windows, so it starts over. A window closing midway is retried the same
// way; after a few attempts ErrWindowChanged is returned.
func (d *Display) Foreground(ctx context.Context) (Window, error) {
	for range snapshotAttempts {
		if err := ctx.Err(); err != nil {
			return Window{}, err
		}
		id, err := d.x.ActiveWindow()
		if err != nil {
			return Window{}, fmt.Errorf("foreground window: %w", err)
		}
		if id == 0 || xproto.Window(id) == d.x.root {
			return Window{}, nil
		}
		w, err := d.describe(xproto.Window(id))
		if windowGone(err) {
			continue
		}
		if err != nil {
			return Window{}, fmt.Errorf("foreground window %#x: %w", id, err)
		}
		again, err := d.x.ActiveWindow()
		if err != nil {
			return Window{}, fmt.Errorf("foreground window: %w", err)
		}
		if again == id {
			return w, nil
		}
	}
	return Window{}, fmt.Errorf("foreground window: %w", ErrWindowChanged)
}

// VisibleWindows returns the managed top-level windows that are mapped and
// not minimised, bottom to top (_NET_CLIENT_LIST_STACKING). Windows that
// close while being listed are left out.
func (d *Display) VisibleWindows(ctx context.Context) ([]Window, error) {
	ids, err := d.x.cardinals(d.x.root, "_NET_CLIENT_LIST_STACKING")
	if err == nil && len(ids) == 0 {
		ids, err = d.x.cardinals(d.x.root, "_NET_CLIENT_LIST")
	}
	if err != nil {
		return nil, fmt.Errorf("list windows: %w", err)
	}
	stateAtom, err := d.x.atom("_NET_WM_STATE")
	if err != nil {
		return nil, err
	}
	hidden, err := d.x.atom("_NET_WM_STATE_HIDDEN")
	if err != nil {
		return nil, err
	}
	c := d.x.conn
	out := make([]Window, 0, len(ids))
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		win := xproto.Window(id)
		attrCookie := xproto.GetWindowAttributes(c, win)
		stateCookie := xproto.GetProperty(c, false, win, stateAtom, xproto.AtomAtom, 0, 64)
		attrs, err := attrCookie.Reply()
		if windowGone(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("window %#x attributes: %w", id, err)
		}
		state, err := stateCookie.Reply()
		if windowGone(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("window %#x state: %w", id, err)
		}
		if attrs.MapState != xproto.MapStateViewable || hasAtom(state, hidden) {
			continue
		}
		w, err := d.describe(win)
		if windowGone(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("window %#x: %w", id, err)
		}
		out = append(out, w)
	}
	return out, nil
}

// WatchForeground calls changed whenever the focused window may have
// changed: another window got the focus (PropertyNotify of
// _NET_ACTIVE_WINDOW on the root) or the focused window's title changed
// (_NET_WM_NAME or WM_NAME on that window). It calls changed once at the
// start, coalesces nothing and reads nothing else: callers debounce and
// then call Foreground.
//
// It blocks until ctx ends (returning nil) or the X connection fails. It
// uses its own connection, which it closes and drains before returning, so
// no goroutine outlives the call. Being event-driven, it costs no CPU while
// nothing happens.
func (d *Display) WatchForeground(ctx context.Context, changed func()) error {
	conn, err := xgb.NewConnDisplay(d.name)
	if err != nil {
		return fmt.Errorf("connect to X display %s: %w", d.name, err)
	}
	drained := false
	drain := func() {
		if drained {
			return
		}
		drained = true
		conn.Close()
		for {
			// xgb closes asynchronously; the event channel is closed
			// once its reader goroutine has exited.
			if ev, xerr := conn.WaitForEvent(); ev == nil && xerr == nil {
				return
			}
		}
	}
	stop := context.AfterFunc(ctx, conn.Close) // unblocks WaitForEvent
	defer func() {
		stop()
		drain()
	}()

	root := xproto.Setup(conn).DefaultScreen(conn).Root
	var atoms [2]xproto.Atom
	for i, name := range []string{"_NET_ACTIVE_WINDOW", "_NET_WM_NAME"} {
		if atoms[i], err = d.x.atom(name); err != nil {
			return err
		}
	}
	active, netName := atoms[0], atoms[1]
	if err := xproto.ChangeWindowAttributesChecked(conn, root, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange}).Check(); err != nil {
		return fmt.Errorf("watch root window: %w", err)
	}

	// followed is the window whose title changes are selected. Selecting
	// on another client's window only sets this connection's own mask, so
	// it never disturbs the application.
	var followed xproto.Window
	follow := func() error {
		r, err := xproto.GetProperty(conn, false, root, active, xproto.AtomWindow, 0, 1).Reply()
		if err != nil {
			return fmt.Errorf("read _NET_ACTIVE_WINDOW: %w", err)
		}
		var next xproto.Window
		if r.Format == 32 && len(r.Value) >= 4 {
			next = xproto.Window(xgb.Get32(r.Value))
		}
		if next == followed {
			return nil
		}
		if followed != 0 {
			// It may be gone already; then there is nothing to undo.
			_ = xproto.ChangeWindowAttributesChecked(conn, followed, xproto.CwEventMask, []uint32{0}).Check()
		}
		followed = 0
		if next != 0 && next != root {
			err := xproto.ChangeWindowAttributesChecked(conn, next, xproto.CwEventMask,
				[]uint32{xproto.EventMaskPropertyChange}).Check()
			if err != nil && !windowGone(err) {
				return fmt.Errorf("watch window %#x: %w", next, err)
			}
			if err == nil {
				followed = next
			}
		}
		return nil
	}
	if err := follow(); err != nil {
		return err
	}
	changed()

	for {
		ev, xerr := conn.WaitForEvent()
		if ev == nil && xerr == nil {
			drained = true // the reader has exited: nothing left to drain
			if ctx.Err() != nil {
				return nil
			}
			return errors.New("X connection closed")
		}
		if xerr != nil {
			// Only unchecked requests report here, and this loop makes
			// none; a stray error must not end the watch.
			continue
		}
		e, ok := ev.(xproto.PropertyNotifyEvent)
		if !ok {
			continue
		}
		switch {
		case e.Window == root && e.Atom == active:
			if err := follow(); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			changed()
		case e.Window == followed && (e.Atom == netName || e.Atom == xproto.AtomWmName):
			changed()
		}
	}
}

// describe reads everything Window holds about win. All requests are sent
// before the first reply is awaited: one round trip instead of eight.
func (d *Display) describe(win xproto.Window) (Window, error) {
	var atoms [3]xproto.Atom
	for i, name := range []string{"_NET_WM_NAME", "_NET_WM_PID", "_NET_FRAME_EXTENTS"} {
		a, err := d.x.atom(name)
		if err != nil {
			return Window{}, err
		}
		atoms[i] = a
	}
	c := d.x.conn
	anyType := xproto.Atom(xproto.GetPropertyTypeAny)
	netName := xproto.GetProperty(c, false, win, atoms[0], anyType, 0, titleLongs)
	wmName := xproto.GetProperty(c, false, win, xproto.AtomWmName, anyType, 0, titleLongs)
	pid := xproto.GetProperty(c, false, win, atoms[1], xproto.AtomCardinal, 0, 1)
	class := xproto.GetProperty(c, false, win, xproto.AtomWmClass, xproto.AtomString, 0, 256)
	machine := xproto.GetProperty(c, false, win, xproto.AtomWmClientMachine, anyType, 0, 64)
	extents := xproto.GetProperty(c, false, win, atoms[2], xproto.AtomCardinal, 0, 4)
	geom := xproto.GetGeometry(c, xproto.Drawable(win))
	pos := xproto.TranslateCoordinates(c, win, d.x.root, 0, 0)

	w := Window{ID: uint64(win)}
	r, err := netName.Reply()
	if err != nil {
		return Window{}, fmt.Errorf("read _NET_WM_NAME: %w", err)
	}
	w.Title = propText(r)
	r, err = wmName.Reply()
	if err != nil {
		return Window{}, fmt.Errorf("read WM_NAME: %w", err)
	}
	if w.Title == "" {
		w.Title = propText(r)
	}
	r, err = pid.Reply()
	if err != nil {
		return Window{}, fmt.Errorf("read _NET_WM_PID: %w", err)
	}
	if r.Format == 32 && len(r.Value) >= 4 {
		w.PID = int(xgb.Get32(r.Value))
	}
	r, err = class.Reply()
	if err != nil {
		return Window{}, fmt.Errorf("read WM_CLASS: %w", err)
	}
	if r.Format == 8 {
		// "instance\x00class\x00"
		parts := strings.Split(string(r.Value), "\x00")
		w.Instance = parts[0]
		if len(parts) > 1 {
			w.Class = parts[1]
		}
	}
	r, err = machine.Reply()
	if err != nil {
		return Window{}, fmt.Errorf("read WM_CLIENT_MACHINE: %w", err)
	}
	if host := propText(r); host != "" && d.hostname != "" && !sameHost(host, d.hostname) {
		// A remote client's PID means nothing here, and could even
		// equal Spirit's own.
		w.PID = 0
	}
	r, err = extents.Reply()
	if err != nil {
		return Window{}, fmt.Errorf("read _NET_FRAME_EXTENTS: %w", err)
	}
	var ext [4]int // left, right, top, bottom
	if r.Format == 32 && len(r.Value) >= 16 {
		for i := range ext {
			ext[i] = int(xgb.Get32(r.Value[4*i:]))
		}
	}
	g, err := geom.Reply()
	if err != nil {
		return Window{}, fmt.Errorf("window geometry: %w", err)
	}
	p, err := pos.Reply()
	if err != nil {
		return Window{}, fmt.Errorf("window position: %w", err)
	}
	x, y := int(p.DstX), int(p.DstY)
	w.Frame.Min.X = x - ext[0]
	w.Frame.Min.Y = y - ext[2]
	w.Frame.Max.X = x + int(g.Width) + ext[1]
	w.Frame.Max.Y = y + int(g.Height) + ext[3]

	if w.PID > 0 {
		w.Process, w.Args = procInfo(w.PID)
	}
	return w, nil
}

// propText decodes a text property: UTF8_STRING as UTF-8, STRING as
// Latin-1 (ICCCM), anything else (COMPOUND_TEXT) as UTF-8 when valid and
// Latin-1 otherwise, which keeps its ASCII part readable.
func propText(r *xproto.GetPropertyReply) string {
	if r == nil || r.Format != 8 || len(r.Value) == 0 {
		return ""
	}
	v := bytes.TrimRight(r.Value, "\x00")
	if r.Type == xproto.AtomString || !utf8.Valid(v) {
		var b strings.Builder
		b.Grow(len(v))
		for _, c := range v {
			b.WriteRune(rune(c))
		}
		return b.String()
	}
	return string(v)
}

func sameHost(a, b string) bool {
	short := func(h string) string {
		h, _, _ = strings.Cut(h, ".")
		return strings.ToLower(h)
	}
	return short(a) == short(b)
}

// procInfo reads a local process's name and command line; it returns what
// it could read, nothing for a process that is gone or not readable.
func procInfo(pid int) (comm string, args []string) {
	dir := "/proc/" + strconv.Itoa(pid)
	if b, err := os.ReadFile(dir + "/comm"); err == nil {
		comm = strings.TrimSpace(string(b))
	}
	if f, err := os.Open(dir + "/cmdline"); err == nil {
		// Bounded: a command line can be megabytes long.
		b, _ := io.ReadAll(io.LimitReader(f, 64<<10))
		f.Close()
		b = bytes.TrimRight(b, "\x00")
		if len(b) > 0 {
			args = strings.Split(string(b), "\x00")
		}
	}
	return comm, args
}

// windowGone reports whether err says a window (or drawable) no longer
// exists: the expected outcome of racing a closing window.
func windowGone(err error) bool {
	if err == nil {
		return false
	}
	var bw xproto.WindowError
	var bd xproto.DrawableError
	return errors.As(err, &bw) || errors.As(err, &bd)
}

func hasAtom(r *xproto.GetPropertyReply, a xproto.Atom) bool {
	if r == nil || r.Format != 32 {
		return false
	}
	for i := 0; i+4 <= len(r.Value); i += 4 {
		if xproto.Atom(xgb.Get32(r.Value[i:])) == a {
			return true
		}
	}
	return false
}

// initExtensions makes RandR and Xinerama requests usable on the request
// connection. It registers their opcodes on this connection only, unlike
// randr.Init and xinerama.Init, which also write xgb's process-wide event
// and error tables: those are read by every xgb connection's reader
// goroutine, so writing them while any connection is open is a data race.
// Nothing here selects extension events, so the tables are not needed.
func (d *Display) initExtensions() (randrOK, xineramaOK bool) {
	c := d.x.conn
	register := func(name string) bool {
		r, err := xproto.QueryExtension(c, uint16(len(name)), name).Reply()
		if err != nil || !r.Present {
			return false
		}
		c.ExtLock.Lock()
		c.Extensions[name] = r.MajorOpcode
		c.ExtLock.Unlock()
		return true
	}
	if register("RANDR") {
		randrOK = randrVersionOK(c)
	}
	xineramaOK = register("XINERAMA")
	return randrOK, xineramaOK
}
