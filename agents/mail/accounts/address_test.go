package accounts

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/mail/index"
)

func TestParseAddresses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []string
		want    []string
		wantErr string // part of the error; "" for none
	}{
		{name: "one", in: []string{"dana@example.com"}, want: []string{"dana@example.com"}},
		{name: "comma list", in: []string{"dana@example.com, D.Whitfield@Example.com"}, want: []string{"dana@example.com", "d.whitfield@example.com"}},
		{name: "repeated flag", in: []string{"dana@example.com", "dw@example.com"}, want: []string{"dana@example.com", "dw@example.com"}},
		{name: "quoted name with a comma", in: []string{`"Whitfield, Dana" <dana@example.com>, dw@example.com`}, want: []string{"dana@example.com", "dw@example.com"}},
		{name: "repeats dropped", in: []string{"dana@example.com", "DANA@example.com"}, want: []string{"dana@example.com"}},
		{name: "empty", in: []string{"", " "}, want: nil},
		{name: "not an address", in: []string{"dana@example.com, dana"}, wantErr: `"dana" is not an email address`},
		{name: "space-separated", in: []string{"dana@example.com dw@example.com"}, wantErr: "is not an email address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAddresses(tc.in...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseAddresses(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ParseAddresses(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestHostPort(t *testing.T) {
	for _, tc := range []struct {
		name     string
		server   string
		port     int
		wantHost string
		wantPort int
		wantErr  string
	}{
		{name: "host", server: "imap.example.com", wantHost: "imap.example.com"},
		{name: "host and --port", server: "imap.example.com", port: 143, wantHost: "imap.example.com", wantPort: 143},
		{name: "host:port", server: "127.0.0.1:10143", wantHost: "127.0.0.1", wantPort: 10143},
		{name: "host:port agreeing with --port", server: "127.0.0.1:10143", port: 10143, wantHost: "127.0.0.1", wantPort: 10143},
		{name: "bracketed v6 with port", server: "[::1]:10143", wantHost: "::1", wantPort: 10143},
		{name: "bracketed v6", server: "[::1]", port: 993, wantHost: "::1", wantPort: 993},
		{name: "bare v6", server: "::1", wantHost: "::1"},
		{name: "conflict", server: "127.0.0.1:10143", port: 993, wantErr: "names port 10143 but the port given is 993"},
		{name: "bad port", server: "imap.example.com:imaps", wantErr: `"imaps" is not a port number`},
		{name: "port out of range", server: "imap.example.com:70000", wantErr: "is not a port number"},
		{name: "no host", server: ":993", wantErr: "has no host name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, port, err := HostPort(tc.server, tc.port)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("HostPort(%q, %d) = %q, %d, %v; want an error with %q", tc.server, tc.port, host, port, err, tc.wantErr)
				}
				return
			}
			if err != nil || host != tc.wantHost || port != tc.wantPort {
				t.Errorf("HostPort(%q, %d) = %q, %d, %v; want %q, %d", tc.server, tc.port, host, port, err, tc.wantHost, tc.wantPort)
			}
		})
	}
}

// maildir makes an empty Maildir folder.
func maildir(t *testing.T) []byte {
	t.Helper()
	root := filepath.Join(t.TempDir(), "Maildir")
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _ := json.Marshal(FileConfig{Path: root})
	return cfg
}

// TestAddStoresAliases: several addresses become the account's address
// and aliases; a list that is not addresses is refused before anything
// is stored.
func TestAddStoresAliases(t *testing.T) {
	ctx := context.Background()
	ix, sec := setup(t)
	cfg := maildir(t)
	if _, err := Add(ctx, ix, sec, index.Account{Kind: index.KindMaildir, Name: "Bad", Address: "dana@example.com, dana", Config: cfg}, Credentials{}); err == nil || !strings.Contains(err.Error(), `"dana"`) {
		t.Errorf("Add with a bad address: %v, want an error naming it", err)
	}
	a, err := Add(ctx, ix, sec, index.Account{Kind: index.KindMaildir, Name: "Archive", Address: "Dana@example.com, dw@example.com", Aliases: []string{"dana@example.org"}, Config: cfg}, Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.Account(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"dana@example.com", "dw@example.com", "dana@example.org"}; !slices.Equal(got.Addresses(), want) {
		t.Errorf("stored addresses %q, want %q", got.Addresses(), want)
	}
	if a.ID != 1 {
		t.Errorf("id %d, want 1: the refused add used one up", a.ID)
	}
}

// TestFailedAddUsesNoID: an add that fails its check leaves no gap in the
// account ids.
func TestFailedAddUsesNoID(t *testing.T) {
	ctx := context.Background()
	ix, sec := setup(t)
	bad, _ := json.Marshal(IMAPConfig{Host: "127.0.0.1", Port: 1, TLS: "none", Username: "dana"})
	if _, err := Add(ctx, ix, sec, index.Account{Kind: index.KindIMAP, Name: "Work", Address: "dana@example.com", Config: bad}, Credentials{Password: "pw"}); err == nil {
		t.Fatal("an unreachable server was accepted")
	}
	a, err := Add(ctx, ix, sec, index.Account{Kind: index.KindMaildir, Name: "Archive", Address: "dana@example.com", Config: maildir(t)}, Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != 1 {
		t.Errorf("next account's id = %d, want 1", a.ID)
	}
}

// failingSecrets is a keychain that refuses to save.
type failingSecrets struct{ memSecrets }

func (failingSecrets) Set(context.Context, string, string) error { return os.ErrPermission }

// TestAddSaveFailureUsesNoID: when the keychain refuses the password, the
// account and its id go back with the transaction.
func TestAddSaveFailureUsesNoID(t *testing.T) {
	ctx := context.Background()
	ix, _ := setup(t)
	_, err := ix.AddAccountThen(ctx, index.Account{Kind: index.KindMaildir, Name: "x", Address: "dana@example.com"}, func(a index.Account) error {
		return failingSecrets{memSecrets{}}.Set(ctx, PasswordKey(a.ID), "pw")
	})
	if err == nil {
		t.Fatal("AddAccountThen succeeded though then failed")
	}
	a, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMaildir, Name: "y", Address: "dana@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != 1 {
		t.Errorf("next account's id = %d, want 1", a.ID)
	}
}
