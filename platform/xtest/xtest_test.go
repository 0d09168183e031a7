//go:build linux

package xtest_test

import (
	"context"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
)

// windowFill is the colour testdata/trayapp paints its window with.
func windowFill() color.RGBA { return color.RGBA{R: 0x20, G: 0x80, B: 0xe0, A: 0xff} }

// TestFyneTrayApp proves the harness end to end on a tiny Fyne program that
// does not depend on Spirit: tray registration, menu reading, clicking a
// checkbox item, window lookup, work area struts, screenshots and a clean
// Quit.
func TestFyneTrayApp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Fyne program")
	}
	begin := time.Now()
	deadline := begin.Add(9 * time.Minute)
	if dl, ok := t.Deadline(); ok {
		deadline = dl.Add(-15 * time.Second) // leave time to clean up and log
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()

	d := xtest.StartDisplay(t, 1280, 800)
	bus := xtest.StartSessionBus(t)
	t.Logf("display %s, bus %s, up after %v", d.Name, bus.Address, time.Since(begin).Round(time.Millisecond))

	// A cold cgo build of Fyne takes minutes; it only shares ctx's deadline.
	bin := programs.Build(t, ctx, "./testdata/trayapp", "sqlite_fts5")

	tray := xtest.NewTrayHost(t, bus)
	home := t.TempDir()
	appEnv := []string{
		"LANG=C.UTF-8", // Fyne localises its own "Quit"
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
	}
	env := slices.Concat(d.Env(), bus.Env(), appEnv)
	runStart := time.Now()
	app := xtest.Run(t, ctx, bin, nil, env)

	item, err := tray.WaitItem(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tray item %s%s, menu %s, registered %v after start", item.BusName, item.Path, item.MenuPath,
		time.Since(runStart).Round(time.Millisecond))

	// Fyne builds the menu item by item; wait for the whole of it.
	if err := item.WaitLayout(ctx, func(items []xtest.MenuItem) bool {
		_, ok := xtest.FindIn(items, xtest.Label("Quit"))
		return ok
	}); err != nil {
		t.Fatal(err)
	}
	items, err := item.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("menu: %s", xtest.FormatMenu(items))
	if len(items) != 3 || !items[1].Separator {
		t.Errorf("menu = %s, want pause, separator, quit", xtest.FormatMenu(items))
	}
	pause, err := item.Find(ctx, "Pause listening")
	if err != nil {
		t.Fatal(err)
	}
	if pause.Checked || !pause.Enabled || !pause.Visible {
		t.Errorf("initial %+v: want unchecked, enabled, visible", pause)
	}
	if _, err := item.FindFunc(ctx, xtest.LabelPrefix("Pause")); err != nil {
		t.Error(err)
	}
	if _, err := item.Find(ctx, "No such item"); err == nil {
		t.Error("Find of a missing label succeeded")
	}

	// Toggle on and off again: the second click must use the new ids.
	for _, want := range []bool{true, false} {
		if err := item.Click(ctx, "Pause listening"); err != nil {
			t.Fatal(err)
		}
		err := item.WaitLayout(ctx, func(items []xtest.MenuItem) bool {
			m, ok := xtest.FindIn(items, xtest.Label("Pause listening"))
			return ok && m.Checked == want
		})
		if err != nil {
			t.Fatalf("waiting for checked=%v: %v", want, err)
		}
		if want {
			m, err := item.Find(ctx, "Pause listening")
			if err != nil {
				t.Fatal(err)
			}
			if m.Toggle != "checkmark" {
				t.Errorf("checked item toggle-type = %q, want checkmark", m.Toggle)
			}
		}
	}

	win, err := d.WaitWindow(ctx, "xtest-window", func(w xtest.WindowInfo) bool {
		return w.Managed && w.Viewable
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("window: %+v", win)
	screen := image.Rect(0, 0, d.Width, d.Height)
	if !win.Frame.In(screen) || win.Rect.Dx() < 100 || !win.Rect.In(win.Frame) {
		t.Errorf("window rect %v / frame %v not sensible on %v", win.Rect, win.Frame, screen)
	}
	if hidden, err := d.FindWindows("SystrayMonitor"); err == nil {
		t.Logf("Fyne's hidden SystrayMonitor window: %+v", hidden)
	}

	// The first frame may not be painted yet when the window maps.
	center := image.Pt((win.Rect.Min.X+win.Rect.Max.X)/2, (win.Rect.Min.Y+win.Rect.Max.Y)/2)
	var shot image.Image
	err = xtest.Poll(ctx, func() (bool, error) {
		var err error
		shot, err = d.Screenshot()
		return err == nil && near(shot.At(center.X, center.Y), windowFill()), err
	})
	if err != nil {
		if shot != nil {
			t.Errorf("pixel at %v = %v, want %v", center, shot.At(center.X, center.Y), windowFill())
			saveArtifact(t, shot)
		}
		t.Fatal(err)
	}
	if shot.Bounds() != screen {
		t.Errorf("screenshot bounds %v, want %v", shot.Bounds(), screen)
	}
	corner := image.Pt(d.Width-1, d.Height-1)
	if !corner.In(win.Frame) && !near(shot.At(corner.X, corner.Y), color.RGBA{A: 0xff}) {
		t.Errorf("root window pixel %v = %v, want black (-br)", corner, shot.At(corner.X, corner.Y))
	}

	full, err := d.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	if full != screen {
		t.Errorf("work area without panels = %v, want %v", full, screen)
	}
	removeStrut, err := d.AddStrut(200)
	if err != nil {
		t.Fatal(err)
	}
	if wa, err := d.WorkArea(); err != nil || wa != image.Rect(0, 0, d.Width-200, d.Height) {
		t.Errorf("work area with a 200 px right strut = %v, %v", wa, err)
	}
	removeStrut()
	if wa, err := d.WorkArea(); err != nil || wa != full {
		t.Errorf("work area after removing the strut = %v, %v; want %v", wa, err, full)
	}

	if err := item.Click(ctx, "Quit"); err != nil {
		t.Fatal(err)
	}
	code, err := app.Wait(ctx)
	if err != nil || code != 0 {
		t.Fatalf("exit = %d, %v; want 0\n%s", code, err, app.Output())
	}
	select {
	case <-item.Gone():
	case <-ctx.Done():
		t.Error("tray item still registered after the app exited")
	}
	if out := app.Stdout(); !strings.Contains(out, "paused=true\npaused=false\n") || !strings.Contains(out, "bye") {
		t.Errorf("stdout = %q, want both toggles and bye", out)
	}
	t.Logf("GUI part took %v", time.Since(runStart).Round(time.Millisecond))

	// A tray host that appears after the app must still get the item:
	// fyne.io/systray re-registers when the watcher name gets an owner.
	bus2 := xtest.StartSessionBus(t)
	app2 := xtest.Run(t, ctx, bin, nil, slices.Concat(d.Env(), bus2.Env(), appEnv))
	if _, err := d.WaitWindow(ctx, "xtest-window", func(w xtest.WindowInfo) bool {
		return w.Viewable
	}); err != nil {
		t.Fatal(err)
	}
	late, err := xtest.NewTrayHost(t, bus2).WaitItem(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := late.Click(ctx, "Quit"); err != nil {
		t.Fatal(err)
	}
	if code, err := app2.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("second run exit = %d, %v; want 0\n%s", code, err, app2.Output())
	}
	t.Logf("whole test %v", time.Since(begin).Round(time.Millisecond))
}

// TestRunExitCodes checks Proc without any desktop.
func TestRunExitCodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	p := xtest.Run(t, ctx, "/bin/sh", []string{"-c", `echo out; echo err >&2; echo "bus=$DBUS_SESSION_BUS_ADDRESS display=$DISPLAY"; exit 3`},
		[]string{"DISPLAY=:99"})
	code, err := p.Wait(ctx)
	if err != nil || code != 3 {
		t.Fatalf("Wait = %d, %v; want 3, nil", code, err)
	}
	if p.Stderr() != "err\n" {
		t.Errorf("Stderr = %q", p.Stderr())
	}
	// Without bus.Env() the child must get a dead bus, never the real one.
	if !strings.Contains(p.Stdout(), "out\nbus=disabled: display=:99\n") {
		t.Errorf("Stdout = %q", p.Stdout())
	}

	sleeper := xtest.Run(t, ctx, "/bin/sleep", []string{"60"}, nil)
	if err := sleeper.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := sleeper.Wait(ctx); err == nil || code != -1 {
		t.Errorf("Wait after SIGTERM = %d, %v; want -1 and a signal error", code, err)
	}

	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelShort()
	stuck := xtest.Run(t, ctx, "/bin/sleep", []string{"60"}, nil)
	if _, err := stuck.Wait(short); err == nil {
		t.Error("Wait returned before the process exited")
	}
	// stuck is killed and reaped by cleanup.
}

// near reports whether c is within a small tolerance of want, allowing for
// rounding in the software renderer.
func near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	diff := func(a uint32, b uint8) bool {
		d := int(a>>8) - int(b)
		return d >= -2 && d <= 2
	}
	return diff(r, want.R) && diff(g, want.G) && diff(b, want.B)
}

