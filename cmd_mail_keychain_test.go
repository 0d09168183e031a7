//go:build linux

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/spirit-app/spirit/agents/store/storetest"
	"github.com/spirit-app/spirit/platform/xtest"
)

// activatableKeychain runs a private session bus on which the Secret
// Service would be started on demand by a fake that only leaves a mark,
// points this process at it, and returns the mark's path. A dbus-launch
// first on PATH leaves the same mark, should anything try to start a bus.
func activatableKeychain(t *testing.T) string {
	t.Helper()
	bus, mark := xtest.StartActivatingBus(t, "org.freedesktop.secrets")
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "dbus-launch"), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	return mark
}

// TestMailCommandsLeaveTheKeychainAlone: `spirit mail list` and `spirit
// mail search` need no secret, nor do adding and syncing a mail folder, so
// they start no keyring daemon and create no secret store. The control,
// asking for the Secret Service, shows the mark would have told.
func TestMailCommandsLeaveTheKeychainAlone(t *testing.T) {
	dir := t.TempDir()
	mark := activatableKeychain(t)
	noSecrets := func(t *testing.T, args []string) {
		t.Helper()
		if _, err := os.Stat(mark); err == nil {
			t.Errorf("%q started the keyring daemon", args)
		}
		for _, f := range []string{"secrets.json", "secrets.key"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%q created %s", args, f)
			}
		}
	}
	for _, tc := range []struct {
		name     string
		args     []string
		readOnly bool // leaves the data folder as it was
	}{
		{name: "add a folder", args: []string{"mail", "add", "maildir", testMaildir(t), "--address", "dana@example.com"}},
		{name: "sync a folder", args: []string{"mail", "sync"}},
		{name: "list", args: []string{"mail", "list"}, readOnly: true},
		{name: "search", args: []string{"mail", "search", "Estoppel"}, readOnly: true},
		{name: "search by sender", args: []string{"mail", "search", "--sender", "bob@example.com"}, readOnly: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each command is judged on its own.
			for _, p := range []string{mark, filepath.Join(dir, "secrets.json"), filepath.Join(dir, "secrets.key")} {
				os.Remove(p)
			}
			before := storetest.Folder(t, dir)
			code, out, errOut := spirit(append(tc.args, "--data-dir", dir)...)
			if code != 0 {
				t.Fatalf("exit %d, %q %q", code, out, errOut)
			}
			noSecrets(t, tc.args)
			if after := storetest.Folder(t, dir); tc.readOnly && !slices.Equal(before, after) {
				t.Errorf("%q changed the data folder:\nbefore %q\nafter  %q", tc.args, before, after)
			}
		})
	}

	// The control: asking the Secret Service for anything starts it. The
	// reply is not awaited: the fake never claims the name.
	conn, err := dbus.SessionBusPrivate()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	conn.Object("org.freedesktop.secrets", "/org/freedesktop/secrets").Go("org.freedesktop.Secret.Service.OpenSession", 0, nil, "plain", dbus.MakeVariant(""))
	for deadline := time.Now().Add(5 * time.Second); ; {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake keyring never started, so the test shows nothing")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
