//go:build linux

package a11y

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb/xproto"

	"github.com/spirit-app/spirit/platform/xtest"
)

// testMbox is the Inbox of the Thunderbird tests: the lawyer is Dana
// Scully <dana@example.com>, so Thunderbird shows her as "Me" in To.
const testMbox = `From - Mon Nov 23 10:00:00 2026
From: Marcy Howard <marcy@howard-law.com>
To: Dana Scully <dana@example.com>, Fox Mulder <fox@example.com>
Cc: Walter Skinner <skinner@example.com>, "Reyes, Monica" <monica@example.com>
Subject: Settlement draft for Henderson
Date: Mon, 23 Nov 2026 10:00:00 +0000
Message-ID: <m1@howard-law.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Dana, please review the settlement draft by Friday.

> From: Someone Else <else@example.com>
> Subject: Quoted history that is not the header

From - Tue Nov 24 11:30:00 2026
From: bob@lee.example
To: dana@example.com
Subject: Lunch on Thursday?
Date: Tue, 24 Nov 2026 11:30:00 +0000
Message-ID: <m2@lee.example>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Are you free?

`

// a11yDesktop is an X display with a session bus that runs the real
// at-spi-bus-launcher (accessibility on or off as a desktop would have it)
// and a Thunderbird on it. The test process's session bus is pointed at
// it, so Open finds it as Spirit would.
type a11yDesktop struct {
	d   *xtest.Display
	bus *xtest.Bus
	tb  *xtest.Thunderbird
	pid int // the main window's _NET_WM_PID
}

// startA11yDesktop starts the desktop. The launcher starts with
// org.a11y.Status.IsEnabled true (as GNOME has it when a screen reader or
// an accessibility setting is on), which is all Thunderbird needs: no
// GNOME_ACCESSIBILITY in its environment. Without enabled it is set false
// before Thunderbird starts. (The launcher stores the value with
// GSettings; on the private bus there is no dconf service, so nothing is
// stored.)
func startA11yDesktop(t *testing.T, ctx context.Context, layout string, enabled bool) *a11yDesktop {
	t.Helper()
	xtest.Require(t, "thunderbird")
	d := xtest.StartDisplay(t, 1280, 800)
	bus := xtest.StartSessionBus(t)
	xtest.StartAccessibilityBus(t, ctx, d, bus)
	if !enabled {
		setEnabled(t, ctx, bus, false)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)
	t.Setenv("AT_SPI_BUS_ADDRESS", "")

	mbox := filepath.Join(t.TempDir(), "mailbox.mbox")
	if err := os.WriteFile(mbox, []byte(testMbox), 0o600); err != nil {
		t.Fatal(err)
	}
	tb := xtest.StartThunderbird(t, ctx, d, xtest.ThunderbirdOptions{
		Name: "Dana Scully", Address: "dana@example.com", Mbox: mbox, Layout: layout,
		Env: bus.Env(),
	})
	pids, err := d.Prop32(xproto.Window(tb.Window.ID), "_NET_WM_PID")
	if err != nil || len(pids) != 1 {
		t.Fatalf("_NET_WM_PID of Thunderbird's window: %v %v", pids, err)
	}
	return &a11yDesktop{d: d, bus: bus, tb: tb, pid: int(pids[0])}
}

// setEnabled sets org.a11y.Status.IsEnabled as a desktop's accessibility
// setting does.
func setEnabled(t *testing.T, ctx context.Context, bus *xtest.Bus, on bool) {
	t.Helper()
	err := bus.Conn(t).Object(busName, busPath).CallWithContext(ctx, ifaceProps+".Set", 0, ifaceStatus, "IsEnabled", dbus.MakeVariant(on)).Err
	if err != nil {
		t.Fatalf("set IsEnabled %v: %v", on, err)
	}
}

// waitHeader polls MessageHeader until ok accepts its answer, and returns
// the last answer. Thunderbird fills its tree asynchronously after the
// pixels settle.
func waitHeader(ctx context.Context, r *Reader, w Window, ok func(MessageHeader, error) bool) (MessageHeader, error) {
	var h MessageHeader
	var err error
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	perr := xtest.Poll(ctx, func() (bool, error) {
		hh, e := r.MessageHeader(ctx, w)
		if ctx.Err() != nil {
			return false, nil // keep the last answer given in time
		}
		h, err = hh, e
		return ok(h, err), nil
	})
	if perr != nil {
		return h, fmt.Errorf("%w (last answer: %+v, %v)", perr, h, err)
	}
	return h, err
}

