//go:build linux

package xtest_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
)

// threepaneMbox is the labelled three-pane mailbox of the desktop tests.
const threepaneMbox = "../../app/desktop/testdata/threepane/mailbox.mbox"

// TestThunderbirdSelectMessage starts the real Thunderbird on a fresh
// profile over a local mbox, in both layouts, and selects messages in the
// main window's list: each selection changes the window's pixels (the
// reading pane shows the message) but not its title, and selecting
// another message changes them again, where the layout puts the pane. The
// title names the account, as a lawyer's Inbox does. In the vertical
// layout it also opens and closes a message tab, a reply with its prompt
// to save the draft, and a new message.
func TestThunderbirdSelectMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Thunderbird")
	}
	mbox, err := filepath.Abs(threepaneMbox)
	if err != nil {
		t.Fatal(err)
	}
	for _, layout := range []string{"vertical", "classic"} {
		t.Run(layout, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			d := xtest.StartDisplay(t, 1280, 800)
			start := time.Now()
			tb := xtest.StartThunderbird(t, ctx, d, xtest.ThunderbirdOptions{
				Name: "Dana Whitfield", Address: "dana.whitfield@hartleyross.com",
				Mbox: mbox, Layout: layout,
			})
			t.Logf("thunderbird up in %v", time.Since(start).Round(time.Millisecond))
			const inbox = "Inbox - dana.whitfield@hartleyross.com - Mozilla Thunderbird"
			if tb.Window.Name != inbox {
				t.Fatalf("main window %q, want %q", tb.Window.Name, inbox)
			}
			shots := []*image.RGBA{grab(t, tb)}
			for _, subject := range []string{"Re: Estoppel Certificate - 400 Lakeview Tower", "Deposition of Karen Liu - Scheduling"} {
				if err := tb.SelectMessage(ctx, subject); err != nil {
					save(t, d, layout+"-select.png")
					t.Fatal(err)
				}
				shot := grab(t, tb)
				prev := shots[len(shots)-1]
				if bytes.Equal(prev.Pix, shot.Pix) {
					t.Fatalf("selecting %q left the window unchanged", subject)
				}
				// From one message to the next, the window changes
				// below the list in the classic layout (the pane's
				// body), not in the vertical one (the list's empty
				// rows).
				if below := changedIn(prev, shot, belowList); len(shots) == 2 && below != (layout == "classic") {
					t.Errorf("%s layout: selecting %q changed the window below the list: %v", layout, subject, below)
				}
				shots = append(shots, shot)
				save(t, d, fmt.Sprintf("%s-%d.png", layout, len(shots)-1))
				if title, err := tb.Title(); err != nil || title != inbox {
					t.Fatalf("title after selecting %q = %q (%v), want it unchanged: %q", subject, title, err, inbox)
				}
			}
			if layout == "vertical" {
				windows(t, ctx, tb)
			}
		})
	}
}

// windows opens and closes the other windows a lawyer meets: the selected
// message in a tab, a reply with the prompt to save it, a new message.
func windows(t *testing.T, ctx context.Context, tb *xtest.Thunderbird) {
	t.Helper()
	const tab = "Deposition of Karen Liu - Scheduling - Mozilla Thunderbird"
	if err := tb.OpenMessageTab(ctx); err != nil {
		t.Fatal(err)
	}
	if title, err := tb.Title(); err != nil || title != tab {
		t.Fatalf("title with the message tab open = %q (%v), want %q", title, err, tab)
	}
	if err := tb.CloseTab(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := tb.Reply(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Write: Re: Deposition of Karen Liu - Scheduling - Thunderbird"; w.Name != want {
		t.Errorf("reply window %q, want %q", w.Name, want)
	}
	dialog, err := tb.AskToClose(ctx, w, "Kevin, December 9 works.")
	if err != nil {
		t.Fatal(err)
	}
	if dialog.Name != "Save Message" || dialog.ID == w.ID {
		t.Errorf("prompt %+v, want a window of its own titled Save Message", dialog)
	}
	if err := tb.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	if w, err = tb.Compose(ctx); err != nil {
		t.Fatal(err)
	}
	if want := "Write: (no subject) - Thunderbird"; w.Name != want {
		t.Errorf("new message window %q, want %q", w.Name, want)
	}
	if err := tb.CloseWindow(ctx, w); err != nil {
		t.Fatal(err)
	}
}

// belowList is a part of the main window, in its own coordinates, where
// the classic layout shows the message's body and the vertical layout
// the message list's empty space (under the one or two rows a subject
// filter leaves).
var belowList = image.Rect(300, 400, 580, 520)

// changedIn reports whether a and b differ within r.
func changedIn(a, b *image.RGBA, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.RGBAAt(x, y) != b.RGBAAt(x, y) {
				return true
			}
		}
	}
	return false
}

func grab(t *testing.T, tb *xtest.Thunderbird) *image.RGBA {
	t.Helper()
	img, err := tb.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

// save writes a screenshot of d to $SPIRIT_SCREENSHOTS, if set, to look
// at what Thunderbird showed.
func save(t *testing.T, d *xtest.Display, name string) {
	t.Helper()
	dir := os.Getenv("SPIRIT_SCREENSHOTS")
	if dir == "" {
		return
	}
	img, err := d.Screenshot()
	if err == nil {
		err = xtest.WritePNG(filepath.Join(dir, name), img)
	}
	if err != nil {
		t.Logf("screenshot: %v", err)
	}
}
