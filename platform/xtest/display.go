//go:build linux

package xtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/spirit-app/spirit/platform/xsocket"
)

// Display is a private X server (Xvfb), normally with openbox as window
// manager.
type Display struct {
	// Name is the X display name, e.g. ":10".
	Name string
	// Width and Height are the screen size in pixels.
	Width, Height int

	t      testing.TB
	conn   *xgb.Conn
	screen *xproto.ScreenInfo
	root   xproto.Window
	xvfb   *Proc
	wm     *Proc // nil when started with NoWM

	mu    sync.Mutex
	atoms map[string]xproto.Atom
}

// WindowInfo describes a top-level window.
type WindowInfo struct {
	ID    uint32
	Name  string // _NET_WM_NAME, or WM_NAME when unset
	Class string // class part of WM_CLASS
	// Rect is the client area in root coordinates.
	Rect image.Rectangle
	// Frame is Rect plus the window manager's decorations
	// (_NET_FRAME_EXTENTS); equal to Rect when undecorated or unmanaged.
	Frame image.Rectangle
	// States holds the _NET_WM_STATE atom names, e.g. "_NET_WM_STATE_ABOVE".
	States []string
	// Managed reports whether the window manager lists the window in
	// _NET_CLIENT_LIST. A hidden (withdrawn) window is not managed.
	Managed bool
	// Mapped reports whether the window is mapped; Viewable additionally
	// requires all its ancestors to be mapped.
	Mapped, Viewable bool
}

// HasState reports whether w has the given _NET_WM_STATE atom, e.g.
// "_NET_WM_STATE_ABOVE".
func (w WindowInfo) HasState(state string) bool {
	for _, s := range w.States {
		if s == state {
			return true
		}
	}
	return false
}

// Option changes how StartDisplay sets up a display.
type Option func(*displayConfig)

type displayConfig struct {
	noWM bool
}

// NoWM starts the X server without a window manager: windows are never
// managed or decorated, and nothing sets _NET_WORKAREA, _NET_CLIENT_LIST or
// _NET_ACTIVE_WINDOW. NewWindow then waits only until its window is
// viewable; WorkArea, AddStrut and Activate do not work.
func NoWM() Option { return func(c *displayConfig) { c.noWM = true } }

// StartDisplay starts Xvfb on the first free display from :10 on, with a
// width×height×24 screen and a black root window, connects to it, starts
// openbox (unless NoWM) and waits until openbox manages the screen. Both
// are stopped at test cleanup.
//
// It skips the test if Xvfb, xdotool or openbox is missing, unless
// SPIRIT_REQUIRE_DESKTOP=1.
func StartDisplay(t testing.TB, width, height int, opts ...Option) *Display {
	t.Helper()
	var cfg displayConfig
	for _, o := range opts {
		o(&cfg)
	}
	tools := []string{"Xvfb", "xdotool"}
	if !cfg.noWM {
		tools = append(tools, "openbox")
	}
	Require(t, tools...)
	d, err := startDisplay(t, width, height, cfg)
	if err != nil {
		t.Fatalf("xtest: start display: %v", err)
	}
	return d
}

