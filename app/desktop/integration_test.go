package desktop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/xtest"
)

// orbMargin and orbPx mirror the app's docking: a 44 px orb 6 px off the edge.
const (
	orbMargin = 6
	orbPx     = 44
)

// programs builds the spirit binary once for all of this package's tests
// (relinking it took 20–35 s a test); TestMain removes it.
var programs xtest.Programs

// desk is one X display with openbox, a private session bus and a test-owned
// StatusNotifierWatcher, plus the spirit binary built from this module.
type desk struct {
	bin  string
	disp *xtest.Display
	bus  *xtest.Bus
	host *xtest.TrayHost
}

func newDesk(t *testing.T) *desk {
	t.Helper()
	return newDeskWith(t, true)
}

// skipIntegration skips a test that runs the spirit binary in -short mode
// and in a race build (see race_test.go).
func skipIntegration(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: skipped in -short mode")
	}
	if raceBuild {
		t.Skip("integration test: skipped under -race (it drives a spirit binary built without it)")
	}
}

// newDeskWith starts the desktop, with or without a tray host on the bus.
func newDeskWith(t *testing.T, trayHost bool) *desk {
	t.Helper()
	skipIntegration(t)
	d := &desk{}
	d.disp = xtest.StartDisplay(t, 1280, 800)
	d.bus = xtest.StartSessionBus(t)
	if trayHost {
		d.host = xtest.NewTrayHost(t, d.bus)
	}
	// A cold cgo build of Fyne takes minutes on two cores.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	// spirittest: these tests raise Spirit's own nudge kinds through the
	// API, which a shipped build refuses (app/api/ownkinds_release.go).
	d.bin = programs.Build(t, ctx, "github.com/spirit-app/spirit", "sqlite_fts5", "spirittest")
	return d
}

func (d *desk) env() []string {
	return append(append([]string{"SPIRIT_LOG=debug", "LANG=C.UTF-8"}, d.disp.Env()...), d.bus.Env()...)
}

// start runs Spirit on dataDir, set up already: the first-run window,
// which a new data folder opens, is tested on its own
// (TestFirstRunWindowOnNewFolder) and would take the focus from the
// lawyer's window here.
func (d *desk) start(t *testing.T, ctx context.Context, dataDir string, env []string) *xtest.Proc {
	t.Helper()
	if env == nil {
		env = d.env()
	}
	markSetUp(t, ctx, dataDir)
	return xtest.Run(t, ctx, d.bin, []string{"--data-dir", dataDir}, env)
}

// markSetUp stores setup.done in dataDir's database, as finishing the
// first-run window does.
func markSetUp(t *testing.T, ctx context.Context, dataDir string) {
	t.Helper()
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetSetting(ctx, "setup.done", "true"); err != nil {
		t.Fatal(err)
	}
}

// waitOrb waits for the orb to be shown, above other windows, out of the
// taskbar and docked where want says.
func (d *desk) waitOrb(t *testing.T, ctx context.Context, want image.Point) xtest.WindowInfo {
	t.Helper()
	w, err := d.disp.WaitWindow(ctx, "Spirit", func(w xtest.WindowInfo) bool {
		return w.Viewable && w.Rect.Min == want &&
			w.HasState("_NET_WM_STATE_ABOVE") && w.HasState("_NET_WM_STATE_SKIP_TASKBAR")
	})
	if err != nil {
		t.Fatalf("orb not docked at %v: %v", want, err)
	}
	return w
}

// dockedAt is where the orb belongs in work area wa.
func dockedAt(wa image.Rectangle) image.Point {
	return image.Pt(wa.Max.X-orbPx-orbMargin, wa.Min.Y+(wa.Dy()-orbPx)/2)
}

