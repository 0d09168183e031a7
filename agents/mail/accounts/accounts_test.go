package accounts

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform/secrets"
)

func setup(t *testing.T) (*index.Index, secrets.Store) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // no keychain: the encrypted file
	t.Setenv("XDG_RUNTIME_DIR", dir)
	st, err := store.OpenDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sec, err := secrets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return index.New(st), sec
}

func TestAddMboxSyncAndRemove(t *testing.T) {
	ctx := context.Background()
	ix, sec := setup(t)
	path := "../../../../shared/cases/glance/snda-needs-reply/mailbox.mbox"
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared cases not present")
	}
	abs, _ := filepath.Abs(path)
	cfg, _ := json.Marshal(FileConfig{Path: abs})
	a, err := Add(ctx, ix, sec, index.Account{Kind: index.KindMbox, Name: "Archive", Address: "dana.whitfield@hartleyross.com", Config: cfg}, Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := Connect(ctx, a, sec, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := ix.Sync(ctx, a.ID, conn, nil)
	conn.Close()
	if err != nil || n == 0 {
		t.Fatalf("sync %d, %v", n, err)
	}
	if err := Remove(ctx, ix, sec, a.ID); err != nil {
		t.Fatal(err)
	}
	if st, _ := ix.Stats(ctx); st.Messages != 0 {
		t.Errorf("%d messages left after removing the account", st.Messages)
	}
}

func TestAddIMAPFailureLeavesNothing(t *testing.T) {
	ctx := context.Background()
	ix, sec := setup(t)
	cfg, _ := json.Marshal(IMAPConfig{Host: "127.0.0.1", Port: 1, TLS: "none", Username: "dana"})
	_, err := Add(ctx, ix, sec, index.Account{Kind: index.KindIMAP, Name: "Work", Address: "dana@example.com", Config: cfg}, Credentials{Password: "pw"})
	if err == nil {
		t.Fatal("an unreachable server was accepted")
	}
	if as, _ := ix.Accounts(ctx); len(as) != 0 {
		t.Errorf("account left behind: %+v", as)
	}
	if _, err := sec.Get(ctx, PasswordKey(1)); err == nil {
		t.Error("password left in the keychain")
	}
	if _, err := Add(ctx, ix, sec, index.Account{Kind: index.KindIMAP, Name: "Work", Config: cfg}, Credentials{}); err == nil {
		t.Error("an IMAP account without a password was accepted")
	}
}
