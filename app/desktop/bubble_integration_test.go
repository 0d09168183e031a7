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

	// 2. An approval with the full draft, then a plain nudge, which waits.
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
	pb := show("plain", func(r image.Rectangle) bool { return r.Dy() > 160 && r.Dy() < 260 })

	// The nudge hotkey gives the bubble the keyboard without a click.
	xdo(t, ctx, d, "key", "ctrl+alt+space")
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
