package app

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
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
