package desktop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/xtest"
)

// TestBubbleKindsOnScreen raises a question, an approval and a plain nudge
// through the local API while the lawyer works in another window. Each
// bubble shows beside the orb with its text drawn and without taking the
// focus; clicking into the question's bubble gives it the keyboard, and the
// answer typed there comes back through the API.
func TestBubbleKindsOnScreen(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	shots := newBubbleShots(t)

	work := newFocusedWindow(t, ctx, d.disp, "Lawyer's brief")
	p := d.start(t, ctx, dataDir, nil)
	item, err := d.host.WaitItem(ctx)
	if err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, _ := d.disp.WorkArea()
	orb := d.waitOrb(t, ctx, dockedAt(wa))
	work.waitFocused(t, ctx)
	c := apiClient(t, ctx, dataDir)

	// A bubble sits left of the orb, level with it.
	beside := func(w xtest.WindowInfo) bool {
		return w.Viewable && w.Rect.Max.X <= orb.Rect.Min.X && w.Rect.Max.X >= orb.Rect.Min.X-20 &&
			w.Rect.Min.Y <= orb.Rect.Max.Y && w.Rect.Max.Y >= orb.Rect.Min.Y
	}
	// show waits for a bubble matching size, drawn (many colours), and checks
	// the lawyer's window kept the focus all along.
	show := func(name string, size func(image.Rectangle) bool) xtest.WindowInfo {
		t.Helper()
		b, err := d.disp.WaitWindow(ctx, "Spirit nudge", func(w xtest.WindowInfo) bool { return beside(w) && size(w.Rect) })
		if err != nil {
			all, _ := d.disp.FindWindows("Spirit nudge")
			t.Fatalf("%s: no bubble beside the orb %v: %v (windows %+v)\n%s", name, orb.Rect, err, all, p.Output())
		}
		var img image.Image
		colours := 0
		err = xtest.Poll(ctx, func() (bool, error) {
			a, err := work.active()
			if err != nil {
				return false, fmt.Errorf("%s: active window: %w", name, err)
			}
			if a != work.win {
				return false, fmt.Errorf("%s: focus went to window %d (bubble %d), want the lawyer's %d", name, a, b.ID, work.win)
			}
			img, err = d.disp.Screenshot()
			if err == nil {
				colours = distinctColours(img, b.Rect)
			}
			return colours >= 300, err // antialiased text: a blank or stale frame has far fewer
		})
		if err != nil {
			shots.save(name+"-failed", img)
			t.Fatalf("%s: bubble %v never showed rendered text (%d colours): %v", name, b.Rect, colours, err)
		}
		shots.save(name, img)
		// Still not focused once drawn and captured.
		a, err := work.active()
		if err != nil {
			t.Fatalf("%s: active window: %v", name, err)
		}
		if a != work.win {
			t.Fatalf("%s: the bubble took the focus: active %d (bubble %d), want the lawyer's %d", name, a, b.ID, work.win)
		}
		t.Logf("%s bubble at %v beside orb %v, %d colours", name, b.Rect, orb.Rect, colours)
		return b
	}

	// 1. A question with options.
	detail, _ := json.Marshal(map[string]any{"options": []string{"The short one", "The long one", "Neither"}})
	q, err := c.Notify(ctx, api.NewNudge{Kind: "question", Message: "Which draft should I send to Marcy Howard?", Detail: string(detail)})
	if err != nil {
		t.Fatal(err)
	}
	qb := show("question", func(r image.Rectangle) bool { return r.Dy() > 150 })

	// Clicking the bubble's heading gives it the keyboard; typing reaches it.
	click(t, d.disp, qb.Rect.Min.Add(image.Pt(24, 10)))
	err = xtest.Poll(ctx, func() (bool, error) {
		a, err := work.active()
		return a == qb.ID, err
	})
	if err != nil {
		t.Fatalf("clicked bubble %d never got the focus: %v\n%s", qb.ID, err, p.Output())
	}
	xdo(t, ctx, d, "type", "--delay", "15", "the long one, cc Priya")
	xdo(t, ctx, d, "key", "Return")
	err = xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 1000)
		for _, e := range es {
			if e.Identifier == fmt.Sprintf("nudge-%d", q.ID) && strings.Contains(e.Text, "accept: the long one, cc Priya") {
				return true, nil
			}
		}
		return false, err
	})
	if err != nil {
		t.Fatalf("typed answer never reached the nudge: %v\n%s", err, p.Output())
	}
	// The bubble is gone and the keyboard is back in the lawyer's window.
	work.waitFocused(t, ctx)

	// 2. An approval with the full draft (it opens whole), then a plain
	// nudge, which waits.
	body := "Hi Marcy,\n\nThanks for sending the SNDA for Brooklyn Gardens. We have reviewed it and are fine with " +
		"sections 1 through 6. On section 7, the tenant needs the non-disturbance covenant to survive a foreclosure " +
		"sale; please see our proposed language attached.\n\nBest regards,\nDana Whitfield"
	detail, _ = json.Marshal(map[string]any{"tool": "create_draft", "title": "Draft reply",
		"fields": []map[string]string{{"label": "To", "value": "Marcy Howard <marcy@x.com>"}, {"label": "Cc", "value": ""}, {"label": "Subject", "value": "Re: SNDA"}},
		"body":   body})
	ap, err := c.Notify(ctx, api.NewNudge{Kind: "approval", Message: "Save this reply in Drafts?", Detail: string(detail)})
	if err != nil {
		t.Fatal(err)
	}
	ab := show("approval", func(r image.Rectangle) bool { return r.Dy() > 280 })
	// Three lines long, so its bubble is told apart from one-line notices.
	plain, err := c.Notify(ctx, api.NewNudge{Kind: "info", Message: "Synced 12 new messages from Marcy Howard, Priya Shah " +
		"and the Brooklyn Gardens closing team; two of them mention the SNDA."})
	if err != nil {
		t.Fatal(err)
	}
	if bs, _ := d.disp.FindWindows("Spirit nudge"); len(bs) != 1 {
		t.Errorf("nudge windows = %d, want 1, the approval: %+v", len(bs), bs)
	} else if bs[0].Rect != ab.Rect {
		t.Errorf("the plain nudge replaced the approval: bubble at %v, want the approval's %v", bs[0].Rect, ab.Rect)
	}

	// 3. Once the approval is answered, the plain nudge shows. The question
	// and the approval were raised by no agent, so the agent runtime may add
	// "Spirit could not do that" notices: answer those from the API.
	if _, err := c.Respond(ctx, ap.ID, api.ActionDismiss, ""); err != nil {
		t.Fatal(err)
	}
	err = xtest.Poll(ctx, func() (bool, error) {
		ns, err := c.Nudges(ctx)
		if err != nil {
			return false, err
		}
		for _, n := range ns {
			if n.ID != plain.ID {
				if _, err := c.Respond(ctx, n.ID, api.ActionDismiss, ""); err != nil && !errors.Is(err, api.ErrConflict) {
					return false, err
				}
			}
		}
		return len(ns) == 1 && ns[0].ID == plain.ID, nil
	})
	if err != nil {
		t.Fatalf("the plain nudge is not the only one open: %v", err)
	}
	// A notice opens as one line beside the orb, without the focus.
	line := waitCompact(t, ctx, d, work, beside)
	t.Logf("plain notice: one line at %v", line.Rect)

	// The nudge hotkey opens it whole and gives it the keyboard without a click.
	xdo(t, ctx, d, "key", "ctrl+alt+space")
	pb, err := d.disp.WaitWindow(ctx, "Spirit nudge", func(w xtest.WindowInfo) bool {
		return beside(w) && w.Rect.Dy() > 160 && w.Rect.Dy() < 260
	})
	if err != nil {
		t.Fatalf("Ctrl+Alt+Space never opened the plain bubble beside the orb: %v\n%s", err, p.Output())
	}
	err = xtest.Poll(ctx, func() (bool, error) {
		a, err := work.active()
		return a == pb.ID, err
	})
	if err != nil {
		t.Fatalf("Ctrl+Alt+Space never focused bubble %d: %v\n%s", pb.ID, err, p.Output())
	}
	xdo(t, ctx, d, "type", "--delay", "15", "thanks")
	xdo(t, ctx, d, "key", "Return")
	err = xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 1000)
		for _, e := range es {
			if e.Identifier == fmt.Sprintf("nudge-%d", plain.ID) && e.Text == "accept: thanks" {
				return true, nil
			}
		}
		return false, err
	})
	if err != nil {
		t.Fatalf("the plain nudge was never answered from the keyboard: %v", err)
	}
	work.waitFocused(t, ctx)

	quitFromTray(t, ctx, item, p)
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, err := st.Nudge(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n.State != store.NudgeAccepted {
		t.Errorf("question nudge state = %s, want %s", n.State, store.NudgeAccepted)
	}
	if want := "the long one, cc Priya"; n.Answer != want {
		t.Errorf("question nudge answer = %q, want %q", n.Answer, want)
	}
}

