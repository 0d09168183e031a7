//go:build linux

// Package xtest runs a private X11 desktop for screen's tests: Xvfb with
// openbox as window manager, windows created over xgb with chosen titles,
// classes, PIDs and pixels, and xdotool to switch between them. It is a
// small relative of app/internal/desktoptest, which screen cannot import.
//
// Tests skip when Xvfb, openbox or xdotool is missing, unless
// SPIRIT_REQUIRE_DESKTOP=1, in which case they fail. On Debian:
// apt-get install -y xvfb openbox xdotool.
//
// Everything started here is killed and reaped at test cleanup.
package xtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/spirit-app/spirit/platform/xsocket"
)

// RequireEnv turns missing desktop tools from a skip into a failure.
const RequireEnv = "SPIRIT_REQUIRE_DESKTOP"

// startTimeout bounds starting Xvfb or openbox.
const startTimeout = 30 * time.Second

// Display numbers tried: above real desktops', below xvfb-run's 99, and
// apart from desktoptest's range start so parallel packages rarely collide
// (the lock file settles it when they do).
const firstDisplay, lastDisplay = 40, 98

// Display is a private X server with openbox.
type Display struct {
	// Name is the display name, e.g. ":41".
	Name          string
	Width, Height int

	t      testing.TB
	conn   *xgb.Conn
	screen *xproto.ScreenInfo

	mu    sync.Mutex
	atoms map[string]xproto.Atom
}

// Require skips or fails t when a tool is missing.
func Require(t testing.TB, tools ...string) {
	t.Helper()
	var missing []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("xtest: missing %v (Debian: apt-get install -y xvfb openbox xdotool)", missing)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s; %s=1 requires them", msg, RequireEnv)
	}
	t.Skipf("%s; skipping (set %s=1 to fail instead)", msg, RequireEnv)
}

// Start starts Xvfb (width×height×24, black root) and openbox, and waits
// until openbox manages windows.
func Start(t testing.TB, width, height int) *Display {
	t.Helper()
	Require(t, "Xvfb", "openbox", "xdotool")
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	name, err := startXvfb(ctx, t, width, height)
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	conn, err := xgb.NewConnDisplay(name)
	if err != nil {
		t.Fatalf("xtest: connect to %s: %v", name, err)
	}
	// X errors of unchecked requests land in the event queue: drain it.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			if ev, xerr := conn.WaitForEvent(); ev == nil && xerr == nil {
				return
			}
		}
	}()
	// Registered before openbox's cleanup, so it runs after openbox is
	// gone and before Xvfb is stopped (cleanups run last-in first-out).
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
		atoms:  map[string]xproto.Atom{},
	}
	// An empty XDG home keeps a developer's openbox configuration out.
	xdg := t.TempDir()
	wm := exec.Command("openbox", "--sm-disable")
	wm.Env = append(d.Env(), "HOME="+xdg, "XDG_CONFIG_HOME="+xdg, "XDG_CACHE_HOME="+xdg,
		"XDG_DATA_HOME="+xdg, "PATH="+os.Getenv("PATH"), "DBUS_SESSION_BUS_ADDRESS=disabled:")
	wmDone, err := startChild(t, wm)
	if err != nil {
		t.Fatalf("xtest: start openbox: %v", err)
	}
	if err := d.waitWM(ctx, wmDone); err != nil {
		t.Fatalf("xtest: openbox on %s: %v", name, err)
	}
	return d
}

// Env points a child process at this display.
func (d *Display) Env() []string { return []string{"DISPLAY=" + d.Name} }

// startXvfb claims a free display number with an X lock file (O_EXCL, as X
// servers do; Xvfb with -displayfd does not lock) and starts Xvfb on it.
func startXvfb(ctx context.Context, t testing.TB, width, height int) (string, error) {
	if err := xsocket.EnsureDir(); err != nil {
		return "", err
	}
	for n := firstDisplay; n <= lastDisplay; n++ {
		if _, err := os.Lstat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		lock := fmt.Sprintf("/tmp/.X%d-lock", n)
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if errors.Is(err, fs.ErrExist) && removeStale(n, lock) {
			f, err = os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		fmt.Fprintf(f, "%10d\n", os.Getpid())
		f.Close()
		t.Cleanup(func() { os.Remove(lock) }) // after Xvfb has stopped
		err = runXvfb(ctx, t, n, width, height)
		if errors.Is(err, errTaken) {
			continue
		}
		if err != nil {
			return "", err
		}
		return fmt.Sprintf(":%d", n), nil
	}
	return "", fmt.Errorf("no free X display in :%d-:%d", firstDisplay, lastDisplay)
}

var errTaken = errors.New("display taken")

// removeStale removes the lock file (and socket) of display n if the
// process that holds it is gone, as X servers do: a test binary killed
// hard leaves them behind, and the numbers would run out over time.
func removeStale(n int, lock string) bool {
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

// runXvfb starts Xvfb on :n and returns once it accepts connections, which
// is when it writes the display number to -displayfd.
func runXvfb(ctx context.Context, t testing.TB, n, width, height int) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	var out bytes.Buffer
	cmd := exec.Command("Xvfb", fmt.Sprintf(":%d", n), "-displayfd", "3",
		"-screen", "0", fmt.Sprintf("%dx%dx24", width, height), "-nolisten", "tcp", "-br")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stderr = &lockedWriter{w: &out}
	done, err := startChild(t, cmd)
	w.Close() // only the child's copy remains: its exit ends our read
	if err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok {
		r.SetReadDeadline(dl)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		select {
		case <-done:
			if strings.Contains(out.String(), "already") {
				return errTaken
			}
		default:
		}
		return fmt.Errorf("Xvfb :%d did not start: %v", n, err)
	}
	if strings.TrimSpace(line) != strconv.Itoa(n) {
		return fmt.Errorf("Xvfb reported display %q, want %d", line, n)
	}
	return nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// startChild starts cmd in its own process group, dying with the test
// binary, and stops it (SIGTERM, then SIGKILL) at cleanup. The returned
// channel is closed when it has exited.
func startChild(t testing.TB, cmd *exec.Cmd) (<-chan struct{}, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		pgid := cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
		}
	})
	return done, nil
}

