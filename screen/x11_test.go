//go:build linux

package screen_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen"
)

var (
	red   = color.RGBA{0xe0, 0x20, 0x20, 0xff}
	green = color.RGBA{0x20, 0xc0, 0x40, 0xff}
	blue  = color.RGBA{0x20, 0x40, 0xe0, 0xff}
	grey  = color.RGBA{0x80, 0x80, 0x80, 0xff}
)

// openDisplay connects platform.Display to d, closed at cleanup.
func openDisplay(t *testing.T, d *xtest.Display) *platform.Display {
	t.Helper()
	disp, err := platform.OpenDisplay(d.Name)
	if err != nil {
		t.Fatalf("OpenDisplay(%s): %v", d.Name, err)
	}
	t.Cleanup(func() { disp.Close() })
	return disp
}

func newWindow(t *testing.T, ctx context.Context, d *xtest.Display, spec xtest.WindowSpec) *xtest.Window {
	t.Helper()
	w, err := d.NewWindow(ctx, spec)
	if err != nil {
		t.Fatalf("NewWindow(%q): %v", spec.Title, err)
	}
	return w
}

func activate(t *testing.T, ctx context.Context, d *xtest.Display, w *xtest.Window) {
	t.Helper()
	if err := d.Activate(ctx, w.ID); err != nil {
		t.Fatalf("activate %#x: %v", w.ID, err)
	}
}

// nextSwitch waits for the next switch.
func nextSwitch(t *testing.T, ctx context.Context, w *screen.Watcher) screen.Switch {
	t.Helper()
	select {
	case sw, ok := <-w.Switches():
		if !ok {
			t.Fatalf("watcher stopped: %v", w.Err())
		}
		return sw
	case <-ctx.Done():
		t.Fatalf("no switch: %v", ctx.Err())
	}
	panic("unreachable")
}

// noSwitch fails if a switch arrives within d.
func noSwitch(t *testing.T, w *screen.Watcher, d time.Duration) {
	t.Helper()
	select {
	case sw, ok := <-w.Switches():
		if ok {
			t.Fatalf("unexpected switch %+v", sw)
		}
		t.Fatalf("watcher stopped: %v", w.Err())
	case <-time.After(d):
	}
}