// TestThunderbirdMessageHeader reads the header of the message selected
// in the real Thunderbird's main window, in both layouts, then of a
// message tab, and gets ErrNoHeader — never a wrong header — for the list
// with nothing selected, a compose window and the dialog asking to save a
// draft.
func TestThunderbirdMessageHeader(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Thunderbird")
	}
	marcy := MessageHeader{
		SenderName: "Marcy Howard", SenderEmail: "marcy@howard-law.com",
		To:      []string{"Dana Scully <dana@example.com>", "Fox Mulder <fox@example.com>"},
		Cc:      []string{"Walter Skinner <skinner@example.com>", "Reyes, Monica <monica@example.com>"},
		Subject: "Settlement draft for Henderson",
		Time:    time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC),
	}
	bob := MessageHeader{
		SenderEmail: "bob@lee.example",
		To:          []string{"dana@example.com"}, // shown as "Me"
		Subject:     "Lunch on Thursday?",
		Time:        time.Date(2026, 11, 24, 11, 30, 0, 0, time.UTC),
	}
	for _, layout := range []string{"vertical", "classic"} {
		t.Run(layout, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
			defer cancel()
			desk := startA11yDesktop(t, ctx, layout, true)
			r, err := Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if on, err := r.Enabled(ctx); err != nil || !on {
				t.Fatalf("Enabled = %v, %v; want true", on, err)
			}
			main := Window{PID: desk.pid, Title: desk.tb.Window.Name}

			// Nothing is selected in a freshly opened Inbox. Until
			// Thunderbird has registered on the bus, ErrUnavailable.
			_, err = waitHeader(ctx, r, main, func(_ MessageHeader, err error) bool { return !errors.Is(err, ErrUnavailable) })
			if !errors.Is(err, ErrNoHeader) {
				t.Fatalf("Inbox with nothing selected: err = %v, want ErrNoHeader", err)
			}

			for _, want := range []MessageHeader{marcy, bob, marcy} {
				if err := desk.tb.SelectMessage(ctx, want.Subject); err != nil {
					t.Fatal(err)
				}
				got, err := waitHeader(ctx, r, main, func(h MessageHeader, err error) bool { return err == nil && h.Subject == want.Subject })
				checkHeader(t, "reading pane", got, err, want)
			}

			if layout != "vertical" {
				return
			}
			// The last selected message (Marcy's) in a tab of its own.
			if err := desk.tb.OpenMessageTab(ctx); err != nil {
				t.Fatal(err)
			}
			// The tab is titled "Home" while it loads, then by the
			// subject; Spirit sees each as a window switch.
			var title string
			if err := xtest.Poll(ctx, func() (bool, error) {
				var err error
				title, err = desk.tb.Title()
				return strings.HasPrefix(title, marcy.Subject), err
			}); err != nil {
				t.Fatalf("message tab title %q: %v", title, err)
			}
			got, err := waitHeader(ctx, r, Window{PID: desk.pid, Title: title}, func(h MessageHeader, err error) bool { return err == nil })
			checkHeader(t, "message tab", got, err, marcy)
			if err := desk.tb.CloseTab(ctx); err != nil {
				t.Fatal(err)
			}

			// A compose window, with the main window's header still
			// showing behind it, then the dialog asking to save it.
			compose, err := desk.tb.Compose(ctx)
			if err != nil {
				t.Fatal(err)
			}
			w := Window{PID: desk.pid, Title: compose.Name}
			if _, err := waitHeader(ctx, r, w, func(_ MessageHeader, err error) bool { return !errors.Is(err, ErrUnavailable) }); !errors.Is(err, ErrNoHeader) {
				t.Errorf("compose window %q: err = %v, want ErrNoHeader", compose.Name, err)
			}
			dialog, err := desk.tb.AskToClose(ctx, compose, "Draft text")
			if err != nil {
				t.Fatal(err)
			}
			w = Window{PID: desk.pid, Title: dialog.Name}
			if _, err := waitHeader(ctx, r, w, func(_ MessageHeader, err error) bool { return !errors.Is(err, ErrUnavailable) }); !errors.Is(err, ErrNoHeader) {
				t.Errorf("save dialog %q: err = %v, want ErrNoHeader", dialog.Name, err)
			}
			if err := desk.tb.Discard(ctx); err != nil {
				t.Fatal(err)
			}
			got, err = r.MessageHeader(ctx, main)
			checkHeader(t, "reading pane after compose", got, err, marcy)
		})
	}
}

// checkHeader compares a header read from Thunderbird with the message's
// own: the shown date's format is the locale's, so only that it is shown
// is checked; Time is exact.
func checkHeader(t *testing.T, where string, got MessageHeader, err error, want MessageHeader) {
	t.Helper()
	if err != nil {
		t.Errorf("%s, %q: err = %v", where, want.Subject, err)
		return
	}
	if got.Date == "" {
		t.Errorf("%s, %q: no Date shown", where, want.Subject)
	}
	want.Date = got.Date
	if !got.Time.Equal(want.Time) {
		t.Errorf("%s, %q: Time = %v, want %v", where, want.Subject, got.Time, want.Time)
	}
	want.Time = got.Time
	if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
		t.Errorf("%s:\n got %#v\nwant %#v", where, got, want)
	}
}

