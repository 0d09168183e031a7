//go:build linux

package xtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"
)

// ThunderbirdOptions says whose mail a real Thunderbird shows and how.
type ThunderbirdOptions struct {
	// Name and Address are the account's identity: the lawyer.
	Name, Address string
	// Mbox is the path of an mbox file; a copy becomes the account's
	// Inbox.
	Mbox string
	// Layout is "vertical" (three-pane, the message pane right of the
	// list: Thunderbird's default) or "classic" (the pane below the
	// list); "" means vertical.
	Layout string
	// Env is extra environment for Thunderbird, e.g. a session bus's
	// Env() for the accessibility bus.
	Env []string
	// OpenIn is where Enter in the message list opens the selected
	// message: "tab" (OpenMessageTab) or "window", a window of its own
	// (OpenMessageWindow); "" means tab.
	OpenIn string
}

// Layouts of the main window, as Thunderbird's mail.pane_config.dynamic
// numbers them.
var thunderbirdLayouts = map[string]int{"": 2, "vertical": 2, "classic": 0}

// Where Enter opens a message, as Thunderbird's mail.openMessageBehavior
// numbers them.
var thunderbirdOpenIn = map[string]int{"": 2, "tab": 2, "window": 0}

// Thunderbird is a running Thunderbird with a fresh profile, its main
// window showing the Inbox.
type Thunderbird struct {
	Proc *Proc
	// Window is the main window ("Inbox - <address> - Mozilla
	// Thunderbird"), maximised.
	Window WindowInfo
	// Profile is the profile directory, under t.TempDir().
	Profile string

	d *Display
}

// thunderbirdStartTimeout bounds a start: warm, Thunderbird 153 shows its
// Inbox in about 2 s; cold (first run on a busy 2-core machine) it can take
// well over 10.
const thunderbirdStartTimeout = 90 * time.Second

// settleQuiet is how long the screen must stay unchanged to count as
// settled.
const settleQuiet = 600 * time.Millisecond

// filterQuiet is settleQuiet for the quick filter: it applies the typed
// text 250 ms after the last key (search-bar.mjs), and then searches, so a
// shorter quiet time could take the echo of the text for the filtered
// list, all the more on a loaded machine.
const filterQuiet = time.Second

// accountUser and accountHost name the account's server. It is a POP3
// account that never connects (nothing listens on port 1 and it is never
// asked to fetch), so that, unlike Local Folders, it has an identity and
// its Inbox is titled by the address as a lawyer's is.
const (
	accountUser = "lawyer"
	accountHost = "127.0.0.1"
	inboxURI    = "mailbox://" + accountUser + "@" + accountHost + "/Inbox"
)

// StartThunderbird starts Thunderbird on d with a fresh profile under
// t.TempDir() whose only mail account is opt's, with opt.Mbox as its Inbox,
// and waits until the main window is mapped, maximised and the Inbox's
// message list is drawn and settled. Nothing it does connects out: the
// account is never checked, and updates, telemetry, remote content and the
// start page are off. It is quit at cleanup (Ctrl+Q, then SIGTERM).
//
// It skips the test if thunderbird is missing, unless
// SPIRIT_REQUIRE_DESKTOP=1.
func StartThunderbird(t testing.TB, ctx context.Context, d *Display, opt ThunderbirdOptions) *Thunderbird {
	t.Helper()
	Require(t, "thunderbird", "xdotool")
	prof := filepath.Join(t.TempDir(), "profile")
	if err := writeThunderbirdProfile(prof, opt); err != nil {
		t.Fatalf("xtest: thunderbird profile: %v", err)
	}
	home := t.TempDir()
	env := append([]string{
		// A private HOME and XDG dirs keep a developer's own
		// profiles.ini, caches and GTK settings out.
		"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_CACHE_HOME=" + home,
		"XDG_DATA_HOME=" + home, "MOZ_CRASHREPORTER_DISABLE=1",
		"MOZ_CRASHREPORTER_NOINFO=1",
	}, d.Env()...)
	env = append(env, opt.Env...)
	sctx, cancel := context.WithTimeout(ctx, thunderbirdStartTimeout)
	defer cancel()
	// Not exec.CommandContext with ctx: Thunderbird must outlive the
	// caller's start-up context and is stopped at cleanup instead.
	cmd := exec.Command("thunderbird", "--profile", prof, "--no-remote")
	cmd.Env = childEnv(os.Environ(), env)
	p, err := startProc(t, "thunderbird", cmd)
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	tb := &Thunderbird{Proc: p, Profile: prof, d: d}
	// Registered after startProc's cleanup, so it runs first: a clean
	// quit before the process group is signalled.
	t.Cleanup(tb.quit)

	title := "Inbox - " + accountTitle(opt) + " - Mozilla Thunderbird"
	tb.Window, err = d.WaitWindow(sctx, title, func(w WindowInfo) bool {
		select {
		case <-p.Done():
			return true // reported below
		default:
		}
		return w.Viewable && w.HasState("_NET_WM_STATE_MAXIMIZED_VERT")
	})
	select {
	case <-p.Done():
		t.Fatalf("xtest: thunderbird exited during start-up (%s):\n%s", p.status(), p.Output())
	default:
	}
	if err != nil {
		wins, _ := d.FindWindows("")
		t.Fatalf("xtest: thunderbird's main window: %v\nwindows: %+v\n%s", err, wins, p.Output())
	}
	if err := tb.activate(sctx); err != nil {
		t.Fatalf("xtest: activate thunderbird: %v", err)
	}
	// The window is mapped before the list is filled and painted: wait
	// until nothing moves.
	if _, _, err := tb.settle(sctx, nil); err != nil {
		t.Fatalf("xtest: thunderbird's Inbox never settled: %v", err)
	}
	return tb
}