func xdo(t *testing.T, ctx context.Context, d *desk, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = append(os.Environ(), d.disp.Env()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v\n%s", args, err, out)
	}
}

// bubbleShots keeps a test's screenshots in its temp dir, and in SPIRIT_SHOTS_DIR
// when set.
type bubbleShots struct {
	t   *testing.T
	dir string
}

func newBubbleShots(t *testing.T) *bubbleShots { return &bubbleShots{t: t, dir: t.TempDir()} }

func (s *bubbleShots) save(name string, img image.Image) {
	if img == nil {
		return
	}
	path := filepath.Join(s.dir, name+".png")
	if err := xtest.WritePNG(path, img); err != nil {
		s.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	s.t.Logf("screenshot: %s", path)
	if dir := os.Getenv("SPIRIT_SHOTS_DIR"); dir != "" {
		if err := copyShot(path, filepath.Join(dir, name+".png")); err != nil {
			s.t.Errorf("copy screenshot: %v", err)
		}
	}
}

func copyShot(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// compactMaxPx tells the bubble's one line from the whole bubble on screen.
const compactMaxPx = 60

// waitCompact waits for the bubble's one line where says, drawn, and checks
// the lawyer's window kept the focus. The window is read again on every
// look: it maps before the toolkit gives it its size.
func waitCompact(t *testing.T, ctx context.Context, d *desk, work *focusedWindow, where func(xtest.WindowInfo) bool) xtest.WindowInfo {
	t.Helper()
	var b xtest.WindowInfo
	var seen []xtest.WindowInfo
	colours := 0
	err := xtest.Poll(ctx, func() (bool, error) {
		ws, err := d.disp.FindWindows("Spirit nudge")
		if err != nil {
			return false, err
		}
		seen = ws
		for _, w := range ws {
			if w.Viewable && w.Rect.Dy() >= 20 && w.Rect.Dy() <= compactMaxPx && w.Rect.Dx() >= 100 && where(w) {
				img, err := d.disp.Screenshot()
				if err != nil {
					return false, err
				}
				b, colours = w, distinctColours(img, w.Rect)
				return colours >= 40, nil // antialiased text; a blank frame has a few
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no one-line bubble with its text drawn (last %+v, %d colours): %v", seen, colours, err)
	}
	if a, err := work.active(); err != nil || a != work.win {
		t.Fatalf("the one-line bubble took the focus: active %d (%v), want the lawyer's %d", a, err, work.win)
	}
	return b
}

// messagePage is a message as a mail window shows it: a header, then long
// lines of text from the top left down to the middle of the window.
func messagePage(t *testing.T, w, h int) *image.RGBA {
	t.Helper()
	lines := []textLine{
		{"RE: SNDA – Brooklyn Gardens", 22},
		{"Marcy Howard <marcy@howardlaw.com>   to Dana Whitfield   Tue 10:42", 15},
	}
	body := "Dana, following up on the SNDA for Brooklyn Gardens: the lender still wants the non-disturbance covenant in §4.2(b) to lapse on a foreclosure sale, "
	for i := range 16 {
		lines = append(lines, textLine{fmt.Sprintf("%2d  %s", i+1, body), 15})
	}
	return textPage(t, w, h, lines...)
}

// inkBounds is the smallest rectangle holding every non-white pixel of img.
func inkBounds(img image.Image) image.Rectangle {
	var r image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if cr, cg, cb, _ := img.At(x, y).RGBA(); cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// TestBubbleStaysOffTheMessage: over a maximised message window a glance
// shows as one line at the orb's edge, in the corner where the message has
// no text, not over the right side of its lines as the whole bubble beside
// the orb did. Pointing at the line opens the whole bubble from there; it
// folds back once the pointer leaves, unless something was typed in it.
func TestBubbleStaysOffTheMessage(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	shots := newBubbleShots(t)

	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	const title = "RE: SNDA – Brooklyn Gardens - Reading"
	page := messagePage(t, wa.Dx(), wa.Dy())
	msg := mailWindow(t, ctx, d.disp, title, "", wa, page)
	p := d.start(t, ctx, dataDir, nil)
	item, err := d.host.WaitItem(ctx)
	if err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	orb := d.waitOrb(t, ctx, dockedAt(wa))
	msg.waitFocused(t, ctx)
	ws, err := d.disp.FindWindows(title)
	if err != nil || len(ws) != 1 {
		t.Fatalf("message window: %+v, %v", ws, err)
	}
	frame := ws[0].Frame.Intersect(image.Rect(0, 0, d.disp.Width, d.disp.Height))
	text := inkBounds(page).Add(ws[0].Rect.Min).Intersect(frame) // the lines the lawyer reads
	t.Logf("message window frame %v, its text %v, orb %v", frame, text, orb.Rect)

	c := apiClient(t, ctx, dataDir)
	// A glance is about the message in front when it shows; raised through
	// the API before Spirit saw the message window, it would fold back as
	// soon as Spirit did.
	waitWorld(t, ctx, c, fmt.Sprintf("switched to %q", title))
	n, err := c.Notify(ctx, api.NewNudge{Kind: "glance",
		Message: "Marcy Howard is waiting on your reply about SNDA – Brooklyn Gardens. Draft a reply?"})
	if err != nil {
		t.Fatal(err)
	}

	// One line, off the text, inside the work area.
	line := waitCompact(t, ctx, d, msg, func(xtest.WindowInfo) bool { return true })
	if img, err := d.disp.Screenshot(); err == nil {
		shots.save("compact", img)
	}
	if line.Rect.Overlaps(text) {
		t.Errorf("the one-line bubble %v covers the message's text %v", line.Rect, text)
	}
	if !line.Rect.In(wa) {
		t.Errorf("the one-line bubble %v is not inside the work area %v", line.Rect, wa)
	}
	if line.Rect.Overlaps(orb.Rect) {
		t.Errorf("the one-line bubble %v covers the orb %v", line.Rect, orb.Rect)
	}

	// Pointing at it opens the whole bubble, grown from the line, without
	// taking the focus.
	at := line.Rect.Min.Add(image.Pt(line.Rect.Dx()/2, line.Rect.Dy()/2))
	xdo(t, ctx, d, "mousemove", fmt.Sprint(at.X), fmt.Sprint(at.Y))
	full, err := d.disp.WaitWindow(ctx, "Spirit nudge", func(w xtest.WindowInfo) bool {
		return w.Viewable && w.Rect.Dy() > 120
	})
	if err != nil {
		t.Fatalf("pointing at the line never opened the bubble: %v\n%s", err, p.Output())
	}
	if !at.In(full.Rect) {
		t.Errorf("the open bubble %v moved from under the pointer at %v", full.Rect, at)
	}
	if !line.Rect.In(full.Rect) {
		t.Errorf("the open bubble %v did not grow from its line %v", full.Rect, line.Rect)
	}
	if a, err := msg.active(); err != nil || a != msg.win {
		t.Errorf("pointing at the bubble took the focus: active %d (%v), want the message window %d", a, err, msg.win)
	}
	if img, err := d.disp.Screenshot(); err == nil {
		shots.save("open", img)
	}

	// Before: the whole bubble sat left of the orb, centred on it.
	midY := (orb.Rect.Min.Y + orb.Rect.Max.Y) / 2
	before := image.Rect(orb.Rect.Min.X-8-full.Rect.Dx(), midY-full.Rect.Dy()/2, orb.Rect.Min.X-8, midY-full.Rect.Dy()/2+full.Rect.Dy())
	if !before.Overlaps(text) {
		t.Fatalf("test setup: the old place %v would not cover the text %v either", before, text)
	}
	coverText := func(r image.Rectangle) int { return area(r.Intersect(text)) }
	coverWin := func(r image.Rectangle) int { return area(r.Intersect(frame)) }
	if got, old := coverText(full.Rect), coverText(before); got >= old {
		t.Errorf("the open bubble covers %d px² of text, want less than the %d px² the old place covered", got, old)
	}
	t.Logf("sizes: one line %dx%d px, whole %dx%d px", line.Rect.Dx(), line.Rect.Dy(), full.Rect.Dx(), full.Rect.Dy())
	t.Logf("before: whole bubble beside the orb at %v covers %d px² of the window, %d px² of its text", before, coverWin(before), coverText(before))
	t.Logf("after: one line at %v covers %d px² of the window, %d px² of its text; opened at %v: %d px² and %d px²",
		line.Rect, coverWin(line.Rect), coverText(line.Rect), full.Rect, coverWin(full.Rect), coverText(full.Rect))

	// The pointer leaves: back to the line, where it was.
	xdo(t, ctx, d, "mousemove", "300", "300")
	back := waitCompact(t, ctx, d, msg, func(xtest.WindowInfo) bool { return true })
	if back.Rect != line.Rect {
		t.Errorf("folded back to %v, want the line's place %v", back.Rect, line.Rect)
	}

	// Typed text is never lost: open it, click into it, type, leave it
	// and go back to the message; it stays open with the text.
	xdo(t, ctx, d, "mousemove", fmt.Sprint(at.X), fmt.Sprint(at.Y))
	full, err = d.disp.WaitWindow(ctx, "Spirit nudge", func(w xtest.WindowInfo) bool {
		return w.Viewable && w.Rect.Dy() > 120
	})
	if err != nil {
		t.Fatalf("pointing at the line again never opened the bubble: %v", err)
	}
	focusBubble := func() {
		t.Helper()
		click(t, d.disp, full.Rect.Min.Add(image.Pt(24, 10)))
		err := xtest.Poll(ctx, func() (bool, error) {
			a, err := msg.active()
			return a == full.ID, err
		})
		if err != nil {
			t.Fatalf("clicked bubble %d never got the focus: %v\n%s", full.ID, err, p.Output())
		}
	}
	focusBubble()
	xdo(t, ctx, d, "type", "--delay", "15", "after lunch")
	xdo(t, ctx, d, "mousemove", "300", "300")
	if err := d.disp.Activate(ctx, msg.win); err != nil {
		t.Fatal(err)
	}
	msg.waitFocused(t, ctx)
	// The pointer watch looks every 150 ms and folds after 400 ms away: a
	// bubble that would fold does so well within this span.
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		bs, err := d.disp.FindWindows("Spirit nudge")
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) != 1 || !bs[0].Viewable || bs[0].Rect.Dy() <= compactMaxPx {
			t.Fatalf("the bubble with typed text folded or went: %+v", bs)
		}
	}
	focusBubble()
	xdo(t, ctx, d, "key", "Escape")
	err = xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 1000)
		for _, e := range es {
			if e.Identifier == fmt.Sprintf("nudge-%d", n.ID) && e.Text == "dismiss: after lunch" {
				return true, nil
			}
		}
		return false, err
	})
	if err != nil {
		t.Fatalf("the typed text never came back with the answer: %v\n%s", err, p.Output())
	}
	quitFromTray(t, ctx, item, p)
}
