package secrets

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// TestEachFolderHasItsOwnEntry: two data folders on one keychain keep
// their keys in two entries, each named in its secrets.json; forgetting
// one folder's removes that entry only, and the other folder still reads
// its passwords. Before, every folder shared one entry, so "Delete all
// Spirit data" could not remove it without locking the others out.
func TestEachFolderHasItsOwnEntry(t *testing.T) {
	ctx := context.Background()
	kc := newFakeKeychain()
	a, b := t.TempDir(), t.TempDir()
	if err := testOpen(t, a, kc).Set(ctx, "imap/a", "pw-a"); err != nil {
		t.Fatal(err)
	}
	if err := testOpen(t, b, kc).Set(ctx, "imap/b", "pw-b"); err != nil {
		t.Fatal(err)
	}
	accA, accB := keyAccountOf(filepath.Join(a, FileName)), keyAccountOf(filepath.Join(b, FileName))
	if accA == accB || !strings.HasPrefix(accA, keyAccountPrefix) || !strings.HasPrefix(accB, keyAccountPrefix) || len(kc.m) != 2 {
		t.Fatalf("entries %v for accounts %q and %q, want one of each folder's own", kc.m, accA, accB)
	}
	d, err := readData(filepath.Join(a, FileName))
	if err != nil {
		t.Fatal(err)
	}
	got, err := forget(ctx, kc, d)
	if err != nil || got != (Forgotten{Account: accA}) {
		t.Fatalf("forget = %+v, %v; want %q removed", got, err, accA)
	}
	if _, ok := kc.m[accA]; ok || len(kc.m) != 1 {
		t.Errorf("entries after forgetting %s: %v", a, kc.m)
	}
	if v, err := testOpen(t, b, kc).Get(ctx, "imap/b"); err != nil || v != "pw-b" {
		t.Errorf("the other folder reads %q, %v; want its password", v, err)
	}
	// Forgetting twice (an entry already gone) is not an error.
	if _, err := forget(ctx, kc, d); err != nil {
		t.Errorf("second forget: %v", err)
	}
}

// TestSharedEntryMovesToTheFolder: a folder from before each had its own
// entry (secrets.json names none; the key is in the shared entry) gets an
// entry of its own when opened, keeps its passwords, and leaves the shared
// entry for any other folder that uses it. Forget on such a folder not yet
// opened removes nothing and says the shared entry stays.
func TestSharedEntryMovesToTheFolder(t *testing.T) {
	ctx := context.Background()
	kc := newFakeKeychain()
	dir := t.TempDir()
	if err := testOpen(t, dir, kc).Set(ctx, "imap/nadia", "pw"); err != nil {
		t.Fatal(err)
	}
	// Make it as the older Spirit left it.
	path := filepath.Join(dir, FileName)
	d, err := readData(path)
	if err != nil {
		t.Fatal(err)
	}
	kc.m[fileKeyAccount] = kc.m[d.KeyAccount]
	delete(kc.m, d.KeyAccount)
	d.KeyAccount = ""
	if err := writeData(dir, d); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(path); strings.Contains(string(raw), "key_account") {
		t.Fatalf("old-style file still names an entry: %s", raw)
	}
	if got, err := Forget(ctx, dir); err != nil || got != (Forgotten{Shared: true}) {
		t.Errorf("Forget of an old-style folder = %+v, %v; want nothing removed, the shared entry named", got, err)
	}

	if v, err := testOpen(t, dir, kc).Get(ctx, "imap/nadia"); err != nil || v != "pw" {
		t.Fatalf("after the move: %q, %v", v, err)
	}
	own := keyAccountOf(path)
	if !strings.HasPrefix(own, keyAccountPrefix) || kc.m[own] == "" || kc.m[own] != kc.m[fileKeyAccount] {
		t.Fatalf("entries %v, own %q: want the key in an entry of the folder's own, the shared one kept", kc.m, own)
	}
	// Reopening uses the folder's entry: the shared one is not needed.
	delete(kc.m, fileKeyAccount)
	if v, err := testOpen(t, dir, kc).Get(ctx, "imap/nadia"); err != nil || v != "pw" {
		t.Fatalf("without the shared entry: %q, %v", v, err)
	}
}

// TestForgetWithoutKeychainEntry: a folder whose key is a file, or that
// has no secrets at all, has no entry to forget.
func TestForgetWithoutKeychainEntry(t *testing.T) {
	ctx := context.Background()
	fileKey := t.TempDir()
	if err := testOpen(t, fileKey, nil).Set(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"key in a file": fileKey, "no secrets": t.TempDir()} {
		if got, err := Forget(ctx, dir); err != nil || got != (Forgotten{}) {
			t.Errorf("%s: Forget = %+v, %v; want nothing", name, got, err)
		}
	}
}

// TestNewFolderNamesItsEntryFirst: a new folder's secrets.json names the
// entry before the key is put in it, so that no crash leaves an entry
// nothing names: with a keychain that refuses the key, secrets.json
// already names the entry, and the next open (the keychain working again)
// makes the key under that very name.
func TestNewFolderNamesItsEntryFirst(t *testing.T) {
	dir := t.TempDir()
	refusing := &refusingKeychain{}
	if _, err := open(context.Background(), dir, refusing, slog.Default()); err == nil {
		t.Fatal("open with a keychain that refuses the key succeeded")
	}
	named := keyAccountOf(filepath.Join(dir, FileName))
	if !strings.HasPrefix(named, keyAccountPrefix) || !slices.Equal(refusing.asked, []string{named}) {
		t.Fatalf("secrets.json names %q; the keychain was asked for %q", named, refusing.asked)
	}
	kc := newFakeKeychain()
	testOpen(t, dir, kc)
	if _, ok := kc.m[named]; !ok || len(kc.m) != 1 {
		t.Errorf("entries %v, want the key under %q", kc.m, named)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, FileName))
	var d fileData
	if err := json.Unmarshal(raw, &d); err != nil || d.KeyID != keyID(mustDecode(t, kc.m[named])) {
		t.Errorf("secrets.json %s does not fingerprint the key made", raw)
	}
}

type refusingKeychain struct{ asked []string }

func (k *refusingKeychain) Get(context.Context, string) (string, error) { return "", ErrNotFound }
func (k *refusingKeychain) Set(_ context.Context, account, _ string) error {
	k.asked = append(k.asked, account)
	return os.ErrPermission
}
func (k *refusingKeychain) Delete(context.Context, string) error { return nil }

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	k, err := decodeKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestForgetRealSecretService: against gnome-keyring, Forget removes the
// entry Open made for the folder, and only it.
func TestForgetRealSecretService(t *testing.T) {
	startSecretService(t)
	ctx := t.Context()
	dir, other := t.TempDir(), t.TempDir()
	for _, d := range []string{dir, other} {
		st, err := Open(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Set(ctx, "imap/nadia", "pw"); err != nil {
			t.Fatal(err)
		}
	}
	account := keyAccountOf(filepath.Join(dir, FileName))
	if _, err := keyring.Get(Service, account); err != nil {
		t.Fatalf("entry %q not in the Secret Service: %v", account, err)
	}
	got, err := Forget(ctx, dir)
	if err != nil || got.Account != account {
		t.Fatalf("Forget = %+v, %v; want %q removed", got, err, account)
	}
	if _, err := keyring.Get(Service, account); err != keyring.ErrNotFound {
		t.Errorf("entry %q after Forget: %v, want it gone", account, err)
	}
	if _, err := keyring.Get(Service, keyAccountOf(filepath.Join(other, FileName))); err != nil {
		t.Errorf("the other folder's entry: %v, want it kept", err)
	}
}
