//go:build linux

package screen_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen"
)

const (
	mailMainTitle = "Inbox - dana@example.com - Mozilla Thunderbird"
	writerTitle   = "Agreement.odt - LibreOffice Writer"
	testPaneTick  = 100 * time.Millisecond
)

// mailMain stands in for the glance's predicate (agents/glance.WatchPane,
// tested there): a Thunderbird folder view.
func mailMain(sw screen.Switch) bool { return strings.HasPrefix(sw.Title, "Inbox - ") }

// paneText renders a three-pane mail window showing message n: a list with
// the n-th row selected, and the message's header and body.
func paneText(t *testing.T, w, h, n int) *image.RGBA {
	t.Helper()
	var lines []string
	for i := range 8 {
		mark := "  "
		if i == n {
			mark = "> "
		}
		lines = append(lines, fmt.Sprintf("%sSender %d    Subject of message number %d in the inbox    %d Nov", mark, i, i, i+3))
	}
	lines = append(lines, "", fmt.Sprintf("From: Sender %d <sender%d@example.com>", n, n),
		fmt.Sprintf("Subject: Subject of message number %d in the inbox", n), "To: dana@example.com", "")
	for l := range 16 {
		lines = append(lines, fmt.Sprintf("Paragraph %d of message %d: the parties agree that clause %d shall apply.", l, n, (l*7+n*3)%40))
	}
	img, err := xtest.TextImage(w, h, 15, lines...)
	if err != nil {
		t.Fatal(err)
	}
	highlight(img, n)
	return img
}

// mailAndWriter opens a Thunderbird main window showing message 0 and a
// LibreOffice Writer window beside it, each of a process of its own.
func mailAndWriter(t *testing.T, ctx context.Context, d *xtest.Display) (mail, writer *xtest.Window, mailRect, writerRect image.Rectangle) {
	t.Helper()
	tb := xtest.FakeApp(t, "thunderbird")
	lo := xtest.FakeApp(t, "soffice.bin")
	mailRect, writerRect = image.Rect(40, 40, 1000, 700), image.Rect(300, 100, 1200, 760)
	mail = newWindow(t, ctx, d, xtest.WindowSpec{Title: mailMainTitle, Class: "thunderbird", PID: tb,
		Rect: mailRect, Image: paneText(t, mailRect.Dx(), mailRect.Dy(), 0)})
	writer = newWindow(t, ctx, d, xtest.WindowSpec{Title: writerTitle, Class: "libreoffice-writer", PID: lo,
		Rect: writerRect, Image: paneText(t, writerRect.Dx(), writerRect.Dy(), 0)})
	return mail, writer, mailRect, writerRect
}