func startDisplay(t testing.TB, width, height int, cfg displayConfig) (*Display, error) {
	ctx, cancel := startContext(t)
	defer cancel()

	name, xvfb, conn, err := startConnected(ctx, t, width, height)
	if err != nil {
		return nil, err
	}
	// Nothing selects events, but X errors of unchecked requests land in
	// the event queue; drain it so xgb's reader can never block on it.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			ev, xerr := conn.WaitForEvent()
			if ev == nil && xerr == nil {
				return // connection closed
			}
		}
	}()
	// xgb closes asynchronously; finish before Xvfb is stopped, or xgb
	// logs the server's disappearance as an unrecoverable read error.
	// Registered before openbox's cleanup, so it runs after openbox is
	// gone (cleanups run last-in first-out).
	t.Cleanup(func() {
		conn.Close()
		<-drained
	})
	screen := xproto.Setup(conn).DefaultScreen(conn)
	d := &Display{
		Name:   name,
		Width:  int(screen.WidthInPixels),
		Height: int(screen.HeightInPixels),
		t:      t,
		conn:   conn,
		screen: screen,
		root:   screen.Root,
		xvfb:   xvfb,
		atoms:  make(map[string]xproto.Atom),
	}
	if cfg.noWM {
		return d, nil
	}

	// Empty XDG homes keep a developer's own openbox config (margins,
	// placement) out; the system default in /etc/xdg still applies.
	xdg := t.TempDir()
	wm := exec.Command("openbox", "--sm-disable")
	wm.Env = childEnv(os.Environ(), append(d.Env(), "HOME="+xdg,
		"XDG_CONFIG_HOME="+xdg, "XDG_CACHE_HOME="+xdg, "XDG_DATA_HOME="+xdg))
	if d.wm, err = startProc(t, "openbox", wm); err != nil {
		return nil, err
	}
	if err := d.waitWM(ctx); err != nil {
		return nil, fmt.Errorf("openbox on %s: %w", name, err)
	}
	return d, nil
}

// Display numbers tried by StartDisplay: above those of real desktops and
// below xvfb-run's default of 99.
const (
	firstDisplay = 10
	lastDisplay  = 98
)

// startConnected starts Xvfb and connects to it. An Xvfb that said it
// was ready and then was gone before the connection (seen once in CI, with
// several test binaries starting displays at once: it exited 0 and its
// socket was gone) is given up for another display number, twice at most;
// its number stays locked until the test ends, so the next try takes
// another one.
func startConnected(ctx context.Context, t testing.TB, width, height int) (string, *Proc, *xgb.Conn, error) {
	for attempt := 1; ; attempt++ {
		name, xvfb, err := startXvfb(ctx, t, width, height)
		if err != nil {
			return "", nil, nil, err
		}
		conn, err := xgb.NewConnDisplay(name)
		if err == nil {
			return name, xvfb, conn, nil
		}
		select {
		case <-xvfb.Done():
			if attempt < 3 {
				t.Logf("xtest: Xvfb %s exited before the first connection (%s); trying another display", name, xvfb.status())
				continue
			}
		default:
		}
		return "", nil, nil, fmt.Errorf("connect to X server %s: %w", name, err)
	}
}

// errDisplayTaken means another X server already listens on a display.
var errDisplayTaken = errors.New("display taken")

