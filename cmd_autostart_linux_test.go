package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/xtest"
)

// TestAutostartAtLogin: `spirit autostart on` from the built program
// writes an XDG autostart entry that the freedesktop.org validator
// accepts; run as a desktop runs it at login (openbox-xdg-autostart:
// `sh -c "exec <Exec>"`, with the session's display and bus), the entry
// brings Spirit up on its data folder — a path with a space and an
// apostrophe — with its orb on screen and its local API healthy.
// status says on, off removes it, status says off.
func TestAutostartAtLogin(t *testing.T) {
	if testing.Short() {
		t.Skip("desktop integration test: skipped in -short mode")
	}
	validator, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		if os.Getenv("SPIRIT_REQUIRE_DESKTOP") != "" {
			t.Fatalf("desktop-file-validate not found (Debian: desktop-file-utils; make deps-test installs it): %v", err)
		}
		t.Skip("desktop-file-validate not installed")
	}
	disp := xtest.StartDisplay(t, 1280, 800)
	bus := xtest.StartSessionBus(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // a cold cgo build of Fyne takes minutes
	defer cancel()
	bin := programs.Build(t, ctx, "github.com/spirit-app/spirit", "sqlite_fts5")

	cfg := t.TempDir()
	dataDir := filepath.Join(t.TempDir(), "Dana's Spirit data")
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("spirit %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	out := cli("autostart", "on", "--data-dir", dataDir)
	entry := filepath.Join(cfg, "autostart", "spirit.desktop")
	if !strings.Contains(out, "Spirit starts when you log in") || !strings.Contains(out, entry) {
		t.Errorf("autostart on said %q", out)
	}
	if v, err := exec.Command(validator, entry).CombinedOutput(); err != nil || len(strings.TrimSpace(string(v))) > 0 {
		t.Errorf("desktop-file-validate: %v\n%s", err, v)
	}
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	var execLine string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Exec="); ok {
			execLine = v
		}
	}
	if !strings.HasPrefix(execLine, bin) && !strings.HasPrefix(execLine, `"`+bin+`"`) {
		t.Fatalf("Exec=%s, want the built program's absolute path %s first", execLine, bin)
	}

	// The login: the session's environment, then the entry's command
	// through a shell, as openbox's autostart launches it.
	env := append(append([]string{"LANG=C.UTF-8", "XDG_CONFIG_HOME=" + cfg}, disp.Env()...), bus.Env()...)
	p := xtest.Run(t, ctx, "/bin/sh", []string{"-c", "exec " + execLine}, env)
	if _, err := disp.WaitWindow(ctx, "Spirit", func(w xtest.WindowInfo) bool { return w.Viewable }); err != nil {
		t.Fatalf("no orb after the login start: %v\n%s", err, p.Output())
	}
	var info api.Info
	if err := xtest.Poll(ctx, func() (bool, error) {
		var err error
		info, err = api.ReadInfo(dataDir)
		return err == nil, nil
	}); err != nil {
		t.Fatalf("Spirit did not start on %s: %v", dataDir, err)
	}
	h, err := api.NewClient(info).Health(ctx)
	if err != nil || h.Status != "ok" {
		t.Errorf("/health = %+v, %v; want ok", h, err)
	}

	if out := cli("autostart", "status"); !strings.Contains(out, "Spirit starts when you log in") || !strings.Contains(out, dataDir) {
		t.Errorf("status said %q, want on, with the data folder", out)
	}
	if out := cli("autostart", "off"); !strings.Contains(out, "does not start") {
		t.Errorf("off said %q", out)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("the entry is still there after off: %v", err)
	}
	if out := cli("autostart", "status"); !strings.Contains(out, "does not start") {
		t.Errorf("status after off said %q", out)
	}

	// Quit as the session's end would: SIGTERM, a clean exit.
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Errorf("Spirit exited %d, %v after SIGTERM\n%s", code, err, p.Output())
	}
}