func apiClient(t *testing.T, ctx context.Context, dataDir string) *api.Client {
	t.Helper()
	var info api.Info
	err := xtest.Poll(ctx, func() (bool, error) {
		var err error
		info, err = api.ReadInfo(dataDir)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("api.json never appeared in %s: %v", dataDir, err)
	}
	return api.NewClient(info)
}

func statusOf(items []xtest.MenuItem) (status string, listenChecked, found bool) {
	for _, it := range items {
		if it.Label == "Pause listening" {
			listenChecked, found = it.Checked, true
		}
		if strings.HasSuffix(it.Label, "Watching") || strings.HasPrefix(it.Label, "Paused") || strings.HasSuffix(it.Label, "paused") {
			status = it.Label
		}
	}
	return
}

// TestTrayOrbAndQuit runs the real binary as a lawyer's desktop would: the
// tray menu over DBus, the orb docked inside the work area next to a panel,
// a pause toggle seen in the menu and in /health and kept across restarts,
// single-instance handoff, Quit with exit status 0 and an intact database.
func TestTrayOrbAndQuit(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()

	// The lawyer is working in another window, which must keep the focus.
	work := newFocusedWindow(t, ctx, d.disp, "Lawyer's brief")

	// A panel on the right edge: the orb must dock inside the work area.
	if _, err := d.disp.AddStrut(60); err != nil {
		t.Fatal(err)
	}
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	if wa.Max.X != 1220 {
		t.Fatalf("strut not applied: work area %v", wa)
	}

	p := d.start(t, ctx, dataDir, nil)
	item, err := d.host.WaitItem(ctx)
	if err != nil {
		t.Fatalf("tray item never registered: %v\n%s", err, p.Output())
	}
	orb := d.waitOrb(t, ctx, dockedAt(wa))
	if got := orb.Rect.Dx(); got != orbPx {
		t.Errorf("orb width = %d (%v), want %d", got, orb.Rect, orbPx)
	}
	if got := orb.Rect.Dy(); got != orbPx {
		t.Errorf("orb height = %d (%v), want %d", got, orb.Rect, orbPx)
	}
	work.waitFocused(t, ctx)

	// The tray menu: status line, the toggles, the windows and Quit. No
	// speech model is installed in a fresh data directory: once the voice
	// pipeline has looked, the status says so.
	want := []string{"No speech model · Watching", "Pause listening", "Pause watching", "Reminders…", "Activity…", "Settings…", "Quit"}
	var labels []string
	err = xtest.Poll(ctx, func() (bool, error) {
		items, err := item.Layout(ctx)
		if err != nil {
			return false, err
		}
		labels = labels[:0]
		for _, it := range items {
			if !it.Separator {
				labels = append(labels, it.Label)
			}
		}
		return strings.Join(labels, "|") == strings.Join(want, "|"), nil
	})
	if err != nil {
		t.Fatalf("tray menu %q, want %q: %v", labels, want, err)
	}

	// The orb's pixels sit at the right edge of the work area, not under the panel.
	checkOrbPixels(t, d.disp, orb.Rect)

	// Pause listening from the tray: the menu and /health follow.
	if err := item.Click(ctx, "Pause listening"); err != nil {
		t.Fatal(err)
	}
	err = item.WaitLayout(ctx, func(items []xtest.MenuItem) bool {
		status, checked, _ := statusOf(items)
		return checked && status == "Listening paused · Watching"
	})
	if err != nil {
		t.Fatalf("menu never showed listening paused: %v", err)
	}
	c := apiClient(t, ctx, dataDir)
	h, err := c.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Subsystems["listening"].State; got != "paused" {
		t.Errorf("/health listening = %q, want paused", got)
	}
	if got := h.Subsystems["tray"].State; got != "ok" {
		t.Errorf("/health tray = %q, want ok", got)
	}

	// A second spirit hands over to the first and exits 0; the first shows its panel.
	second := exec.CommandContext(ctx, d.bin, "--data-dir", dataDir)
	second.Env = append(os.Environ(), d.env()...)
	if out, err := second.CombinedOutput(); err != nil {
		t.Fatalf("second instance: %v\n%s", err, out)
	}
	if menu, err := d.disp.WaitWindow(ctx, "Spirit menu", menuOnScreen); err != nil {
		t.Errorf("first instance did not show itself: %v", err)
	} else if !menuBesideOrb(menu.Rect, orb.Rect) {
		t.Errorf("the menu first appeared at %v, not beside the orb %v", menu.Rect, orb.Rect)
	}

	// Quit from the tray: exit status 0.
	quitFromTray(t, ctx, item, p)
	if _, err := os.Stat(filepath.Join(dataDir, api.InfoFile)); !os.IsNotExist(err) {
		t.Errorf("api.json left behind after Quit: %v", err)
	}
	checkDatabase(t, ctx, dataDir, "listening paused")

	// The toggle survives a restart; SIGTERM shuts down cleanly too.
	p2 := d.start(t, ctx, dataDir, nil)
	item2, err := d.host.WaitItem(ctx)
	if err != nil {
		t.Fatalf("tray item never re-registered: %v\n%s", err, p2.Output())
	}
	err = item2.WaitLayout(ctx, func(items []xtest.MenuItem) bool {
		_, checked, found := statusOf(items)
		return found && checked
	})
	if err != nil {
		t.Fatalf("Pause listening not kept across restart: %v", err)
	}
	if err := p2.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, err := p2.Wait(ctx)
	if err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, p2.Output())
	}
	if code != 0 {
		t.Fatalf("SIGTERM: exit %d, want 0\n%s", code, p2.Output())
	}
	checkDatabase(t, ctx, dataDir, "stopped")
}

