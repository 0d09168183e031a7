package secrets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
	ss "github.com/zalando/go-keyring/secret_service"

	"github.com/spirit-app/spirit/platform/secrets/secretstest"
)

// startSecretService runs a real gnome-keyring on a private session bus
// for this test (secretstest.Start).
func startSecretService(t *testing.T) { secretstest.Start(t) }

// waitBus connects to the bus at addr once it answers.
func waitBus(t *testing.T, addr string) *dbus.Conn { return secretstest.WaitBus(t, addr) }

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
	// The key really is in the Secret Service, under Spirit's service,
	// in an entry of this folder's own.
	account := keyAccountOf(filepath.Join(dir, FileName))
	if !strings.HasPrefix(account, keyAccountPrefix) {
		t.Fatalf("secrets.json names the entry %q, want one of this folder's own", account)
	}
	k, err := keyring.Get(Service, account)
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
