package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
)

// TestMailSyncSaysWhatItSkipped: `spirit mail sync` tells the lawyer how
// many messages it left out as too large, and which.
func TestMailSyncSaysWhatItSkipped(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // no keychain: the encrypted file
	t.Setenv("XDG_RUNTIME_DIR", dir)
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
	const bigName = "1718000009.M1P1.host:2,S"
	big, err := os.Create(filepath.Join(root, "cur", bigName))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(mail.MaxMessageBytes + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()

	st, err := store.OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(accounts.FileConfig{Path: root})
	_, err = index.New(st).AddAccount(t.Context(), index.Account{Kind: index.KindMaildir, Name: "Archive", Address: "me@example.com", Config: cfg})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	code, out, errOut := spirit("mail", "sync", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
	if want := "skipped 1 too large to read (over 50 MB)"; !strings.Contains(out, "Archive: 2 messages synced") || !strings.Contains(out, want) {
		t.Errorf("stdout %q, want 2 messages synced and %q", out, want)
	}
	if !strings.Contains(errOut, "Archive: skipped INBOX "+bigName+": too large") {
		t.Errorf("stderr %q does not name the skipped message", errOut)
	}
}