// TestOrbRedocksWhenWorkAreaChanges: a panel appearing moves the orb inside.
func TestOrbRedocksWhenWorkAreaChanges(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p := d.start(t, ctx, t.TempDir(), nil)
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	d.waitOrb(t, ctx, dockedAt(wa))
	if _, err := d.disp.AddStrut(100); err != nil {
		t.Fatal(err)
	}
	wa2, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	d.waitOrb(t, ctx, dockedAt(wa2))
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("SIGINT: %v\n%s", err, p.Output())
	}
	if code != 0 {
		t.Fatalf("SIGINT: exit %d, want 0\n%s", code, p.Output())
	}
}

// menuOnScreen tells the orb's menu as the lawyer sees it: mapped, and
// larger than the one transparent pixel premapPanel shows for a moment
// before the menu's first showing (Fyne centres a window's first map
// whatever position was asked; a poll could catch that pixel mapped).
func menuOnScreen(w xtest.WindowInfo) bool {
	return w.Viewable && w.Rect.Dx() > 1 && w.Rect.Dy() > 1
}

// TestNoSessionBus: without a bus Spirit still runs, the orb's panel gives
// the menu, and Quit from the panel exits 0 instead of panicking in systray.
func TestNoSessionBus(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	env := append([]string{"LANG=C.UTF-8", "DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(t.TempDir(), "no-bus")}, d.disp.Env()...)
	p := d.start(t, ctx, dataDir, env)
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	orb := d.waitOrb(t, ctx, dockedAt(wa))
	h, err := apiClient(t, ctx, dataDir).Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Subsystems["tray"].State; got != "no session bus" {
		t.Errorf("/health tray = %q, want no session bus", got)
	}

	// Click the orb, then the panel's last item, Quit. The menu must
	// appear beside the orb from its first showing: it used to appear in
	// the middle of the screen and then jump, and a click aimed at where
	// it first appeared was lost ("Spirit did not exit after Quit").
	// Spirit maps the menu once, one pixel large and transparent, just
	// before its first showing (premapPanel): it must not stay on the
	// screen, and it is not the menu appearing (menuOnScreen).
	if wins, err := d.disp.FindWindows("Spirit menu"); err != nil {
		t.Fatal(err)
	} else if slices.ContainsFunc(wins, func(w xtest.WindowInfo) bool { return w.Viewable }) {
		t.Errorf("the menu is on the screen before the orb was clicked: %+v", wins)
	}
	click(t, d.disp, orb.Rect.Min.Add(image.Pt(orbPx/2, orbPx/2)))
	panel, err := d.disp.WaitWindow(ctx, "Spirit menu", menuOnScreen)
	if err != nil {
		t.Fatal(err)
	}
	if !menuBesideOrb(panel.Rect, orb.Rect) {
		t.Errorf("the menu first appeared at %v, not beside the orb %v", panel.Rect, orb.Rect)
	}
	// The panel is mapped before Fyne has drawn its items: on a loaded
	// machine a click at once can land on an empty window and be lost
	// (seen once in CI). Click Quit again until Spirit exits, aiming
	// where the menu is now.
	for try := 0; try < 5; try++ {
		panel, err = d.disp.WaitWindow(ctx, "Spirit menu", menuOnScreen)
		if err != nil {
			t.Fatalf("the menu is gone before Quit was clicked: %v\n%s", err, p.Output())
		}
		if !menuBesideOrb(panel.Rect, orb.Rect) {
			t.Errorf("click %d: the menu is at %v, not beside the orb %v", try+1, panel.Rect, orb.Rect)
		}
		click(t, d.disp, image.Pt(panel.Rect.Min.X+30, panel.Rect.Max.Y-12))
		retry := time.NewTimer(3 * time.Second)
		select {
		case <-p.Done():
		case <-retry.C:
			continue
		}
		retry.Stop()
		break
	}
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("Quit without a bus: %v\n%s", err, p.Output())
	}
	if code != 0 {
		t.Fatalf("Quit without a bus: exit %d, want 0\n%s", code, p.Output())
	}
	if strings.Contains(p.Output(), "panic") {
		t.Errorf("output mentions a panic:\n%s", p.Output())
	}
	if !strings.Contains(p.Output(), "quit: the lawyer asked Spirit to stop") {
		t.Errorf("the panel's Quit did not stop Spirit through its core:\n%s", p.Output())
	}
}

// menuBesideOrb reports whether the menu at menu sits left of the orb at orb
// (not over it) and level with it: the orb's middle is within the menu's
// height, or the menu is as near to it as the screen allows.
func menuBesideOrb(menu, orb image.Rectangle) bool {
	mid := (orb.Min.Y + orb.Max.Y) / 2
	return menu.Max.X <= orb.Min.X && orb.Min.X-menu.Max.X <= 40 &&
		menu.Min.Y <= mid && mid <= menu.Max.Y
}

func click(t *testing.T, disp *xtest.Display, at image.Point) {
	t.Helper()
	cmd := exec.Command("xdotool", "mousemove", fmt.Sprint(at.X), fmt.Sprint(at.Y), "click", "1")
	cmd.Env = append(os.Environ(), disp.Env()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool click %v: %v\n%s", at, err, out)
	}
}

// checkOrbPixels: the orb's glow is on screen inside r, the work area's edge
// right of it is bare desktop, and nothing of it spills under the panel.
func checkOrbPixels(t *testing.T, disp *xtest.Display, r image.Rectangle) {
	t.Helper()
	img, err := disp.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	c := r.Min.Add(image.Pt(r.Dx()/2, r.Dy()/2))
	if !bluish(img.At(c.X, c.Y)) {
		t.Errorf("orb centre %v is %v, want its blue glow", c, img.At(c.X, c.Y))
	}
	glow := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if bluish(img.At(x, y)) {
				glow++
			}
		}
	}
	if glow < r.Dx()*r.Dy()/4 {
		t.Errorf("only %d glowing pixels in the orb's %v", glow, r)
	}
	// Right of the orb, up to the work area's edge: bare (black) desktop.
	for x := r.Max.X + 1; x < r.Max.X+orbMargin; x++ {
		if !black(img.At(x, c.Y)) {
			t.Errorf("pixel %d,%d right of the orb is %v, want bare desktop", x, c.Y, img.At(x, c.Y))
		}
	}
	// Nothing bluish in a column band left of the orb (it is not smeared).
	for x := r.Min.X - 40; x < r.Min.X-2; x++ {
		if bluish(img.At(x, c.Y)) {
			t.Errorf("glow at %d,%d left of the orb", x, c.Y)
			break
		}
	}
	if t.Failed() {
		path := filepath.Join(t.TempDir(), "screen.png")
		if err := xtest.WritePNG(path, img); err == nil {
			t.Logf("screenshot: %s", path)
		}
	}
}

