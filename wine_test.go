//go:build linux

package main

// The Windows build, cross-compiled by `make windows` and run under Wine
// (Debian's wine64) on the test's own Xvfb display. What Wine cannot show
// (a microphone, WinRT, Windows' own window manager) is not tested here;
// build/README.md lists it.

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/xtest"
)

// wineVersionTag is the version `make windows` stamps into the test's
// spirit.exe, which `spirit.exe version` and /health must repeat.
const wineVersionTag = "wine-test"

// wine is one Wine prefix with its own wineserver, on one X display.
type wine struct {
	bin    string // wine or wine64
	prefix string
	env    []string
}

// requireTool skips (or, with SPIRIT_REQUIRE_DESKTOP=1, fails) when a tool
// a test needs is missing, saying how to get it.
func requireTool(t *testing.T, what, fix string) {
	t.Helper()
	msg := fmt.Sprintf("%s is missing (%s)", what, fix)
	if os.Getenv(xtest.RequireEnv) == "1" {
		t.Fatalf("%s; %s=1 requires it", msg, xtest.RequireEnv)
	}
	t.Skipf("%s; skipping %s", msg, t.Name())
}

// buildWindows cross-compiles spirit.exe with `make windows` (the one
// recipe, cached: whisper.cpp and PortAudio under SPIRIT_CACHE, the rest in
// Go's build cache) into a temporary directory. Warm, it is a link of
// Spirit's own packages; cold, it compiles the C of SQLite, GLFW and
// OpenGL for Windows too (half an hour on two busy cores): run `make
// windows` once first.
func buildWindows(t *testing.T, ctx context.Context) string {
	t.Helper()
	if _, err := exec.LookPath("x86_64-w64-mingw32-gcc-posix"); err != nil {
		requireTool(t, "the mingw-w64 cross-compiler", "apt-get install -y gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64")
	}
	exe := filepath.Join(t.TempDir(), "spirit.exe")
	start := time.Now()
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "windows",
		"WINDOWS_OUT="+exe, "VERSION="+wineVersionTag)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make windows: %v\n%s", err, out)
	}
	t.Logf("make windows: %v", time.Since(start).Round(time.Millisecond))
	return exe
}