func TestWatcherReportsEachSwitchOnce(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	tbPID := xtest.FakeApp(t, "thunderbird")
	loPID := xtest.FakeApp(t, "soffice.bin")
	mail := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Inbox - Mozilla Thunderbird", Class: "thunderbird",
		Instance: "Mail", PID: tbPID, Rect: image.Rect(40, 60, 600, 500), Color: red})
	doc := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Contract.odt - LibreOffice Writer", Class: "libreoffice-writer",
		Instance: "libreoffice", PID: loPID, Rect: image.Rect(660, 60, 1240, 500), Color: green})
	own := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Glance", Class: "spirit", PID: os.Getpid(),
		Rect: image.Rect(40, 540, 400, 760), Color: blue})
	ownByTitle := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Spirit — Reminders", Class: "spirit",
		PID: tbPID, Rect: image.Rect(440, 540, 800, 760), Color: grey})
	activate(t, ctx, d, own)

	const debounce = 300 * time.Millisecond
	goroutines := runtime.NumGoroutine()
	w := screen.StartWatcher(ctx, disp, screen.WatchConfig{Debounce: debounce})
	defer w.Stop()
	quiet := 3 * debounce

	// The watcher starts on one of Spirit's own windows: nothing to say.
	noSwitch(t, w, quiet)

	check := func(want *xtest.Window, title, app, process string, pid int) {
		t.Helper()
		sw := nextSwitch(t, ctx, w)
		if sw.Window != uint64(want.ID) || sw.Title != title || sw.App != app || sw.Process != process ||
			sw.PID != pid || sw.Excluded || sw.At.IsZero() {
			t.Fatalf("switch = %+v, want window %#x %q app %q process %q pid %d", sw, want.ID, title, app, process, pid)
		}
		noSwitch(t, w, quiet) // exactly once
	}
	activate(t, ctx, d, mail)
	check(mail, "Inbox - Mozilla Thunderbird", "thunderbird", "thunderbird", tbPID)
	activate(t, ctx, d, doc)
	check(doc, "Contract.odt - LibreOffice Writer", "libreoffice-writer", "soffice.bin", loPID)

	// Spirit's own windows, by PID and by title, are never reported.
	activate(t, ctx, d, own)
	noSwitch(t, w, quiet)
	activate(t, ctx, d, ownByTitle)
	noSwitch(t, w, quiet)

	activate(t, ctx, d, mail)
	check(mail, "Inbox - Mozilla Thunderbird", "thunderbird", "thunderbird", tbPID)

	// Another e-mail opened in the same window is a switch.
	if err := mail.SetTitle("Re: Settlement offer - Mozilla Thunderbird"); err != nil {
		t.Fatal(err)
	}
	check(mail, "Re: Settlement offer - Mozilla Thunderbird", "thunderbird", "thunderbird", tbPID)

	// Away and back within the debounce: nothing settled elsewhere.
	start := time.Now()
	activate(t, ctx, d, doc)
	activate(t, ctx, d, mail)
	if el := time.Since(start); el < debounce {
		noSwitch(t, w, quiet)
	} else {
		t.Logf("two activations took %v, longer than the debounce: skipping the bounce check", el)
		for len(w.Switches()) > 0 {
			<-w.Switches()
		}
	}

	activate(t, ctx, d, doc)
	check(doc, "Contract.odt - LibreOffice Writer", "libreoffice-writer", "soffice.bin", loPID)

	// Stop ends everything: the channel closes, no goroutine is left.
	w.Stop()
	if _, ok := <-w.Switches(); ok {
		t.Fatal("Switches still open after Stop")
	}
	if w.Err() != nil {
		t.Fatalf("Err after Stop = %v", w.Err())
	}
	waitGoroutines(t, goroutines)
}

// waitGoroutines waits until no more than want goroutines run: xgb's
// connection goroutines finish shortly after their reader.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWatcherStopsWithContext(t *testing.T) {
	d := xtest.StartDisplay(t, 640, 480)
	disp := openDisplay(t, d)
	goroutines := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(t.Context())
	w := screen.StartWatcher(ctx, disp, screen.WatchConfig{})
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case <-w.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("watcher did not stop on cancel")
	}
	waitGoroutines(t, goroutines)
}