func bluish(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return b>>8 > 150 && b > r+0x2000 && b >= g
}

func black(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 < 16 && g>>8 < 16 && b>>8 < 16
}

// checkDatabase opens the database the app left behind and checks it is
// intact and holds an event whose text contains want.
func checkDatabase(t *testing.T, ctx context.Context, dataDir, want string) {
	t.Helper()
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatalf("database after exit: %v", err)
	}
	defer st.Close()
	if err := st.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	es, err := st.Recent(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.Contains(e.Text, want) {
			return
		}
	}
	t.Errorf("no world-log event containing %q in %v", want, es)
}

// focusedWindow is a plain X window standing in for the lawyer's work.
// focusedWindow is a window of the lawyer's that had the focus.
type focusedWindow struct {
	disp *xtest.Display
	win  uint32
}

func newFocusedWindow(t *testing.T, ctx context.Context, disp *xtest.Display, title string) *focusedWindow {
	t.Helper()
	return mailWindow(t, ctx, disp, title, "", image.Rect(100, 100, 700, 500), nil)
}

// active is the focused client, which openbox keeps in _NET_ACTIVE_WINDOW.
func (f *focusedWindow) active() (uint32, error) { return f.disp.ActiveWindow() }

func (f *focusedWindow) waitFocused(t *testing.T, ctx context.Context) {
	t.Helper()
	var last uint32
	err := xtest.Poll(ctx, func() (bool, error) {
		a, err := f.active()
		last = a
		return a == f.win, err
	})
	if err != nil {
		t.Fatalf("window %d never had the focus (active: %d): %v", f.win, last, err)
	}
}

