package desktop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/platform/xtest"
)

// sndaNewest is the newest message of the SNDA case's needs-reply thread.
const sndaNewest = "<PH0PR08MB25269AAA75C6ABF07B6EA18FD871C4F5CFC7@PH0PR08MB2526.namprd08.prod.outlook.com>"

// caseMailbox is the absolute path of a case's mailbox, relative to this
// package; the test is skipped when the cases are not there.
func caseMailbox(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		t.Skipf("glance case mailbox %s not present: %v", rel, err)
	}
	return p
}

// runningSpirit starts Spirit on a fresh desktop over dataDir (seeded by
// the caller) and returns its API client once the orb is docked.
func runningSpirit(t *testing.T, ctx context.Context, d *desk, dataDir string) (*xtest.Proc, *api.Client) {
	t.Helper()
	p := d.start(t, ctx, dataDir, nil)
	if _, err := d.host.WaitItem(ctx); err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, _ := d.disp.WorkArea()
	d.waitOrb(t, ctx, dockedAt(wa))
	return p, apiClient(t, ctx, dataDir)
}

// stopSpirit sends SIGINT and expects a clean exit.
func stopSpirit(t *testing.T, ctx context.Context, p *xtest.Proc) {
	t.Helper()
	if why := p.EndedByTest(); why != "" {
		// Its exit status is then the harness's doing, not Spirit's.
		t.Fatalf("spirit was not signalled: %s", why)
	}
	if err := p.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("after SIGINT: %v", err)
	}
	if code != 0 {
		t.Fatalf("exit %d after SIGINT, want 0", code)
	}
}

