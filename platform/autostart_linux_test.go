package platform

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// On, status, off and status again, in a temporary XDG_CONFIG_HOME: the
// file appears where desktops look, says what it starts, and goes.
func TestAutostartOnOffStatus(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	want := filepath.Join(cfg, "autostart", "spirit.desktop")

	if a, err := AutostartStatus(); err != nil || a.On || a.Command != nil {
		t.Fatalf("status before = %+v, %v; want off, no entry", a, err)
	}
	if err := DisableAutostart(); err != nil {
		t.Errorf("off without an entry: %v", err)
	}
	cmd := []string{"/opt/Spirit App/spirit", "--data-dir", "/home/dana/Spirit data"}
	if err := EnableAutostart(cmd); err != nil {
		t.Fatal(err)
	}
	a, err := AutostartStatus()
	if err != nil || !a.On || !slices.Equal(a.Command, cmd) || a.Where != want {
		t.Fatalf("status after on = %+v, %v; want on, %q, at %s", a, err, cmd, want)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("entry file: %v, %v; want mode 0644", fi, err)
	}
	// The desktop's own switch (GNOME Tweaks) turns it off in the file.
	data, _ := os.ReadFile(want)
	os.WriteFile(want, []byte(strings.Replace(string(data), "X-GNOME-Autostart-enabled=true", "X-GNOME-Autostart-enabled=false", 1)), 0o644)
	if a, err := AutostartStatus(); err != nil || a.On || a.Note == "" {
		t.Errorf("status when turned off by the desktop = %+v, %v; want off with a note", a, err)
	}
	if err := EnableAutostart(cmd[:1]); err != nil {
		t.Fatal(err)
	}
	if a, _ := AutostartStatus(); !a.On || !slices.Equal(a.Command, cmd[:1]) {
		t.Errorf("on again = %+v; want on, replaced", a)
	}
	if err := DisableAutostart(); err != nil {
		t.Fatal(err)
	}
	if a, err := AutostartStatus(); err != nil || a.On || a.Command != nil {
		t.Errorf("status after off = %+v, %v; want off", a, err)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("entry still there after off: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Dir(want)); len(left) != 0 {
		t.Errorf("files left in autostart: %v", left)
	}

	if err := EnableAutostart([]string{"spirit"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative program: %v, want an error saying it must be absolute", err)
	}
	if err := EnableAutostart(nil); err == nil {
		t.Error("an empty command was accepted")
	}
}

// Without XDG_CONFIG_HOME (or with a relative one, which the spec says to
// ignore) the entry goes to ~/.config/autostart.
func TestAutostartPathDefault(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"", "relative/dir"} {
		t.Setenv("XDG_CONFIG_HOME", v)
		got, err := autostartPath()
		if want := filepath.Join(home, ".config", "autostart", "spirit.desktop"); err != nil || got != want {
			t.Errorf("XDG_CONFIG_HOME=%q: path %q, %v; want %s", v, got, err, want)
		}
	}
}
