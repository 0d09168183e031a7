package secrets

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// fakeKeychain is an in-memory keychain with Windows' 2560-byte limit on
// a secret, so tests show that big values never go to the keychain.
type fakeKeychain struct {
	mu sync.Mutex
	m  map[string]string
}

func newFakeKeychain() *fakeKeychain { return &fakeKeychain{m: map[string]string{}} }

func (k *fakeKeychain) Get(_ context.Context, account string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[account]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (k *fakeKeychain) Set(_ context.Context, account, value string) error {
	if len(value) > 2560 {
		return errors.New("fake keychain: data passed to Set was too big")
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[account] = value
	return nil
}

func (k *fakeKeychain) Delete(_ context.Context, account string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, account)
	return nil
}

func testOpen(t *testing.T, dir string, kc keychain) *fileStore {
	t.Helper()
	var s *fileStore
	var err error
	if kc == nil {
		s, err = open(context.Background(), dir, nil, slog.Default())
	} else {
		s, err = open(context.Background(), dir, kc, slog.Default())
	}
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func roundTrip(t *testing.T, st Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.Get(ctx, "imap/nadia"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
	if err := st.Set(ctx, "imap/nadia", "app-password-1234"); err != nil {
		t.Fatal(err)
	}
	if err := st.Set(ctx, "other", "x"); err != nil {
		t.Fatal(err)
	}
	if v, err := st.Get(ctx, "imap/nadia"); err != nil || v != "app-password-1234" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	if err := st.Set(ctx, "imap/nadia", "rotated"); err != nil {
		t.Fatal(err)
	}
	if v, _ := st.Get(ctx, "imap/nadia"); v != "rotated" {
		t.Fatalf("after overwrite Get = %q", v)
	}
	if err := st.Delete(ctx, "imap/nadia"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "imap/nadia"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if err := st.Delete(ctx, "imap/nadia"); err != nil {
		t.Fatalf("Delete of a missing key: %v", err)
	}
	if v, _ := st.Get(ctx, "other"); v != "x" {
		t.Fatalf("other key lost: %q", v)
	}
}

func TestFileFallbackRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st := testOpen(t, dir, nil)
	if st.Backend() != BackendFile {
		t.Errorf("Backend = %q, want %q", st.Backend(), BackendFile)
	}
	roundTrip(t, st)

	// A new Store on the same directory reads what the first wrote.
	again := testOpen(t, dir, nil)
	if v, err := again.Get(context.Background(), "other"); err != nil || v != "x" {
		t.Fatalf("reopened Get = %q, %v", v, err)
	}
}

func TestFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := filepath.Join(t.TempDir(), "data")
	st := testOpen(t, dir, nil)
	if err := st.Set(context.Background(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{FileName: 0o600, KeyFileName: 0o600, ".": 0o700} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode %o, want %o", name, got, want)
		}
	}
	// No temporary files left behind.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files in data dir: %v", entries)
	}
}

func TestValuesNotInPlaintext(t *testing.T) {
	dir := t.TempDir()
	st := testOpen(t, dir, nil)
	secret := "ya29.a0AfB_byC-very-secret-refresh-token"
	if err := st.Set(context.Background(), "oauth/gmail", secret); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{secret, "very-secret", base64.StdEncoding.EncodeToString([]byte(secret))} {
		if bytes.Contains(b, []byte(leak)) {
			t.Errorf("secrets.json contains %q:\n%s", leak, b)
		}
	}
	if !bytes.Contains(b, []byte("oauth/gmail")) {
		t.Error("key name missing from the file (expected in clear)")
	}
}

func TestCorruptFile(t *testing.T) {
	ctx := context.Background()
	t.Run("not JSON", func(t *testing.T) {
		dir := t.TempDir()
		st := testOpen(t, dir, nil)
		st.Set(ctx, "k", "v")
		garbage := []byte("{\"version\":1,\"values\":{\"k\":")
		os.WriteFile(filepath.Join(dir, FileName), garbage, 0o600)
		_, err := open(ctx, dir, nil, slog.Default())
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), FileName) {
			t.Fatalf("open: %v, want ErrCorrupt naming the file", err)
		}
		if _, err := st.Get(ctx, "k"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Get on an open store: %v, want ErrCorrupt", err)
		}
		if err := st.Set(ctx, "k2", "v"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Set on a corrupt file: %v, want ErrCorrupt (and no overwrite)", err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, FileName)); !bytes.Equal(b, garbage) {
			t.Fatal("corrupt file was rewritten")
		}
		moved, err := Reset(dir)
		if err != nil || !strings.Contains(moved, ".broken-") {
			t.Fatalf("Reset = %q, %v", moved, err)
		}
		if b, _ := os.ReadFile(moved); !bytes.Equal(b, garbage) {
			t.Fatal("Reset did not keep the old file")
		}
		roundTrip(t, testOpen(t, dir, nil))
	})
	t.Run("tampered value", func(t *testing.T) {
		dir := t.TempDir()
		st := testOpen(t, dir, nil)
		st.Set(ctx, "k", "value")
		p := filepath.Join(dir, FileName)
		b, _ := os.ReadFile(p)
		d, _ := readData(p)
		raw, _ := base64.StdEncoding.DecodeString(d.Values["k"])
		raw[len(raw)-1] ^= 1
		b = bytes.Replace(b, []byte(d.Values["k"]), []byte(base64.StdEncoding.EncodeToString(raw)), 1)
		os.WriteFile(p, b, 0o600)
		if _, err := st.Get(ctx, "k"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Get of a tampered value: %v, want ErrCorrupt", err)
		}
	})
	t.Run("value moved to another name", func(t *testing.T) {
		dir := t.TempDir()
		st := testOpen(t, dir, nil)
		st.Set(ctx, "a", "secret-a")
		st.Set(ctx, "b", "secret-b")
		p := filepath.Join(dir, FileName)
		d, _ := readData(p)
		b, _ := os.ReadFile(p)
		b = bytes.Replace(b, []byte(d.Values["b"]), []byte(d.Values["a"]), 1)
		os.WriteFile(p, b, 0o600)
		if v, err := st.Get(ctx, "b"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Get = %q, %v; a value swapped between names must not decrypt", v, err)
		}
	})
	t.Run("bad key file", func(t *testing.T) {
		dir := t.TempDir()
		testOpen(t, dir, nil).Set(ctx, "k", "v")
		os.WriteFile(filepath.Join(dir, KeyFileName), []byte("short"), 0o600)
		if _, err := open(ctx, dir, nil, slog.Default()); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("open: %v, want ErrCorrupt", err)
		}
	})
	t.Run("key file lost", func(t *testing.T) {
		dir := t.TempDir()
		testOpen(t, dir, nil).Set(ctx, "k", "v")
		os.Remove(filepath.Join(dir, KeyFileName))
		_, err := open(ctx, dir, nil, slog.Default())
		if !errors.Is(err, ErrKeyUnavailable) {
			t.Fatalf("open: %v, want ErrKeyUnavailable", err)
		}
		if _, err := os.Stat(filepath.Join(dir, KeyFileName)); err == nil {
			t.Fatal("a new key file was created over existing secrets")
		}
	})
}