// glanceOutcome waits until the glance has decided on the switch to
// title: the world log says it switched there and, after that, either a
// glance nudge was stored or a glance event said why it kept silent. It
// returns the glance events logged after the switch and the nudge, if any.
func glanceOutcome(t *testing.T, ctx context.Context, c *api.Client, title string) (events []string, nudge *api.Nudge) {
	t.Helper()
	var last []string
	err := xtest.Poll(ctx, func() (bool, error) {
		es, err := c.World(ctx, 0, 1000)
		if err != nil {
			return false, err
		}
		events, last = nil, nil
		switched := false
		for _, e := range es {
			last = append(last, e.Source+": "+e.Text)
			if e.Source == "screen" && strings.Contains(e.Text, fmt.Sprintf("switched to %q", title)) {
				switched, events = true, nil
				continue
			}
			if switched && e.Source == "glance" {
				events = append(events, e.Text)
			}
		}
		if !switched {
			return false, nil
		}
		ns, err := c.Nudges(ctx)
		if err != nil {
			return false, err
		}
		for _, n := range ns {
			if n.Kind == "glance" {
				nudge = &n
				return true, nil
			}
		}
		for _, e := range events {
			if strings.HasPrefix(e, "silent: ") {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the glance never decided on %q: %v\nworld log:\n%s", title, err, strings.Join(last, "\n"))
	}
	return events, nudge
}

// mailWindow is a test window standing in for a mail client: a title,
// a WM_CLASS (the app name Spirit sees on X11) and, if img is set, its
// pixels. It gets the focus as a lawyer's click would give it.
func mailWindow(t *testing.T, ctx context.Context, disp *xtest.Display, title, class string, r image.Rectangle, img image.Image) *focusedWindow {
	t.Helper()
	spec := xtest.WindowSpec{Title: title, Class: class, Rect: r, Image: img, Color: color.RGBA{0x80, 0x80, 0x80, 0xff}}
	if class != "" {
		spec.Instance = strings.ToLower(class)
	}
	w, err := disp.NewWindow(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	fw := &focusedWindow{disp: disp, win: w.ID}
	if err := disp.Xdotool(ctx, "windowactivate", "--sync", fmt.Sprint(w.ID)); err != nil {
		t.Logf("xdotool windowactivate: %v", err)
	}
	fw.waitFocused(t, ctx)
	return fw
}

// saveScreen writes a screenshot to $SPIRIT_SCREENSHOTS, if set, for a
// failure's post-mortem.
func saveScreen(t *testing.T, disp *xtest.Display, name string) {
	t.Helper()
	dir := os.Getenv("SPIRIT_SCREENSHOTS")
	if dir == "" {
		return
	}
	img, err := disp.Screenshot()
	if err == nil {
		err = xtest.WritePNG(filepath.Join(dir, name), img)
	}
	if err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// textLine is one line of a drawn page.
type textLine struct {
	Text string
	Size float64 // points at 72 DPI, i.e. pixels
}

// textPage draws lines in dark Go Regular on white, large enough for
// Tesseract to read off a full-screen capture.
func textPage(t *testing.T, w, h int, lines ...textLine) *image.RGBA {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	y := 0
	for _, l := range lines {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: l.Size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			t.Fatal(err)
		}
		y += int(l.Size * 1.7)
		dr := font.Drawer{Dst: img, Src: image.NewUniform(color.RGBA{0x20, 0x20, 0x28, 0xff}), Face: face, Dot: fixed.P(24, y)}
		dr.DrawString(l.Text)
		face.Close()
	}
	return img
}

// TestGlanceFYIMessageNoBubble: switching to an Outlook message window
// whose thread ends in an FYI (nothing asked of the user) logs the glance
// decision "silent: fyi" and leaves no glance nudge and no bubble.
func TestGlanceFYIMessageNoBubble(t *testing.T) {
	// The package's own labelled FYI case: Owen's counterpart sends the
	// signed NDA back "for your files", asking nothing.
	mbox := caseMailbox(t, "../../agents/glance/testdata/glance/orion-nda-fyi-outlook/mailbox.mbox")
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	seedMailbox(t, ctx, dataDir, mbox, "ocastellano@castellanollp.com")
	p, c := runningSpirit(t, ctx, d, dataDir)

	const title = "RE: Mutual NDA – Orion Biotech - Message (HTML)"
	mailWindow(t, ctx, d.disp, title, "", image.Rect(100, 100, 800, 500), nil)
	events, nudge := glanceOutcome(t, ctx, c, title)
	if nudge != nil {
		t.Fatalf("FYI thread got a glance nudge %+v (glance log %q)", *nudge, events)
	}
	if want := []string{"silent: fyi (analyst)"}; !slices.Equal(events, want) {
		t.Fatalf("glance log after the switch %q, want %q, the analyst's fyi verdict", events, want)
	}
	// The decision is logged after any nudge would have been stored: none
	// is, none is open, and no bubble is on screen.
	if ns, err := c.Nudges(ctx); err != nil {
		t.Errorf("open nudges: %v", err)
	} else if len(ns) != 0 {
		t.Errorf("open nudges = %+v, want none", ns)
	}
	if ws, err := d.disp.FindWindows("Spirit nudge"); err != nil {
		t.Error(err)
	} else {
		for _, w := range ws {
			if w.Viewable {
				t.Errorf("a bubble is shown: %+v", w)
			}
		}
	}
	stopSpirit(t, ctx, p)
}

// TestGlanceListViewReadsTheScreen: new Outlook's main window is titled
// with the folder ("Inbox - Dana Whitfield - Outlook"), which names no
// message. The glance captures the screen, reads its text with Tesseract
// and finds the open message from the reading pane's heading and sender:
// with no provider set, OCR is the only way the thread can be known, so a
// nudge about it proves the capture → OCR → decide path ran.
func TestGlanceListViewReadsTheScreen(t *testing.T) {
	mbox := caseMailbox(t, "../../../shared/cases/glance/snda-needs-reply/mailbox.mbox")
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	seedMailbox(t, ctx, dataDir, mbox, "dana.whitfield@hartleyross.com")
	p, c := runningSpirit(t, ctx, d, dataDir)

	const title = sndaListTitle
	sndaListView(t, ctx, d.disp)
	events, nudge := glanceOutcome(t, ctx, c, title)
	if nudge == nil {
		saveScreen(t, d.disp, "glance-list-view.png")
		t.Fatalf("no glance nudge from the list view; glance log after the switch: %q\n%s", events, p.Output())
	}
	if want := "glance:" + sndaNewest; nudge.Subject != want {
		t.Fatalf("nudge subject = %q, want %q, the SNDA thread's newest message", nudge.Subject, want)
	}
	if !strings.Contains(nudge.Message, "Marcy Howard") {
		t.Fatalf("nudge message = %q, want it to name Marcy Howard", nudge.Message)
	}
	for _, e := range events {
		if strings.HasPrefix(e, "no screenshot") {
			t.Errorf("glance log %q", e)
		}
	}
	if _, err := d.disp.WaitWindow(ctx, "Spirit nudge", func(w xtest.WindowInfo) bool { return w.Viewable }); err != nil {
		t.Fatalf("no glance bubble: %v", err)
	}
	stopSpirit(t, ctx, p)
}

// sndaListTitle is the title of the list view sndaListView opens.
const sndaListTitle = "Inbox - Dana Whitfield - Outlook"

// sndaListView opens an Outlook list view whose reading pane shows the
// SNDA case's newest message, in a size OCR reads reliably. Its title does
// not say which message is open, so a glance must read the pane off the
// screen. The sender is shown by name, as new Outlook's reading pane does:
// Tesseract reads a "Name <user@domain>" line of this font as
// "<user @domain>" (a space before the @), which the screen-text rules do
// not take for an address, so that layout is not used here.
func sndaListView(t *testing.T, ctx context.Context, disp *xtest.Display) {
	t.Helper()
	page := textPage(t, 1000, 560,
		textLine{"Inbox   Focused   Other", 20},
		textLine{"RE: SNDA - Brooklyn Gardens", 30},
		textLine{"From: Marcy Howard", 22},
		textLine{"To: Dana Whitfield", 22},
		textLine{"Thu 6/18/2026 9:47 AM", 22},
		textLine{"Dana, can you give me your read on section 4.2(b) before my call?", 22},
		textLine{"Reply   Reply all   Forward", 22},
	)
	// WM_CLASS "Outlook": the app name the title rules key list views on.
	mailWindow(t, ctx, disp, sndaListTitle, "Outlook", image.Rect(60, 80, 1060, 640), page)
}

// configureProvider stores a provider choice and its key the way Settings
// does, before Spirit starts. The key goes to the data directory's secret
// file: the test's desktop session bus has no Secret Service, so the app
// falls back to the same file.
func configureProvider(t *testing.T, ctx context.Context, dataDir string, s setup.Settings, key string) {
	t.Helper()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sec, err := secrets.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := setup.Save(ctx, st, sec, s, key); err != nil {
		t.Fatal(err)
	}
}

// TestGlanceProviderWordsTheNudgeInRunningApp: with a model provider set
// in Settings, the running app hands the needs-reply thread to the
// analyst model, and the bubble carries the model's wording, in both wire
// protocols.
func TestGlanceProviderWordsTheNudgeInRunningApp(t *testing.T) {
	mbox := caseMailbox(t, "../../../shared/cases/glance/snda-needs-reply/mailbox.mbox")
	for _, proto := range []string{setup.OpenAI, setup.Anthropic} {
		t.Run(proto, func(t *testing.T) {
			d := newDesk(t)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			dataDir := t.TempDir()
			seedMailbox(t, ctx, dataDir, mbox, "dana.whitfield@hartleyross.com")

			msg := "Model (" + proto + "): Marcy needs your read on SNDA 4.2(b) before her bank call."
			final, _ := json.Marshal(map[string]any{"surface": true, "message_id": sndaNewest, "message": msg,
				"action_prompt": "Draft a reply to Marcy Howard on SNDA 4.2(b)"})
			srv := scripted.New(t, scripted.ToolCalls(llm.ToolCall{ID: "c1", Name: "finalize_glance", Input: final}))
			s := setup.Settings{Kind: proto, BaseURL: srv.URL()}
			if proto == setup.OpenAI {
				s.BaseURL += "/v1"
			}
			s.Roles.Triage, s.Roles.Analyst = "vision-model", "strong-model"
			configureProvider(t, ctx, dataDir, s, "sk-test-key")
			p, c := runningSpirit(t, ctx, d, dataDir)

			const title = "RE: SNDA - Brooklyn Gardens - Message (HTML)"
			mailWindow(t, ctx, d.disp, title, "", image.Rect(100, 100, 800, 500), nil)
			events, nudge := glanceOutcome(t, ctx, c, title)
			if nudge == nil {
				t.Fatalf("no glance nudge; glance log after the switch: %q\n%s", events, p.Output())
			}
			if nudge.Message != msg {
				t.Fatalf("nudge message = %q, want the model's wording %q", nudge.Message, msg)
			}
			if want := "glance:" + sndaNewest; nudge.Subject != want {
				t.Fatalf("nudge subject = %q, want %q", nudge.Subject, want)
			}
			if _, err := d.disp.WaitWindow(ctx, "Spirit nudge", func(w xtest.WindowInfo) bool { return w.Viewable }); err != nil {
				t.Fatalf("no glance bubble: %v", err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d model requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Protocol != proto {
				t.Errorf("request protocol = %s, want %s", r.Protocol, proto)
			}
			if r.Model != "strong-model" {
				t.Errorf("request model = %q, want strong-model", r.Model)
			}
			if len(r.AuthHeaders) == 0 {
				t.Error("request carries no credentials, want them in an auth header")
			}
			if h, err := c.Health(ctx); err != nil {
				t.Errorf("/health: %v", err)
			} else if got := h.Counters["model_calls"]; got != 1 {
				t.Errorf("/health model_calls = %d, want 1 (counters %v)", got, h.Counters)
			}
			if strings.Contains(p.Output(), "sk-test-key") {
				t.Error("the API key is in Spirit's output")
			}
			stopSpirit(t, ctx, p)
		})
	}
}
