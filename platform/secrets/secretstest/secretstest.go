// Package secretstest runs a real Secret Service (gnome-keyring) on a
// private D-Bus session bus, for tests of what Spirit keeps in the OS
// keychain. It is used by tests only.
package secretstest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Start runs a private session bus and gnome-keyring-daemon
// on it, with an unlocked login keyring in a temporary home, and points
// this process's D-Bus clients at it. It skips the test when the tools are
// missing unless SPIRIT_REQUIRE_DESKTOP=1.
func Start(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("Secret Service test is Linux-only")
	}
	need := func(bin, pkg string) string {
		p, err := exec.LookPath(bin)
		if err != nil {
			msg := bin + " not installed (apt install " + pkg + "): skipping the real keychain test"
			if os.Getenv("SPIRIT_REQUIRE_DESKTOP") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		return p
	}
	dbusDaemon := need("dbus-daemon", "dbus")
	gkd := need("gnome-keyring-daemon", "gnome-keyring")

	// Short path: unix socket paths are limited to ~108 bytes.
	tmp, err := os.MkdirTemp("", "spirit-ss")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	run := filepath.Join(tmp, "run")
	os.Mkdir(run, 0o700)
	addr := "unix:path=" + filepath.Join(tmp, "bus")

	bus := exec.Command(dbusDaemon, "--session", "--nofork", "--nopidfile", "--address="+addr)
	bus.Env = append(os.Environ(), "HOME="+tmp, "XDG_RUNTIME_DIR="+run)
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Process.Kill(); bus.Wait() })
	conn := WaitBus(t, addr)
	defer conn.Close()

	gk := exec.Command(gkd, "--foreground", "--unlock", "--components=secrets")
	gk.Env = append(os.Environ(),
		"DBUS_SESSION_BUS_ADDRESS="+addr, "HOME="+tmp, "XDG_RUNTIME_DIR="+run,
		"XDG_DATA_HOME="+filepath.Join(tmp, "data"), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
	gk.Stdin = strings.NewReader("test-keyring-password") // unlocks (creates) the login keyring
	stderr, _ := gk.StderrPipe()
	if err := gk.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gk.Process.Kill(); gk.Wait() })
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Log("gnome-keyring-daemon:", sc.Text())
		}
	}()

	deadline := time.Now().Add(10 * time.Second)
	for {
		var has bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&has)
		if err == nil && has {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("gnome-keyring-daemon did not claim org.freedesktop.secrets: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
}

// WaitBus connects to the session bus at addr, waiting up to 5 s for it
// to answer.
func WaitBus(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := dbus.Connect(addr)
		if err == nil {
			return conn
		}
		if time.Now().After(deadline) {
			t.Fatalf("private session bus did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