func TestLargeValue(t *testing.T) {
	big := strings.Repeat("0123456789", 1024) // 10 KB, past every keychain's limit
	for _, tc := range []struct {
		name string
		kc   keychain
	}{{"file", nil}, {"keychain", newFakeKeychain()}} {
		t.Run(tc.name, func(t *testing.T) {
			st := testOpen(t, t.TempDir(), tc.kc)
			if err := st.Set(context.Background(), "oauth/outlook", big); err != nil {
				t.Fatal(err)
			}
			if v, err := st.Get(context.Background(), "oauth/outlook"); err != nil || v != big {
				t.Fatalf("Get: %d bytes, %v", len(v), err)
			}
		})
	}
}

func TestKeychainHoldsOnlyTheKey(t *testing.T) {
	dir := t.TempDir()
	kc := newFakeKeychain()
	st := testOpen(t, dir, kc)
	if st.Backend() != BackendKeychain {
		t.Errorf("Backend = %q", st.Backend())
	}
	roundTrip(t, st)
	if _, err := os.Stat(filepath.Join(dir, KeyFileName)); err == nil {
		t.Error("key file written although a keychain exists")
	}
	if len(kc.m) != 1 || kc.m[keyAccountOf(filepath.Join(dir, FileName))] == "" {
		t.Errorf("keychain entries: %v", kc.m)
	}
	// Reopening finds the same key.
	if v, err := testOpen(t, dir, kc).Get(context.Background(), "other"); err != nil || v != "x" {
		t.Fatalf("reopened: %q, %v", v, err)
	}
}

func TestKeyMovesIntoKeychain(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	testOpen(t, dir, nil).Set(ctx, "k", "v")
	kc := newFakeKeychain()
	st := testOpen(t, dir, kc) // a keychain appeared (gnome-keyring installed)
	if v, err := st.Get(ctx, "k"); err != nil || v != "v" {
		t.Fatalf("Get after migration: %q, %v", v, err)
	}
	if _, err := os.Stat(filepath.Join(dir, KeyFileName)); err == nil {
		t.Error("key file kept after moving the key into the keychain")
	}
	if st.Backend() != BackendKeychain {
		t.Errorf("Backend = %q", st.Backend())
	}
}

func TestKeychainKeyMissing(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	testOpen(t, dir, newFakeKeychain()).Set(ctx, "k", "v")
	before, _ := os.ReadFile(filepath.Join(dir, FileName))

	// The keychain was reset: its key is gone.
	_, err := open(ctx, dir, newFakeKeychain(), slog.Default())
	if !errors.Is(err, ErrKeyUnavailable) {
		t.Fatalf("open with an empty keychain: %v, want ErrKeyUnavailable", err)
	}
	// The keychain is unreachable this time (no Secret Service running).
	_, err = open(ctx, dir, nil, slog.Default())
	if !errors.Is(err, ErrKeyUnavailable) || !strings.Contains(err.Error(), "keychain") {
		t.Fatalf("open without a keychain: %v, want ErrKeyUnavailable mentioning the keychain", err)
	}
	if _, err := os.Stat(filepath.Join(dir, KeyFileName)); err == nil {
		t.Error("a key file was created over secrets encrypted with the keychain's key")
	}
	if after, _ := os.ReadFile(filepath.Join(dir, FileName)); !bytes.Equal(before, after) {
		t.Error("secrets.json changed")
	}
}

func TestOpenWithoutSessionBus(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("keychain does not use D-Bus here")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend() != BackendFile {
		t.Fatalf("Backend = %q, want %q", st.Backend(), BackendFile)
	}
	roundTrip(t, st)
}

func TestContextCancelled(t *testing.T) {
	st := testOpen(t, t.TempDir(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Set(ctx, "k", "v"); !errors.Is(err, context.Canceled) {
		t.Errorf("Set: %v", err)
	}
	if _, err := st.Get(ctx, "k"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get: %v", err)
	}
}