// TestBenchA11yHeader measures one MessageHeader call on the real
// Thunderbird with a message selected (p50/p95 over 60 calls), the CPU it
// costs Thunderbird and Spirit, and what turning accessibility on costs
// Thunderbird: memory and idle CPU before and after org.a11y.Status
// IsEnabled is set while it runs.
func TestBenchA11yHeader(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	desk := startA11yDesktop(t, ctx, "vertical", false)
	if err := desk.tb.SelectMessage(ctx, "Settlement draft for Henderson"); err != nil {
		t.Fatal(err)
	}
	const idle = 5 * time.Second
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	offRSS := rssKB(t, desk.pid)
	offCPU := cpuOver(t, desk.pid, idle)

	r, err := Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	main := Window{PID: desk.pid, Title: desk.tb.Window.Name}
	var offTimes []time.Duration
	for range 20 {
		start := time.Now()
		if _, err := r.MessageHeader(ctx, main); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("accessibility off: err = %v, want ErrUnavailable", err)
		}
		offTimes = append(offTimes, time.Since(start))
	}
	slices.Sort(offTimes)
	offMs := ms(offTimes[len(offTimes)/2])
	// Turn it on as a settings panel would; Thunderbird follows while
	// running.
	on := time.Now()
	setEnabled(t, ctx, desk.bus, true)
	if _, err := waitHeader(ctx, r, main, func(h MessageHeader, err error) bool { return err == nil }); err != nil {
		t.Fatalf("after enabling: %v", err)
	}
	enableMs := time.Since(on).Milliseconds()

	const n = 60
	times := make([]time.Duration, 0, n)
	tbBefore, selfBefore := cpuTicks(t, desk.pid), cpuTicks(t, os.Getpid())
	for range n {
		start := time.Now()
		h, err := r.MessageHeader(ctx, main)
		times = append(times, time.Since(start))
		if err != nil || h.SenderEmail != "marcy@howard-law.com" {
			t.Fatalf("MessageHeader = %+v, %v", h, err)
		}
	}
	tbTicks, selfTicks := cpuTicks(t, desk.pid)-tbBefore, cpuTicks(t, os.Getpid())-selfBefore
	// Idle cost once the tree exists and has been read.
	onCPU := cpuOver(t, desk.pid, idle)
	onRSS := rssKB(t, desk.pid)
	slices.Sort(times)
	fmt.Printf("BENCH a11y_header_ms %.1f ms\n", ms(times[n*95/100]))
	fmt.Printf("BENCH a11y_header_p50_ms %.1f ms\n", ms(times[n/2]))
	fmt.Printf("BENCH a11y_header_app_cpu_ms %.1f ms\n", float64(tbTicks)*10/n)
	fmt.Printf("BENCH a11y_header_self_cpu_ms %.1f ms\n", float64(selfTicks)*10/n)
	fmt.Printf("BENCH a11y_header_off_p50_ms %.1f ms\n", offMs)
	fmt.Printf("BENCH a11y_enable_to_tree_ms %d ms\n", enableMs)
	fmt.Printf("BENCH a11y_enable_rss_delta_mb %.1f MB\n", float64(onRSS-offRSS)/1024)
	fmt.Printf("BENCH a11y_idle_cpu_off_pct %.2f %%\n", offCPU)
	fmt.Printf("BENCH a11y_idle_cpu_on_pct %.2f %%\n", onCPU)
}

// cpuTicks returns pid's user+system CPU time in clock ticks (1/100 s).
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the parenthesized command name; utime and stime are
	// the 14th and 15th fields of the whole line.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// cpuOver returns pid's CPU use over d, in percent of one core.
func cpuOver(t *testing.T, pid int, d time.Duration) float64 {
	t.Helper()
	before := cpuTicks(t, pid)
	time.Sleep(d) // a measurement window, not synchronisation
	return float64(cpuTicks(t, pid)-before) * 10 / float64(d.Milliseconds()) * 100
}

// rssKB returns pid's resident memory in KiB.
func rssKB(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	t.Fatalf("no VmRSS for pid %d", pid)
	return 0
}