// saveArtifact keeps a failing test's screenshot for inspection.
func saveArtifact(t *testing.T, img image.Image) {
	f, err := os.CreateTemp("", "xtest-*.png")
	if err != nil {
		t.Log(err)
		return
	}
	f.Close()
	if err := xtest.WritePNG(f.Name(), img); err != nil {
		t.Log(err)
		return
	}
	t.Logf("screenshot saved to %s", f.Name())
}

// TestWindows checks that windows made with NewWindow are what the
// observing side (FindWindows, Screenshot, ActiveWindow) sees.
func TestWindows(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d := xtest.StartDisplay(t, 800, 600)
	pid := xtest.FakeApp(t, "thunderbird", "--inbox")
	page, err := xtest.TextImage(300, 200, 16, "Hello")
	if err != nil {
		t.Fatal(err)
	}
	spec := xtest.WindowSpec{Title: "Inbox - Mozilla Thunderbird", Class: "thunderbird", Instance: "Mail",
		PID: pid, Rect: image.Rect(100, 80, 400, 280), Image: page}
	win, err := d.NewWindow(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	other, err := d.NewWindow(ctx, xtest.WindowSpec{Title: "Other", Rect: image.Rect(450, 80, 650, 280),
		Color: color.RGBA{R: 0xe0, G: 0x20, B: 0x20, A: 0xff}})
	if err != nil {
		t.Fatal(err)
	}
	found, err := d.FindWindows(spec.Title)
	if err != nil || len(found) != 1 {
		t.Fatalf("FindWindows = %+v, %v; want one window", found, err)
	}
	info := found[0]
	client, err := win.Client()
	if err != nil {
		t.Fatal(err)
	}
	frame, err := win.Frame()
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != win.ID || info.Class != "thunderbird" || !info.Managed || !info.Viewable ||
		info.Rect != client || info.Frame != frame || !client.In(frame) || client == frame ||
		client.Size() != spec.Rect.Size() || frame.Min != spec.Rect.Min {
		// Openbox puts the frame at the requested position.
		t.Errorf("FindWindows = %+v; want window %#x, client %v sized as %v, frame %v at %v",
			info, win.ID, client, spec.Rect, frame, spec.Rect.Min)
	}

	for _, w := range []*xtest.Window{other, win} {
		if err := d.Activate(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if a, err := d.ActiveWindow(); err != nil || a != w.ID {
			t.Errorf("ActiveWindow = %#x, %v; want %#x", a, err, w.ID)
		}
	}

	shot, err := d.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	corner := client.Max.Sub(image.Pt(5, 5)) // white page, no text
	if c := shot.At(corner.X, corner.Y); !near(c, color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}) {
		t.Errorf("page pixel at %v = %v, want white", corner, c)
	}
	if c := shot.At(500, 150); !near(c, color.RGBA{R: 0xe0, G: 0x20, B: 0x20, A: 0xff}) {
		t.Errorf("other window's pixel = %v, want red", c)
	}
	if err := win.SetColor(color.RGBA{G: 0xc0, A: 0xff}); err != nil {
		t.Fatal(err)
	}
	if shot, err = d.Screenshot(); err != nil {
		t.Fatal(err)
	}
	if c := shot.At(corner.X, corner.Y); !near(c, color.RGBA{G: 0xc0, A: 0xff}) {
		t.Errorf("pixel after SetColor = %v, want green", c)
	}

	win.Destroy()
	if err := xtest.Poll(ctx, func() (bool, error) {
		found, err := d.FindWindows(spec.Title)
		return len(found) == 0, err
	}); err != nil {
		t.Errorf("destroyed window still listed: %v", err)
	}
}

// TestNoWM checks a bare X server: windows map without being managed or
// decorated.
func TestNoWM(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d := xtest.StartDisplay(t, 320, 240, xtest.NoWM())
	win, err := d.NewWindow(ctx, xtest.WindowSpec{Title: "bare", Rect: image.Rect(10, 20, 110, 70)})
	if err != nil {
		t.Fatal(err)
	}
	found, err := d.FindWindows("bare")
	if err != nil || len(found) != 1 {
		t.Fatalf("FindWindows = %+v, %v; want one window", found, err)
	}
	if w := found[0]; w.ID != win.ID || w.Managed || !w.Viewable || w.Rect != image.Rect(10, 20, 110, 70) || w.Frame != w.Rect {
		t.Errorf("window = %+v; want unmanaged, viewable, undecorated at (10,20)-(110,70)", w)
	}
	if wa, err := d.WorkArea(); err == nil {
		t.Errorf("WorkArea without a window manager = %v, want an error", wa)
	}
}
