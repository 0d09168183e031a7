//go:build linux

package xtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/godbus/dbus/v5"
)

// busConfig is a self-contained session bus configuration. Unlike the
// system's session.conf it has no service directories, so a call to a name
// nobody owns fails at once instead of activating a host service
// (a11y bus, dconf, portals) inside the test.
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>%s
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// Bus is a private DBus session bus.
type Bus struct {
	// Address is the bus address, for DBUS_SESSION_BUS_ADDRESS.
	Address string

	proc *Proc
}

// StartSessionBus starts a private dbus-daemon and waits until it accepts
// connections. It is stopped at test cleanup.
//
// It skips the test if dbus-daemon is missing, unless
// SPIRIT_REQUIRE_DESKTOP=1.
func StartSessionBus(t testing.TB) *Bus {
	t.Helper()
	Require(t, "dbus-daemon")
	b, err := startSessionBus(t, "")
	if err != nil {
		t.Fatalf("xtest: start session bus: %v", err)
	}
	return b
}

// StartActivatingBus starts a private session bus on which a call to name
// starts a fake service on demand, as a desktop starts a keyring daemon.
// The fake only creates the file at the returned path: a test that must
// not start the service checks that the file is absent (and, as its
// control, that calling name creates it).
func StartActivatingBus(t testing.TB, name string) (b *Bus, mark string) {
	t.Helper()
	Require(t, "dbus-daemon")
	// Not t.TempDir: the bus socket lives beside it, and socket paths are
	// limited to 108 bytes.
	dir, err := os.MkdirTemp("", "xtest-act-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	services := filepath.Join(dir, "services")
	if err := os.Mkdir(services, 0o700); err != nil {
		t.Fatal(err)
	}
	mark = filepath.Join(dir, "started")
	fake := filepath.Join(dir, "fake-service")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	unit := "[D-BUS Service]\nName=" + name + "\nExec=" + fake + "\n"
	if err := os.WriteFile(filepath.Join(services, name+".service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err = startSessionBus(t, services)
	if err != nil {
		t.Fatalf("xtest: start session bus: %v", err)
	}
	return b, mark
}

// startSessionBus starts dbus-daemon; services, when not "", is a
// directory of activatable services.
func startSessionBus(t testing.TB, services string) (*Bus, error) {
	ctx, cancel := startContext(t)
	defer cancel()
	// Not t.TempDir: socket paths are limited to 108 bytes and test names
	// can be long.
	dir, err := os.MkdirTemp("", "xtest-bus-")
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	conf := filepath.Join(dir, "session.conf")
	servicedir := ""
	if services != "" {
		servicedir = "\n  <servicedir>" + services + "</servicedir>"
	}
	if err := os.WriteFile(conf, fmt.Appendf(nil, busConfig, filepath.Join(dir, "bus"), servicedir), 0o600); err != nil {
		return nil, err
	}

	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command("dbus-daemon", "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = childEnv(os.Environ(), nil)
	p, err := startProc(t, "dbus-daemon", cmd)
	w.Close() // keep only the child's copy, so its exit ends our read
	if err != nil {
		return nil, err
	}
	// The address is printed once the daemon listens.
	addr, err := readLineFD(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("waiting for dbus-daemon's address: %w\n%s", err, p.Output())
	}
	return &Bus{Address: addr, proc: p}, nil
}

// Env returns the environment entries that point a child at this bus.
func (b *Bus) Env() []string {
	return []string{"DBUS_SESSION_BUS_ADDRESS=" + b.Address}
}

// Conn opens a new connection to the bus for the test itself; it is closed
// at test cleanup.
func (b *Bus) Conn(t testing.TB) *dbus.Conn {
	t.Helper()
	conn, err := b.connect()
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// connect opens a connection that lives until it is closed. (A context
// given to godbus bounds the connection's life, not the dial.)
func (b *Bus) connect() (*dbus.Conn, error) {
	conn, err := dbus.Connect(b.Address)
	if err != nil {
		return nil, fmt.Errorf("connect to session bus %s: %w", b.Address, err)
	}
	return conn, nil
}
