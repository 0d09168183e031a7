package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/secrets"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper"
)

// check is one line of `spirit doctor`.
type check struct {
	name   string
	ok     bool
	detail string
	fix    string // what to do when !ok
}

// Doctor checks what Spirit needs and prints one line per part, with the fix
// for each problem. It reports whether everything is fine.
func Doctor(ctx context.Context, dataDir string, w io.Writer) bool {
	checks := []check{
		checkDisplay(),
		checkTray(ctx),
		checkMicrophone(),
		checkScreenCapture(),
		checkSpeech(ctx, dataDir),
		checkProvider(ctx, dataDir),
		checkKeychain(dataDir),
		checkDatabase(ctx, dataDir),
	}
	fmt.Fprintf(w, "Spirit doctor (data directory %s)\n\n", dataDir)
	all := true
	for _, c := range checks {
		mark := "OK     "
		if !c.ok {
			mark, all = "PROBLEM", false
		}
		fmt.Fprintf(w, "  %s  %-15s %s\n", mark, c.name, c.detail)
		if !c.ok && c.fix != "" {
			fmt.Fprintf(w, "  %7s  %-15s fix: %s\n", "", "", c.fix)
		}
	}
	if all {
		fmt.Fprintln(w, "\nEverything Spirit needs is in place.")
	} else {
		fmt.Fprintln(w, "\nSpirit runs with what is available; fix the problems above for the rest.")
	}
	return all
}

func checkDisplay() check {
	c := check{name: "display"}
	if runtime.GOOS != "linux" {
		c.ok, c.detail = true, "native desktop ("+runtime.GOOS+")"
		return c
	}
	d, err := platform.OpenDesktop()
	if err != nil {
		c.detail = err.Error()
		c.fix = "run Spirit inside a desktop session (X11, or Wayland with XWayland); on a server use `spirit --headless`"
		return c
	}
	defer d.Close()
	scr, _ := d.ScreenRect()
	wa, _ := d.WorkArea()
	c.ok = true
	c.detail = fmt.Sprintf("X11 %s, screen %dx%d, work area %v", os.Getenv("DISPLAY"), scr.Dx(), scr.Dy(), wa)
	return c
}

func checkTray(ctx context.Context) check {
	c := check{name: "tray host"}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	st, err := platform.ProbeTray(ctx)
	switch st {
	case platform.TrayReady:
		c.ok, c.detail = true, "a StatusNotifier host will show Spirit's icon"
	case platform.TrayNative:
		c.ok, c.detail = true, "the system tray is built in"
	case platform.TrayNoHost:
		c.detail = "no StatusNotifier host on the session bus: no tray icon (the orb still gives the menu)"
		c.fix = "GNOME: install the “AppIndicator and KStatusNotifierItem Support” extension; other desktops: enable a system tray panel applet"
	default:
		c.detail = "no DBus session bus"
		if err != nil {
			c.detail += ": " + err.Error()
		}
		c.fix = "start Spirit from your desktop session, or with `dbus-run-session -- spirit`"
	}
	return c
}

func checkMicrophone() check {
	c := check{name: "microphone"}
	if runtime.GOOS != "linux" {
		c.ok, c.detail = true, "not checked on "+runtime.GOOS+" by this version"
		return c
	}
	b, err := os.ReadFile("/proc/asound/cards")
	cards := strings.TrimSpace(string(b))
	if err != nil || cards == "" || strings.Contains(cards, "no soundcards") {
		c.detail = "no sound card found"
		c.fix = "plug in a microphone or headset; Spirit keeps running and listens once one is there"
		return c
	}
	first := strings.TrimSpace(strings.SplitN(cards, "\n", 2)[0])
	c.ok, c.detail = true, "sound card: "+first
	return c
}

func checkScreenCapture() check {
	c := check{name: "screen capture"}
	if runtime.GOOS != "linux" {
		c.ok, c.detail = true, "not checked on "+runtime.GOOS+" by this version"
		return c
	}
	d, err := platform.OpenDesktop()
	if err != nil {
		c.detail = "no display to capture"
		c.fix = "run Spirit inside a desktop session"
		return c
	}
	defer d.Close()
	if err := d.CaptureProbe(); err != nil {
		c.detail = err.Error()
		c.fix = "Wayland sessions need XWayland and the screenshot portal; check that your session allows screen capture"
		return c
	}
	c.ok, c.detail = true, "the screen can be read (screenshots stay in memory)"
	return c
}