// TestNoTrayHostThenOne: with a bus but no tray host Spirit keeps running
// (the orb is there, /health says so); when a host starts, the icon appears.
func TestNoTrayHostThenOne(t *testing.T) {
	d := newDeskWith(t, false)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	p := d.start(t, ctx, dataDir, nil)
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	d.waitOrb(t, ctx, dockedAt(wa))
	h, err := apiClient(t, ctx, dataDir).Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Subsystems["tray"].State; got != "no tray host" {
		t.Errorf("/health tray = %q, want no tray host", got)
	}

	host := xtest.NewTrayHost(t, d.bus)
	item, err := host.WaitItem(ctx)
	if err != nil {
		t.Fatalf("icon never registered with a late tray host: %v\n%s", err, p.Output())
	}
	h, err = apiClient(t, ctx, dataDir).Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Subsystems["tray"].State; got != "ok" {
		t.Errorf("/health tray after the host came = %q, want ok", got)
	}
	quitFromTray(t, ctx, item, p)
}

// quitFromTray picks Quit in the tray menu and waits for Spirit to exit
// 0. fyne.io/systray drops a click that races a rebuild of the menu (the
// status line changed just then), as it would a lawyer's click: then Quit
// is picked again, as the lawyer would.
func quitFromTray(t *testing.T, ctx context.Context, item *xtest.TrayItem, p *xtest.Proc) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		if err := item.Click(ctx, "Quit"); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		code, err := p.Wait(wctx)
		cancel()
		if err == nil {
			if code != 0 {
				t.Fatalf("exit %d after Quit\n%s", code, p.Output())
			}
			// Through the core, as SIGTERM: Run's watchdog then covers a
			// toolkit that never lets go.
			if !strings.Contains(p.Output(), "quit: the lawyer asked Spirit to stop") {
				t.Errorf("Quit did not stop Spirit through its core:\n%s", p.Output())
			}
			return
		}
		if ctx.Err() != nil || attempt == 3 {
			t.Fatalf("Spirit did not quit: %v\n%s", err, p.Output())
		}
		t.Logf("the Quit click was dropped (attempt %d); picking it again", attempt)
	}
}

// TestPauseHotkey: the global shortcut pauses and resumes listening from any window.
func TestPauseHotkey(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	work := newFocusedWindow(t, ctx, d.disp, "Lawyer's brief")
	p := d.start(t, ctx, dataDir, nil)
	item, err := d.host.WaitItem(ctx)
	if err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, _ := d.disp.WorkArea()
	d.waitOrb(t, ctx, dockedAt(wa))
	work.waitFocused(t, ctx)
	c := apiClient(t, ctx, dataDir)
	// The app-switch watcher reports the lawyer's window (the orb is Spirit's own).
	err = xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 1000)
		for _, e := range es {
			if e.Source == "screen" && strings.Contains(e.Text, "Lawyer's brief") {
				return true, nil
			}
		}
		return false, err
	})
	if err != nil {
		t.Fatalf("no app switch to the lawyer's window in the world log: %v", err)
	}
	for _, want := range []string{"paused", "no speech model"} {
		// The grab is in place once the app logged it; poll /health for the result.
		key := exec.CommandContext(ctx, "xdotool", "key", "ctrl+alt+p")
		key.Env = append(os.Environ(), d.disp.Env()...)
		if out, err := key.CombinedOutput(); err != nil {
			t.Fatalf("xdotool: %v\n%s", err, out)
		}
		err := xtest.Poll(ctx, func() (bool, error) {
			h, err := c.Health(ctx)
			return err == nil && h.Subsystems["listening"].State == want, nil
		})
		if err != nil {
			t.Fatalf("listening never became %q after the hotkey: %v\n%s", want, err, p.Output())
		}
	}
	quitFromTray(t, ctx, item, p)
}