// TestWatcherSurvivesClosingWindows races 200 windows that are created,
// activated and destroyed against a watcher that reads on every event, a
// capturer, and a loop reading the foreground and the window list: a
// window vanishing at any instant must give error values, never kill the
// process, and the watcher must still work afterwards.
func TestWatcherSurvivesClosingWindows(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	pid := xtest.FakeApp(t, "racer")

	w := screen.StartWatcher(ctx, disp, screen.WatchConfig{Debounce: -1})
	defer w.Stop()
	capt := screen.NewCapturer(disp, screen.CaptureConfig{})

	var switches, shots, snapshots, changedErrs atomic.Int64
	var unexpected sync.Map // error text → count
	note := func(err error) {
		switch {
		case err == nil:
		case errors.Is(err, platform.ErrWindowChanged), errors.Is(err, screen.ErrStale):
			changedErrs.Add(1)
		default:
			unexpected.Store(err.Error(), true)
		}
	}
	var wg sync.WaitGroup
	raceCtx, stopRace := context.WithCancel(ctx)
	wg.Go(func() {
		for {
			var sw screen.Switch
			select {
			case <-raceCtx.Done():
				return
			case sw = <-w.Switches():
			}
			switches.Add(1)
			if _, err := capt.Capture(raceCtx, sw); err == nil {
				shots.Add(1)
			} else if raceCtx.Err() == nil {
				note(err)
			}
		}
	})
	wg.Go(func() {
		for raceCtx.Err() == nil {
			_, err := disp.Foreground(raceCtx)
			if raceCtx.Err() != nil {
				return
			}
			note(err)
			_, err = disp.VisibleWindows(raceCtx)
			if raceCtx.Err() != nil {
				return
			}
			note(err)
			snapshots.Add(1)
		}
	})

	const cycles = 200
	start := time.Now()
	for i := range cycles {
		win, err := d.CreateWindow(xtest.WindowSpec{Title: "Ephemeral " + strconv.Itoa(i), Class: "racer",
			PID: pid, Rect: image.Rect(100+i%50*10, 100, 500+i%50*10, 400), Color: red})
		if err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		// Half the cycles wait until the window is active; half ask and
		// destroy it while the window manager may still be handling it.
		// xdotool failing on a vanished window is expected.
		if i%2 == 0 {
			_ = d.Activate(ctx, win.ID)
		} else {
			_ = d.Xdotool(ctx, "windowactivate", strconv.Itoa(int(win.ID)))
		}
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		win.Destroy()
	}
	stopRace()
	raceTime := time.Since(start)
	wg.Wait() // before the next switch, which the consumer must not take

	// Still alive and still watching.
	stable := newWindow(t, ctx, d, xtest.WindowSpec{Title: "After the storm", Class: "racer", PID: pid,
		Rect: image.Rect(200, 200, 600, 500), Color: green})
	activate(t, ctx, d, stable)
	after, cancelAfter := context.WithTimeout(ctx, 15*time.Second)
	defer cancelAfter()
	for {
		sw := nextSwitch(t, after, w)
		if sw.Window == uint64(stable.ID) && sw.Title == "After the storm" {
			break
		}
	}
	if err := w.Err(); err != nil {
		t.Fatalf("watcher failed: %v", err)
	}
	unexpected.Range(func(k, _ any) bool {
		t.Errorf("unexpected error during the race: %v", k)
		return true
	})
	t.Logf("%d cycles in %v: %d switches, %d shots, %d snapshot loops, %d changed-window errors (expected)",
		cycles, raceTime.Round(time.Millisecond), switches.Load(), shots.Load(), snapshots.Load(), changedErrs.Load())
}

