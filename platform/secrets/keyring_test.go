package secrets

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
	ss "github.com/zalando/go-keyring/secret_service"
)

// startSecretService runs a private session bus and gnome-keyring-daemon
// on it, with an unlocked login keyring in a temporary home, and points
// this process's D-Bus clients at it. It skips the test when the tools are
// missing unless SPIRIT_REQUIRE_DESKTOP=1.
func startSecretService(t *testing.T) {
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
	conn := waitBus(t, addr)
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

func waitBus(t *testing.T, addr string) *dbus.Conn {
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

func TestRealSecretService(t *testing.T) {
	startSecretService(t)
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend() != BackendKeychain {
		t.Fatalf("Backend = %q, want %q with gnome-keyring running", st.Backend(), BackendKeychain)
	}
	roundTrip(t, st)

	big := strings.Repeat("tok", 4000) // 12 KB of OAuth token JSON
	ctx := context.Background()
	if err := st.Set(ctx, "oauth/outlook", big); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, KeyFileName)); err == nil {
		t.Error("key file written although the Secret Service works")
	}
	// The key really is in the Secret Service, under Spirit's service.
	k, err := keyring.Get(Service, fileKeyAccount)
	if err != nil {
		t.Fatalf("file key not in the Secret Service: %v", err)
	}
	if _, err := decodeKey(k); err != nil {
		t.Fatalf("file key in the Secret Service: %v", err)
	}
	// A second Open (a restart) reads the same key and the values.
	again, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := again.Get(ctx, "oauth/outlook"); err != nil || v != big {
		t.Fatalf("after reopen: %d bytes, %v", len(v), err)
	}
	// Only the file key is in the keychain: the probes cleaned up, and no
	// value went there.
	svc, err := ss.NewSecretService()
	if err != nil {
		t.Fatal(err)
	}
	items, err := svc.SearchItems(svc.GetLoginCollection(), map[string]string{"service": Service})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 {
		t.Errorf("%d Spirit entries in the Secret Service, want 1 (the file key)", len(items))
	}
}