func checkSpeech(ctx context.Context, dataDir string) check {
	c := check{name: "speech model"}
	var pref string
	if st, err := store.OpenDir(ctx, dataDir); err == nil {
		pref, _, _ = st.Setting(ctx, settingVoiceModel)
		st.Close()
	}
	path, err := model.Find(dataDir, pref)
	if err != nil {
		c.detail = "no speech model in " + model.Dir(dataDir) + ": voice commands are off"
		c.fix = "spirit model download " + model.Default
		return c
	}
	start := time.Now()
	tr, err := whisper.Load(ctx, path, whisper.Options{})
	if err != nil {
		c.detail = err.Error()
		c.fix = "delete " + path + " and run `spirit model download " + model.Default + "`"
		return c
	}
	tr.Close()
	c.ok = true
	c.detail = fmt.Sprintf("%s (whisper.cpp %s on this device, loads in %v)", filepath.Base(path), whisper.Version, time.Since(start).Round(time.Millisecond))
	return c
}

func checkProvider(ctx context.Context, dataDir string) check {
	c := check{name: "model provider"}
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		c.detail = err.Error()
		return c
	}
	defer st.Close()
	s, err := setup.Load(ctx, st)
	if err != nil {
		c.detail = err.Error()
		return c
	}
	if !s.Configured() {
		c.ok, c.detail = true, "none configured: Spirit decides with its on-device rules only, and nothing leaves this computer"
		return c
	}
	sec, err := secrets.Open(dataDir)
	if err != nil {
		c.detail, c.fix = err.Error(), "unlock your keyring, then `spirit provider test`"
		return c
	}
	p, err := setup.Provider(ctx, s, sec, nil)
	if err == nil {
		var msg string
		if msg, err = setup.Test(ctx, p, s.Roles.Triage); err == nil {
			c.ok, c.detail = true, msg
			return c
		}
	}
	c.detail = err.Error()
	c.fix = "check the provider, models and API key: `spirit provider show`, then `spirit provider set …`"
	return c
}

func checkKeychain(dataDir string) check {
	c := check{name: "keychain"}
	st, err := secrets.Open(dataDir)
	if err != nil {
		c.detail = err.Error()
		c.fix = "unlock your keyring (GNOME Keyring, KWallet, macOS Keychain), or move secrets.json aside to start afresh"
		return c
	}
	if st.Backend() == secrets.BackendFile {
		c.detail = "no OS keychain: passwords and tokens are in an encrypted file whose key sits beside it"
		c.fix = "install and unlock a Secret Service keyring (e.g. gnome-keyring) so the key moves into it"
		return c
	}
	c.ok, c.detail = true, "passwords and tokens are protected by the OS keychain"
	return c
}

func checkDatabase(ctx context.Context, dataDir string) check {
	c := check{name: "database"}
	path := filepath.Join(dataDir, "spirit.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		c.detail = err.Error()
		c.fix = "move " + path + " aside (keep it: it holds your history) and start Spirit to create a fresh one"
		return c
	}
	defer st.Close()
	v, err := st.SchemaVersion(ctx)
	if err != nil {
		c.detail = err.Error()
		c.fix = "move " + path + " aside and start Spirit again"
		return c
	}
	if err := st.IntegrityCheck(ctx); err != nil {
		c.detail = err.Error()
		c.fix = "restore " + path + " from a backup, or move it aside and start Spirit again"
		return c
	}
	fi, err := os.Stat(path)
	if err == nil && fi.Mode().Perm()&0o077 != 0 {
		c.detail = fmt.Sprintf("%s is readable by other users (%v)", path, fi.Mode().Perm())
		c.fix = "chmod 600 " + path
		return c
	}
	c.ok, c.detail = true, fmt.Sprintf("%s (schema %d, integrity ok, mode 0600)", path, v)
	return c
}
