package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/store/storetest"
	"github.com/spirit-app/spirit/agents/task/tasktest"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		maxArgs int
		wantPos []string
		wantDir string
		wantN   int
		wantF   bool
		wantErr error  // nil, errUsage or flag.ErrHelp
		wantOut string // in the flag set's output
	}{
		{name: "nothing", maxArgs: 0},
		{name: "flag before the argument", args: []string{"--data-dir", "D", "1"}, maxArgs: 1, wantPos: []string{"1"}, wantDir: "D"},
		{name: "flag after the argument", args: []string{"1", "--data-dir", "D"}, maxArgs: 1, wantPos: []string{"1"}, wantDir: "D"},
		{name: "flag with =", args: []string{"tiny.en", "--data-dir=D"}, maxArgs: 1, wantPos: []string{"tiny.en"}, wantDir: "D"},
		{name: "interleaved", args: []string{"a", "-n", "3", "b", "-f", "--data-dir", "D", "c"}, maxArgs: -1,
			wantPos: []string{"a", "b", "c"}, wantDir: "D", wantN: 3, wantF: true},
		{name: "-- ends the flags", args: []string{"a", "--", "--data-dir", "D", "-f"}, maxArgs: -1,
			wantPos: []string{"a", "--data-dir", "D", "-f"}},
		{name: "-- first", args: []string{"--", "-n"}, maxArgs: -1, wantPos: []string{"-n"}},
		{name: "-- as a flag's value", args: []string{"--data-dir", "--", "x"}, maxArgs: 1, wantPos: []string{"x"}, wantDir: "--"},
		{name: "-- after a bool flag", args: []string{"-f", "--", "-x"}, maxArgs: 1, wantPos: []string{"-x"}, wantF: true},
		{name: "a lone dash is an argument", args: []string{"-", "-f"}, maxArgs: 1, wantPos: []string{"-"}, wantF: true},
		{name: "too many arguments", args: []string{"tiny.en", "base.en", "--data-dir", "D"}, maxArgs: 1,
			wantErr: errUsage, wantOut: `unexpected argument "base.en"`},
		{name: "no arguments wanted", args: []string{"--data-dir", "D", "extra"}, maxArgs: 0,
			wantErr: errUsage, wantOut: `unexpected argument "extra"`},
		{name: "unknown flag after an argument", args: []string{"1", "--nope"}, maxArgs: 1,
			wantErr: errUsage, wantOut: "flag provided but not defined: -nope"},
		{name: "missing value", args: []string{"1", "--data-dir"}, maxArgs: 1,
			wantErr: errUsage, wantOut: "flag needs an argument"},
		{name: "help", args: []string{"x", "-h"}, maxArgs: 1, wantErr: flag.ErrHelp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			fs, dataDir := flags("test", &out)
			n := fs.Int("n", 0, "")
			f := fs.Bool("f", false, "")
			pos, err := parse(fs, tc.args, tc.maxArgs)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("output %q, want %q", out.String(), tc.wantOut)
			}
			if err != nil {
				return
			}
			if !slices.Equal(pos, tc.wantPos) || *dataDir != tc.wantDir || *n != tc.wantN || *f != tc.wantF {
				t.Errorf("got args %q, --data-dir %q, -n %d, -f %v; want %q, %q, %d, %v",
					pos, *dataDir, *n, *f, tc.wantPos, tc.wantDir, tc.wantN, tc.wantF)
			}
		})
	}
}

func TestCommandFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		args string
		want string
	}{
		{"nothing", "", ""},
		{"run Spirit with flags", "--data-dir D --headless", "--data-dir D --headless"},
		{"data dir before a command", "--data-dir D doctor", "doctor --data-dir D"},
		{"data dir before a command with words", "--data-dir D model download tiny.en", "model download --data-dir D tiny.en"},
		{"data dir between the words", "model --data-dir D download tiny.en", "model download --data-dir D tiny.en"},
		{"with =", "model --data-dir=D list", "model list --data-dir=D"},
		{"single dash", "-data-dir D world tail -n 3", "world tail -data-dir D -n 3"},
		{"after the arguments: unchanged", "model download tiny.en --data-dir D", "model download tiny.en --data-dir D"},
		{"a command without words keeps its argument", "--data-dir D listen a.wav", "listen --data-dir D a.wav"},
		{"another flag first: running Spirit", "--headless --data-dir D", "--headless --data-dir D"},
		{"a command's own flag before its word stays", "world -n 3 tail", "world -n 3 tail"},
		{"a value missing: left to the parser", "--data-dir", "--data-dir"},
		{"dashes end the lifting", "-- model list", "-- model list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(commandFirst(strings.Fields(tc.args)), " ")
			if got != tc.want {
				t.Errorf("commandFirst(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// spirit runs the command line as the lawyer types it.
func spirit(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestFlagsAfterArguments runs real commands with --data-dir after their
// arguments, which used to be taken for more arguments.
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	// The model server refuses: what matters is that the download was
	// tried, for the named model, into the named folder.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	t.Setenv("SPIRIT_MODEL_URL", srv.URL)
	for _, args := range [][]string{
		{"model", "download", "tiny.en", "--data-dir", dir},
		{"model", "download", "--data-dir", dir, "tiny.en"},
		{"model", "--data-dir", dir, "download", "tiny.en"},
		{"--data-dir", dir, "model", "download", "tiny.en"},
	} {
		code, _, errOut := spirit(args...)
		if code != 1 || !strings.Contains(errOut, "Downloading tiny.en") || !strings.Contains(errOut, dir) {
			t.Errorf("%q: exit %d, stderr %q; want a download of tiny.en into %s that fails", args, code, errOut, dir)
		}
	}
	if code, _, errOut := spirit("model", "download", "tiny.en", "base.en", "--data-dir", dir); code != 2 || !strings.Contains(errOut, `unexpected argument "base.en"`) {
		t.Errorf("two models: exit %d, stderr %q", code, errOut)
	}

	if code, out, errOut := spirit("mail", "sync", "1", "--data-dir", dir); code != 0 {
		t.Errorf("mail sync 1 --data-dir: exit %d, %q %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); err != nil {
		t.Errorf("mail sync did not use --data-dir: %v", err)
	}
	if code, out, errOut := spirit("world", "tail", "-n", "5", "--data-dir", dir); code != 0 {
		t.Errorf("world tail -n 5 --data-dir: exit %d, %q %q", code, out, errOut)
	}
	if code, out, errOut := spirit("--data-dir", dir, "model", "list"); code != 0 || !strings.Contains(out, dir) {
		t.Errorf("--data-dir before model list: exit %d, %q %q; want the models in %s", code, out, errOut, dir)
	}
	if code, out, errOut := spirit("mail", "search", "lease", "--subject", "SNDA", "--data-dir", dir, "renewal"); code != 0 || !strings.Contains(out, "No matching threads") {
		t.Errorf("mail search with interleaved flags: exit %d, %q %q", code, out, errOut)
	}
}

// seedData writes what the read-only commands read: world-log entries, an
// agent and a mail account.
func seedData(t *testing.T, dir string) (agent string) {
	t.Helper()
	st, err := store.OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tk := tasktest.Seed(t, st, "Summarise the Jones deposition")
	_, err = index.New(st).AddAccount(t.Context(), index.Account{Kind: index.KindMbox, Name: "Archive",
		Address: "lawyer@example.com", Config: []byte(`{"path":"/nonexistent/archive.mbox"}`)})
	if err != nil {
		t.Fatal(err)
	}
	return tk.Session
}

// TestReadOnlyCommandsChangeNothing: the commands that only read leave the
// data folder exactly as they found it — no -wal or -shm, no migration, no
// secrets file — so they work on a read-only folder. (As root a chmod would
// not stop a write, so the test checks that nothing was written instead.)
func TestReadOnlyCommandsChangeNothing(t *testing.T) {
	dir := t.TempDir()
	agent := seedData(t, dir)
	// No keychain: opening the secret store would create secrets.key here.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	before := storetest.Folder(t, dir)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"world", "tail"}, "Summarise the Jones deposition"},
		{[]string{"world", "tail", "-n", "1"}, ""},
		{[]string{"agents", "list"}, agent},
		{[]string{"agents", "show", agent}, "Prompt:  Summarise the Jones deposition"},
		{[]string{"mail", "list"}, "Archive"},
		{[]string{"mail", "search", "deposition"}, "No matching threads"},
	} {
		code, out, errOut := spirit(append(tc.args, "--data-dir", dir)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
		if after := storetest.Folder(t, dir); !slices.Equal(before, after) {
			t.Fatalf("%q changed the data folder:\nbefore %q\nafter  %q", tc.args, before, after)
		}
	}
}

// TestReadOnlyCommandsWithoutData: with nothing yet in the folder the
// commands say so, and create nothing there.
func TestReadOnlyCommandsWithoutData(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"world", "tail"},
		{"agents", "list"},
		{"mail", "list"},
	} {
		code, _, errOut := spirit(append(args, "--data-dir", dir)...)
		if want := "Spirit has no data yet in " + dir; code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", args, code, errOut, want)
		}
		if got := storetest.Folder(t, dir); len(got) != 0 {
			t.Fatalf("%q created %q", args, got)
		}
	}
}

// TestBusyDatabaseOnTheCommandLine: with another program holding spirit.db
// locked, a command that writes says the database is busy, as the API does.
func TestBusyDatabaseOnTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	agent := seedData(t, dir)
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), `ROLLBACK`)

	code, _, errOut := spirit("agents", "cancel", agent, "--data-dir", dir)
	if code != 1 || !strings.HasPrefix(errOut, "spirit: the database is busy") {
		t.Errorf("cancel while locked: exit %d, stderr %q; want the database is busy", code, errOut)
	}
}
