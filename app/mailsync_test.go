package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

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
	sec, err := c.secrets()
	if err != nil {
		t.Fatal(err)
	}
	if err := sec.Set(ctx, accounts.PasswordKey(a.ID), pass); err != nil {
		t.Fatal(err)
	}

	m := newMailSyncer(c, dir)
	c.mu.Lock()
	c.mail = m
	c.mu.Unlock()
	m.syncAll(ctx)

	got := c.Health(ctx).Subsystems["mail"]
	if got.State != "error" || !strings.Contains(got.Detail, "rejected the login") {
		t.Fatalf("mail status = %+v, want the login error", got)
	}
	if strings.Contains(got.Detail, pass) || strings.Contains(got.Detail, user) {
		t.Errorf("mail status holds the credentials: %s", got.Detail)
	}
}