// paneService runs a WatchService on d that watches mail main windows'
// panes every testPaneTick, with whatever the test changes in its options;
// every switch it reports arrives on the channel.
func paneService(t *testing.T, ctx context.Context, d *xtest.Display, change ...func(*screen.ServiceOptions)) (*screen.WatchService, <-chan screen.Switch) {
	t.Helper()
	out := make(chan screen.Switch, 64)
	opts := screen.ServiceOptions{
		OpenDisplay:  func() (*platform.Display, error) { return platform.OpenDisplay(d.Name) },
		OnSwitch:     func(_ context.Context, sw screen.Switch) { out <- sw },
		WatchPane:    mailMain,
		PaneInterval: testPaneTick,
		Log:          slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for _, c := range change {
		c(&opts)
	}
	w := screen.NewWatchService(opts)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	return w, out
}

// switchTo waits for the switch to win, skipping earlier ones; none of them
// may be a pane change.
func switchTo(t *testing.T, ctx context.Context, out <-chan screen.Switch, win *xtest.Window) screen.Switch {
	t.Helper()
	for {
		select {
		case sw := <-out:
			if sw.PaneChanged {
				t.Fatalf("pane change %+v while waiting for the switch to %#x", sw, win.ID)
			}
			if sw.Window == uint64(win.ID) {
				return sw
			}
		case <-ctx.Done():
			t.Fatalf("no switch to %#x: %v", win.ID, ctx.Err())
		}
	}
}

// quiet fails if anything is reported within ticks pane intervals.
func quiet(t *testing.T, out <-chan screen.Switch, ticks int, why string) {
	t.Helper()
	select {
	case sw := <-out:
		t.Fatalf("%s: reported %+v", why, sw)
	case <-time.After(time.Duration(ticks) * testPaneTick):
	}
}

// TestPaneChangeIsReportedOnceSettled: while a mail client's main window
// is in front, another message in its pane (same title) is reported once,
// as a pane change of the same switch; nothing is reported while the pane
// is unchanged, for a window that is not a mail main window, after
// switching away, or while paused.
func TestPaneChangeIsReportedOnceSettled(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	mail, writer, mailRect, writerRect := mailAndWriter(t, ctx, d)
	w, out := paneService(t, ctx, d)

	activate(t, ctx, d, mail)
	first := switchTo(t, ctx, out, mail)
	quiet(t, out, 10, "unchanged pane")

	if err := mail.SetImage(paneText(t, mailRect.Dx(), mailRect.Dy(), 3)); err != nil {
		t.Fatal(err)
	}
	select {
	case sw := <-out:
		if !sw.PaneChanged || sw.Window != first.Window || sw.Title != first.Title || sw.App != first.App {
			t.Fatalf("after another message: got %+v, want a pane change of %+v", sw, first)
		}
	case <-ctx.Done():
		t.Fatal("another message in the pane was never reported")
	}
	quiet(t, out, 10, "settled pane, reported once")
	if got := w.PaneChanges(); got != 1 {
		t.Errorf("PaneChanges = %d, want 1", got)
	}

	// Not a mail main window: its content changes unreported.
	activate(t, ctx, d, writer)
	switchTo(t, ctx, out, writer)
	if err := writer.SetImage(paneText(t, writerRect.Dx(), writerRect.Dy(), 5)); err != nil {
		t.Fatal(err)
	}
	quiet(t, out, 10, "a window that is not a mail main window")

	// Switched away: the mail window behind changes unreported.
	if err := mail.SetImage(paneText(t, mailRect.Dx(), mailRect.Dy(), 6)); err != nil {
		t.Fatal(err)
	}
	quiet(t, out, 10, "a mail window no longer in front")

	// Paused: nothing is watched.
	activate(t, ctx, d, mail)
	switchTo(t, ctx, out, mail)
	if err := w.SetPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := mail.SetImage(paneText(t, mailRect.Dx(), mailRect.Dy(), 1)); err != nil {
		t.Fatal(err)
	}
	quiet(t, out, 10, "paused")
}

// highlight tints line i of a TextImage page (size 15) light blue, as mail
// clients show the selected message in the list.
func highlight(img *image.RGBA, i int) {
	top := 30 + 22*i - 16
	for y := max(top, 0); y < min(top+22, img.Rect.Dy()); y++ {
		for x := range img.Rect.Dx() {
			o := img.PixOffset(x, y)
			img.Pix[o] = uint8(int(img.Pix[o]) * 3 / 4)
			img.Pix[o+1] = uint8(int(img.Pix[o+1]) * 7 / 8)
		}
	}
}

// TestPaneIgnoresWindowsAbove: Spirit's bubble appearing above the mail
// window, and changing, is not a new message; a new message under it
// still is.
func TestPaneIgnoresWindowsAbove(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tb := xtest.FakeApp(t, "thunderbird")
	mailRect := image.Rect(40, 40, 1000, 700)
	mail := newWindow(t, ctx, d, xtest.WindowSpec{Title: mailMainTitle, Class: "thunderbird", PID: tb,
		Rect: mailRect, Image: paneText(t, mailRect.Dx(), mailRect.Dy(), 0)})
	_, out := paneService(t, ctx, d)
	activate(t, ctx, d, mail)
	switchTo(t, ctx, out, mail)
	quiet(t, out, 10, "unchanged pane")

	// The bubble: always on top, over the right side of the pane, as
	// Spirit's desktop shows it.
	t.Setenv("DISPLAY", d.Name)
	desk, err := platform.OpenDesktop()
	if err != nil {
		t.Fatal(err)
	}
	defer desk.Close()
	bubble := newWindow(t, ctx, d, xtest.WindowSpec{Title: "Spirit", Rect: image.Rect(600, 300, 980, 520), Color: grey})
	if err := desk.PrepareFloating(bubble.ID, false); err != nil {
		t.Fatal(err)
	}
	activate(t, ctx, d, mail)
	quiet(t, out, 10, "a bubble came above the pane")
	for _, c := range []color.RGBA{red, green, blue} {
		if err := bubble.SetColor(c); err != nil {
			t.Fatal(err)
		}
		quiet(t, out, 3, "the bubble changed")
	}

	if err := mail.SetImage(paneText(t, mailRect.Dx(), mailRect.Dy(), 4)); err != nil {
		t.Fatal(err)
	}
	select {
	case sw := <-out:
		if !sw.PaneChanged || sw.Window != uint64(mail.ID) {
			t.Fatalf("after another message: got %+v, want a pane change of the mail window", sw)
		}
	case <-ctx.Done():
		t.Fatal("another message under the bubble was never reported")
	}
	quiet(t, out, 10, "settled pane, reported once")
}

// paneAsk is one call of ServiceOptions.PaneEvents: the switch, the
// context it is given, and the channel the test sends its events on.
type paneAsk struct {
	sw  screen.Switch
	ctx context.Context
	ch  chan time.Time
}

// TestPaneEventsReplacePixels: while the application tells its selection
// changes (PaneEvents), the pane's pixels are not sampled; a burst of
// events is one pane change; when the application stops telling (the
// channel closes) the pixels are sampled again; the next switch ends the
// events' context.
func TestPaneEventsReplacePixels(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	mail, writer, mailRect, _ := mailAndWriter(t, ctx, d)
	asks := make(chan paneAsk, 4)
	w, out := paneService(t, ctx, d, func(o *screen.ServiceOptions) {
		o.PaneEvents = func(ctx context.Context, sw screen.Switch) (<-chan time.Time, error) {
			a := paneAsk{sw: sw, ctx: ctx, ch: make(chan time.Time, 8)}
			asks <- a
			return a.ch, nil
		}
	})
	nextAsk := func() paneAsk {
		t.Helper()
		select {
		case a := <-asks:
			return a
		case <-ctx.Done():
			t.Fatal("PaneEvents was never asked")
			return paneAsk{}
		}
	}
	paneChange := func(why string, first screen.Switch) {
		t.Helper()
		select {
		case sw := <-out:
			if !sw.PaneChanged || sw.Window != first.Window || sw.Title != first.Title {
				t.Fatalf("%s: got %+v, want a pane change of %+v", why, sw, first)
			}
		case <-ctx.Done():
			t.Fatalf("%s: never reported", why)
		}
	}

	activate(t, ctx, d, mail)
	first := switchTo(t, ctx, out, mail)
	a := nextAsk()
	if a.sw.Window != first.Window {
		t.Fatalf("PaneEvents asked for %+v, want %+v", a.sw, first)
	}
	// The pixels change but the application said nothing: not sampled.
	if err := mail.SetImage(paneText(t, mailRect.Dx(), mailRect.Dy(), 3)); err != nil {
		t.Fatal(err)
	}
	quiet(t, out, 10, "pixels while the application tells its selection")
	for range 3 {
		a.ch <- time.Now()
	}
	paneChange("a burst of selection events", first)
	quiet(t, out, 10, "a burst, reported once")

	// The application leaves the bus: back to the pixels.
	close(a.ch)
	quiet(t, out, 5, "the events closing")
	if err := mail.SetImage(paneText(t, mailRect.Dx(), mailRect.Dy(), 5)); err != nil {
		t.Fatal(err)
	}
	paneChange("pixels after the events closed", first)

	// A switch away and back: the events are asked for again, and the
	// next switch ends their context.
	activate(t, ctx, d, writer)
	switchTo(t, ctx, out, writer)
	activate(t, ctx, d, mail)
	switchTo(t, ctx, out, mail)
	b := nextAsk()
	activate(t, ctx, d, writer)
	switchTo(t, ctx, out, writer)
	select {
	case <-b.ctx.Done():
	case <-ctx.Done():
		t.Fatal("the events' context outlived the switch away")
	}
	// Events for a window no longer in front are not reported.
	select {
	case b.ch <- time.Now():
	default:
	}
	quiet(t, out, 5, "an event after the switch away")
	if got := w.PaneChanges(); got != 2 {
		t.Errorf("PaneChanges = %d, want 2", got)
	}
}
