package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/spirit-app/spirit/agents/mail/imap"
	"github.com/spirit-app/spirit/agents/mail/imap/imaptest"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// TestIMAPServerEchoingCredentials: a server that puts the user name and
// password into its NO must not get them into the add-account error, the
// sync error or the log.
func TestIMAPServerEchoingCredentials(t *testing.T) {
	const user, pass = "dana.whitfield@hartleyross.com", "Tr0ub4dor&3-app"
	ctx := context.Background()
	ix, sec := setup(t)
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// index.Sync logs to the default logger.
	prev := slog.Default()
	slog.SetDefault(logger)
	t.Cleanup(func() { slog.SetDefault(prev) })

	srv := imaptest.New(t, user, pass)
	echo := func(u, p string) error {
		return &goimap.Error{Type: goimap.StatusResponseTypeNo, Text: fmt.Sprintf("invalid credentials: %q %q", u, p)}
	}
	cfg, _ := json.Marshal(IMAPConfig{Host: srv.Host, Port: srv.Port, TLS: "none", Username: user})
	acct := index.Account{Kind: index.KindIMAP, Name: "Work", Address: user, Config: cfg}
	clean := func(what, s string) {
		t.Helper()
		if strings.Contains(s, pass) || strings.Contains(s, `"`+user+`"`) {
			t.Errorf("%s holds the echoed credentials: %s", what, s)
		}
	}

	srv.RejectLogins(echo)
	_, err := Add(ctx, ix, sec, acct, Credentials{Password: pass})
	if !errors.Is(err, imap.ErrAuth) {
		t.Fatalf("add: err = %v, want imap.ErrAuth", err)
	}
	clean("add-account error", err.Error())
	if strings.Contains(err.Error(), user) {
		t.Errorf("add-account error names the user: %v", err)
	}

	// The password worked when the account was added and stops working
	// later: the background sync's error.
	srv.RejectLogins(nil)
	a, err := Add(ctx, ix, sec, acct, Credentials{Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	srv.RejectLogins(echo)
	conn, err := Connect(ctx, a, sec, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = ix.Sync(ctx, a.ID, conn, nil)
	if !errors.Is(err, imap.ErrAuth) {
		t.Fatalf("sync: err = %v, want imap.ErrAuth", err)
	}
	clean("sync error", err.Error())
	if strings.Contains(err.Error(), user) {
		t.Errorf("sync error names the user: %v", err)
	}
	if !strings.Contains(log.String(), "sync stopped") {
		t.Fatalf("the failed sync was not logged:\n%s", log.String())
	}
	clean("log", log.String())
}