// TestUnavailable checks that every way of having no tree to read is
// ErrUnavailable, the caller's cue to use OCR: no session bus, a session
// bus without an accessibility bus (Open never starts one), and an
// accessibility bus on which the window's application is not.
func TestUnavailable(t *testing.T) {
	t.Run("no session bus", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
		t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
		t.Setenv("AT_SPI_BUS_ADDRESS", "")
		if r, err := Open(t.Context()); !errors.Is(err, ErrUnavailable) {
			if r != nil {
				r.Close()
			}
			t.Fatalf("Open = %v, want ErrUnavailable", err)
		}
	})
	t.Run("no accessibility bus", func(t *testing.T) {
		bus := xtest.StartSessionBus(t)
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)
		t.Setenv("AT_SPI_BUS_ADDRESS", "")
		if r, err := Open(t.Context()); !errors.Is(err, ErrUnavailable) {
			if r != nil {
				r.Close()
			}
			t.Fatalf("Open = %v, want ErrUnavailable", err)
		}
	})
	t.Run("window not on the bus", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		d := xtest.StartDisplay(t, 640, 480)
		bus := xtest.StartSessionBus(t)
		xtest.StartAccessibilityBus(t, ctx, d, bus)
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)
		t.Setenv("AT_SPI_BUS_ADDRESS", "")
		r, err := Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if on, err := r.Enabled(ctx); err != nil || !on {
			t.Errorf("Enabled = %v, %v; want true", on, err)
		}
		pid := xtest.FakeApp(t, "thunderbird")
		for _, w := range []Window{{PID: pid, Title: "Inbox - Mozilla Thunderbird"}, {Title: "Inbox - Mozilla Thunderbird"}, {}} {
			if _, err := r.MessageHeader(ctx, w); !errors.Is(err, ErrUnavailable) {
				t.Errorf("MessageHeader(%+v) = %v, want ErrUnavailable", w, err)
			}
		}
		for _, w := range []Window{{PID: pid, Title: "Inbox - Mozilla Thunderbird"}, {}} {
			if ch, err := r.Changes(ctx, w); !errors.Is(err, ErrUnavailable) || ch != nil {
				t.Errorf("Changes(%+v) = %v, %v, want ErrUnavailable", w, ch, err)
			}
		}
		// A question cut off by its context (a busy application, a
		// loaded machine) says nothing of the tree: it is the context's
		// error, never ErrUnavailable, which makes callers stop asking.
		cut, stop := context.WithCancel(ctx)
		stop()
		for _, w := range []Window{{PID: pid, Title: "Inbox - Mozilla Thunderbird"}, {Title: "Inbox - Mozilla Thunderbird"}} {
			if _, err := r.MessageHeader(cut, w); !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnavailable) {
				t.Errorf("MessageHeader(%+v) with its context ended = %v, want context.Canceled alone", w, err)
			}
		}
	})
}

// TestThunderbirdSelectionChanges watches the real Thunderbird's main
// window for selection changes: each message selected in the list is
// reported, and the header read after the report is the new message's
// (at once or after the few hundred milliseconds Thunderbird takes to
// fill it in). Ending the watch's context closes the channel.
func TestThunderbirdSelectionChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Thunderbird")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	desk := startA11yDesktop(t, ctx, "vertical", true)
	r, err := Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	main := Window{PID: desk.pid, Title: desk.tb.Window.Name}
	if _, err := waitHeader(ctx, r, main, func(_ MessageHeader, err error) bool { return !errors.Is(err, ErrUnavailable) }); !errors.Is(err, ErrNoHeader) {
		t.Fatalf("Inbox with nothing selected: %v, want ErrNoHeader", err)
	}
	wctx, stop := context.WithCancel(ctx)
	changes, err := r.Changes(wctx, main)
	if err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{"Settlement draft for Henderson", "Lunch on Thursday?", "Settlement draft for Henderson"} {
		for len(changes) > 0 { // what earlier selections left
			<-changes
		}
		sel, err := desk.tb.SelectMessageTimed(ctx, subject)
		if err != nil {
			t.Fatal(err)
		}
		// Typing into the quick filter may change the selection too:
		// the report that counts is the one at or after the key press
		// that selected the row.
		var at time.Time
		for at.Before(sel.Pressed) {
			select {
			case got, ok := <-changes:
				if !ok {
					t.Fatalf("selecting %q: the watch ended", subject)
				}
				at = got
			case <-ctx.Done():
				t.Fatalf("selecting %q: no selection change reported after the key press", subject)
			}
		}
		t.Logf("%q: reported %v after the key press", subject, at.Sub(sel.Pressed).Round(time.Millisecond))
		h, err := waitHeader(ctx, r, main, func(h MessageHeader, err error) bool { return err == nil && h.Subject == subject })
		if err != nil || h.Subject != subject {
			t.Fatalf("after the report of %q: header %+v, %v", subject, h, err)
		}
	}
	stop()
	for range changes { // closed once the watch has ended
	}
}
