//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package secrets

import (
	"context"
	"errors"
	"os"
	"os/exec"
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

// TestProbeDoesNotActivateTheSecretService: on a session bus that would
// start a Secret Service on demand, Probe reports it startable and does
// not start it. The fake service only leaves a mark; starting it on
// purpose afterwards shows the mark would have told.
func TestProbeDoesNotActivateTheSecretService(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Secret Service is Linux's keychain")
	}
	dbusDaemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		msg := "dbus-daemon not installed (apt install dbus): skipping"
		if os.Getenv("SPIRIT_REQUIRE_DESKTOP") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	tmp, err := os.MkdirTemp("", "spirit-act") // short: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	services := filepath.Join(tmp, "services")
	os.Mkdir(services, 0o700)
	mark := filepath.Join(tmp, "started")
	fake := filepath.Join(tmp, "fake-keyring")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	unit := "[D-BUS Service]\nName=" + ssName + "\nExec=" + fake + "\n"
	if err := os.WriteFile(filepath.Join(services, ssName+".service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "unix:path=" + filepath.Join(tmp, "bus")
	conf := `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>` + addr + `</listen>
  <servicedir>` + services + `</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`
	confPath := filepath.Join(tmp, "session.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	bus := exec.Command(dbusDaemon, "--config-file="+confPath, "--nofork", "--nopidfile")
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Process.Kill(); bus.Wait() })
	conn := waitBus(t, addr)
	defer conn.Close()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)

	dir := t.TempDir()
	got, err := Probe(t.Context(), dir)
	if err != nil || got.Keychain != KeychainStartable || got.Backend != BackendKeychain || got.File != FileNone {
		t.Errorf("Probe = %+v, %v; want a startable keychain, the keychain backend, no file", got, err)
	}
	time.Sleep(200 * time.Millisecond) // an activation would have run by now
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("Probe started the Secret Service")
	}
	if after := storetest.Folder(t, dir); len(after) != 0 {
		t.Errorf("Probe created %q", after)
	}

	// The control: asking the service for anything does start it. The
	// reply is not awaited: the fake never claims the name, so the bus
	// answers only when its activation timeout ends.
	conn.Object(ssName, ssPath).Go(ssService+".OpenSession", 0, nil, "plain", dbus.MakeVariant(""))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake Secret Service never started, so the test shows nothing")
		}
		time.Sleep(20 * time.Millisecond)
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
