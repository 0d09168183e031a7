package secrets

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

// probeTimeout bounds opening the keychain. It is generous because a
// locked keyring may show an unlock prompt the user has to answer.
const probeTimeout = 30 * time.Second

// keychain is the OS keychain as the store uses it (an interface so tests
// can stand in a fake with Windows' size limit).
type keychain interface {
	Get(ctx context.Context, account string) (string, error) // ErrNotFound if absent
	Set(ctx context.Context, account, value string) error
	Delete(ctx context.Context, account string) error
}

// osKeychain is go-keyring: macOS Keychain, Windows Credential Manager,
// Secret Service over D-Bus elsewhere.
type osKeychain struct{ service string }

func (k osKeychain) Get(ctx context.Context, account string) (string, error) {
	var v string
	err := withContext(ctx, func() error {
		var err error
		v, err = keyring.Get(k.service, account)
		return err
	})
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNotFound
	}
	return v, err
}

func (k osKeychain) Set(ctx context.Context, account, value string) error {
	return withContext(ctx, func() error { return keyring.Set(k.service, account, value) })
}

func (k osKeychain) Delete(ctx context.Context, account string) error {
	err := withContext(ctx, func() error { return keyring.Delete(k.service, account) })
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// withContext runs a go-keyring call, giving up when ctx ends. go-keyring
// takes no context and its Secret Service client waits without limit for
// an unlock prompt to be answered; on a headless machine nobody answers.
// The abandoned call finishes (or not) in its goroutine.
func withContext(ctx context.Context, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("keychain did not answer: %w", ctx.Err())
	}
}

// probe checks that the keychain can store, return and delete a value.
// A keychain that exists but fails this is treated as absent: better a key
// file than secrets that cannot be read back.
func probe(ctx context.Context, kc keychain) error {
	if err := sessionBusPresent(); err != nil {
		return err
	}
	b := make([]byte, 8)
	rand.Read(b)
	account, want := "probe-"+hex.EncodeToString(b), hex.EncodeToString(b)
	if err := kc.Set(ctx, account, want); err != nil {
		return fmt.Errorf("keychain refused a test entry: %w", err)
	}
	defer kc.Delete(context.WithoutCancel(ctx), account)
	got, err := kc.Get(ctx, account)
	if err != nil {
		return fmt.Errorf("keychain lost a test entry: %w", err)
	}
	if got != want {
		return errors.New("keychain returned a different test entry")
	}
	return nil
}

// sessionBusPresent reports, on systems whose keychain is the D-Bus Secret
// Service, whether a session bus can be reached without starting one. With
// no bus address godbus falls back to `dbus-launch`, which leaves a stray
// daemon behind on every start.
func sessionBusPresent() error {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android", "plan9", "js", "wasip1":
		return nil
	}
	addr, err := sessionBusAddress()
	if err != nil {
		return err
	}
	// godbus looks for the bus in /run/user/<uid>, not $XDG_RUNTIME_DIR,
	// and runs dbus-launch when it is not there or an autolaunch: entry
	// comes up; pinning the address found here makes go-keyring use that
	// bus and nothing else (godbus sets the variable the same way when it
	// finds a bus itself).
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != addr {
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	}
	return nil
}

// sessionBusAddress is the session bus's address, found without starting a
// bus: $DBUS_SESSION_BUS_ADDRESS less any autolaunch: entry (which would
// run dbus-launch), else the socket systemd user sessions provide at
// $XDG_RUNTIME_DIR/bus without setting the variable.
func sessionBusAddress() (string, error) {
	var keep []string
	for _, a := range strings.Split(os.Getenv("DBUS_SESSION_BUS_ADDRESS"), ";") {
		if a != "" && !strings.HasPrefix(a, "autolaunch:") {
			keep = append(keep, a)
		}
	}
	if len(keep) > 0 {
		return strings.Join(keep, ";"), nil
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		p := filepath.Join(dir, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + dbus.EscapeBusAddressValue(p), nil
		}
	}
	return "", errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset), so no Secret Service")
}
