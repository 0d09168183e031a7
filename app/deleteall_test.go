package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/platform/secrets/secretstest"
)

func TestOwnData(t *testing.T) {
	names := []string{
		"spirit.db", "spirit.db-wal", "spirit.db-shm", "spirit.lock", "api.json", ".api.json.123.tmp",
		"secrets.json", "secrets.key", "secrets.json.broken-20260101-101010", "secrets.json.tmp42",
		"Calendar events", "models", "notes.txt", "spirit.db.mine", "Documents",
	}
	for _, tc := range []struct {
		name   string
		models bool
		want   []string
	}{
		{"without the models", false, []string{"spirit.db", "spirit.db-wal", "spirit.db-shm", "api.json", ".api.json.123.tmp",
			"secrets.json", "secrets.key", "secrets.json.broken-20260101-101010", "secrets.json.tmp42", "Calendar events"}},
		{"with the models", true, []string{"spirit.db", "spirit.db-wal", "spirit.db-shm", "api.json", ".api.json.123.tmp",
			"secrets.json", "secrets.key", "secrets.json.broken-20260101-101010", "secrets.json.tmp42", "Calendar events", "models"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ownData(names, tc.models); !slices.Equal(got, tc.want) {
				t.Errorf("got %q,\nwant %q", got, tc.want)
			}
		})
	}
}

// TestDeleteOwnDataLeavesLinksTargets: Spirit's names go, links as links;
// what they point to, and anything else in the folder, stays.
func TestDeleteOwnDataLeavesLinksTargets(t *testing.T) {
	for _, models := range []bool{false, true} {
		dir, outside := t.TempDir(), t.TempDir()
		write := func(p string) {
			t.Helper()
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range []string{"spirit.db", "spirit.db-wal", "secrets.json", "api.json", "spirit.lock", "notes.txt"} {
			write(filepath.Join(dir, n))
		}
		// The models folder is a link to a shared folder; the calendar's
		// events folder holds a link to a file of the lawyer's.
		write(filepath.Join(outside, "models", "ggml-base.en.bin"))
		write(filepath.Join(outside, "brief.ics"))
		if err := os.Symlink(filepath.Join(outside, "models"), filepath.Join(dir, "models")); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "Calendar events"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "brief.ics"), filepath.Join(dir, "Calendar events", "brief.ics")); err != nil {
			t.Fatal(err)
		}

		deleted, err := deleteOwnData(dir, models)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"Calendar events", "api.json", "secrets.json", "spirit.db", "spirit.db-wal"}
		if models {
			want = []string{"Calendar events", "api.json", "models", "secrets.json", "spirit.db", "spirit.db-wal"}
		}
		if !slices.Equal(deleted, want) {
			t.Errorf("models %v: deleted %q, want %q", models, deleted, want)
		}
		left, _ := os.ReadDir(dir)
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		wantLeft := []string{"models", "notes.txt", "spirit.lock"}
		if models {
			wantLeft = []string{"notes.txt", "spirit.lock"}
		}
		if !slices.Equal(names, wantLeft) {
			t.Errorf("models %v: left %q, want %q", models, names, wantLeft)
		}
		for _, p := range []string{filepath.Join(outside, "models", "ggml-base.en.bin"), filepath.Join(outside, "brief.ics")} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("models %v: %s outside the folder was touched: %v", models, p, err)
			}
		}
	}
}

// TestDeleteAllRemovesTheKeychainEntry: against a real gnome-keyring,
// deleting all of a folder's data removes the keychain entry Spirit made
// for it (the key to its passwords) and says so in the log; another
// folder's entry and passwords stay. Before, the entry stayed, shared by
// every folder.
func TestDeleteAllRemovesTheKeychainEntry(t *testing.T) {
	secretstest.Start(t)
	ctx := t.Context()
	dir, other := t.TempDir(), t.TempDir()
	accounts := map[string]string{}
	for _, d := range []string{dir, other} {
		st, err := secrets.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		if st.Backend() != secrets.BackendKeychain {
			t.Fatalf("backend %q with gnome-keyring running", st.Backend())
		}
		if err := st.Set(ctx, "imap/nadia", "app-password"); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(d, secrets.FileName))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Account string `json:"key_account"`
		}
		if err := json.Unmarshal(raw, &f); err != nil || f.Account == "" {
			t.Fatalf("secrets.json %s names no keychain entry (%v)", raw, err)
		}
		if _, err := keyring.Get(secrets.Service, f.Account); err != nil {
			t.Fatalf("entry %q: %v", f.Account, err)
		}
		accounts[d] = f.Account
	}

	var logs bytes.Buffer
	if err := deleteAllData(ctx, dir, false, slog.New(slog.NewTextHandler(&logs, nil))); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(secrets.Service, accounts[dir]); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("the deleted folder's entry: %v, want it gone", err)
	}
	if l := logs.String(); !strings.Contains(l, "removed the entry Spirit made for this folder") || !strings.Contains(l, accounts[dir]) {
		t.Errorf("the log does not say the entry went:\n%s", l)
	}
	if _, err := os.Stat(filepath.Join(dir, secrets.FileName)); !os.IsNotExist(err) {
		t.Errorf("secrets.json: %v, want it deleted", err)
	}
	st, err := secrets.Open(other)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := st.Get(ctx, "imap/nadia"); err != nil || v != "app-password" {
		t.Errorf("the other folder's password: %q, %v", v, err)
	}
}