func TestExcludedWindowsAreNeverCaptured(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	var logs xtest.LockedBuffer
	// Without times: a token of digits turns up in nanoseconds by chance.
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	excl := screen.NewExclusions([]string{"Signal"}, []string{"Privileged & Confidential"})
	debugDir := t.TempDir()
	capt := screen.NewCapturer(disp, screen.CaptureConfig{Exclusions: excl, Logger: logger, DebugDir: debugDir})
	w := screen.StartWatcher(ctx, disp, screen.WatchConfig{Debounce: 150 * time.Millisecond, Exclusions: excl, Logger: logger})
	defer w.Stop()

	tb := xtest.FakeApp(t, "thunderbird")
	mail := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Inbox - Mozilla Thunderbird", Class: "thunderbird",
		PID: tb, Rect: image.Rect(40, 40, 560, 420), Color: green})

	secret := []struct {
		spec   xtest.WindowSpec
		app    string // process name of the fake app owning it
		args   []string
		reason string
		token  string // a part of the title that must not leak
	}{
		{xtest.WindowSpec{Title: "Clients.kdbx - KeePassXC", Class: "KeePassXC", Instance: "keepassxc"},
			"keepassxc", nil, screen.ReasonPasswordManager, "Clients.kdbx"},
		{xtest.WindowSpec{Title: "Vault 7731 - Bitwarden", Class: "Bitwarden", Instance: "bitwarden"},
			"bitwarden", nil, screen.ReasonPasswordManager, "7731"},
		{xtest.WindowSpec{Title: "Divorce lawyer near me - Google Chrome (Incognito)", Class: "Google-chrome"},
			"chrome", nil, screen.ReasonPrivateBrowsing, "Divorce"},
		{xtest.WindowSpec{Title: "Gmail: sick note - Chromium", Class: "Chromium"},
			"chromium", []string{"--incognito"}, screen.ReasonPrivateBrowsing, "sick note"},
		{xtest.WindowSpec{Title: "Mum - Signal", Class: "Signal"},
			"signal-desktop", nil, screen.ReasonUserList, "Mum"},
		{xtest.WindowSpec{Title: "Privileged & Confidential memo - LibreOffice Writer", Class: "libreoffice-writer"},
			"soffice.bin", nil, screen.ReasonUserList, "memo"},
	}
	// New windows take the focus as they appear, so switches to other
	// windows may come first; all are kept for the leak check.
	var switches []screen.Switch
	switchTo := func(win *xtest.Window) screen.Switch {
		t.Helper()
		for {
			sw := nextSwitch(t, ctx, w)
			switches = append(switches, sw)
			if sw.Window == uint64(win.ID) {
				return sw
			}
		}
	}
	for i, s := range secret {
		s.spec.PID = xtest.FakeApp(t, s.app, s.args...)
		s.spec.Rect = image.Rect(640, 40, 1240, 420)
		s.spec.Color = red
		win := newWindow(t, ctx, d, s.spec)

		// Mail in front, the secret window visible beside it: the
		// secret window is blacked out of mail's shot.
		activate(t, ctx, d, mail)
		sw := switchTo(mail)
		shot, err := capt.Capture(ctx, sw)
		if err != nil {
			t.Fatalf("%d: capture mail: %v", i, err)
		}
		frame, err := win.Frame()
		if err != nil {
			t.Fatal(err)
		}
		if shot.Redacted < 1 {
			t.Errorf("%d: Redacted = %d, want ≥ 1", i, shot.Redacted)
		}
		for _, p := range []image.Point{frame.Min, frame.Max.Sub(image.Pt(1, 1)), frame.Min.Add(frame.Max).Div(2)} {
			if c := shot.Image.RGBAAt(p.X, p.Y); c != (color.RGBA{A: 0xff}) {
				t.Errorf("%d: pixel %v of the excluded window = %v, want black", i, p, c)
			}
		}
		if c := shot.Image.RGBAAt(300, 300); !near(c, green) {
			t.Errorf("%d: mail pixel = %v, want %v", i, c, green)
		}

		activate(t, ctx, d, win)
		sw = switchTo(win)
		// No name at all: not the title, not even which app.
		want := screen.Switch{PID: s.spec.PID, Window: uint64(win.ID), At: sw.At, Excluded: true, ExcludedBy: s.reason}
		if sw != want {
			t.Errorf("%d: switch = %+v, want %+v", i, sw, want)
		}
		if _, err := capt.Capture(ctx, sw); !errors.Is(err, screen.ErrExcluded) {
			t.Errorf("%d: Capture(excluded switch) = %v, want ErrExcluded", i, err)
		}
		// A caller that forgets the flag is refused all the same: the
		// live window is checked.
		forged := sw
		forged.Excluded, forged.Title = false, s.spec.Title
		if shot, err := capt.Capture(ctx, forged); !errors.Is(err, screen.ErrExcluded) {
			t.Errorf("%d: Capture(forged switch) = %v, %d bytes; want ErrExcluded", i, err, len(shot.Data))
		}
		win.Destroy()
	}
	for _, sw := range switches {
		if sw.Excluded && sw.Title != "" {
			t.Errorf("excluded switch with a title: %+v", sw)
		}
	}

	// No title of an excluded window anywhere: switches, logs, debug files.
	// The switches' times are left out: a token of digits such as "7731"
	// turns up in nanoseconds by chance.
	untimed := make([]screen.Switch, len(switches))
	for i, sw := range switches {
		sw.At = time.Time{}
		untimed[i] = sw
	}
	dump := fmt.Sprintf("%+v", untimed) + logs.String()
	files, _ := os.ReadDir(debugDir)
	for _, f := range files {
		dump += f.Name()
	}
	for _, s := range secret {
		for _, part := range []string{s.spec.Title, s.token} {
			if strings.Contains(dump, part) {
				t.Errorf("title text %q leaked:\n%s", part, dump)
			}
		}
	}
	if len(files) != len(secret) {
		t.Errorf("%d debug shots written, want %d (one per mail capture)", len(files), len(secret))
	}
}

