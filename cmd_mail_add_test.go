package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail/imap/imaptest"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
)

// noKeychain points the secret store at its encrypted file in dir.
func noKeychain(t *testing.T, dir string) {
	t.Helper()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
}

// testMaildir makes a Maildir with one message and returns its path.
func testMaildir(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "Maildir")
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	msg := "From: bob@example.com\nTo: dana@example.com\nSubject: Estoppel\nMessage-ID: <m1@example.com>\nDate: Thu, 11 Jun 2026 14:30:00 +0000\n\nHi.\n"
	if err := os.WriteFile(filepath.Join(root, "cur", "1718000000.M1P1.host:2,S"), []byte(msg), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

// storedAccounts reads the accounts in dir's database.
func storedAccounts(t *testing.T, dir string) []index.Account {
	t.Helper()
	st, err := store.OpenDirReadOnly(t.Context(), dir, store.ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	as, err := index.New(st).Accounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// TestMailAddAddresses: --address takes one address, several flags or a
// comma-separated list; the first is the account's address, the others its
// aliases; anything that is not an address is refused, named, before
// anything is stored.
func TestMailAddAddresses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		want     []string // the stored account's addresses
		wantErr  string   // part of stderr
	}{
		{name: "one", args: []string{"--address", "dana@example.com"}, want: []string{"dana@example.com"}},
		{name: "comma-separated", args: []string{"--address", "Dana@example.com, dw@example.com"}, want: []string{"dana@example.com", "dw@example.com"}},
		{name: "repeated", args: []string{"--address", "dana@example.com", "--address", "dw@example.com"}, want: []string{"dana@example.com", "dw@example.com"}},
		{name: "not an address", args: []string{"--address", "dana@example.com, dana whitfield"}, wantCode: 2, wantErr: `"dana whitfield" is not an email address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			noKeychain(t, dir)
			args := append([]string{"mail", "add", "maildir", testMaildir(t), "--data-dir", dir}, tc.args...)
			code, out, errOut := spirit(args...)
			if code != tc.wantCode || !strings.Contains(errOut, tc.wantErr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tc.wantCode, tc.wantErr)
			}
			as := storedAccounts(t, dir)
			if tc.want == nil {
				if len(as) != 0 {
					t.Errorf("stored %+v, want nothing", as)
				}
				return
			}
			if len(as) != 1 || !slices.Equal(as[0].Addresses(), tc.want) {
				t.Fatalf("stored %+v, want one account with %q", as, tc.want)
			}
			if _, list, _ := spirit("mail", "list", "--data-dir", dir); !strings.Contains(list, "<"+strings.Join(tc.want, ", ")+">") {
				t.Errorf("mail list %q does not show %q", list, tc.want)
			}
		})
	}
}

// refusedPort is a loopback port nothing listens on.
func refusedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// TestMailAddIMAPHostPort: --host takes host:port and [v6]:port, --port
// still works, a conflict between them is said as one; a failed add uses up
// no account id.
func TestMailAddIMAPHostPort(t *testing.T) {
	port := refusedPort(t)
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string // part of stderr
		notErr  string // must not be in stderr
	}{
		{name: "host:port", args: []string{"--host", fmt.Sprintf("127.0.0.1:%d", port)},
			wantErr: fmt.Sprintf("127.0.0.1:%d", port), notErr: "unencrypted"},
		{name: "[v6]:port", args: []string{"--host", fmt.Sprintf("[::1]:%d", port)},
			wantErr: fmt.Sprintf("[::1]:%d", port), notErr: "unencrypted"},
		{name: "--port", args: []string{"--host", "127.0.0.1", "--port", fmt.Sprint(port)},
			wantErr: fmt.Sprintf("127.0.0.1:%d", port), notErr: "unencrypted"},
		{name: "conflict", args: []string{"--host", "127.0.0.1:10143", "--port", "993"},
			wantErr: `--host: server "127.0.0.1:10143" names port 10143 but the port given is 993`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			noKeychain(t, dir)
			t.Setenv("SPIRIT_MAIL_PASSWORD", "pw")
			args := append([]string{"mail", "add", "imap", "--tls", "none", "--user", "dana@example.com", "--data-dir", dir}, tc.args...)
			code, out, errOut := spirit(args...)
			if code == 0 || !strings.Contains(errOut, tc.wantErr) || (tc.notErr != "" && strings.Contains(errOut, tc.notErr)) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want a failure saying %q (and not %q)", code, out, errOut, tc.wantErr, tc.notErr)
			}
			// The failed add left no account and no gap.
			code, out, errOut = spirit("mail", "add", "maildir", testMaildir(t), "--address", "dana@example.com", "--data-dir", dir)
			if code != 0 || !strings.Contains(out, "(account 1)") {
				t.Errorf("next add: exit %d, stdout %q, stderr %q; want account 1", code, out, errOut)
			}
		})
	}
}

// TestMailAddIMAPHostPortConnects: `--host 127.0.0.1:PORT --tls none`,
// the way a local test server is written, reaches the server and adds the
// account, where it was refused as an unencrypted connection elsewhere.
func TestMailAddIMAPHostPortConnects(t *testing.T) {
	srv := imaptest.New(t, "dana@example.com", "pw")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{name: "host:port", args: []string{"--host", fmt.Sprintf("%s:%d", srv.Host, srv.Port)}},
		{name: "host and --port", args: []string{"--host", srv.Host, "--port", fmt.Sprint(srv.Port)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			noKeychain(t, dir)
			t.Setenv("SPIRIT_MAIL_PASSWORD", "pw")
			args := append([]string{"mail", "add", "imap", "--tls", "none", "--user", "dana@example.com", "--data-dir", dir}, tc.args...)
			code, out, errOut := spirit(args...)
			if code != 0 || !strings.Contains(out, "(account 1)") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want account 1 added", code, out, errOut)
			}
			as := storedAccounts(t, dir)
			if want := fmt.Sprintf(`{"host":"%s","port":%d,"tls":"none","username":"dana@example.com"}`, srv.Host, srv.Port); len(as) != 1 || string(as[0].Config) != want {
				t.Errorf("stored %+v, want one account with config %s", as, want)
			}
		})
	}
}

// headless is a front end that does nothing, for a Spirit run in a test.
type headless struct{}

func (headless) Run(ctx context.Context) error        { <-ctx.Done(); return nil }
func (headless) Events(ctx context.Context) error     { <-ctx.Done(); return nil }
func (headless) Subsystems() map[string]api.Subsystem { return nil }

// runningSpirit runs Spirit on dir, headless, until the test ends, and
// returns once its local API answers.
func runningSpirit(t *testing.T, dir string) {
	t.Helper()
	noKeychain(t, dir)
	t.Setenv("DISPLAY", "") // no watcher on the tester's screen
	runCtx, stop := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- app.Run(runCtx, app.Config{DataDir: dir, Version: "test",
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Desktop: func(*app.Core, *events.Bus, *slog.Logger) (app.UI, error) {
				close(started)
				return headless{}, nil
			}})
	}()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("app.Run: %v", err)
		}
	})
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("app.Run: %v", err)
	}
	// The API starts just after the front end.
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := api.ReadInfo(dir)
		if err == nil {
			if _, err = api.NewClient(info).Health(t.Context()); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running Spirit's API never answered: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMailAddSyncsTheRunningSpirit: an account added from the command line
// beside a running Spirit is synced at once, not at the next five-minute
// round.
func TestMailAddSyncsTheRunningSpirit(t *testing.T) {
	dir := t.TempDir()
	runningSpirit(t, dir)

	code, out, errOut := spirit("mail", "add", "maildir", testMaildir(t), "--address", "dana@example.com", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "the running Spirit is syncing it now") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the running Spirit told to sync", code, out, errOut)
	}
	st, err := store.OpenDirReadOnly(t.Context(), dir, store.ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := index.New(st)
	for deadline := time.Now().Add(30 * time.Second); ; {
		s, err := ix.Stats(t.Context())
		if err == nil && s.Messages == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new account was not synced within 30 s: %+v, %v", s, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
