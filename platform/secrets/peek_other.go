//go:build !((dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd)

package secrets

import (
	"context"
	"runtime"
)

// peekKeychain reads the file key's entry (account) from the macOS Keychain or the
// Windows Credential Manager. Both are part of the system, so there is no
// daemon to start, and a read changes nothing.
func peekKeychain(ctx context.Context, account string) keychainView {
	var kv keychainView
	switch runtime.GOOS {
	case "darwin":
		kv = keychainView{state: KeychainReady, detail: "macOS Keychain"}
	case "windows":
		kv = keychainView{state: KeychainReady, detail: "Windows Credential Manager"}
	default:
		return keychainView{state: KeychainNone, detail: "no OS keychain on " + runtime.GOOS}
	}
	kv.key, kv.keyErr = osKeychain{service: Service}.Get(ctx, account)
	return kv
}
