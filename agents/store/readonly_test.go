package store

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fileState is what a reader must leave as it found: the files in the
// folder and the database's size and modification time.
type fileState struct {
	names []string
	size  int64
	mtime time.Time
}

func stateOf(t *testing.T, dir string) fileState {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var st fileState
	for _, e := range es {
		st.names = append(st.names, e.Name())
	}
	if fi, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
		st.size, st.mtime = fi.Size(), fi.ModTime()
	}
	return st
}

func (a fileState) same(b fileState) bool {
	return slices.Equal(a.names, b.names) && a.size == b.size && a.mtime.Equal(b.mtime)
}

// seedClosed writes a database with entries and closes it, as a Spirit that
// quit leaves it: no -wal or -shm beside it.
func seedClosed(t *testing.T, texts ...string) string {
	t.Helper()
	dir := t.TempDir()
	s, err := OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		mustAppendEvent(t, s, Event{Source: "test", Text: text})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestOpenReadOnlyChangesNothing(t *testing.T) {
	ctx := t.Context()
	dir := seedClosed(t, "one", "two")
	before := stateOf(t, dir)
	s, err := OpenDirReadOnly(ctx, dir, ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if es, err := s.Recent(ctx, 10); err != nil || len(es) != 2 || es[1].Text != "two" {
		t.Fatalf("Recent = %v, %v", es, err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != LatestSchemaVersion() {
		t.Fatalf("SchemaVersion = %d, %v", v, err)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	// Writes fail, through the Store and through its connections alike.
	if _, err := s.AppendEvent(ctx, Event{Source: "test", Text: "no"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("AppendEvent on a read-only store: %v, want ErrReadOnly", err)
	}
	if _, err := s.LogEvent(ctx, Event{Source: "test", Text: "no"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("LogEvent on a read-only store: %v, want ErrReadOnly", err)
	}
	if _, err := s.Reader().ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('k', 'v')`); err == nil {
		t.Error("an INSERT through the read-only pool succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after := stateOf(t, dir); !before.same(after) {
		t.Fatalf("reading changed the folder:\nbefore %+v\nafter  %+v", before, after)
	}
}

func TestOpenReadOnlyNoData(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"no folder", func(t *testing.T, dir string) { os.Remove(dir) }, "Spirit has no data yet in "},
		{"no file", func(*testing.T, string) {}, "Spirit has no data yet in "},
		{"empty file", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, FileName), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "spirit.db is empty"},
		{"database without tables", func(t *testing.T, dir string) {
			db := rawDB(t, filepath.Join(dir, FileName))
			if _, err := db.Exec(`PRAGMA user_version = 0; VACUUM`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}, "spirit.db has no tables yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "spirit")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			_, statErr := os.Stat(dir)
			before := fileState{}
			if statErr == nil {
				before = stateOf(t, dir)
			}
			_, err := OpenDirReadOnly(t.Context(), dir, ReadOnlyOptions{})
			if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("got %v, want ErrNoData saying %q and naming %s", err, tc.want, dir)
			}
			if _, err := os.Stat(dir); statErr != nil && err == nil {
				t.Fatal("opening read-only created the folder")
			}
			if statErr == nil {
				if after := stateOf(t, dir); !before.same(after) {
					t.Fatalf("opening read-only changed the folder: %+v → %+v", before, after)
				}
			}
		})
	}
}

func TestOpenReadOnlySchema(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	db := rawDB(t, path)
	if err := MigrateTo(ctx, db, 1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenReadOnly(ctx, path, ReadOnlyOptions{}); !errors.Is(err, ErrSchemaOld) {
		t.Fatalf("older schema: %v, want ErrSchemaOld", err)
	}
	s, err := OpenReadOnly(ctx, path, ReadOnlyOptions{AnySchema: true})
	if err != nil {
		t.Fatalf("older schema with AnySchema: %v", err)
	}
	defer s.Close()
	if v, err := s.SchemaVersion(ctx); err != nil || v != 1 {
		t.Fatalf("SchemaVersion = %d, %v; want 1", v, err)
	}
}

// A reader beside a running Spirit sees what it writes, before and after
// the reader opened.
func TestOpenReadOnlyBesideAWriter(t *testing.T) {
	ctx := t.Context()
	w, _ := openTest(t)
	mustAppendEvent(t, w, Event{Source: "test", Text: "before"})
	r, err := OpenReadOnly(ctx, w.Path(), ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mustAppendEvent(t, w, Event{Source: "test", Text: "after"})
	if got := strings.Join(texts(t, r), "|"); got != "before|after" {
		t.Fatalf("reader sees %q", got)
	}
}

// Following a closed database sees what a Spirit started later writes.
func TestOpenReadOnlyFollow(t *testing.T) {
	ctx := t.Context()
	dir := seedClosed(t, "before")
	r, err := OpenDirReadOnly(ctx, dir, ReadOnlyOptions{Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustAppendEvent(t, w, Event{Source: "test", Text: "later"})
	if got := strings.Join(texts(t, r), "|"); got != "before|later" {
		t.Fatalf("follower sees %q", got)
	}
}

func TestCheckWriteLock(t *testing.T) {
	ctx := t.Context()
	dir := seedClosed(t, "x")
	path := filepath.Join(dir, FileName)
	before := stateOf(t, dir)
	if err := CheckWriteLock(ctx, path, time.Second); err != nil {
		t.Fatalf("closed database: %v", err)
	}
	if after := stateOf(t, dir); !before.same(after) {
		t.Fatalf("checking a closed database changed the folder: %+v → %+v", before, after)
	}

	release := holdWriteLock(t, path)
	r, err := OpenReadOnly(ctx, path, ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := CheckWriteLock(ctx, path, 50*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Fatalf("locked database: %v, want ErrBusy", err)
	}
	release()
	if err := CheckWriteLock(ctx, path, time.Second); err != nil {
		t.Fatalf("released database: %v", err)
	}
}

func TestOpenSaysWhenTheFileIsEmpty(t *testing.T) {
	var logged strings.Builder
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	for _, tc := range []struct {
		name  string
		empty bool // a 0-byte file is there before Open
		want  bool // Open warns
	}{
		{"new database", false, false},
		{"0-byte file", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logged.Reset()
			path := filepath.Join(t.TempDir(), FileName)
			if tc.empty {
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if got := strings.Contains(logged.String(), "database file is empty (0 bytes)"); got != tc.want {
				t.Fatalf("warned %v, want %v; log:\n%s", got, tc.want, logged.String())
			}
		})
	}
}