// accountTitle is how Thunderbird names the account in titles: its
// address (the account's name), or a stand-in when the options carry none.
func accountTitle(opt ThunderbirdOptions) string {
	if opt.Address != "" {
		return opt.Address
	}
	return "lawyer@example.com"
}

// writeThunderbirdProfile lays out a profile directory: user.js with the
// account and quiet settings, the Inbox, and the UI state that opens it.
func writeThunderbirdProfile(dir string, opt ThunderbirdOptions) error {
	layout, ok := thunderbirdLayouts[opt.Layout]
	if !ok {
		return fmt.Errorf("layout %q: want vertical or classic", opt.Layout)
	}
	openIn, ok := thunderbirdOpenIn[opt.OpenIn]
	if !ok {
		return fmt.Errorf("open messages in %q: want tab or window", opt.OpenIn)
	}
	mailDir := filepath.Join(dir, "Mail", "account")
	if err := os.MkdirAll(mailDir, 0o700); err != nil {
		return err
	}
	if opt.Mbox != "" {
		if err := copyMbox(opt.Mbox, filepath.Join(mailDir, "Inbox")); err != nil {
			return fmt.Errorf("inbox: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "Mail", "Local Folders"), 0o700); err != nil {
		return err
	}
	name := opt.Name
	if name == "" {
		name = "Lawyer"
	}
	prefs := thunderbirdPrefs(name, accountTitle(opt), layout, openIn)
	files := map[string]any{
		// The first tab opens the Inbox (it would open the account's
		// start page otherwise).
		"session.json": map[string]any{"rev": 0, "windows": []any{map[string]any{
			"type": "3pane", "tabs": map[string]any{"rev": 0, "selectedIndex": 0, "tabs": []any{map[string]any{
				"mode": "mail3PaneTab", "ext": map[string]any{},
				"state": map[string]any{"firstTab": true, "folderPaneVisible": true,
					"messagePaneVisible": true, "folderURI": inboxURI},
			}}},
		}}},
		"folderTree.json": map[string]any{"open": map[string]any{
			"all": []string{"mailbox://" + accountUser + "@" + accountHost}}},
		"xulstore.json": map[string]any{"chrome://messenger/content/messenger.xhtml": map[string]any{
			"messengerWindow": map[string]string{"sizemode": "maximized"},
			// The quick filter bar stays open: SelectMessage types
			// into it.
			"quickFilterBar": map[string]string{"visible": "true"},
		}},
	}
	for name, v := range files {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "user.js"), []byte(prefs), 0o600)
}

// thunderbirdPrefs is the profile's user.js.
func thunderbirdPrefs(name, address string, layout, openIn int) string {
	str := strconv.Quote
	prefs := []struct {
		k string
		v string // a JS literal
	}{
		// The account: a POP3 server that is never contacted, its
		// identity the lawyer's, and the Local Folders every profile has.
		{"mail.accountmanager.accounts", str("account1,account2")},
		{"mail.accountmanager.defaultaccount", str("account1")},
		{"mail.accountmanager.localfoldersserver", str("server2")},
		{"mail.account.account1.server", str("server1")},
		{"mail.account.account1.identities", str("id1")},
		{"mail.account.account2.server", str("server2")},
		{"mail.identity.id1.fullName", str(name)},
		{"mail.identity.id1.useremail", str(address)},
		{"mail.identity.id1.valid", "true"},
		{"mail.server.server1.type", str("pop3")},
		{"mail.server.server1.hostname", str(accountHost)},
		{"mail.server.server1.port", "1"},
		{"mail.server.server1.userName", str(accountUser)},
		{"mail.server.server1.name", str(address)},
		{"mail.server.server1.directory-rel", str("[ProfD]Mail/account")},
		{"mail.server.server1.login_at_startup", "false"},
		{"mail.server.server1.check_new_mail", "false"},
		{"mail.server.server1.download_on_biff", "false"},
		{"mail.server.server2.type", str("none")},
		{"mail.server.server2.hostname", str("Local Folders")},
		{"mail.server.server2.name", str("Local Folders")},
		{"mail.server.server2.userName", str("nobody")},
		{"mail.server.server2.directory-rel", str("[ProfD]Mail/Local Folders")},
		// No wizard, start page, default-client or first-run prompts.
		{"mail.shell.checkDefaultClient", "false"},
		{"mail.provider.enabled", "false"},
		{"mail.startup.enabledMailCheckOnce", "true"},
		{"mailnews.start_page.enabled", "false"},
		{"mail.rights.version", "1"},
		{"mail.spotlight.firstRunDone", "true"},
		{"mail.winsearch.firstRunDone", "true"},
		{"mail.tabs.drawInTitlebar", "false"},
		// Nothing that connects out.
		{"app.update.enabled", "false"},
		{"app.update.auto", "false"},
		{"app.update.disabledForTesting", "true"},
		{"app.update.checkInstallTime", "false"},
		{"extensions.update.enabled", "false"},
		{"extensions.getAddons.cache.enabled", "false"},
		{"datareporting.policy.dataSubmissionEnabled", "false"},
		{"datareporting.healthreport.uploadEnabled", "false"},
		{"toolkit.telemetry.enabled", "false"},
		{"toolkit.telemetry.unified", "false"},
		{"browser.safebrowsing.malware.enabled", "false"},
		{"browser.safebrowsing.phishing.enabled", "false"},
		{"network.captive-portal-service.enabled", "false"},
		{"network.connectivity-service.enabled", "false"},
		{"network.dns.disablePrefetch", "true"},
		{"network.prefetch-next", "false"},
		{"mailnews.message_display.disable_remote_image", "true"},
		{"mail.phishing.detection.enabled", "false"},
		{"mail.cloud_files.enabled", "false"},
		{"mailnews.auto_config.fetchFromISP.enabled", "false"},
		{"calendar.timezone.useSystemTimezone", "true"},
		// The layout, a plain table of messages, one row each (no
		// threads to expand), newest first, opened on Enter where
		// OpenIn says.
		{"mail.pane_config.dynamic", strconv.Itoa(layout)},
		{"mail.threadpane.listview", "1"},
		{"mailnews.default_sort_type", "18"}, // by date
		{"mailnews.default_sort_order", "2"}, // descending
		{"mailnews.default_view_flags", "0"}, // unthreaded
		{"mail.openMessageBehavior", strconv.Itoa(openIn)},
		// A still screen: no blinking caret, no animations, so
		// "settled" means the app is done drawing.
		{"ui.caretBlinkTime", "0"},
		{"ui.prefersReducedMotion", "1"},
		{"toolkit.cosmeticAnimations.enabled", "false"},
		{"mail.biff.show_alert", "false"},
		{"mail.biff.play_sound", "false"},
	}
	var b strings.Builder
	for _, p := range prefs {
		fmt.Fprintf(&b, "user_pref(%q, %s);\n", p.k, p.v)
	}
	return b.String()
}

func copyMbox(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// quit closes Thunderbird as a user would, so it writes its profile
// without complaint; the process group is killed after it in any case.
func (tb *Thunderbird) quit() {
	select {
	case <-tb.Proc.Done():
		return
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tb.activate(ctx); err == nil {
		_ = tb.d.Xdotool(ctx, "key", "--clearmodifiers", "ctrl+q")
	}
	select {
	case <-tb.Proc.Done():
	case <-ctx.Done():
	}
}

// activate brings the main window to the front and waits until it has
// the focus.
func (tb *Thunderbird) activate(ctx context.Context) error {
	if a, err := tb.d.ActiveWindow(); err == nil && a == tb.Window.ID {
		return nil
	}
	return tb.d.Activate(ctx, tb.Window.ID)
}

// key sends keys (xdotool key names, e.g. "ctrl+shift+k") to the focused
// window.
func (tb *Thunderbird) key(ctx context.Context, keys ...string) error {
	return tb.d.Xdotool(ctx, append([]string{"key", "--clearmodifiers"}, keys...)...)
}

// typeText types s into the focused window.
func (tb *Thunderbird) typeText(ctx context.Context, s string) error {
	return tb.d.Xdotool(ctx, "type", "--clearmodifiers", "--delay", "4", "--", s)
}

// replyPrefixRe matches the reply and forward prefixes Thunderbird leaves
// out of the subject it filters on.
var replyPrefixRe = regexp.MustCompile(`(?i)^(?:\s*(?:re|fwd?|aw|wg)\s*(?:\[\d+\])?\s*:\s*)+`)

// SelectMessage selects, in the main window's message list, the newest
// message whose subject contains subject (a leading "Re:" or "Fwd:" is
// ignored, as Thunderbird ignores it), so that the reading pane shows it.
// It types the subject into the quick filter bar and moves to the first
// row of what is left, as a lawyer can; the window title does not change.
// It returns once the window has changed and settled.
func (tb *Thunderbird) SelectMessage(ctx context.Context, subject string) error {
	_, err := tb.SelectMessageTimed(ctx, subject)
	return err
}

// Selection tells when a selection happened, to time what reacts to it.
type Selection struct {
	// Pressed is when the key press that selected the row was sent: the
	// moment the lawyer chose the message.
	Pressed time.Time
	// Changed is when the window was last seen to change; it has been
	// still since. A watcher sampling the window after Changed sees the
	// message as it stays.
	Changed time.Time
}

// SelectMessageTimed is SelectMessage, telling when the selection was
// made and when the window stopped changing.
func (tb *Thunderbird) SelectMessageTimed(ctx context.Context, subject string) (Selection, error) {
	var sel Selection
	text := strings.TrimSpace(replyPrefixRe.ReplaceAllString(subject, ""))
	if text == "" {
		return sel, fmt.Errorf("select message: empty subject %q", subject)
	}
	if err := tb.activate(ctx); err != nil {
		return sel, fmt.Errorf("select %q: %w", subject, err)
	}
	if err := tb.focusFilter(ctx); err != nil {
		return sel, fmt.Errorf("select %q: %w", subject, err)
	}
	if err := tb.typeText(ctx, text); err != nil {
		return sel, err
	}
	if _, _, err := tb.settleFor(ctx, nil, filterQuiet); err != nil {
		return sel, fmt.Errorf("select %q: the filtered list never settled: %w", subject, err)
	}
	// Keys go where the keyboard focus is: if another window took it
	// while the subject was typed, the filter is cut short.
	if err := tb.hasFocus(); err != nil {
		return sel, fmt.Errorf("select %q: typing the subject: %w", subject, err)
	}
	before, err := tb.capture()
	if err != nil {
		return sel, err
	}
	// Down moves from the filter box into the list, selecting its first
	// row only if nothing is selected (QuickFilterManager.sys.mjs): when
	// the open message is still listed it stays. Home then selects the
	// first row, the newest match, in any case.
	sel.Pressed = time.Now()
	if err := tb.key(ctx, "Down", "Home"); err != nil {
		return sel, err
	}
	changed, last, err := tb.settle(ctx, before)
	sel.Changed = last
	if err != nil {
		return sel, fmt.Errorf("select %q: %w", subject, err)
	}
	if !changed {
		return sel, fmt.Errorf("select %q: the window did not change (no such message, or it was already open)", subject)
	}
	return sel, nil
}

// focusFilter puts the keyboard focus in the quick filter's text box
// (Ctrl+Shift+K), its text selected (Ctrl+A) so that what is typed
// replaces any earlier filter, and returns once the window shows it.
// Letters typed anywhere else are Thunderbird's one-key commands (A
// archives, J marks junk, C opens "Mark Messages as Read by Date"), so
// nothing may be typed before the box is seen to take the focus. Just
// after a window of Thunderbird's own closes, Thunderbird has been seen
// to drop the key while it takes its main window back (CI, once): the
// keys are sent again, up to filterTries times.
func (tb *Thunderbird) focusFilter(ctx context.Context) error {
	// The focus is elsewhere (in the list, after a selection) when this
	// is called: the box's focus ring, or the bar appearing, changes the
	// window.
	if _, _, err := tb.settle(ctx, nil); err != nil {
		return err
	}
	for try := 1; ; try++ {
		if err := tb.activate(ctx); err != nil {
			return err
		}
		before, err := tb.capture()
		if err != nil {
			return err
		}
		if err := tb.key(ctx, "ctrl+shift+k", "ctrl+a"); err != nil {
			return err
		}
		changed, _, err := tb.settle(ctx, before)
		if err != nil {
			return err
		}
		if changed {
			return nil
		}
		if err := tb.hasFocus(); err != nil {
			return fmt.Errorf("focusing the quick filter: %w", err)
		}
		if try == filterTries {
			return fmt.Errorf("focusing the quick filter: the window did not change after Ctrl+Shift+K, %d times", try)
		}
	}
}

// filterTries bounds the tries of focusFilter.
const filterTries = 3

// hasFocus reports an error naming the window that has the keyboard
// focus if it is not within Thunderbird's main window.
func (tb *Thunderbird) hasFocus() error {
	f, err := xproto.GetInputFocus(tb.d.conn).Reply()
	if err != nil {
		return fmt.Errorf("GetInputFocus: %w", err)
	}
	focus, err := tb.d.topLevel(f.Focus)
	if err != nil {
		return err
	}
	main, err := tb.d.topLevel(xproto.Window(tb.Window.ID))
	if err != nil {
		return err
	}
	if focus == main {
		return nil
	}
	owner := fmt.Sprintf("window 0x%x", uint32(f.Focus))
	if wins, err := tb.d.FindWindows(""); err == nil {
		for _, w := range wins {
			if top, err := tb.d.topLevel(xproto.Window(w.ID)); err == nil && top == focus {
				owner = fmt.Sprintf("%q (class %q)", w.Name, w.Class)
			}
		}
	}
	return fmt.Errorf("the keyboard focus went from thunderbird to %s", owner)
}

// topLevel returns w's ancestor that is a child of the root window: the
// window manager's frame of a managed window. PointerRoot and None are
// returned as they are.
func (d *Display) topLevel(w xproto.Window) (xproto.Window, error) {
	for w != d.root && w > 1 {
		tree, err := xproto.QueryTree(d.conn, w).Reply()
		if err != nil {
			return w, fmt.Errorf("QueryTree: %w", err)
		}
		if tree.Parent == d.root {
			return w, nil
		}
		w = tree.Parent
	}
	return w, nil
}

// capture grabs the main window's client area.
func (tb *Thunderbird) capture() (*image.RGBA, error) {
	return tb.d.capture(tb.Window.Rect.Intersect(image.Rect(0, 0, tb.d.Width, tb.d.Height)))
}

// settle polls the main window until it has not changed for settleQuiet,
// and returns when it last changed. With before set, it first waits (up
// to settleChange) for the window to differ from before, and reports
// whether it did.
func (tb *Thunderbird) settle(ctx context.Context, before *image.RGBA) (changed bool, last time.Time, err error) {
	return tb.settleFor(ctx, before, settleQuiet)
}

// settleFor is settle with quiet in place of settleQuiet.
func (tb *Thunderbird) settleFor(ctx context.Context, before *image.RGBA, quiet time.Duration) (changed bool, last time.Time, err error) {
	img, err := tb.capture()
	if err != nil {
		return false, time.Time{}, err
	}
	last = time.Now()
	if before != nil {
		deadline := time.Now().Add(settleChange)
		err = Poll(ctx, func() (bool, error) {
			img, err = tb.capture()
			if err != nil {
				return false, err
			}
			last = time.Now()
			if !bytes.Equal(img.Pix, before.Pix) {
				changed = true
				return true, nil
			}
			return time.Now().After(deadline), nil
		})
		if err != nil {
			return false, last, err
		}
	}
	err = Poll(ctx, func() (bool, error) {
		cur, err := tb.capture()
		if err != nil {
			return false, err
		}
		if !bytes.Equal(cur.Pix, img.Pix) {
			img, last = cur, time.Now()
			return false, nil
		}
		return time.Since(last) >= quiet, nil
	})
	return changed, last, err
}

// settleChange bounds the wait for a key press to change the window.
const settleChange = 5 * time.Second

// Screenshot captures the main window's client area.
func (tb *Thunderbird) Screenshot() (image.Image, error) { return tb.capture() }

// OpenMessageTab opens the selected message in a tab of the main window
// (Enter in the list) and waits until the window's title names it
// rather than the Inbox; Title then returns it.
func (tb *Thunderbird) OpenMessageTab(ctx context.Context) error {
	inbox := tb.Window.Name
	if err := tb.activate(ctx); err != nil {
		return err
	}
	if err := tb.key(ctx, "Return"); err != nil {
		return err
	}
	// The tab is titled "Home" while the message loads: wait until the
	// title has left the Inbox and then held still while the window
	// settled.
	var title string
	for {
		err := Poll(ctx, func() (bool, error) {
			var err error
			title, err = tb.Title()
			return err == nil && title != inbox && title != "", ignoreBadWindow(err)
		})
		if err != nil {
			return fmt.Errorf("open message tab: title stayed %q: %w", title, err)
		}
		if _, _, err := tb.settle(ctx, nil); err != nil {
			return fmt.Errorf("open message tab: %w", err)
		}
		if now, err := tb.Title(); err == nil && now == title {
			return nil
		}
	}
}

// OpenMessageWindow opens the selected message in a window of its own
// (Enter in the list, with ThunderbirdOptions.OpenIn "window") and
// returns it once it has the focus, its title names the message ("<subject>
// - Mozilla Thunderbird") and the title has held still while the main
// window settled (it is titled "Mozilla Thunderbird" while it loads).
// CloseWindow closes it.
//
// Enter goes where the keyboard is: it is sent only once the keyboard is
// seen in the main window. Thunderbird has been seen (CI, once) to drop
// it: no window of its own appeared in 4 minutes. So when none has
// appeared within windowAnswer, Enter is sent again, up to openTries
// times; once any new window of Thunderbird's is mapped, it is waited
// for and Enter is not sent again (a second Enter would open a second
// window).
func (tb *Thunderbird) OpenMessageWindow(ctx context.Context) (WindowInfo, error) {
	const suffix = " - Mozilla Thunderbird"
	isMessage := func(w WindowInfo) bool {
		return w.ID != tb.Window.ID && strings.HasSuffix(w.Name, suffix) && w.Name != suffix &&
			!strings.HasPrefix(w.Name, "Write: ")
	}
	before := tb.mappedWindows()
	for try := 1; ; try++ {
		if err := tb.activate(ctx); err != nil {
			return WindowInfo{}, err
		}
		if err := tb.awaitFocus(ctx); err != nil {
			return WindowInfo{}, fmt.Errorf("open message window: %w", err)
		}
		if err := tb.key(ctx, "Return"); err != nil {
			return WindowInfo{}, err
		}
		tryCtx, cancel := context.WithTimeout(ctx, windowAnswer)
		err := Poll(tryCtx, func() (bool, error) {
			for id := range tb.mappedWindows() {
				if !before[id] {
					return true, nil
				}
			}
			return false, nil
		})
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return WindowInfo{}, fmt.Errorf("open message window: %w", ctx.Err())
		}
		if try == openTries {
			wins, _ := tb.d.FindWindows("")
			return WindowInfo{}, fmt.Errorf("open message window: no window of thunderbird's appeared within %v of Enter, %d times (windows %+v)", windowAnswer, try, wins)
		}
	}
	for {
		w, err := tb.waitActive(ctx, "message window", isMessage)
		if err != nil {
			return WindowInfo{}, fmt.Errorf("open message window: %w", err)
		}
		if _, _, err := tb.settle(ctx, nil); err != nil {
			return WindowInfo{}, fmt.Errorf("open message window: %w", err)
		}
		if now, err := tb.d.windowName(xproto.Window(w.ID)); err == nil && now == w.Name {
			return w, nil
		}
	}
}

// windowAnswer bounds the wait for a window of Thunderbird's own after
// the key that opens it: it is mapped within about a second, 3 s on a
// machine busy building; openTries bounds the tries.
const (
	windowAnswer = 20 * time.Second
	openTries    = 3
)

// mappedWindows returns the ids of Thunderbird's mapped top-level
// windows (its class names it), managed or not.
func (tb *Thunderbird) mappedWindows() map[uint32]bool {
	ids := map[uint32]bool{}
	wins, err := tb.d.FindWindows("")
	if err != nil {
		return ids
	}
	for _, w := range wins {
		if w.Mapped && strings.Contains(strings.ToLower(w.Class), "thunderbird") {
			ids[w.ID] = true
		}
	}
	return ids
}

// awaitFocus waits until the keyboard focus is in the main window: a
// window of Spirit's that the window manager focused on showing is
// handed back by Spirit's focus watcher within a moment. It fails,
// naming the window that kept the keyboard, after focusAnswer.
func (tb *Thunderbird) awaitFocus(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, focusAnswer)
	defer cancel()
	var last error
	err := Poll(ctx, func() (bool, error) {
		last = tb.hasFocus()
		return last == nil, nil
	})
	if err != nil && last != nil {
		return last
	}
	return err
}

// focusAnswer bounds awaitFocus.
const focusAnswer = 10 * time.Second

// Title returns the main window's current title.
func (tb *Thunderbird) Title() (string, error) {
	return tb.d.windowName(xproto.Window(tb.Window.ID))
}

// CloseTab closes the main window's current tab (Ctrl+W) and waits until
// the window is titled by the Inbox again.
func (tb *Thunderbird) CloseTab(ctx context.Context) error {
	if err := tb.activate(ctx); err != nil {
		return err
	}
	if err := tb.key(ctx, "ctrl+w"); err != nil {
		return err
	}
	return Poll(ctx, func() (bool, error) {
		title, err := tb.Title()
		return title == tb.Window.Name, ignoreBadWindow(err)
	})
}

// Reply answers the selected message (Ctrl+R) and returns the compose
// window ("Write: Re: … - Thunderbird") once it has the focus and its
// title is complete (it is "Write: (no subject)" for a moment).
func (tb *Thunderbird) Reply(ctx context.Context) (WindowInfo, error) {
	return tb.compose(ctx, "ctrl+r", "Write: Re: ")
}

// Compose opens a new message (Ctrl+N) and returns its compose window
// ("Write: (no subject) - Thunderbird") once it has the focus.
func (tb *Thunderbird) Compose(ctx context.Context) (WindowInfo, error) {
	return tb.compose(ctx, "ctrl+n", "Write: ")
}

func (tb *Thunderbird) compose(ctx context.Context, key, prefix string) (WindowInfo, error) {
	if err := tb.activate(ctx); err != nil {
		return WindowInfo{}, err
	}
	if err := tb.key(ctx, key); err != nil {
		return WindowInfo{}, err
	}
	return tb.waitActive(ctx, "compose window", func(w WindowInfo) bool {
		return strings.HasPrefix(w.Name, prefix) && strings.HasSuffix(w.Name, " - Thunderbird")
	})
}

// waitActive waits until the focused window satisfies match and returns
// it.
func (tb *Thunderbird) waitActive(ctx context.Context, what string, match func(WindowInfo) bool) (WindowInfo, error) {
	var found WindowInfo
	err := Poll(ctx, func() (bool, error) {
		id, err := tb.d.ActiveWindow()
		if err != nil || id == 0 {
			return false, err
		}
		w, err := tb.d.windowInfo(xproto.Window(id))
		if err != nil {
			return false, ignoreBadWindow(err)
		}
		if w.Viewable && match(w) {
			found = w
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		wins, _ := tb.d.FindWindows("")
		return WindowInfo{}, fmt.Errorf("waiting for thunderbird's %s (windows %+v): %w", what, wins, err)
	}
	return found, nil
}

// AskToClose types text into the focused compose window's body and
// closes it (Ctrl+W): Thunderbird asks whether to save the draft in a
// "Save Message" dialog, which is returned once it has the focus.
func (tb *Thunderbird) AskToClose(ctx context.Context, compose WindowInfo, text string) (WindowInfo, error) {
	if err := tb.d.Activate(ctx, compose.ID); err != nil {
		return WindowInfo{}, err
	}
	if err := tb.typeText(ctx, text); err != nil {
		return WindowInfo{}, err
	}
	if err := tb.key(ctx, "ctrl+w"); err != nil {
		return WindowInfo{}, err
	}
	return tb.waitActive(ctx, "save dialog", func(w WindowInfo) bool { return w.Name == "Save Message" })
}

// Discard answers the "Save Message" dialog with "Discard changes" and
// waits until the compose window is gone and the main window is in front
// again.
func (tb *Thunderbird) Discard(ctx context.Context) error {
	if err := tb.key(ctx, "alt+d"); err != nil {
		return err
	}
	err := Poll(ctx, func() (bool, error) {
		wins, err := tb.d.FindWindows("")
		if err != nil {
			return false, err
		}
		for _, w := range wins {
			if w.Viewable && (strings.HasPrefix(w.Name, "Write: ") || w.Name == "Save Message") {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("discard draft: %w", err)
	}
	return tb.activate(ctx)
}

// CloseWindow closes a compose window with nothing typed in it (Ctrl+W
// asks nothing then) and waits until it is gone.
func (tb *Thunderbird) CloseWindow(ctx context.Context, w WindowInfo) error {
	if err := tb.d.Activate(ctx, w.ID); err != nil {
		return err
	}
	if err := tb.key(ctx, "ctrl+w"); err != nil {
		return err
	}
	err := Poll(ctx, func() (bool, error) {
		info, err := tb.d.windowInfo(xproto.Window(w.ID))
		if err != nil {
			var werr error = ignoreBadWindow(err)
			return werr == nil, werr
		}
		return !info.Viewable, nil
	})
	if err != nil {
		return fmt.Errorf("close %q: %w", w.Name, err)
	}
	return tb.activate(ctx)
}

// errNoThunderbird is returned by helpers used after Thunderbird exited.
var errNoThunderbird = errors.New("thunderbird is not running")

// Running reports an error if Thunderbird has exited.
func (tb *Thunderbird) Running() error {
	select {
	case <-tb.Proc.Done():
		return fmt.Errorf("%w (%s)", errNoThunderbird, tb.Proc.status())
	default:
		return nil
	}
}

// atSpiLauncher is the accessibility bus launcher of Debian's
// at-spi2-core.
const atSpiLauncher = "/usr/libexec/at-spi-bus-launcher"

// StartAccessibilityBus runs the real at-spi-bus-launcher on bus, with
// accessibility on (org.a11y.Status.IsEnabled true, as a desktop has it
// when a screen reader or an accessibility setting is on), and waits until
// it owns org.a11y.Bus. Applications started with bus.Env() then put their
// accessibility tree on the accessibility bus, where a reader on the same
// session bus finds it. Its sockets live in a private runtime directory,
// removed at cleanup.
//
// It skips the test if the launcher is missing, unless
// SPIRIT_REQUIRE_DESKTOP=1 (on Debian: apt-get install at-spi2-core).
func StartAccessibilityBus(t testing.TB, ctx context.Context, d *Display, bus *Bus) {
	t.Helper()
	Require(t, atSpiLauncher, "dbus-daemon")
	// Not t.TempDir: a socket path is limited to 108 bytes.
	runtime, err := os.MkdirTemp("", "a11y-run-")
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	cmd := exec.Command(atSpiLauncher, "--launch-immediately", "--a11y=1")
	cmd.Env = childEnv(os.Environ(), append(append(d.Env(), bus.Env()...), "XDG_RUNTIME_DIR="+runtime))
	p, err := startProc(t, "at-spi-bus-launcher", cmd)
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	conn := bus.Conn(t)
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	err = Poll(sctx, func() (bool, error) {
		select {
		case <-p.Done():
			return false, fmt.Errorf("at-spi-bus-launcher exited: %s\n%s", p.status(), p.Output())
		default:
		}
		var owned bool
		err := conn.BusObject().CallWithContext(sctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.a11y.Bus").Store(&owned)
		return owned, err
	})
	if err != nil {
		t.Fatalf("xtest: at-spi-bus-launcher never owned org.a11y.Bus: %v", err)
	}
}
