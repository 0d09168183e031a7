package app

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/store/storetest"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/screen"
)

// spiritDB writes a Spirit database with n world-log entries and closes it.
func spiritDB(t *testing.T, dir string, n int) string {
	t.Helper()
	st, err := store.OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Tx(t.Context(), func(tx *sql.Tx) error {
		for i := range n {
			ev := store.Event{Source: "test", Text: strings.Repeat(fmt.Sprintf("entry %d ", i), 20)}
			if _, err := st.AppendEventTx(t.Context(), tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, store.FileName)
}

// TestDoctorDatabaseCheck runs the doctor's database check on real files.
// The advice must name the real cause, and suggest a fresh database only
// for a file that is not Spirit's or is damaged.
func TestDoctorDatabaseCheck(t *testing.T) {
	for _, tc := range []struct {
		name       string
		setup      func(t *testing.T, dir string)
		wantOK     bool
		wantDetail string
		wantFix    string // "" for none
		freshDB    bool   // the fix may suggest moving spirit.db aside
	}{
		{
			name:       "ok",
			setup:      func(t *testing.T, dir string) { spiritDB(t, dir, 3) },
			wantOK:     true,
			wantDetail: "integrity ok, mode 0600",
		},
		{
			name:       "no database yet",
			setup:      func(*testing.T, string) {},
			wantOK:     true,
			wantDetail: "no database yet",
		},
		{
			name: "zero bytes",
			setup: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, store.FileName), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantDetail: "is empty (0 bytes)",
			wantFix:    "restore",
		},
		{
			name: "locked by another program",
			setup: func(t *testing.T, dir string) {
				holdDatabase(t, spiritDB(t, dir, 3))
			},
			wantDetail: "another program holds",
			wantFix:    "close the program using it",
		},
		{
			name: "not Spirit's",
			setup: func(t *testing.T, dir string) {
				db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, store.FileName))
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY)`); err != nil {
					t.Fatal(err)
				}
			},
			wantDetail: "not a Spirit database",
			wantFix:    "aside",
			freshDB:    true,
		},
		{
			name: "damaged",
			setup: func(t *testing.T, dir string) {
				path := spiritDB(t, dir, 400)
				f, err := os.OpenFile(path, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				fi, _ := f.Stat()
				// Scribble over the pages past the schema: the world log's.
				junk := []byte(strings.Repeat("\xff\x00junk", 1000))
				for off := fi.Size() / 3; off < fi.Size()-int64(len(junk)); off += fi.Size() / 4 {
					if _, err := f.WriteAt(junk, off); err != nil {
						t.Fatal(err)
					}
				}
			},
			wantDetail: "damaged",
			wantFix:    "restore",
			freshDB:    true,
		},
		{
			name: "read-only folder",
			setup: func(t *testing.T, dir string) {
				if os.Geteuid() == 0 {
					t.Skip("as root, access(2) lets every write through, so a read-only folder cannot be made here; TestDatabaseAdvice covers its advice")
				}
				spiritDB(t, dir, 3)
				if err := os.Chmod(dir, 0o500); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(dir, 0o700) })
			},
			wantDetail: "not writable",
			wantFix:    "chmod u+w",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			before := storetest.Folder(t, dir)
			got := checkDatabase(t.Context(), dir)
			t.Logf("detail: %s\nfix: %s", got.detail, got.fix)
			if got.ok != tc.wantOK {
				t.Errorf("ok = %v, want %v (detail %q)", got.ok, tc.wantOK, got.detail)
			}
			if !strings.Contains(got.detail, tc.wantDetail) {
				t.Errorf("detail = %q, want one with %q", got.detail, tc.wantDetail)
			}
			if tc.wantFix == "" && got.fix != "" && !got.ok {
				t.Errorf("fix %q, want none", got.fix)
			}
			if !strings.Contains(got.fix, tc.wantFix) {
				t.Errorf("fix %q, want one with %q", got.fix, tc.wantFix)
			}
			if strings.Contains(got.fix, "aside") != tc.freshDB {
				t.Errorf("fix %q: suggests a fresh database %v, want %v", got.fix, !tc.freshDB, tc.freshDB)
			}
			if after := storetest.Folder(t, dir); !slices.Equal(before, after) {
				t.Errorf("the doctor changed the folder:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// TestDatabaseAdvice checks the advice for facts the tests cannot always
// bring about for real, such as a folder root could still write.
func TestDatabaseAdvice(t *testing.T) {
	const dir = "/home/lawyer/.local/share/spirit"
	path := filepath.Join(dir, store.FileName)
	denied := fmt.Errorf("%s is not writable: %w", dir, syscall.EACCES)
	for _, tc := range []struct {
		name      string
		facts     dbFacts
		wantOK    bool
		wantFix   string
		wantFresh bool
	}{
		{"read-only folder", dbFacts{dirErr: denied, mode: 0o600, schema: store.LatestSchemaVersion()}, false,
			"the data folder " + dir + " is not writable: fix its permissions (chmod u+w " + dir + ")", false},
		{"read-only folder, no database yet", dbFacts{missing: true, dirErr: denied}, false,
			"chmod u+w " + dir, false},
		{"read-only file", dbFacts{fileErr: syscall.EACCES, mode: 0o400, schema: 1}, false, "chmod 600 " + path, false},
		{"locked while opening", dbFacts{open: fmt.Errorf("open: %w", store.ErrBusy), mode: 0o600}, false, "close the program", false},
		{"locked", dbFacts{lock: fmt.Errorf("check: %w", store.ErrBusy), mode: 0o600}, false, "close the program", false},
		{"locked and read-only: the lock first", dbFacts{lock: store.ErrBusy, dirErr: denied}, false, "close the program", false},
		{"not Spirit's", dbFacts{open: fmt.Errorf("%w: application id 0x1", store.ErrNotSpirit)}, false, "aside", true},
		{"damaged", dbFacts{open: fmt.Errorf("%w: %w: malformed", store.ErrNotSpirit, store.ErrCorrupt)}, false, "restore", true},
		{"damaged, found by the integrity check", dbFacts{integrity: store.ErrCorrupt, mode: 0o600}, false, "restore", true},
		{"newer Spirit", dbFacts{open: store.ErrSchemaTooNew}, false, "update Spirit", false},
		{"empty", dbFacts{empty: true}, false, "restore", false},
		{"others may read it", dbFacts{mode: 0o644, schema: 3}, false, "chmod 600 " + path, false},
		{"older schema", dbFacts{mode: 0o600, schema: 1}, true, "", false},
		{"ok", dbFacts{mode: 0o600, schema: store.LatestSchemaVersion()}, true, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.facts
			f.dir, f.path = dir, path
			got := databaseCheck(f)
			if got.ok != tc.wantOK {
				t.Errorf("ok = %v, want %v (detail %q)", got.ok, tc.wantOK, got.detail)
			}
			if !strings.Contains(got.fix, tc.wantFix) {
				t.Errorf("fix = %q, want one with %q (detail %q)", got.fix, tc.wantFix, got.detail)
			}
			if tc.wantOK && got.fix != "" {
				t.Errorf("fix %q for a database that is fine", got.fix)
			}
			if strings.Contains(got.fix, "aside") != tc.wantFresh {
				t.Errorf("fix %q suggests a fresh database: %v, want %v", got.fix, !tc.wantFresh, tc.wantFresh)
			}
		})
	}
}

// TestKeychainAdvice: the keychain check names where the secrets are and,
// only when they cannot be read any more, suggests moving secrets.json
// aside, saying what is lost.
func TestKeychainAdvice(t *testing.T) {
	const dir = "/data"
	path := filepath.Join(dir, secrets.FileName)
	ready := secrets.Status{Keychain: secrets.KeychainReady, KeychainDetail: "Secret Service (org.freedesktop.secrets)",
		Backend: secrets.BackendKeychain, Path: path}
	noBus := secrets.Status{Keychain: secrets.KeychainNone, KeychainDetail: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset), so no Secret Service",
		Backend: secrets.BackendFile, Path: path}
	with := func(st secrets.Status, f func(*secrets.Status)) secrets.Status { f(&st); return st }
	for _, tc := range []struct {
		name       string
		st         secrets.Status
		err        error
		wantOK     bool
		wantDetail string
		wantFix    string // "" for none
		wantAside  bool   // the fix may suggest moving secrets.json aside
	}{
		{name: "keychain available",
			st:     with(ready, func(s *secrets.Status) { s.File, s.KeyIn, s.Values = secrets.FileOK, "keychain", 2 }),
			wantOK: true, wantDetail: "protected by the OS keychain (Secret Service (org.freedesktop.secrets)) (2 saved passwords and tokens)"},
		{name: "keychain available, nothing saved yet",
			st:     with(ready, func(s *secrets.Status) { s.File = secrets.FileNone }),
			wantOK: true, wantDetail: "protected by the OS keychain"},
		{name: "keychain available, key still in the file",
			st:     with(ready, func(s *secrets.Status) { s.File, s.KeyIn, s.Values = secrets.FileOK, "file", 1 }),
			wantOK: true, wantDetail: "moves into the keychain the next time"},
		{name: "keychain locked",
			st: secrets.Status{Keychain: secrets.KeychainLocked, KeychainDetail: "the keyring (Secret Service) is locked; it asks you to unlock it",
				Backend: secrets.BackendKeychain, File: secrets.FileUnverified, Path: path, Values: 2},
			err:    secrets.ErrKeyUnavailable,
			wantOK: true, wantDetail: "asks you to unlock it"},
		{name: "keychain not running yet",
			st: secrets.Status{Keychain: secrets.KeychainStartable, KeychainDetail: "no Secret Service runs now; the session bus starts one",
				Backend: secrets.BackendKeychain, File: secrets.FileNone, Path: path},
			wantOK: true, wantDetail: "the session bus starts one"},
		{name: "no keychain, no file yet",
			st:         with(noBus, func(s *secrets.Status) { s.File = secrets.FileNone }),
			wantDetail: "no OS keychain: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset), so no Secret Service. Spirit will keep passwords and tokens in an encrypted file beside the database, with its key beside it, when one is first needed",
			wantFix:    "install and unlock a Secret Service keyring"},
		{name: "no keychain, file ok",
			st:         with(noBus, func(s *secrets.Status) { s.File, s.KeyIn, s.Values = secrets.FileOK, "file", 2 }),
			wantDetail: "Spirit keeps the 2 saved passwords and tokens in an encrypted file whose key sits beside it",
			wantFix:    "install and unlock a Secret Service keyring"},
		{name: "keychain holding the key not reachable",
			st:         with(noBus, func(s *secrets.Status) { s.File, s.Values = secrets.FileUnverified, 2 }),
			err:        fmt.Errorf("%w: the key is kept in the OS keychain", secrets.ErrKeyUnavailable),
			wantDetail: "the key to the 2 saved passwords and tokens is in the OS keychain, which is not reachable now",
			wantFix:    "start Spirit from your desktop session"},
		{name: "keychain entry not readable",
			st:         with(ready, func(s *secrets.Status) { s.File, s.Values = secrets.FileUnverified, 2 }),
			err:        fmt.Errorf("%w: reading the key: prompt dismissed", secrets.ErrKeyUnavailable),
			wantDetail: "prompt dismissed",
			wantFix:    "unlock your keyring"},
		{name: "files not readable",
			st:         with(ready, func(s *secrets.Status) { s.File = secrets.FileUnreadable }),
			err:        &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES},
			wantDetail: "permission denied",
			wantFix:    "chmod 600"},
		{name: "file damaged",
			st:         with(ready, func(s *secrets.Status) { s.File, s.Values = secrets.FileDamaged, 3 }),
			err:        fmt.Errorf("%w: %s has format version 9", secrets.ErrCorrupt, path),
			wantDetail: "format version 9",
			wantFix:    "move secrets.json (and secrets.key, if there) in " + dir + " aside (keep them) and sign in to your mail accounts and model provider again: the 3 saved passwords and tokens in it cannot be read and must be entered again",
			wantAside:  true},
		{name: "file damaged past counting",
			st:         with(noBus, func(s *secrets.Status) { s.File = secrets.FileDamaged }),
			err:        fmt.Errorf("%w: %s is not valid JSON", secrets.ErrCorrupt, path),
			wantDetail: "not valid JSON",
			wantFix:    "the saved passwords and tokens in it cannot be read and must be entered again",
			wantAside:  true},
		{name: "one value damaged",
			st: with(ready, func(s *secrets.Status) {
				s.File, s.KeyIn, s.Values, s.Damaged = secrets.FileDamaged, "keychain", 3, []string{"imap/nadia"}
			}),
			err:        fmt.Errorf("%w: 1 of the 3 secrets do not decrypt", secrets.ErrCorrupt),
			wantDetail: "the saved secrets of imap/nadia in " + path + " are damaged; the other 2 are fine",
			wantFix:    "sign in to those accounts again"},
		{name: "key lost",
			st:         with(ready, func(s *secrets.Status) { s.File, s.Values = secrets.FileKeyLost, 2 }),
			err:        fmt.Errorf("%w: their key is neither in the keychain nor in secrets.key", secrets.ErrKeyUnavailable),
			wantDetail: "neither in the keychain",
			wantFix:    "restore secrets.key or your keyring from a backup if you have one; otherwise the 2 saved passwords and tokens cannot be read",
			wantAside:  true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := keychainCheck(tc.st, tc.err, dir)
			if got.ok != tc.wantOK {
				t.Errorf("ok = %v, want %v (detail %q)", got.ok, tc.wantOK, got.detail)
			}
			if !strings.Contains(got.detail, tc.wantDetail) {
				t.Errorf("detail = %q, want one with %q", got.detail, tc.wantDetail)
			}
			if (tc.wantFix == "") != (got.fix == "") {
				t.Errorf("fix = %q, want %q (a fix given: %v, want %v)", got.fix, tc.wantFix, got.fix != "", tc.wantFix != "")
			}
			if !strings.Contains(got.fix, tc.wantFix) {
				t.Errorf("fix = %q, want one with %q", got.fix, tc.wantFix)
			}
			if strings.Contains(got.fix, "aside") != tc.wantAside {
				t.Errorf("fix %q suggests moving secrets.json aside: %v, want %v", got.fix, !tc.wantAside, tc.wantAside)
			}
		})
	}
}

// TestDoctorKeychainCheckCreatesNothing: the keychain check on an empty
// data folder leaves it empty, where opening the secret store would have
// created secrets.key.
func TestDoctorKeychainCheckCreatesNothing(t *testing.T) {
	for _, tc := range []struct {
		name       string
		env        map[string]string
		wantDetail string // "" for any
	}{
		{name: "this session's keychain"},
		{name: "no session bus",
			env:        map[string]string{"DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": t.TempDir()},
			wantDetail: "encrypted file beside the database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			dir := t.TempDir()
			before := storetest.Folder(t, dir)
			got := checkKeychain(t.Context(), dir)
			t.Logf("ok %v, detail: %s\nfix: %s", got.ok, got.detail, got.fix)
			if !strings.Contains(got.detail, tc.wantDetail) {
				t.Errorf("detail %q, want one with %q", got.detail, tc.wantDetail)
			}
			if after := storetest.Folder(t, dir); !slices.Equal(before, after) {
				t.Errorf("the keychain check changed the folder:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// TestDoctorReadsOnly: the whole doctor leaves spirit.db as it was.
func TestDoctorLeavesTheDatabaseAlone(t *testing.T) {
	dir := t.TempDir()
	path := spiritDB(t, dir, 3)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenDirReadOnly(context.Background(), dir, store.ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := checkProvider(t.Context(), st, nil, dir)
	st.Close()
	if !c.ok {
		t.Errorf("provider check: %+v", c)
	}
	if after, err := os.Stat(path); err != nil {
		t.Errorf("spirit.db after the check: %v", err)
	} else {
		if after.Size() != fi.Size() {
			t.Errorf("spirit.db size = %d, want %d, unchanged", after.Size(), fi.Size())
		}
		if !after.ModTime().Equal(fi.ModTime()) {
			t.Errorf("spirit.db modified at %v, want %v, unchanged", after.ModTime(), fi.ModTime())
		}
	}
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s created", filepath.Base(p))
		}
	}
}

// TestDoctorCalendars: the doctor's calendars line, read from a real
// database: none is fine, a sync time is given, and a failed calendar is
// a problem named with its error and what to do.
func TestDoctorCalendars(t *testing.T) {
	for _, tc := range []struct {
		name       string
		add        []string // calendars to add
		synced     bool     // each synced once
		failing    string   // one whose last sync failed
		failure    string   // its error ("401 Unauthorized" when empty)
		wantOK     bool
		wantDetail string
		wantFix    string
	}{
		{name: "none", wantOK: true, wantDetail: "no calendars"},
		{name: "never synced", add: []string{"Work"}, wantOK: true, wantDetail: "1 calendar, not yet synced"},
		{name: "synced", add: []string{"Work", "Court dates"}, synced: true, wantOK: true, wantDetail: "2 calendars, synced "},
		{name: "one failed", add: []string{"Work", "Court dates"}, synced: true, failing: "Court dates",
			wantDetail: "Court dates: The server refused the user name or password. Check them (many providers want an app password), then remove the calendar and add it again. (401 Unauthorized)", wantFix: "spirit calendar sync ID"},
		{name: "no calendar access", add: []string{"Work"}, synced: true, failing: "Work", failure: calendar.ErrNoCalendarAccess.Error(),
			wantDetail: "Work: this account's sign-in does not include calendar access yet: sign in to the mail account again to allow it",
			wantFix:    "spirit mail signin 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := store.OpenDir(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range tc.add {
				c, err := st.AddCalendar(t.Context(), store.Calendar{Kind: store.CalendarFile, Source: "/cal/" + name + ".ics", Name: name})
				if err != nil {
					t.Fatal(err)
				}
				if tc.synced {
					if err := st.MarkCalendarSynced(t.Context(), c.ID, store.CalendarSync{}); err != nil {
						t.Fatal(err)
					}
				}
				if name == tc.failing {
					failure := tc.failure
					if failure == "" {
						failure = "401 Unauthorized"
					}
					if err := st.SetCalendarError(t.Context(), c.ID, failure); err != nil {
						t.Fatal(err)
					}
				}
			}
			st.Close()
			ro, err := store.OpenDirReadOnly(t.Context(), dir, store.ReadOnlyOptions{AnySchema: true})
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			got := checkCalendars(t.Context(), ro, nil)
			if got.ok != tc.wantOK || !strings.Contains(got.detail, tc.wantDetail) {
				t.Errorf("calendars check %+v, want ok %v with %q", got, tc.wantOK, tc.wantDetail)
			}
			if (tc.wantFix == "") != (got.fix == "") || !strings.Contains(got.fix, tc.wantFix) {
				t.Errorf("fix %q, want one with %q", got.fix, tc.wantFix)
			}
		})
	}
}

func TestKeptOutLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reasons []string
		want    string
	}{
		{"none", nil, "no window on screen is kept out now"},
		{"one", []string{screen.ReasonPrivateBrowsing},
			"1 window on screen is kept out now, never looked at or named: 1 private browsing"},
		{"commonest first", []string{screen.ReasonNoCapture, screen.ReasonPrivateBrowsing, screen.ReasonPrivateBrowsing},
			"3 windows on screen are kept out now, never looked at or named: 2 private browsing, 1 protected from capture"},
		{"ties by name", []string{screen.ReasonUserList, screen.ReasonPasswordManager},
			"2 windows on screen are kept out now, never looked at or named: 1 password manager, 1 user list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := keptOutLine(tc.reasons); got != tc.want {
				t.Errorf("keptOutLine(%q) = %q, want %q", tc.reasons, got, tc.want)
			}
		})
	}
}