// waitWM waits until openbox runs its event loop: it answers
// _NET_REQUEST_FRAME_EXTENTS for a probe window only from there. Windows
// mapped earlier (it sets its root properties before the loop) were seen
// to stay unmanaged for good.
func (d *Display) waitWM(ctx context.Context, wmDone <-chan struct{}) error {
	probe, err := xproto.NewWindowId(d.conn)
	if err != nil {
		return err
	}
	if err := xproto.CreateWindowChecked(d.conn, 0, probe, d.screen.Root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOnly, 0, 0, nil).Check(); err != nil {
		return fmt.Errorf("create probe window: %w", err)
	}
	defer func() { _ = xproto.DestroyWindowChecked(d.conn, probe).Check() }()
	req, err := d.Atom("_NET_REQUEST_FRAME_EXTENTS")
	if err != nil {
		return err
	}
	ev := xproto.ClientMessageEvent{Format: 32, Window: probe, Type: req,
		Data: xproto.ClientMessageDataUnionData32New(make([]uint32, 5))}
	return Poll(ctx, func() (bool, error) {
		select {
		case <-wmDone:
			return false, errors.New("openbox exited")
		default:
		}
		ext, err := d.Prop32(probe, "_NET_FRAME_EXTENTS")
		if err != nil || len(ext) == 4 {
			return err == nil, err
		}
		return false, xproto.SendEventChecked(d.conn, false, d.screen.Root,
			xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect,
			string(ev.Bytes())).Check()
	})
}

// Poll calls check every 20 ms until it reports true or fails, or ctx ends.
func Poll(ctx context.Context, check func() (bool, error)) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := check()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Atom interns name.
func (d *Display) Atom(name string) (xproto.Atom, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a, ok := d.atoms[name]; ok {
		return a, nil
	}
	r, err := xproto.InternAtom(d.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, fmt.Errorf("intern %s: %w", name, err)
	}
	d.atoms[name] = r.Atom
	return r.Atom, nil
}

// Prop32 reads a 32-bit property; a missing one yields nothing.
func (d *Display) Prop32(w xproto.Window, name string) ([]uint32, error) {
	a, err := d.Atom(name)
	if err != nil {
		return nil, err
	}
	r, err := xproto.GetProperty(d.conn, false, w, a, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
	if err != nil {
		return nil, err
	}
	if r.Format != 32 {
		return nil, nil
	}
	out := make([]uint32, len(r.Value)/4)
	for i := range out {
		out[i] = xgb.Get32(r.Value[4*i:])
	}
	return out, nil
}

// ActiveWindow is _NET_ACTIVE_WINDOW.
func (d *Display) ActiveWindow() (uint32, error) {
	v, err := d.Prop32(d.screen.Root, "_NET_ACTIVE_WINDOW")
	if err != nil || len(v) == 0 {
		return 0, err
	}
	return v[0], nil
}

// Xdotool runs xdotool with args against this display.
func (d *Display) Xdotool(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = append(d.Env(), "PATH="+os.Getenv("PATH"))
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

// FakeApp starts a sleeping process named name (its /proc comm) with args
// on its command line, to own test windows through _NET_WM_PID. It is
// killed at cleanup.
func FakeApp(t testing.TB, name string, args ...string) int {
	t.Helper()
	// A symlink to sh named after the app: comm is the name exec'd. The
	// trailing ": done" keeps dash from exec'ing sleep in its place.
	dir := t.TempDir()
	bin := filepath.Join(dir, name)
	if err := os.Symlink("/bin/sh", bin); err != nil {
		t.Fatalf("xtest: %v", err)
	}
	cmd := exec.Command(bin, append([]string{"-c", "sleep 3600; : done", name}, args...)...)
	if _, err := startChild(t, cmd); err != nil {
		t.Fatalf("xtest: start fake app %s: %v", name, err)
	}
	return cmd.Process.Pid
}
