//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package secrets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	ss "github.com/zalando/go-keyring/secret_service"

	"github.com/spirit-app/spirit/agents/store/storetest"
)

// fakeDBusLaunch puts a dbus-launch first on PATH that leaves a mark when
// run, and returns the mark's path.
func fakeDBusLaunch(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	mark := filepath.Join(bin, "dbus-launch-ran")
	script := "#!/bin/sh\ntouch " + mark + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "dbus-launch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return mark
}

// TestProbeWithoutSessionBus: with no bus (and an address that asks
// godbus to autolaunch one), Probe says so, runs no dbus-launch and
// creates nothing.
func TestProbeWithoutSessionBus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Secret Service is Linux's keychain")
	}
	mark := fakeDBusLaunch(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "autolaunch:")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	got, err := Probe(t.Context(), dir)
	if err != nil || got.Keychain != KeychainNone || got.Backend != BackendFile || got.File != FileNone {
		t.Errorf("Probe = %+v, %v; want no keychain, the file backend, no file", got, err)
	}
	if !strings.Contains(got.KeychainDetail, "no D-Bus session bus") {
		t.Errorf("detail %q, want it to say there is no session bus", got.KeychainDetail)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("Probe ran dbus-launch")
	}
	if after := storetest.Folder(t, dir); len(after) != 0 {
		t.Errorf("Probe created %q", after)
	}
}

// TestProbeRealSecretService: against gnome-keyring, Probe finds the key
// Open put there and checks the values, reports a locked keyring without
// prompting, and adds nothing to the keyring or the folder.
func TestProbeRealSecretService(t *testing.T) {
	startSecretService(t)
	ctx := t.Context()

	empty := t.TempDir()
	got, err := Probe(ctx, empty)
	if err != nil || got.Keychain != KeychainReady || got.File != FileNone {
		t.Errorf("fresh keyring: Probe = %+v, %v; want ready, no file", got, err)
	}
	svc, err := ss.NewSecretService()
	if err != nil {
		t.Fatal(err)
	}
	login := svc.GetLoginCollection()
	if items, err := svc.SearchItems(login, map[string]string{"service": Service}); err != nil || len(items) != 0 {
		t.Errorf("Probe left %d entries in the keyring (%v), want none", len(items), err)
	}

	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Set(ctx, "imap/nadia", "app-password-1234"); err != nil {
		t.Fatal(err)
	}
	before := storetest.Folder(t, dir)
	got, err = Probe(ctx, dir)
	if err != nil || got.Keychain != KeychainReady || got.File != FileOK || got.KeyIn != "keychain" || got.Values != 1 {
		t.Errorf("Probe = %+v, %v; want ready, ok, key in the keychain, 1 value", got, err)
	}

	// Lock the keyring: Probe must report it, not ask to unlock it.
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	if err := svc.Object(ssName, ssPath).Call(ssService+".Lock", 0, []dbus.ObjectPath{login.Path()}).Store(&locked, &prompt); err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	got, err = Probe(pctx, dir)
	if got.Keychain != KeychainLocked || got.File != FileUnverified || !errors.Is(err, ErrKeyUnavailable) {
		t.Errorf("locked keyring: Probe = %+v, %v; want locked, unverified", got, err)
	}
	if pctx.Err() != nil {
		t.Error("Probe waited on the locked keyring (an unlock prompt?)")
	}
	if after := storetest.Folder(t, dir); !slices.Equal(before, after) {
		t.Errorf("Probe changed the folder:\nbefore %q\nafter  %q", before, after)
	}
}
