//go:build linux

package xtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// chromiumBinary is Debian's Chromium; its wrapper script sets the
// library paths and flags the real binary needs.
const chromiumBinary = "/usr/bin/chromium"

// renderTimeout bounds one Chromium run: about a second on an idle
// machine, much more on a loaded two-core one.
const renderTimeout = 2 * time.Minute

// Page is an HTML file to render at a window size, in CSS pixels (one
// device pixel each).
type Page struct {
	Path          string
	Width, Height int
}

// RenderHTML renders the HTML file at htmlPath in headless Chromium in a
// width×height window and returns the screenshot: real browser pixels
// (font hinting, anti-aliasing, subpixel layout) for tests that read text
// off a screen, such as webmail pages of a test's own making. The page is
// opened from disk and should need no network: Chromium runs with its
// background networking off. It skips the test when Chromium is missing,
// or fails it under SPIRIT_REQUIRE_DESKTOP=1.
func RenderHTML(t testing.TB, ctx context.Context, htmlPath string, width, height int) image.Image {
	t.Helper()
	RequireChromium(t)
	img, err := screenshot(ctx, t.TempDir(), Page{Path: htmlPath, Width: width, Height: height})
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	return img
}

// RenderPages renders pages as RenderHTML does, all in one Chromium
// (started once, about a second of CPU, then a fraction of that per
// page), driven through the DevTools protocol on a pipe. It returns the
// screenshots in the order of pages; any failure fails t.
func RenderPages(t testing.TB, ctx context.Context, pages []Page) []image.Image {
	t.Helper()
	RequireChromium(t)
	imgs, err := renderAll(ctx, t.TempDir(), pages)
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	return imgs
}

// RequireChromium skips or fails t (under SPIRIT_REQUIRE_DESKTOP=1) when
// Chromium is not installed.
func RequireChromium(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath(chromiumBinary); err == nil {
		return
	}
	msg := fmt.Sprintf("xtest: %s missing (on Debian: apt-get install -y chromium)", chromiumBinary)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s; %s=1 requires it", msg, RequireEnv)
	}
	t.Skipf("%s; skipping (set %s=1 to fail instead)", msg, RequireEnv)
}

// chromiumFlags are the flags of every run: headless, no GPU, nothing
// fetched or synced in the background, scrollbars hidden so the window is
// all page, a profile of its own.
func chromiumFlags(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--hide-scrollbars",
	}
}

// chromiumCommand prepares a Chromium run in its own process group (its
// helpers, zygote, GPU and renderer processes, go down with it), without
// a display or session bus.
func chromiumCommand(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, chromiumBinary, args...)
	cmd.Env = childEnv(os.Environ(), nil)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	cmd.WaitDelay = pipeGrace
	return cmd
}

// fileURL is the file: URL of path, made absolute; it must exist.
func fileURL(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: abs}).String(), nil
}

// screenshot renders p with Chromium's own --screenshot, one run.
func screenshot(ctx context.Context, dir string, p Page) (image.Image, error) {
	u, err := fileURL(p.Path)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", p.Path, err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(ctx, renderTimeout)
	defer cancel()
	args := append(chromiumFlags(filepath.Join(dir, "profile")),
		fmt.Sprintf("--window-size=%d,%d", p.Width, p.Height), "--screenshot="+shot, u)
	out, err := chromiumCommand(ctx, args).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("render %s: chromium: %w\n%s", p.Path, err, tail(out, 2000))
	}
	data, err := os.ReadFile(shot)
	if err != nil {
		return nil, fmt.Errorf("render %s: no screenshot: %w\n%s", p.Path, err, tail(out, 2000))
	}
	img, err := decodeShot(p, data)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", p.Path, err)
	}
	return img, nil
}

// decodeShot decodes a screenshot of p and checks its size.
func decodeShot(p Page, data []byte) (image.Image, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	if got := img.Bounds().Size(); got != image.Pt(p.Width, p.Height) {
		return nil, fmt.Errorf("screenshot is %v, want %dx%d", got, p.Width, p.Height)
	}
	return img, nil
}