// startXvfb claims the first free display number and starts Xvfb on it.
// A number is free if it has neither a socket in /tmp/.X11-unix nor a lock
// file, or if the process that holds its lock is gone; the lock file is
// created with O_EXCL, as X servers do, so parallel tests and other tools
// cannot pick the same one.
func startXvfb(ctx context.Context, t testing.TB, width, height int) (string, *Proc, error) {
	if err := xsocket.EnsureDir(); err != nil {
		return "", nil, err
	}
	for n := firstDisplay; n <= lastDisplay; n++ {
		if _, err := os.Lstat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil && !removeStale(n) {
			continue
		}
		release, err := lockDisplay(t, n)
		if errors.Is(err, fs.ErrExist) && removeStale(n) {
			release, err = lockDisplay(t, n)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		p, err := runXvfb(ctx, t, n, width, height)
		if errors.Is(err, errDisplayTaken) {
			release()
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return fmt.Sprintf(":%d", n), p, nil
	}
	return "", nil, fmt.Errorf("no free X display between :%d and :%d", firstDisplay, lastDisplay)
}

// lockDisplay creates /tmp/.X<n>-lock holding our pid, in the format X
// servers use. Xvfb started with -displayfd does not lock by itself. The
// lock is removed by the returned function or at test cleanup, after Xvfb
// has stopped.
func lockDisplay(t testing.TB, n int) (release func(), err error) {
	path := fmt.Sprintf("/tmp/.X%d-lock", n)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return nil, err
	}
	_, err = fmt.Fprintf(f, "%10d\n", os.Getpid())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var once sync.Once
	release = func() { once.Do(func() { os.Remove(path) }) }
	if err != nil {
		release()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	t.Cleanup(release)
	return release, nil
}

// removeStale removes the lock file and socket of display n if the process
// that holds the lock is gone, as X servers do: a test binary killed hard
// leaves them behind, and the numbers would run out over time. It reports
// whether it removed the lock.
func removeStale(n int) bool {
	lock := fmt.Sprintf("/tmp/.X%d-lock", n)
	b, err := os.ReadFile(lock)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
		return false // alive
	}
	os.Remove(fmt.Sprintf("/tmp/.X11-unix/X%d", n))
	return os.Remove(lock) == nil
}

// runXvfb starts Xvfb on display n and returns once it accepts
// connections: only then does Xvfb write the number to -displayfd.
func runXvfb(ctx context.Context, t testing.TB, n, width, height int) (*Proc, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", fmt.Sprintf(":%d", n),
		"-displayfd", "3",
		"-screen", "0", fmt.Sprintf("%dx%dx24", width, height),
		"-nolisten", "tcp",
		"-br", // black root window instead of the stipple
	)
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = childEnv(os.Environ(), nil)
	p, err := startProc(t, fmt.Sprintf("Xvfb :%d", n), cmd)
	w.Close() // keep only the child's copy, so its exit ends our read
	if err != nil {
		return nil, err
	}
	line, err := readLineFD(ctx, r)
	if err != nil {
		select {
		case <-p.Done():
			if strings.Contains(p.Output(), "already") {
				return nil, fmt.Errorf(":%d: %w", n, errDisplayTaken)
			}
		default:
		}
		return nil, fmt.Errorf("waiting for Xvfb :%d to be ready: %w\n%s", n, err, p.Output())
	}
	if line != strconv.Itoa(n) {
		return nil, fmt.Errorf("Xvfb reported display %q, want %d", line, n)
	}
	return p, nil
}

// waitWM waits until an EWMH window manager runs: _NET_SUPPORTING_WM_CHECK
// names a window that carries the same property, and _NET_WORKAREA is set.
func (d *Display) waitWM(ctx context.Context) error {
	err := Poll(ctx, func() (bool, error) {
		select {
		case <-d.wm.Done():
			return false, fmt.Errorf("openbox exited: %s\n%s", d.wm.status(), d.wm.Output())
		default:
		}
		check, err := d.Prop32(d.root, "_NET_SUPPORTING_WM_CHECK")
		if err != nil || len(check) == 0 {
			return false, err
		}
		self, err := d.Prop32(xproto.Window(check[0]), "_NET_SUPPORTING_WM_CHECK")
		if err != nil || len(self) == 0 || self[0] != check[0] {
			return false, ignoreBadWindow(err)
		}
		wa, err := d.Prop32(d.root, "_NET_WORKAREA")
		return len(wa) >= 4, err
	})
	if err != nil {
		return fmt.Errorf("waiting for the window manager: %w", err)
	}
	if err := d.waitWMLoop(ctx); err != nil {
		return fmt.Errorf("waiting for the window manager's event loop: %w", err)
	}
	return nil
}

// waitWMLoop waits until openbox answers requests. It sets the properties
// above before it enters its event loop, and under load a window mapped in
// that gap was seen to stay unmanaged (and unmapped) for good. Openbox
// answers _NET_REQUEST_FRAME_EXTENTS for an unmanaged window by setting
// _NET_FRAME_EXTENTS on it, which only happens in the loop. The request is
// repeated each time: every new event also wakes a loop that has events
// stuck in its queue.
func (d *Display) waitWMLoop(ctx context.Context) error {
	probe, err := xproto.NewWindowId(d.conn)
	if err != nil {
		return err
	}
	err = xproto.CreateWindowChecked(d.conn, 0, probe, d.root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOnly, 0, 0, nil).Check()
	if err != nil {
		return fmt.Errorf("create probe window: %w", err)
	}
	defer func() { _ = xproto.DestroyWindowChecked(d.conn, probe).Check() }()
	request, err := d.Atom("_NET_REQUEST_FRAME_EXTENTS")
	if err != nil {
		return err
	}
	ev := xproto.ClientMessageEvent{
		Format: 32,
		Window: probe,
		Type:   request,
		Data:   xproto.ClientMessageDataUnionData32New(make([]uint32, 5)),
	}
	return Poll(ctx, func() (bool, error) {
		ext, err := d.Prop32(probe, "_NET_FRAME_EXTENTS")
		if err != nil || len(ext) == 4 {
			return err == nil, err
		}
		err = xproto.SendEventChecked(d.conn, false, d.root,
			xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect,
			string(ev.Bytes())).Check()
		return false, err
	})
}