// TestSayRemindShowsBubble: a spoken-style command through the local API
// ends in a stored reminder and a bubble beside the orb; answering the bubble
// with "at 4 instead" moves the reminder.
func TestSayRemindShowsBubble(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	p := d.start(t, ctx, dataDir, nil)
	item, err := d.host.WaitItem(ctx)
	if err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, _ := d.disp.WorkArea()
	orb := d.waitOrb(t, ctx, dockedAt(wa))
	c := apiClient(t, ctx, dataDir)

	res, err := c.Say(ctx, "remind me to call Marcy Howard tomorrow at 3pm")
	if err != nil {
		t.Fatal(err)
	}
	if res.Intent != "remind" {
		t.Fatalf("say intent = %q, want remind (%+v)", res.Intent, res)
	}
	if !strings.Contains(res.Reply, "call Marcy Howard") {
		t.Fatalf("say reply = %q, want it to name %q", res.Reply, "call Marcy Howard")
	}
	// The bubble sits left of the orb, level with it.
	beside := func(w xtest.WindowInfo) bool {
		return w.Viewable && w.Rect.Max.X <= orb.Rect.Min.X && w.Rect.Max.X >= orb.Rect.Min.X-20 &&
			w.Rect.Min.Y <= orb.Rect.Max.Y && w.Rect.Max.Y >= orb.Rect.Min.Y
	}
	bubble, err := d.disp.WaitWindow(ctx, "Spirit nudge", beside)
	if err != nil {
		t.Fatalf("no bubble beside the orb %v: %v\n%s", orb.Rect, err, p.Output())
	}
	// The window maps before its first frame is drawn: wait for the text.
	var img image.Image
	colours := 0
	err = xtest.Poll(ctx, func() (bool, error) {
		var err error
		img, err = d.disp.Screenshot()
		if err == nil {
			colours = distinctColours(img, bubble.Rect)
		}
		return colours >= 20, err
	})
	if err != nil {
		t.Fatalf("bubble never showed rendered text (%d colours): %v", colours, err)
	}
	if dir := os.Getenv("SPIRIT_SCREENSHOTS"); dir != "" {
		xtest.WritePNG(filepath.Join(dir, "bubble-reminder.png"), img)
	}
	nudges, err := c.Nudges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(nudges) != 1 {
		t.Fatalf("open nudges = %d, want 1: %+v", len(nudges), nudges)
	}
	if want := "Remind you to call Marcy Howard"; !strings.HasPrefix(nudges[0].Message, want) {
		t.Fatalf("open nudge message = %q, want prefix %q", nudges[0].Message, want)
	}
	if _, err := c.Respond(ctx, nudges[0].ID, api.ActionAccept, "at 4 instead"); err != nil {
		t.Fatal(err)
	}
	err = xtest.Poll(ctx, func() (bool, error) {
		ns, err := c.Nudges(ctx)
		return err == nil && len(ns) == 1 && ns[0].ID != nudges[0].ID && strings.Contains(ns[0].Message, "4:00 PM"), err
	})
	if err != nil {
		t.Fatalf("no new confirmation at 4:00 PM: %v", err)
	}
	quitFromTray(t, ctx, item, p)
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.Reminders(ctx, store.ReminderPending)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("stored pending reminders = %d, want 1: %+v", len(rs), rs)
	}
	if want := "call Marcy Howard"; rs[0].Task != want {
		t.Errorf("stored reminder task = %q, want %q", rs[0].Task, want)
	}
	if rs[0].Due == nil {
		t.Fatal("stored reminder due = nil, want 16:00")
	}
	if got := rs[0].Due.Hour(); got != 16 {
		t.Errorf("stored reminder due hour = %d (%v), want 16", got, rs[0].Due)
	}
}