// renderAll renders pages one after the other in one Chromium driven
// through the DevTools protocol over --remote-debugging-pipe: Chromium
// reads commands on its fd 3 and writes replies and events on its fd 4,
// JSON messages ended by a NUL byte.
func renderAll(ctx context.Context, dir string, pages []Page) ([]image.Image, error) {
	ctx, cancel := context.WithTimeout(ctx, renderTimeout)
	defer cancel()
	toChrome, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChrome, evW, err := os.Pipe()
	if err != nil {
		toChrome.Close()
		cmdW.Close()
		return nil, err
	}
	args := append(chromiumFlags(filepath.Join(dir, "profile")), "--remote-debugging-pipe", "about:blank")
	cmd := chromiumCommand(ctx, args)
	var out LockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.ExtraFiles = []*os.File{toChrome, evW}
	err = cmd.Start()
	// The child has its own copies of its ends.
	toChrome.Close()
	evW.Close()
	if err != nil {
		cmdW.Close()
		fromChrome.Close()
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	cdp := newDevTools(cmdW, fromChrome)
	defer func() {
		cmdW.Close() // Chromium exits when its command pipe closes
		_ = killGroup(cmd.Process)
		_ = cmd.Wait()
		fromChrome.Close()
	}()
	imgs := make([]image.Image, len(pages))
	for i, p := range pages {
		if imgs[i], err = cdp.render(ctx, p); err != nil {
			return nil, fmt.Errorf("render %s: %w\n%s", p.Path, err, tail([]byte(out.String()), 2000))
		}
	}
	return imgs, nil
}

// devTools is a DevTools protocol connection over Chromium's pipes.
type devTools struct {
	w io.Writer

	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpMessage
	waiters []cdpWaiter
	err     error // set once reading failed; pending calls get it
}

// cdpMessage is a reply (ID set) or an event (Method set).
type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// cdpWaiter waits for an event of a session.
type cdpWaiter struct {
	method, session string
	ch              chan struct{}
}

func newDevTools(w io.Writer, r io.Reader) *devTools {
	d := &devTools{w: w, pending: map[int]chan cdpMessage{}}
	go d.read(r)
	return d
}

// read dispatches Chromium's messages until the pipe closes.
func (d *devTools) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			d.fail(fmt.Errorf("devtools pipe: %w", err))
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			d.fail(fmt.Errorf("devtools message: %w", err))
			return
		}
		d.mu.Lock()
		if m.ID != 0 {
			if ch, ok := d.pending[m.ID]; ok {
				delete(d.pending, m.ID)
				ch <- m
			}
		} else {
			kept := d.waiters[:0]
			for _, w := range d.waiters {
				if w.method == m.Method && w.session == m.SessionID {
					close(w.ch)
				} else {
					kept = append(kept, w)
				}
			}
			d.waiters = kept
		}
		d.mu.Unlock()
	}
}

func (d *devTools) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.err = err
	for id, ch := range d.pending {
		delete(d.pending, id)
		close(ch)
	}
}

// call sends a command and waits for its reply, decoding the result into
// result (when not nil).
func (d *devTools) call(ctx context.Context, session, method string, params, result any) error {
	d.mu.Lock()
	if d.err != nil {
		d.mu.Unlock()
		return d.err
	}
	d.nextID++
	id := d.nextID
	ch := make(chan cdpMessage, 1)
	d.pending[id] = ch
	d.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := d.w.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			d.mu.Lock()
			defer d.mu.Unlock()
			return fmt.Errorf("%s: %w", method, d.err)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// expect registers interest in the next event method of session, before
// the command that causes it is sent.
func (d *devTools) expect(method, session string) <-chan struct{} {
	ch := make(chan struct{})
	d.mu.Lock()
	d.waiters = append(d.waiters, cdpWaiter{method: method, session: session, ch: ch})
	d.mu.Unlock()
	return ch
}

// render opens p in a new tab of the window size, waits for it to load
// and its fonts to be ready, and takes a screenshot of the viewport.
func (d *devTools) render(ctx context.Context, p Page) (image.Image, error) {
	u, err := fileURL(p.Path)
	if err != nil {
		return nil, err
	}
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := d.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	defer d.call(context.WithoutCancel(ctx), "", "Target.closeTarget", map[string]any{"targetId": target.TargetID}, nil)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := d.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	s := attached.SessionID
	if err := d.call(ctx, s, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": p.Width, "height": p.Height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	if err := d.call(ctx, s, "Page.enable", map[string]any{}, nil); err != nil {
		return nil, err
	}
	loaded := d.expect("Page.loadEventFired", s)
	if err := d.call(ctx, s, "Page.navigate", map[string]any{"url": u}, nil); err != nil {
		return nil, err
	}
	select {
	case <-loaded:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the page to load: %w", ctx.Err())
	}
	// System fonts load asynchronously after the load event.
	if err := d.call(ctx, s, "Runtime.evaluate",
		map[string]any{"expression": "document.fonts.ready.then(() => true)", "awaitPromise": true}, nil); err != nil {
		return nil, err
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := d.call(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	return decodeShot(p, data)
}

// tail is the end of a process's output, for an error message.
func tail(out []byte, n int) string {
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return string(out)
}