// Env returns the environment entries that point a child at this display.
func (d *Display) Env() []string {
	return []string{"DISPLAY=" + d.Name}
}

// ActiveWindow returns _NET_ACTIVE_WINDOW, or 0 if none is active.
func (d *Display) ActiveWindow() (uint32, error) {
	v, err := d.Prop32(d.root, "_NET_ACTIVE_WINDOW")
	if err != nil || len(v) == 0 {
		return 0, err
	}
	return v[0], nil
}

// Xdotool runs xdotool with args against this display.
func (d *Display) Xdotool(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = childEnv(os.Environ(), d.Env())
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("xdotool %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// Activate switches to window id as a user would, with xdotool
// windowactivate, and waits until the window manager reports it active.
func (d *Display) Activate(ctx context.Context, id uint32) error {
	// --sync alone waits for the window to become visible and active,
	// but gives up without error after a while; check explicitly.
	if err := d.Xdotool(ctx, "windowactivate", "--sync", strconv.Itoa(int(id))); err != nil {
		return err
	}
	return Poll(ctx, func() (bool, error) {
		a, err := d.ActiveWindow()
		return a == id, err
	})
}

// Screenshot captures the whole screen.
func (d *Display) Screenshot() (image.Image, error) {
	return d.capture(image.Rect(0, 0, d.Width, d.Height))
}

func (d *Display) capture(r image.Rectangle) (*image.RGBA, error) {
	setup := xproto.Setup(d.conn)
	bpp := 0
	for _, f := range setup.PixmapFormats {
		if f.Depth == d.screen.RootDepth {
			bpp = int(f.BitsPerPixel)
		}
	}
	if bpp != 32 || setup.ImageByteOrder != xproto.ImageOrderLSBFirst {
		return nil, fmt.Errorf("screenshot: unsupported pixmap format: %d bpp, byte order %d", bpp, setup.ImageByteOrder)
	}
	reply, err := xproto.GetImage(d.conn, xproto.ImageFormatZPixmap, xproto.Drawable(d.root),
		int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()), ^uint32(0)).Reply()
	if err != nil {
		return nil, fmt.Errorf("screenshot: GetImage: %w", err)
	}
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	if len(reply.Data) < len(img.Pix) {
		return nil, fmt.Errorf("screenshot: got %d bytes, want %d", len(reply.Data), len(img.Pix))
	}
	// 32 bpp LSB-first ZPixmap is B, G, R, unused per pixel, rows unpadded.
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i+0] = reply.Data[i+2]
		img.Pix[i+1] = reply.Data[i+1]
		img.Pix[i+2] = reply.Data[i+0]
		img.Pix[i+3] = 0xff
	}
	return img, nil
}

// WritePNG saves img as a PNG file, e.g. a screenshot for a failing test's
// artifacts.
func WritePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return f.Close()
}

// WorkArea returns the current desktop's work area (_NET_WORKAREA): the
// screen minus the space reserved by panels and docks.
func (d *Display) WorkArea() (image.Rectangle, error) {
	wa, err := d.Prop32(d.root, "_NET_WORKAREA")
	if err != nil {
		return image.Rectangle{}, err
	}
	desk := 0
	if cur, err := d.Prop32(d.root, "_NET_CURRENT_DESKTOP"); err == nil && len(cur) == 1 {
		desk = int(cur[0])
	}
	if len(wa) < 4*(desk+1) {
		return image.Rectangle{}, fmt.Errorf("_NET_WORKAREA has %d values, none for desktop %d", len(wa), desk)
	}
	v := wa[4*desk:]
	x, y := int(int32(v[0])), int(int32(v[1]))
	return image.Rect(x, y, x+int(v[2]), y+int(v[3])), nil
}