func distinctColours(img image.Image, r image.Rectangle) int {
	seen := map[color.RGBA]bool{}
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			seen[color.RGBA{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8), 255}] = true
		}
	}
	return len(seen)
}

// TestGlanceOnAppSwitch: switching to an Outlook message window whose thread
// needs a reply produces a glance bubble; switching to a document does not.
func TestGlanceOnAppSwitch(t *testing.T) {
	mbox, err := filepath.Abs("../../../shared/cases/glance/snda-needs-reply/mailbox.mbox")
	if err == nil {
		_, err = os.Stat(mbox)
	}
	if err != nil {
		t.Skip("shared glance cases not present")
	}
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	seedMailbox(t, ctx, dataDir, mbox, "dana.whitfield@hartleyross.com")

	p := d.start(t, ctx, dataDir, nil)
	item, err := d.host.WaitItem(ctx)
	if err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, _ := d.disp.WorkArea()
	d.waitOrb(t, ctx, dockedAt(wa))
	c := apiClient(t, ctx, dataDir)

	newFocusedWindow(t, ctx, d.disp, "Estoppel Certificate draft.docx - Word")
	waitWorld(t, ctx, c, "silent: not_email")
	newFocusedWindow(t, ctx, d.disp, "RE: SNDA - Brooklyn Gardens - Message (HTML)")
	if _, err := d.disp.WaitWindow(ctx, "Spirit nudge", func(w xtest.WindowInfo) bool { return w.Viewable }); err != nil {
		t.Fatalf("no glance bubble: %v\n%s", err, p.Output())
	}
	ns, err := c.Nudges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 1 {
		t.Fatalf("nudges = %d, want 1: %+v", len(ns), ns)
	}
	if ns[0].Kind != "glance" {
		t.Errorf("nudge kind = %q, want glance", ns[0].Kind)
	}
	if !strings.Contains(ns[0].Message, "Marcy Howard") {
		t.Errorf("nudge message = %q, want it to name Marcy Howard", ns[0].Message)
	}
	if want := "glance:<PH0PR08MB25269AAA75C6ABF07B6EA18FD871C4F5CFC7@PH0PR08MB2526.namprd08.prod.outlook.com>"; ns[0].Subject != want {
		t.Errorf("nudge subject = %q, want %q", ns[0].Subject, want)
	}

	// Leaving the message folds its bubble back at once; the nudge stays open.
	// Well before the 45 s a bubble left alone waits.
	newFocusedWindow(t, ctx, d.disp, "Closing checklist.xlsx - Excel")
	fctx, fcancel := context.WithTimeout(ctx, 15*time.Second)
	defer fcancel()
	if _, err := d.disp.WaitWindow(fctx, "Spirit nudge", func(w xtest.WindowInfo) bool { return !w.Viewable }); err != nil {
		t.Fatalf("the glance bubble stayed up after the lawyer left the message: %v\n%s", err, p.Output())
	}
	if ns, err := c.Nudges(ctx); err != nil {
		t.Fatal(err)
	} else if len(ns) != 1 {
		t.Errorf("open nudges after folding = %d, want 1 (folded, not answered)", len(ns))
	}
	quitFromTray(t, ctx, item, p)
}

// seedMailbox indexes an mbox into the data directory before Spirit starts.
func seedMailbox(t *testing.T, ctx context.Context, dataDir, path, me string) {
	t.Helper()
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := index.New(st)
	cfg, _ := json.Marshal(map[string]string{"path": path})
	a, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: "Dana", Address: me, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMbox(path, mbox.Options{From: mail.Address{Email: me}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := ix.Sync(ctx, a.ID, conn, nil); err != nil {
		t.Fatal(err)
	}
}

// waitWorld waits for a world-log entry containing text.
func waitWorld(t *testing.T, ctx context.Context, c *api.Client, text string) {
	t.Helper()
	err := xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 1000)
		for _, e := range es {
			if strings.Contains(e.Text, text) {
				return true, nil
			}
		}
		return false, err
	})
	if err != nil {
		t.Fatalf("world log never said %q: %v", text, err)
	}
}
