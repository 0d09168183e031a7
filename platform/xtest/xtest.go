//go:build linux

// Package xtest runs a private X11 desktop for tests: an Xvfb display,
// normally managed by openbox; windows with chosen titles, classes, PIDs
// and pixels (or rendered text); xdotool to act as the user; a private DBus
// session bus; a fake StatusNotifierWatcher that lets a test read and click
// an app's system tray menu as a desktop panel would; and helpers that run,
// build and reap child processes.
//
// Typical use, for a GUI binary:
//
//	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
//	defer cancel()
//	d := xtest.StartDisplay(t, 1280, 800)
//	bus := xtest.StartSessionBus(t)
//	tray := xtest.NewTrayHost(t, bus)
//	app := xtest.Run(t, ctx, bin, []string{"--data-dir", t.TempDir()},
//		slices.Concat(d.Env(), bus.Env()))
//	item, err := tray.WaitItem(ctx)
//	...
//	err = item.Click(ctx, "Pause listening")
//	err = item.WaitLayout(ctx, func(items []xtest.MenuItem) bool {
//		m, ok := xtest.FindIn(items, xtest.Label("Pause listening"))
//		return ok && m.Checked
//	})
//	win, err := d.WaitWindow(ctx, "Spirit", func(w xtest.WindowInfo) bool { return w.Viewable })
//	...
//	err = item.Click(ctx, "Quit")
//	code, err := app.Wait(ctx)
//
// and for code that watches windows:
//
//	d := xtest.StartDisplay(t, 1280, 800)
//	pid := xtest.FakeApp(t, "thunderbird")
//	page, err := xtest.TextImage(900, 360, 14, "Dear Ms Smith,")
//	win, err := d.NewWindow(ctx, xtest.WindowSpec{Title: "Inbox", Class: "thunderbird",
//		PID: pid, Image: page})
//	err = d.Activate(ctx, win.ID)
//
// Everything started here is stopped and reaped by t.Cleanup, in reverse
// order of start, and the output of every child is logged if the test
// failed. Waits are driven by the event that ends them (a pipe, a DBus
// signal) or, where X offers none to a passive observer, by polling
// against the context's deadline.
//
// Tests skip when Xvfb, openbox, xdotool or dbus-daemon is missing, unless
// the environment sets SPIRIT_REQUIRE_DESKTOP=1 (as CI does), in which case
// they fail. On Debian: apt-get install -y xvfb openbox xdotool dbus-daemon.
//
// Everything but TextImage is Linux-only.
package xtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// RequireEnv names the environment variable that turns missing desktop
// tools from a skip into a failure when set to "1".
const RequireEnv = "SPIRIT_REQUIRE_DESKTOP"

// startTimeout bounds starting one piece of the desktop (X server, window
// manager, bus); each normally takes well under a second.
const startTimeout = 30 * time.Second

// pollInterval is how often conditions without a notification are rechecked.
const pollInterval = 50 * time.Millisecond

// Require skips or fails t if any of the named executables is missing.
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
	msg := fmt.Sprintf("xtest: missing %v (on Debian: apt-get install -y xvfb openbox xdotool dbus-daemon)", missing)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s; %s=1 requires them", msg, RequireEnv)
	}
	t.Skipf("%s; skipping (set %s=1 to fail instead)", msg, RequireEnv)
}

// startContext bounds a start-up step by startTimeout and the test's life.
func startContext(t testing.TB) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), startTimeout)
}

// cleanupContext bounds a step that may run during cleanup, when
// t.Context() is already canceled.
func cleanupContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), startTimeout)
}

// Poll calls check every 50ms until it reports true or fails, or ctx is
// done. Use it only where nothing notifies of the awaited condition.
func Poll(ctx context.Context, check func() (bool, error)) error {
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		ok, err := check()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
	}
}
