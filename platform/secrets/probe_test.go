package secrets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spirit-app/spirit/agents/store/storetest"
)

// view is what a keychain in state st shows of kc's file key for dir.
func view(st KeychainState, kc *fakeKeychain, dir string) keychainView {
	kv := keychainView{state: st, detail: "test keychain " + st.String(), account: keyAccountOf(filepath.Join(dir, FileName))}
	if st == KeychainReady {
		kv.key, kv.keyErr = kc.Get(context.Background(), kv.account)
	}
	return kv
}

func TestProbeDir(t *testing.T) {
	ctx := context.Background()
	// saved stores two values with the key in kc (nil: in secrets.key).
	saved := func(t *testing.T, dir string, kc *fakeKeychain) {
		var k keychain
		if kc != nil {
			k = kc
		}
		st := testOpen(t, dir, k)
		for _, name := range []string{"imap/nadia", "provider/api-key"} {
			if err := st.Set(ctx, name, "secret of "+name); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(t *testing.T, path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name        string
		setup       func(t *testing.T, dir string, kc *fakeKeychain)
		keychain    KeychainState
		wantFile    FileState
		wantBackend string
		wantKeyIn   string
		wantValues  int
		wantDamaged []string
		wantErr     error // nil for none
	}{
		{name: "nothing yet, no keychain", setup: func(*testing.T, string, *fakeKeychain) {},
			keychain: KeychainNone, wantFile: FileNone, wantBackend: BackendFile},
		{name: "nothing yet, keychain ready", setup: func(*testing.T, string, *fakeKeychain) {},
			keychain: KeychainReady, wantFile: FileNone, wantBackend: BackendKeychain},
		{name: "nothing yet, keychain startable", setup: func(*testing.T, string, *fakeKeychain) {},
			keychain: KeychainStartable, wantFile: FileNone, wantBackend: BackendKeychain},
		{name: "only the key file (opened without a keychain, nothing saved)",
			setup:    func(t *testing.T, dir string, _ *fakeKeychain) { testOpen(t, dir, nil) },
			keychain: KeychainNone, wantFile: FileOK, wantBackend: BackendFile, wantKeyIn: "file"},
		{name: "key in the file, no keychain",
			setup:    func(t *testing.T, dir string, _ *fakeKeychain) { saved(t, dir, nil) },
			keychain: KeychainNone, wantFile: FileOK, wantBackend: BackendFile, wantKeyIn: "file", wantValues: 2},
		{name: "key in the file, keychain ready (Open moves the key there)",
			setup:    func(t *testing.T, dir string, _ *fakeKeychain) { saved(t, dir, nil) },
			keychain: KeychainReady, wantFile: FileOK, wantBackend: BackendKeychain, wantKeyIn: "file", wantValues: 2},
		{name: "key in the keychain, ready",
			setup:    func(t *testing.T, dir string, kc *fakeKeychain) { saved(t, dir, kc) },
			keychain: KeychainReady, wantFile: FileOK, wantBackend: BackendKeychain, wantKeyIn: "keychain", wantValues: 2},
		{name: "key in the keychain, locked",
			setup:    func(t *testing.T, dir string, kc *fakeKeychain) { saved(t, dir, kc) },
			keychain: KeychainLocked, wantFile: FileUnverified, wantBackend: BackendKeychain, wantValues: 2, wantErr: ErrKeyUnavailable},
		{name: "key in the keychain, not running",
			setup:    func(t *testing.T, dir string, kc *fakeKeychain) { saved(t, dir, kc) },
			keychain: KeychainStartable, wantFile: FileUnverified, wantBackend: BackendKeychain, wantValues: 2, wantErr: ErrKeyUnavailable},
		{name: "key in the keychain, no keychain now",
			setup:    func(t *testing.T, dir string, kc *fakeKeychain) { saved(t, dir, kc) },
			keychain: KeychainNone, wantFile: FileUnverified, wantBackend: BackendFile, wantValues: 2, wantErr: ErrKeyUnavailable},
		{name: "key in the keychain, keychain reset",
			setup: func(t *testing.T, dir string, kc *fakeKeychain) {
				saved(t, dir, kc)
				kc.Delete(ctx, keyAccountOf(filepath.Join(dir, FileName)))
			},
			keychain: KeychainReady, wantFile: FileKeyLost, wantBackend: BackendKeychain, wantValues: 2, wantErr: ErrKeyUnavailable},
		{name: "another key in the keychain",
			setup: func(t *testing.T, dir string, kc *fakeKeychain) {
				saved(t, dir, kc)
				kc.Set(ctx, keyAccountOf(filepath.Join(dir, FileName)), encodeKey(newKey()))
			},
			keychain: KeychainReady, wantFile: FileKeyLost, wantBackend: BackendKeychain, wantKeyIn: "keychain", wantValues: 2, wantErr: ErrKeyUnavailable},
		{name: "key file deleted",
			setup: func(t *testing.T, dir string, _ *fakeKeychain) {
				saved(t, dir, nil)
				os.Remove(filepath.Join(dir, KeyFileName))
			},
			keychain: KeychainNone, wantFile: FileKeyLost, wantBackend: BackendFile, wantValues: 2, wantErr: ErrKeyUnavailable},
		{name: "secrets.json not JSON",
			setup:    func(t *testing.T, dir string, _ *fakeKeychain) { write(t, filepath.Join(dir, FileName), "{not json") },
			keychain: KeychainReady, wantFile: FileDamaged, wantBackend: BackendKeychain, wantErr: ErrCorrupt},
		{name: "key file damaged",
			setup: func(t *testing.T, dir string, _ *fakeKeychain) {
				saved(t, dir, nil)
				write(t, filepath.Join(dir, KeyFileName), "not a key\n")
			},
			keychain: KeychainNone, wantFile: FileDamaged, wantBackend: BackendFile, wantValues: 2, wantErr: ErrCorrupt},
		{name: "one value altered",
			setup: func(t *testing.T, dir string, _ *fakeKeychain) {
				saved(t, dir, nil)
				d, err := readData(filepath.Join(dir, FileName))
				if err != nil {
					t.Fatal(err)
				}
				// The provider's sealed value under Nadia's name: it
				// must not decrypt as hers.
				b := []byte(fmt.Sprintf(`{"version":1,"key_id":%q,"key_in":"file","values":{"imap/nadia":%q,"provider/api-key":%q}}`,
					d.KeyID, d.Values["provider/api-key"], d.Values["provider/api-key"]))
				write(t, filepath.Join(dir, FileName), string(b))
			},
			keychain: KeychainNone, wantFile: FileDamaged, wantBackend: BackendFile, wantKeyIn: "file", wantValues: 2,
			wantDamaged: []string{"imap/nadia"}, wantErr: ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, kc := t.TempDir(), newFakeKeychain()
			tc.setup(t, dir, kc)
			before := storetest.Folder(t, dir)
			got, err := probeDir(dir, view(tc.keychain, kc, dir))
			t.Logf("status %+v, err %v", got, err)
			if got.File != tc.wantFile || got.Backend != tc.wantBackend || got.KeyIn != tc.wantKeyIn || got.Values != tc.wantValues {
				t.Errorf("file %v, backend %q, key in %q, %d values; want %v, %q, %q, %d",
					got.File, got.Backend, got.KeyIn, got.Values, tc.wantFile, tc.wantBackend, tc.wantKeyIn, tc.wantValues)
			}
			if !slices.Equal(got.Damaged, tc.wantDamaged) {
				t.Errorf("damaged %q, want %q", got.Damaged, tc.wantDamaged)
			}
			if (err == nil) != (tc.wantErr == nil) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Errorf("err %v, want %v", err, tc.wantErr)
			}
			if got.Keychain != tc.keychain || got.KeychainDetail == "" {
				t.Errorf("keychain %v %q, want %v with a detail", got.Keychain, got.KeychainDetail, tc.keychain)
			}
			if after := storetest.Folder(t, dir); !slices.Equal(before, after) {
				t.Errorf("the probe changed the folder:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}
