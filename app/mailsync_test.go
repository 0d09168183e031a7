package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/imap/imaptest"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// TestMailStatusHidesEchoedCredentials: an IMAP server that echoes the
// credentials in its NO must not put them into /health's mail status.
func TestMailStatusHidesEchoedCredentials(t *testing.T) {
	const user, pass = "nadia.petrov@callowayfinch.com", "app-password-1234"
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // no keychain: the encrypted file
	t.Setenv("XDG_RUNTIME_DIR", dir)
	c, st := newTestCore(t, dir)

	srv := imaptest.New(t, user, pass)
	srv.RejectLogins(func(u, p string) error {
		return &goimap.Error{Type: goimap.StatusResponseTypeNo, Text: fmt.Sprintf("invalid credentials: %q %q", u, p)}
	})
	cfg, _ := json.Marshal(accounts.IMAPConfig{Host: srv.Host, Port: srv.Port, TLS: "none", Username: user})
	a, err := index.New(st).AddAccount(ctx, index.Account{Kind: index.KindIMAP, Name: "Work", Address: user, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	sec, err := c.keys.secrets()
	if err != nil {
		t.Fatal(err)
	}
	if err := sec.Set(ctx, accounts.PasswordKey(a.ID), pass); err != nil {
		t.Fatal(err)
	}

	m := c.mail
	m.syncAll(ctx)

	got := c.Health(ctx).Subsystems["mail"]
	if got.State != "error" {
		t.Fatalf("mail state = %q, want error (%+v)", got.State, got)
	}
	if !strings.Contains(got.Detail, "rejected the login") {
		t.Fatalf("mail detail = %q, want the login error (rejected the login)", got.Detail)
	}
	if strings.Contains(got.Detail, pass) {
		t.Errorf("mail detail = %q, want it without the password", got.Detail)
	}
	if strings.Contains(got.Detail, user) {
		t.Errorf("mail detail = %q, want it without the user name", got.Detail)
	}
}

// TestMailSyncReportsSkippedMessages: a message over the size cap is left
// out, and the world log and /health's mail status say so, once per news.
func TestMailSyncReportsSkippedMessages(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // no keychain: the encrypted file
	t.Setenv("XDG_RUNTIME_DIR", dir)
	c, st := newTestCore(t, dir)

	root := filepath.Join(dir, "Maildir")
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for i, subject := range []string{"Estoppel", "SNDA"} {
		msg := fmt.Sprintf("From: bob@example.com\nSubject: %s\nMessage-ID: <m%d@example.com>\nDate: Thu, 11 Jun 2026 14:30:00 +0000\n\nHi.\n", subject, i)
		if err := os.WriteFile(filepath.Join(root, "cur", fmt.Sprintf("171800000%d.M1P1.host:2,S", i)), []byte(msg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Sparse: over the cap by its size, which is all the sync looks at.
	big, err := os.Create(filepath.Join(root, "cur", "1718000009.M1P1.host:2,S"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(mail.MaxMessageBytes + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	cfg, _ := json.Marshal(accounts.FileConfig{Path: root})
	if _, err := index.New(st).AddAccount(ctx, index.Account{Kind: index.KindMaildir, Name: "Archive", Address: "me@example.com", Config: cfg}); err != nil {
		t.Fatal(err)
	}

	m := c.mail
	mailEvents := func() []string {
		t.Helper()
		es, err := st.RecentEvents(ctx, 50)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			if e.Source == "mail" {
				out = append(out, e.Text)
			}
		}
		return out
	}
	const want = "synced 2 messages; skipped 1 too large to read (over 50 MB)"
	m.syncAll(ctx)
	if got := mailEvents(); !slices.Equal(got, []string{want}) {
		t.Errorf("world log %q, want %q", got, want)
	}
	got := c.Health(ctx).Subsystems["mail"]
	if got.State != "ok" {
		t.Errorf("mail state = %q, want ok (%+v)", got.State, got)
	}
	if want := "skipped 1 too large to read (over 50 MB)"; !strings.Contains(got.Detail, want) {
		t.Errorf("mail detail = %q, want the skipped message %q", got.Detail, want)
	}
	// The next sync finds nothing new: no news for the world log, but the
	// status keeps saying what was left out.
	m.syncAll(ctx)
	if got := mailEvents(); len(got) != 1 {
		t.Errorf("world log after a second sync %q", got)
	}
	if got := c.Health(ctx).Subsystems["mail"]; !strings.Contains(got.Detail, "skipped 1") {
		t.Errorf("mail status after a second sync = %+v", got)
	}
}