// near reports whether two colours differ by at most 3 per channel (JPEG
// is not involved: Shot.Image holds the pixels before encoding).
func near(a, b color.RGBA) bool { return diff(a, b) <= 3 && a.A == b.A }

func TestCapturePixels(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	pid := xtest.FakeApp(t, "painter")

	wins := map[color.RGBA]*xtest.Window{}
	for i, c := range []color.RGBA{red, green, blue} {
		r := image.Rect(40+i*410, 80, 400+i*410, 400)
		wins[c] = newWindow(t, ctx, d, xtest.WindowSpec{Title: "Paint " + strconv.Itoa(i), Class: "painter", PID: pid, Rect: r, Color: c})
	}
	activate(t, ctx, d, wins[green])
	fg, err := disp.Foreground(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sw := screen.Switch{Window: fg.ID, App: fg.App(), Title: fg.Title}

	for _, tc := range []struct {
		name    string
		maxSide int
		format  screen.Format
		w, h    int
	}{
		{"full size PNG", 0, screen.PNG, 1280, 800},
		{"full size JPEG", 0, screen.JPEG, 1280, 800},
		{"downscaled", 640, screen.JPEG, 640, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			capt := screen.NewCapturer(disp, screen.CaptureConfig{MaxSide: tc.maxSide, Format: tc.format})
			shot, err := capt.Capture(ctx, sw)
			if err != nil {
				t.Fatal(err)
			}
			if b := shot.Image.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
				t.Fatalf("image %v, want %dx%d", b, tc.w, tc.h)
			}
			if shot.Monitor != image.Rect(0, 0, 1280, 800) {
				t.Errorf("monitor %v", shot.Monitor)
			}
			decoded, format, err := image.Decode(bytes.NewReader(shot.Data))
			if err != nil {
				t.Fatalf("decode %s: %v", shot.MIME, err)
			}
			if b := decoded.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h || "image/"+format != shot.MIME {
				t.Errorf("encoded %s %v as %s", format, b, shot.MIME)
			}
			scale := float64(tc.w) / 1280
			for c, win := range wins {
				r, err := win.Client()
				if err != nil {
					t.Fatal(err)
				}
				mid := r.Min.Add(r.Max).Div(2)
				p := image.Pt(int(float64(mid.X)*scale), int(float64(mid.Y)*scale))
				if got := shot.Image.RGBAAt(p.X, p.Y); !near(got, c) {
					t.Errorf("pixel %v = %v, want %v", p, got, c)
				}
				// The encoded image too; JPEG is lossy on flat colour
				// only by a few levels.
				cr, cg, cb, ca := decoded.At(p.X, p.Y).RGBA()
				got := color.RGBA{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8), uint8(ca >> 8)}
				if diff(got, c) > 12 || got.A != 0xff {
					t.Errorf("encoded pixel %v = %v, want about %v", p, got, c)
				}
			}
			// The root window is black and opaque, not transparent.
			if got := shot.Image.RGBAAt(tc.w-2, tc.h-2); got != (color.RGBA{A: 0xff}) {
				t.Errorf("root pixel = %v, want opaque black", got)
			}
		})
	}
}

func diff(a, b color.RGBA) int {
	abs := func(x int) int { return max(x, -x) }
	return max(abs(int(a.R)-int(b.R)), abs(int(a.G)-int(b.G)), abs(int(a.B)-int(b.B)))
}