// FindWindows returns the top-level windows titled name, or all named
// top-level windows if name is "". It looks at the windows openbox manages
// (_NET_CLIENT_LIST) and at unmanaged children of the root window, so a
// hidden window is still found, with Managed and Mapped false.
func (d *Display) FindWindows(name string) ([]WindowInfo, error) {
	clients, err := d.Prop32(d.root, "_NET_CLIENT_LIST")
	if err != nil {
		return nil, err
	}
	tree, err := xproto.QueryTree(d.conn, d.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("QueryTree: %w", err)
	}
	seen := make(map[uint32]bool)
	var out []WindowInfo
	add := func(w uint32, managed bool) error {
		if seen[w] {
			return nil
		}
		seen[w] = true
		info, err := d.windowInfo(xproto.Window(w))
		if err != nil {
			return ignoreBadWindow(err) // it went away while we looked
		}
		if info.Name == "" || (name != "" && info.Name != name) {
			return nil
		}
		info.Managed = managed
		out = append(out, info)
		return nil
	}
	for _, w := range clients {
		if err := add(w, true); err != nil {
			return nil, err
		}
	}
	for _, w := range tree.Children {
		if err := add(uint32(w), false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WaitWindow polls until a window titled name satisfies match (nil matches
// any) and returns it.
func (d *Display) WaitWindow(ctx context.Context, name string, match func(WindowInfo) bool) (WindowInfo, error) {
	var found WindowInfo
	var last []WindowInfo
	err := Poll(ctx, func() (bool, error) {
		wins, err := d.FindWindows(name)
		if err != nil {
			return false, err
		}
		last = wins
		for _, w := range wins {
			if match == nil || match(w) {
				found = w
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return WindowInfo{}, fmt.Errorf("waiting for window %q (last seen %+v): %w", name, last, err)
	}
	return found, nil
}

func (d *Display) windowInfo(w xproto.Window) (WindowInfo, error) {
	info := WindowInfo{ID: uint32(w)}
	var err error
	if info.Name, err = d.windowName(w); err != nil || info.Name == "" {
		return info, err
	}
	if class, err := d.stringProp(w, xproto.AtomWmClass); err == nil {
		// WM_CLASS is "instance\x00class\x00".
		parts := strings.Split(class, "\x00")
		if len(parts) > 1 {
			info.Class = parts[1]
		}
	}
	attrs, err := xproto.GetWindowAttributes(d.conn, w).Reply()
	if err != nil {
		return info, err
	}
	info.Mapped = attrs.MapState != xproto.MapStateUnmapped
	info.Viewable = attrs.MapState == xproto.MapStateViewable
	if info.Rect, info.Frame, err = d.geometry(w); err != nil {
		return info, err
	}
	states, err := d.Prop32(w, "_NET_WM_STATE")
	if err != nil {
		return info, err
	}
	for _, a := range states {
		name, err := xproto.GetAtomName(d.conn, xproto.Atom(a)).Reply()
		if err != nil {
			return info, fmt.Errorf("GetAtomName(%d): %w", a, err)
		}
		info.States = append(info.States, name.Name)
	}
	return info, nil
}

// geometry returns w's client area and its frame (the client area plus the
// window manager's decorations, _NET_FRAME_EXTENTS) in root coordinates.
func (d *Display) geometry(w xproto.Window) (client, frame image.Rectangle, err error) {
	geom, err := xproto.GetGeometry(d.conn, xproto.Drawable(w)).Reply()
	if err != nil {
		return client, frame, err
	}
	pos, err := xproto.TranslateCoordinates(d.conn, w, d.root, 0, 0).Reply()
	if err != nil {
		return client, frame, err
	}
	x, y := int(pos.DstX), int(pos.DstY)
	client = image.Rect(x, y, x+int(geom.Width), y+int(geom.Height))
	frame = client
	if ext, err := d.Prop32(w, "_NET_FRAME_EXTENTS"); err == nil && len(ext) == 4 {
		// left, right, top, bottom
		frame.Min.X -= int(ext[0])
		frame.Max.X += int(ext[1])
		frame.Min.Y -= int(ext[2])
		frame.Max.Y += int(ext[3])
	}
	return client, frame, nil
}

// windowName returns _NET_WM_NAME, falling back to WM_NAME.
func (d *Display) windowName(w xproto.Window) (string, error) {
	netName, err := d.Atom("_NET_WM_NAME")
	if err != nil {
		return "", err
	}
	if s, err := d.stringProp(w, netName); err != nil || s != "" {
		return s, err
	}
	return d.stringProp(w, xproto.AtomWmName)
}

// AddStrut maps a dock window along the right edge of the screen that
// reserves right pixels (_NET_WM_STRUT_PARTIAL), like a panel, and waits
// until openbox has shrunk _NET_WORKAREA accordingly. The returned function
// removes it again and waits for the work area to be restored; it also runs
// at test cleanup, and calling it more than once is harmless.
func (d *Display) AddStrut(right int) (func(), error) {
	if right <= 0 || right >= d.Width {
		return nil, fmt.Errorf("strut width %d outside the %d px screen", right, d.Width)
	}
	ctx, cancel := startContext(d.t)
	defer cancel()
	before, err := d.WorkArea()
	if err != nil {
		return nil, err
	}
	wid, err := xproto.NewWindowId(d.conn)
	if err != nil {
		return nil, err
	}
	err = xproto.CreateWindowChecked(d.conn, d.screen.RootDepth, wid, d.root,
		int16(d.Width-right), 0, uint16(right), uint16(d.Height), 0,
		xproto.WindowClassInputOutput, d.screen.RootVisual,
		xproto.CwBackPixel, []uint32{0x404040}).Check()
	if err != nil {
		return nil, fmt.Errorf("create strut window: %w", err)
	}
	var once sync.Once
	remove := func() {
		once.Do(func() {
			ctx, cancel := cleanupContext()
			defer cancel()
			if err := xproto.DestroyWindowChecked(d.conn, wid).Check(); err != nil {
				d.t.Errorf("xtest: destroy strut window: %v", err)
				return
			}
			err := Poll(ctx, func() (bool, error) {
				wa, err := d.WorkArea()
				return wa == before, err
			})
			if err != nil {
				d.t.Errorf("xtest: work area not restored to %v after removing strut: %v", before, err)
			}
		})
	}
	d.t.Cleanup(remove)

	dock, err := d.Atom("_NET_WM_WINDOW_TYPE_DOCK")
	if err != nil {
		remove()
		return nil, err
	}
	x, w, h := uint32(d.Width-right), uint32(right), uint32(d.Height)
	props := []struct {
		name, typ string
		vals      []uint32
	}{
		{"_NET_WM_WINDOW_TYPE", "ATOM", []uint32{uint32(dock)}},
		{"_NET_WM_STRUT", "CARDINAL", []uint32{0, w, 0, 0}},
		// left, right, top, bottom, then start/end along each edge.
		{"_NET_WM_STRUT_PARTIAL", "CARDINAL", []uint32{0, w, 0, 0, 0, 0, 0, h - 1, 0, 0, 0, 0}},
		// Without a user-specified position openbox places the panel
		// where it likes; the strut would still count, but look wrong.
		{"WM_NORMAL_HINTS", "WM_SIZE_HINTS", []uint32{
			sizeHintUSPosition | sizeHintUSSize | sizeHintPMinSize | sizeHintPMaxSize,
			x, 0, w, h, // obsolete position and size, still read by some WMs
			w, h, w, h, // min, max
			0, 0, 0, 0, 0, 0, 0, 0, 0,
		}},
	}
	for _, p := range props {
		if err := d.setCardinals(wid, p.name, p.typ, p.vals); err != nil {
			remove()
			return nil, fmt.Errorf("set %s: %w", p.name, err)
		}
	}
	title := strutTitle
	if err := xproto.ChangePropertyChecked(d.conn, xproto.PropModeReplace, wid, xproto.AtomWmName,
		xproto.AtomString, 8, uint32(len(title)), []byte(title)).Check(); err != nil {
		remove()
		return nil, fmt.Errorf("set WM_NAME: %w", err)
	}
	if err := xproto.MapWindowChecked(d.conn, wid).Check(); err != nil {
		remove()
		return nil, fmt.Errorf("map strut window: %w", err)
	}
	var got image.Rectangle
	err = Poll(ctx, func() (bool, error) {
		got, err = d.WorkArea()
		return got.Max.X <= d.Width-right, err
	})
	if err != nil {
		wins, _ := d.FindWindows(strutTitle)
		remove()
		return nil, fmt.Errorf("work area did not shrink for a %d px strut (still %v; strut window %+v): %w", right, got, wins, err)
	}
	return remove, nil
}

// strutTitle is the title of the dock window AddStrut maps.
const strutTitle = "xtest-strut"

// WM_SIZE_HINTS flags (ICCCM 4.1.2.3).
const (
	sizeHintUSPosition = 1 << 0
	sizeHintUSSize     = 1 << 1
	sizeHintPMinSize   = 1 << 4
	sizeHintPMaxSize   = 1 << 5
)

// Atom interns name, caching the result.
func (d *Display) Atom(name string) (xproto.Atom, error) {
	d.mu.Lock()
	a, ok := d.atoms[name]
	d.mu.Unlock()
	if ok {
		return a, nil
	}
	reply, err := xproto.InternAtom(d.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, fmt.Errorf("InternAtom(%s): %w", name, err)
	}
	d.mu.Lock()
	d.atoms[name] = reply.Atom
	d.mu.Unlock()
	return reply.Atom, nil
}

// Prop32 reads a property of 32-bit values (CARDINAL, WINDOW, ATOM); a
// missing property yields no values.
func (d *Display) Prop32(w xproto.Window, name string) ([]uint32, error) {
	a, err := d.Atom(name)
	if err != nil {
		return nil, err
	}
	reply, err := xproto.GetProperty(d.conn, false, w, a, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
	if err != nil {
		return nil, fmt.Errorf("GetProperty(%s): %w", name, err)
	}
	if reply.Format != 32 {
		return nil, nil
	}
	vals := make([]uint32, reply.ValueLen)
	for i := range vals {
		vals[i] = binary.LittleEndian.Uint32(reply.Value[4*i:])
	}
	return vals, nil
}

// stringProp reads an 8-bit property (STRING or UTF8_STRING) as text.
func (d *Display) stringProp(w xproto.Window, a xproto.Atom) (string, error) {
	reply, err := xproto.GetProperty(d.conn, false, w, a, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
	if err != nil {
		return "", err
	}
	if reply.Format != 8 {
		return "", nil
	}
	return string(reply.Value[:reply.ValueLen]), nil
}

func (d *Display) setCardinals(w xproto.Window, name, typ string, vals []uint32) error {
	prop, err := d.Atom(name)
	if err != nil {
		return err
	}
	t, err := d.Atom(typ)
	if err != nil {
		return err
	}
	buf := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(buf[4*i:], v)
	}
	return xproto.ChangePropertyChecked(d.conn, xproto.PropModeReplace, w, prop, t, 32,
		uint32(len(vals)), buf).Check()
}

// ignoreBadWindow drops the errors X reports for a window that was
// destroyed between listing and inspecting it.
func ignoreBadWindow(err error) error {
	var bw xproto.WindowError
	var bd xproto.DrawableError
	if errors.As(err, &bw) || errors.As(err, &bd) {
		return nil
	}
	return err
}
