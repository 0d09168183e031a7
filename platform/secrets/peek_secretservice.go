//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package secrets

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/godbus/dbus/v5"
	ss "github.com/zalando/go-keyring/secret_service"
)

// The Secret Service as go-keyring uses it (secret_service.go there).
const (
	ssName          = "org.freedesktop.secrets"
	ssPath          = dbus.ObjectPath("/org/freedesktop/secrets")
	ssLogin         = dbus.ObjectPath("/org/freedesktop/secrets/collection/login")
	ssDefault       = dbus.ObjectPath("/org/freedesktop/secrets/aliases/default")
	ssService       = "org.freedesktop.Secret.Service"
	ssCollection    = "org.freedesktop.Secret.Collection"
	ssItem          = "org.freedesktop.Secret.Item"
	ssSession       = "org.freedesktop.Secret.Session"
	dbusPropertyGet = "org.freedesktop.DBus.Properties.Get"
)

// peekKeychain looks at the Secret Service on a private connection to the
// session bus, without starting anything: no dbus-launch (sessionBusAddress
// never autolaunches), no activation of a keyring daemon (NameHasOwner
// first, and every call to the service carries FlagNoAutoStart), and no
// unlock prompt (a locked keyring is reported, not opened).
func peekKeychain(ctx context.Context, account string) keychainView {
	addr, err := sessionBusAddress()
	if err != nil {
		return keychainView{state: KeychainNone, detail: err.Error()}
	}
	// godbus's dial and handshake take no context; a bus that accepts
	// the connection and never answers must not hang the doctor.
	done := make(chan keychainView, 1)
	go func() { done <- peekSecretService(ctx, addr, account) }()
	select {
	case kv := <-done:
		return kv
	case <-ctx.Done():
		return keychainView{state: KeychainNone, detail: "the D-Bus session bus did not answer: " + ctx.Err().Error()}
	}
}

func peekSecretService(ctx context.Context, addr, account string) keychainView {
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return keychainView{state: KeychainNone, detail: "the D-Bus session bus does not answer: " + err.Error()}
	}
	defer conn.Close()

	bus := conn.BusObject()
	var owned bool
	if err := bus.CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, ssName).Store(&owned); err != nil {
		return keychainView{state: KeychainNone, detail: "the D-Bus session bus does not answer: " + err.Error()}
	}
	if !owned {
		var names []string
		if err := bus.CallWithContext(ctx, "org.freedesktop.DBus.ListActivatableNames", 0).Store(&names); err == nil && slices.Contains(names, ssName) {
			return keychainView{state: KeychainStartable,
				detail: "no Secret Service runs now; the session bus starts one (such as gnome-keyring) the first time Spirit needs a password"}
		}
		return keychainView{state: KeychainNone, detail: "no Secret Service (" + ssName + ") on the D-Bus session bus"}
	}

	get := func(path dbus.ObjectPath, iface, prop string) (dbus.Variant, error) {
		var v dbus.Variant
		err := conn.Object(ssName, path).CallWithContext(ctx, dbusPropertyGet, dbus.FlagNoAutoStart, iface, prop).Store(&v)
		return v, err
	}
	// The collection go-keyring files entries in: "login" if there is
	// one, else the default alias.
	coll := ssDefault
	if v, err := get(ssPath, ssService, "Collections"); err == nil {
		if paths, ok := v.Value().([]dbus.ObjectPath); ok && slices.Contains(paths, ssLogin) {
			coll = ssLogin
		}
	}
	v, err := get(coll, ssCollection, "Locked")
	if err != nil {
		return keychainView{state: KeychainLocked,
			detail: fmt.Sprintf("the Secret Service has no default keyring yet (%v); it asks to create one the first time Spirit needs a password", err)}
	}
	if locked, _ := v.Value().(bool); locked {
		return keychainView{state: KeychainLocked,
			detail: "the keyring (Secret Service) is locked; it asks you to unlock it the first time Spirit needs a password"}
	}
	kv := keychainView{state: KeychainReady, detail: "Secret Service (" + ssName + ")"}
	kv.key, kv.keyErr = readFileKey(ctx, conn, coll, account)
	return kv
}

// readFileKey reads the file key's entry from an unlocked collection, as
// go-keyring's Get would but without its unlock call, which may prompt.
func readFileKey(ctx context.Context, conn *dbus.Conn, coll dbus.ObjectPath, account string) (string, error) {
	call := func(path dbus.ObjectPath, method string, args ...any) *dbus.Call {
		return conn.Object(ssName, path).CallWithContext(ctx, method, dbus.FlagNoAutoStart, args...)
	}
	var items []dbus.ObjectPath
	search := map[string]string{"username": account, "service": Service}
	if err := call(coll, ssCollection+".SearchItems", search).Store(&items); err != nil {
		return "", err
	}
	if len(items) == 0 {
		return "", ErrNotFound
	}
	var discard dbus.Variant
	var session dbus.ObjectPath
	if err := call(ssPath, ssService+".OpenSession", "plain", dbus.MakeVariant("")).Store(&discard, &session); err != nil {
		return "", err
	}
	defer call(session, ssSession+".Close")
	var sec ss.Secret
	if err := call(items[0], ssItem+".GetSecret", session).Store(&sec); err != nil {
		return "", err
	}
	if len(sec.Value) == 0 {
		return "", errors.New("the keychain returned an empty entry")
	}
	return string(sec.Value), nil
}