func TestCaptureMonitorOfActiveWindow(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	if err := d.SplitMonitors(640); err != nil {
		t.Skipf("this Xvfb cannot simulate two monitors: %v", err)
	}
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	mons, err := disp.Monitors(ctx)
	if err != nil || len(mons) != 2 {
		t.Fatalf("Monitors = %v, %v; want two", mons, err)
	}
	pid := xtest.FakeApp(t, "painter")
	left := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Left", PID: pid, Rect: image.Rect(100, 100, 500, 500), Color: red})
	right := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Right", PID: pid, Rect: image.Rect(760, 100, 1160, 500), Color: blue})
	capt := screen.NewCapturer(disp, screen.CaptureConfig{})
	for _, tc := range []struct {
		win *xtest.Window
		mon image.Rectangle
		c   color.RGBA
	}{
		{right, image.Rect(640, 0, 1280, 800), blue},
		{left, image.Rect(0, 0, 640, 800), red},
	} {
		activate(t, ctx, d, tc.win)
		shot, err := capt.Capture(ctx, screen.Switch{Window: uint64(tc.win.ID)})
		if err != nil {
			t.Fatal(err)
		}
		if shot.Monitor != tc.mon || shot.Image.Bounds() != image.Rect(0, 0, 640, 800) {
			t.Errorf("window %#x: monitor %v, image %v; want %v", tc.win.ID, shot.Monitor, shot.Image.Bounds(), tc.mon)
		}
		r, _ := tc.win.Client()
		mid := r.Min.Add(r.Max).Div(2).Sub(tc.mon.Min)
		if got := shot.Image.RGBAAt(mid.X, mid.Y); !near(got, tc.c) {
			t.Errorf("window %#x: pixel %v = %v, want %v", tc.win.ID, mid, got, tc.c)
		}
	}
}

func TestCaptureDedup(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	pid := xtest.FakeApp(t, "thunderbird")

	first, err := xtest.TextImage(1000, 640, 15,
		"From: Jane Doe <jane@example.com>", "Subject: Settlement offer",
		"", "Dear Counsel,", "", "Please find attached our client's settlement offer in the",
		"matter of Smith v. Acme Corp. The offer remains open until Friday.",
		"", "Kind regards,", "Jane Doe")
	if err != nil {
		t.Fatal(err)
	}
	second, err := xtest.TextImage(1000, 640, 15,
		"From: Court Registry <registry@court.example>", "Subject: Hearing listed",
		"", "The hearing in case 2024/1187 has been listed for 3 March at 10:00", "in courtroom 4.",
		"", "Parties must file skeleton arguments seven days before the hearing, and",
		"bundles five days before.", "", "Registry")
	if err != nil {
		t.Fatal(err)
	}
	win := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Inbox - Mozilla Thunderbird", Class: "thunderbird",
		PID: pid, Rect: image.Rect(100, 60, 1100, 700), Image: first})
	activate(t, ctx, d, win)
	sw := screen.Switch{Window: uint64(win.ID), App: "thunderbird", Title: "Inbox - Mozilla Thunderbird"}
	capt := screen.NewCapturer(disp, screen.CaptureConfig{})
	dd := screen.NewDeduper(screen.DefaultDedupThreshold)
	key := screen.DedupKey(sw)

	shoot := func() screen.Shot {
		t.Helper()
		shot, err := capt.Capture(ctx, sw)
		if err != nil {
			t.Fatal(err)
		}
		return shot
	}
	a, b := shoot(), shoot()
	if a.Hash != b.Hash {
		t.Errorf("unchanged screen: hashes %v and %v differ", a.Hash, b.Hash)
	}
	if !dd.IsNew(key, a.Hash) {
		t.Error("first shot not new")
	}
	if dd.IsNew(key, b.Hash) {
		t.Error("unchanged screen is new again")
	}

	if err := win.SetImage(second); err != nil {
		t.Fatal(err)
	}
	c := shoot()
	t.Logf("hash distance between the two e-mails: %d bits", a.Hash.Distance(c.Hash))
	if !dd.IsNew(key, c.Hash) {
		t.Errorf("another e-mail in the same window is not new (distance %d)", a.Hash.Distance(c.Hash))
	}
	if dd.IsNew(key, shoot().Hash) {
		t.Error("the second e-mail, unchanged, is new again")
	}
	if os.Getenv("SPIRIT_KEEP_SHOTS") != "" {
		for i, s := range []screen.Shot{a, c} {
			var buf bytes.Buffer
			png.Encode(&buf, s.Image)
			os.WriteFile(fmt.Sprintf("%s/dedup-%d.png", os.Getenv("SPIRIT_KEEP_SHOTS"), i), buf.Bytes(), 0o600)
		}
	}
}