// cachedPrefix returns a Wine prefix made once by `wineboot -i` (half a
// minute or more) and kept under SPIRIT_CACHE, keyed by Wine's version.
// Tests copy it and never run in it.
func cachedPrefix(t *testing.T, ctx context.Context, bin string, display []string) string {
	t.Helper()
	ver, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	dir := filepath.Join(spiritCache(t), "wine-prefix-"+strings.ReplaceAll(strings.TrimSpace(string(ver)), " ", "_"))
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	lock := flock.New(dir + ".lock")
	if _, err := lock.TryLockContext(ctx, 100*time.Millisecond); err != nil {
		t.Fatalf("lock %s: %v", dir, err)
	}
	defer lock.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "system.reg")); err == nil {
		return dir
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "wine-prefix-new-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	env := append(slices.Clone(display), "WINEPREFIX="+tmp, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")
	boot := exec.CommandContext(ctx, "wineboot", "-i")
	boot.Env = append(os.Environ(), env...)
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("wineboot -i: %v\n%s", err, out)
	}
	// The registry is written when the prefix's server ends.
	wait := exec.CommandContext(ctx, "wineserver", "-w")
	wait.Env = append(os.Environ(), env...)
	if out, err := wait.CombinedOutput(); err != nil {
		t.Fatalf("wineserver -w: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	t.Logf("made the Wine prefix %s in %v", dir, time.Since(start).Round(time.Second))
	return dir
}

// startWine makes a private copy of the cached prefix for t, on display d;
// its wineserver is killed when t ends.
func startWine(t *testing.T, ctx context.Context, d *xtest.Display) *wine {
	t.Helper()
	bin, err := exec.LookPath("wine")
	if err != nil {
		if bin, err = exec.LookPath("wine64"); err != nil {
			requireTool(t, "Wine", "apt-get install -y wine64 wine")
		}
	}
	if _, err := exec.LookPath("wineserver"); err != nil {
		requireTool(t, "wineserver", "apt-get install -y wine64 wine")
	}
	tmpl := cachedPrefix(t, ctx, bin, d.Env())
	// A prefix is 700 MB of mostly DLLs Wine only reads: hard links make
	// the copy instant. The registry files, which Wine rewrites, are
	// copied for real so that the cached prefix never changes.
	prefix := filepath.Join(t.TempDir(), "prefix")
	if out, err := exec.CommandContext(ctx, "cp", "-al", tmpl, prefix).CombinedOutput(); err != nil {
		t.Fatalf("copy the Wine prefix: %v\n%s", err, out)
	}
	regs, err := filepath.Glob(filepath.Join(prefix, "*.reg"))
	if err != nil || len(regs) == 0 {
		t.Fatalf("the Wine prefix %s has no registry (%v): delete it to have it made again", tmpl, err)
	}
	for _, reg := range regs {
		b, err := os.ReadFile(reg)
		if err == nil {
			err = os.Remove(reg)
		}
		if err == nil {
			err = os.WriteFile(reg, b, 0o644)
		}
		if err != nil {
			t.Fatalf("copy the Wine registry: %v", err)
		}
	}
	// Wine 8 has no bcryptprimitives.dll, without which a Go 1.24+
	// program stops at start (runtime: ProcessPrng); the test's prefix
	// gets a stand-in built from build/wine (never shipped).
	sys32 := filepath.Join(prefix, "drive_c", "windows", "system32")
	if _, err := os.Stat(filepath.Join(sys32, "bcryptprimitives.dll")); err != nil {
		cc := exec.CommandContext(ctx, "x86_64-w64-mingw32-gcc-posix", "-shared", "-O2",
			"-o", filepath.Join(sys32, "bcryptprimitives.dll"),
			filepath.Join("build", "wine", "bcryptprimitives.c"), "-lbcrypt")
		if out, err := cc.CombinedOutput(); err != nil {
			t.Fatalf("build bcryptprimitives.dll for Wine: %v\n%s", err, out)
		}
	}
	w := &wine{bin: bin, prefix: prefix, env: append(slices.Clone(d.Env()),
		"WINEPREFIX="+prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")}
	t.Cleanup(func() {
		kill := exec.Command("wineserver", "-k")
		kill.Env = append(os.Environ(), w.env...)
		_ = kill.Run() // no server left is fine
	})
	return w
}

// run runs a Windows program to its end and returns its standard output.
func (w *wine) run(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, w.bin, args...)
	cmd.Env = append(os.Environ(), w.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("wine %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// winPath is path as a Windows program under Wine sees it (drive Z: is /).
func winPath(path string) string {
	return `Z:` + strings.ReplaceAll(path, "/", `\`)
}

// waitAPI waits for the running Spirit's API in dataDir to answer /health.
// Nothing notifies of the file api.json: polled.
func waitAPI(ctx context.Context, dataDir string) (*api.Client, api.Health, error) {
	var c *api.Client
	var h api.Health
	var last error
	err := xtest.Poll(ctx, func() (bool, error) {
		info, err := api.ReadInfo(dataDir)
		if err != nil {
			last = err
			return false, nil
		}
		c = api.NewClient(info)
		h, last = c.Health(ctx)
		return last == nil, nil
	})
	if err != nil {
		return nil, h, fmt.Errorf("%w (last: %v)", err, last)
	}
	return c, h, nil
}

// startHeadless starts spirit.exe --headless on a new data folder and
// waits for /health; it returns the client, the first answer and how long
// the start took (Wine's process start included).
func startHeadless(t *testing.T, ctx context.Context, w *wine, exe string) (*api.Client, api.Health, string, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	start := time.Now()
	xtest.Run(t, ctx, w.bin, []string{exe, "--headless", "--data-dir", winPath(dir)}, w.env)
	actx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c, h, err := waitAPI(actx, dir)
	if err != nil {
		t.Fatalf("spirit.exe --headless: the API never answered: %v", err)
	}
	return c, h, dir, time.Since(start)
}

// openNotepads opens one Wine Notepad per document name, each on a file of
// that name, and returns their X windows in the same order.
func openNotepads(t *testing.T, ctx context.Context, d *xtest.Display, w *wine, names ...string) []uint32 {
	t.Helper()
	docs := t.TempDir()
	var ids []uint32
	for _, name := range names {
		path := filepath.Join(docs, name)
		if err := os.WriteFile(path, []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
		xtest.Run(t, ctx, w.bin, []string{"notepad", winPath(path)}, w.env)
		win, err := d.WaitWindow(ctx, notepadTitle(name), nil)
		if err != nil {
			t.Fatalf("notepad %s: %v", name, err)
		}
		ids = append(ids, win.ID)
	}
	return ids
}

// notepadTitle is the title Wine's Notepad gives a document.
func notepadTitle(name string) string { return name + " - Notepad" }

// TestWindowsUnderWine: spirit.exe, cross-built, starts under Wine, tells
// its version, serves /health on loopback with its token, says it reads no
// screen text, and sees the lawyer switch between two windows.
func TestWindowsUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds spirit.exe and runs Wine")
	}
	exe := buildWindows(t, t.Context())
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	d := xtest.StartDisplay(t, 1280, 800)
	w := startWine(t, ctx, d)

	t.Run("version", func(t *testing.T) {
		out := w.run(t, ctx, exe, "version")
		if want := "spirit " + wineVersionTag + " "; !strings.HasPrefix(out, want) || !strings.Contains(out, "windows/amd64") {
			t.Errorf("spirit.exe version = %q, want %q… windows/amd64", out, want)
		}
	})

	t.Run("headless", func(t *testing.T) {
		c, h, dir, took := startHeadless(t, ctx, w, exe)
		t.Logf("spirit.exe --headless answered /health after %v", took.Round(time.Millisecond))
		if h.Version != wineVersionTag {
			t.Errorf("/health version = %q, want %q", h.Version, wineVersionTag)
		}
		if st := h.Subsystems["store"]; st.State != "ok" || !strings.HasPrefix(st.Detail, winPath(dir)) {
			t.Errorf("/health store = %+v, want ok in %s", st, winPath(dir))
		}
		if got, want := h.Subsystems["screen_text"], (api.Subsystem{State: "unavailable",
			Detail: "screen text: not available on this system"}); got != want {
			t.Errorf("/health screen_text = %+v, want %+v", got, want)
		}

		// Two notepads with two documents: the watcher (a WinEvent hook)
		// must see each come to the front.
		names := []string{"Smith v Jones.txt", "Lease Acme.txt"}
		ids := openNotepads(t, ctx, d, w, names...)
		var last int64
		for i, name := range names {
			if err := d.Activate(ctx, ids[i]); err != nil {
				t.Fatalf("activate %s: %v", name, err)
			}
			e, err := waitWorld(ctx, c, last, fmt.Sprintf("switched to %q", notepadTitle(name)))
			if err != nil {
				t.Fatalf("world log: %v", err)
			}
			last = e.ID
		}
	})
}

// TestWindowsOrbUnderWine: spirit.exe with its window (Fyne on Wine's
// OpenGL) shows the orb, found by its title, and serves /health beside it.
// Wine's windows are placed by the X window manager, so where the orb sits
// is not what Windows would do and is not checked.
func TestWindowsOrbUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds spirit.exe and runs Wine")
	}
	exe := buildWindows(t, t.Context())
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	d := xtest.StartDisplay(t, 1280, 800)
	w := startWine(t, ctx, d)
	dir := t.TempDir()
	xtest.Run(t, ctx, w.bin, []string{exe, "--data-dir", winPath(dir)}, w.env)
	orb, err := d.WaitWindow(ctx, "Spirit", func(i xtest.WindowInfo) bool { return i.Viewable })
	if err != nil {
		t.Fatalf("no orb window titled Spirit: %v", err)
	}
	if r := orb.Rect; r.Dx() < 16 || r.Dy() < 16 || !r.In(image.Rect(0, 0, 1280, 800)) {
		t.Errorf("orb frame %v: want a visible window on the 1280×800 screen", r)
	}
	if _, h, err := waitAPI(ctx, dir); err != nil {
		t.Errorf("the API beside the orb never answered: %v", err)
	} else if h.Version != wineVersionTag {
		t.Errorf("/health version = %q, want %q", h.Version, wineVersionTag)
	}
}

// TestBenchWine prints `BENCH win_startup_ms` (from starting `wine
// spirit.exe --headless` to its first /health answer, Wine's start
// included; p50 of 3) and `BENCH win_switch_to_event_ms` (from asking X to
// bring a Notepad to the front to the time of its world-log entry, p95 of
// 20; the watcher's 400 ms debounce included). Run with SPIRIT_BENCH=1.
func TestBenchWine(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to run the Windows benchmark")
	}
	exe := buildWindows(t, t.Context())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	d := xtest.StartDisplay(t, 1280, 800)
	w := startWine(t, ctx, d)

	// Three Spirits side by side, each on its own data folder; the last
	// one's watcher is measured.
	var starts []time.Duration
	var c *api.Client
	for range 3 {
		var took time.Duration
		c, _, _, took = startHeadless(t, ctx, w, exe)
		starts = append(starts, took)
	}
	slices.Sort(starts)
	t.Logf("startups: %v", starts)

	names := []string{"Smith v Jones.txt", "Lease Acme.txt"}
	ids := openNotepads(t, ctx, d, w, names...)
	var last int64
	var lat []time.Duration
	for i := range 20 {
		at := time.Now()
		if err := d.Activate(ctx, ids[i%2]); err != nil {
			t.Fatalf("activate %s: %v", names[i%2], err)
		}
		e, err := waitWorld(ctx, c, last, fmt.Sprintf("switched to %q", notepadTitle(names[i%2])))
		if err != nil {
			t.Fatalf("world log: %v", err)
		}
		last = e.ID
		lat = append(lat, e.TS.Sub(at))
	}
	slices.Sort(lat)
	t.Logf("switch to world-log entry: %v", lat)
	fmt.Printf("BENCH win_startup_ms %d ms\n", starts[len(starts)/2].Milliseconds())
	fmt.Printf("BENCH win_switch_to_event_ms %d ms\n", lat[len(lat)*95/100].Milliseconds())
}

// waitWorld waits until the world log holds an entry after since from the
// screen whose text is want, and returns it (the whole log is read, to
// show every switch seen if none is). The API has no push for the
// world log: polled.
func waitWorld(ctx context.Context, c *api.Client, since int64, want string) (api.Entry, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var found api.Entry
	var seen []string
	err := xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 1000)
		if err != nil {
			return false, err
		}
		seen = seen[:0]
		for _, e := range es {
			if e.Source != "screen" {
				continue
			}
			seen = append(seen, fmt.Sprintf("%d %s: %s", e.ID, e.Identifier, e.Text))
			if e.ID > since && e.Text == want {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return found, fmt.Errorf("no %q: %w; the screen's entries: %q", want, err, seen)
	}
	return found, nil
}