// TestCaptureRedactsOnlyVisibleParts: a password manager partly behind the
// e-mail is blacked out where it shows, not where the e-mail covers it;
// Spirit's own window is blacked out too.
func TestCaptureRedactsOnlyVisibleParts(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	vault := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Clients.kdbx - KeePassXC", Class: "KeePassXC",
		PID: xtest.FakeApp(t, "keepassxc"), Rect: image.Rect(300, 200, 900, 600), Color: red})
	own := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Spirit", PID: os.Getpid(),
		Rect: image.Rect(1000, 500, 1240, 760), Color: blue})
	mail := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Inbox - Mozilla Thunderbird", Class: "thunderbird",
		PID: xtest.FakeApp(t, "thunderbird"), Rect: image.Rect(40, 40, 600, 420), Color: green})
	activate(t, ctx, d, mail)

	shot, err := screen.NewCapturer(disp, screen.CaptureConfig{}).Capture(ctx, screen.Switch{Window: uint64(mail.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if shot.Redacted != 2 {
		t.Errorf("Redacted = %d, want 2", shot.Redacted)
	}
	vr, _ := vault.Client()
	or, _ := own.Client()
	black := color.RGBA{A: 0xff}
	for _, c := range []struct {
		p    image.Point
		want color.RGBA
		what string
	}{
		{image.Pt(400, 300), green, "mail over the vault"},
		{image.Pt(100, 100), green, "mail"},
		{image.Pt(vr.Max.X-20, vr.Max.Y-20), black, "vault beside mail"},
		{image.Pt(650, 300), black, "vault right of mail"},
		{or.Min.Add(or.Max).Div(2), black, "Spirit's own window"},
	} {
		if got := shot.Image.RGBAAt(c.p.X, c.p.Y); !near(got, c.want) {
			t.Errorf("%s at %v: %v, want %v", c.what, c.p, got, c.want)
		}
	}
}

// TestForegroundSnapshotIsConsistent reads the foreground window while two
// windows of different apps trade the focus as fast as xdotool can switch
// them: every snapshot's title, PID and class must be those of its window.
func TestForegroundSnapshotIsConsistent(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	disp := openDisplay(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	type want struct {
		title, class string
		pid          int
	}
	wants := map[uint64]want{}
	var wins []*xtest.Window
	for i, app := range []string{"thunderbird", "soffice.bin"} {
		pid := xtest.FakeApp(t, app)
		title := fmt.Sprintf("Window %d of %s", i, app)
		win := newWindow(t, ctx, d, xtest.WindowSpec{Title: title, Class: app, PID: pid,
			Rect: image.Rect(100+i*500, 100, 500+i*500, 500), Color: grey})
		wins = append(wins, win)
		wants[uint64(win.ID)] = want{title, app, pid}
	}
	flipCtx, stopFlip := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; flipCtx.Err() == nil; i++ {
			_ = d.Xdotool(flipCtx, "windowactivate", strconv.Itoa(int(wins[i%2].ID)))
		}
	})
	var reads, changed int
	seen := map[uint64]int{}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		fw, err := disp.Foreground(ctx)
		reads++
		if errors.Is(err, platform.ErrWindowChanged) {
			changed++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		w, ok := wants[fw.ID]
		if !ok {
			continue // nothing focused for an instant
		}
		seen[fw.ID]++
		if fw.Title != w.title || fw.Class != w.class || fw.PID != w.pid || fw.Process != w.class {
			t.Fatalf("inconsistent snapshot %+v, window %#x is %+v", fw, fw.ID, w)
		}
	}
	stopFlip()
	wg.Wait()
	t.Logf("%d reads, %d ErrWindowChanged, per window %v", reads, changed, seen)
	if len(seen) != 2 {
		t.Fatalf("saw windows %v, want both", seen)
	}
}
