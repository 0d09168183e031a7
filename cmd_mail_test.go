package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/glance"
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

// TestParseMailEdit: `spirit mail edit`'s flags, and which combinations
// and addresses are refused before the database is opened.
func TestParseMailEdit(t *testing.T) {
	name := func(s string) *string { return &s }
	for _, tc := range []struct {
		name    string
		args    []string
		want    mailEditArgs
		wantErr string // part of stderr; "" for none
	}{
		{name: "add an alias", args: []string{"1", "--add-address", "DW@firm.com"},
			want: mailEditArgs{id: 1, add: []string{"dw@firm.com"}}},
		{name: "add several, repeated and in a list", args: []string{"--add-address", "dw@firm.com, d@firm.com", "2", "--add-address", "dana@firm.org"},
			want: mailEditArgs{id: 2, add: []string{"dw@firm.com", "d@firm.com", "dana@firm.org"}}},
		{name: "remove an alias", args: []string{"1", "--remove-address", "old@firm.com"},
			want: mailEditArgs{id: 1, remove: []string{"old@firm.com"}}},
		{name: "all addresses", args: []string{"1", "--address", "dana@firm.com", "--address", "dw@firm.com"},
			want: mailEditArgs{id: 1, setAll: true, addresses: []string{"dana@firm.com", "dw@firm.com"}}},
		{name: "rename", args: []string{"1", "--name", " Work "},
			want: mailEditArgs{id: 1, name: name("Work")}},
		{name: "rename and add", args: []string{"1", "--name", "Work", "--add-address", "dw@firm.com"},
			want: mailEditArgs{id: 1, name: name("Work"), add: []string{"dw@firm.com"}}},
		{name: "no id", args: []string{"--add-address", "dw@firm.com"}, wantErr: "mail edit needs an account id"},
		{name: "id not a number", args: []string{"work", "--add-address", "dw@firm.com"}, wantErr: "mail edit needs an account id"},
		{name: "two ids", args: []string{"1", "2", "--add-address", "dw@firm.com"}, wantErr: `unexpected argument "2"`},
		{name: "nothing to change", args: []string{"1"}, wantErr: "nothing to change"},
		{name: "empty name", args: []string{"1", "--name", " "}, wantErr: "--name: an account needs a name"},
		{name: "not an address", args: []string{"1", "--add-address", "dw@firm.com, dana w"}, wantErr: `--add-address: "dana w" is not an email address`},
		{name: "bad address to remove", args: []string{"1", "--remove-address", "dana"}, wantErr: `--remove-address: "dana" is not an email address`},
		{name: "bad address in the list", args: []string{"1", "--address", "dana@firm.com dw@firm.com"}, wantErr: "--address:"},
		{name: "empty address", args: []string{"1", "--add-address", " "}, wantErr: "--add-address needs an address"},
		{name: "list and changes", args: []string{"1", "--address", "dana@firm.com", "--add-address", "dw@firm.com"}, wantErr: "not both"},
		{name: "added and removed", args: []string{"1", "--add-address", "dw@firm.com", "--remove-address", "DW@firm.com"}, wantErr: "dw@firm.com is both added and removed"},
		{name: "unknown flag", args: []string{"1", "--alias", "dw@firm.com"}, wantErr: "flag provided but not defined: -alias"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errOut strings.Builder
			got, _, err := parseMailEdit(tc.args, &errOut)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(errOut.String(), tc.wantErr) {
					t.Fatalf("parseMailEdit(%q) = %+v, %v, stderr %q; want an error saying %q", tc.args, got, err, errOut.String(), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseMailEdit(%q): %v, stderr %q", tc.args, err, errOut.String())
			}
			if got.id != tc.want.id || (got.name == nil) != (tc.want.name == nil) || (got.name != nil && *got.name != *tc.want.name) ||
				got.setAll != tc.want.setAll || !slices.Equal(got.addresses, tc.want.addresses) ||
				!slices.Equal(got.add, tc.want.add) || !slices.Equal(got.remove, tc.want.remove) {
				t.Errorf("parseMailEdit(%q) = %+v, want %+v", tc.args, got, tc.want)
			}
		})
	}
}

// TestMailEdit: `spirit mail edit` on a real data folder changes the name
// and addresses of an account, which `mail list` then shows; an unknown
// account, a bad address or removing what cannot be removed says so and
// changes nothing.
func TestMailEdit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string // after `mail edit`
		wantCode int
		wantOut  string // part of stdout
		wantErr  string // part of stderr
		wantName string
		want     []string // the stored addresses afterwards
	}{
		{name: "add an alias", args: []string{"1", "--add-address", "DW@example.com"},
			wantOut: "Updated Archive (account 1): dana@example.com (its own address), old@example.com, dw@example.com.",
			want:    []string{"dana@example.com", "old@example.com", "dw@example.com"}},
		{name: "remove an alias", args: []string{"1", "--remove-address", "old@example.com"},
			want: []string{"dana@example.com"}},
		{name: "all addresses keep the own one", args: []string{"1", "--address", "dw@example.com, d@example.org"},
			want: []string{"dana@example.com", "dw@example.com", "d@example.org"}},
		{name: "rename", args: []string{"1", "--name", "Work"},
			wantOut: "Updated Work (account 1)", wantName: "Work", want: []string{"dana@example.com", "old@example.com"}},
		{name: "unknown account", args: []string{"7", "--add-address", "dw@example.com"},
			wantCode: 1, wantErr: "there is no mail account 7"},
		{name: "not an address", args: []string{"1", "--add-address", "dw@example.com, dana w"},
			wantCode: 2, wantErr: `"dana w" is not an email address`},
		{name: "remove the own address", args: []string{"1", "--remove-address", "dana@example.com"},
			wantCode: 1, wantErr: "dana@example.com is the account's own address and stays"},
		{name: "remove an address it does not have", args: []string{"1", "--remove-address", "dw@example.com", "--name", "Work"},
			wantCode: 1, wantErr: "dw@example.com is not one of the addresses of Archive (dana@example.com, old@example.com)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			noKeychain(t, dir)
			if code, out, errOut := spirit("mail", "add", "maildir", testMaildir(t), "--name", "Archive",
				"--address", "dana@example.com, old@example.com", "--data-dir", dir); code != 0 {
				t.Fatalf("mail add: exit %d, %q %q", code, out, errOut)
			}
			code, out, errOut := spirit(append(append([]string{"mail", "edit"}, tc.args...), "--data-dir", dir)...)
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) || !strings.Contains(errOut, tc.wantErr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, %q and %q", code, out, errOut, tc.wantCode, tc.wantOut, tc.wantErr)
			}
			wantName, want := tc.wantName, tc.want
			if tc.wantCode != 0 {
				wantName, want = "Archive", []string{"dana@example.com", "old@example.com"} // unchanged
			}
			if wantName == "" {
				wantName = "Archive"
			}
			as := storedAccounts(t, dir)
			if len(as) != 1 || as[0].Name != wantName || !slices.Equal(as[0].Addresses(), want) {
				t.Fatalf("stored %+v, want one account %q with %q", as, wantName, want)
			}
			if _, list, _ := spirit("mail", "list", "--data-dir", dir); !strings.Contains(list, wantName+" <"+strings.Join(want, ", ")+">") {
				t.Errorf("mail list %q does not show %s <%s>", list, wantName, strings.Join(want, ", "))
			}
		})
	}
}

// aliasReplyMaildir makes a Maildir holding a question to Dana and her
// answer, sent from an alias.
func aliasReplyMaildir(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "Maildir")
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	msgs := []string{
		"From: Grant Ellison <gellison@ellisonmarsh.com>\nTo: Dana Whitfield <dana.whitfield@hartleyross.com>\n" +
			"Subject: Estoppel Certificate - 44 Pine Street\nMessage-ID: <q1@ellisonmarsh.com>\nDate: Mon, 15 Jun 2026 09:00:00 -0400\n\n" +
			"Dana,\n\nCan you send me Corvid's comments on the tenant estoppel certificate by Wednesday?\n\nGrant\n",
		"From: Dana Whitfield <dwhitfield@hartleyross.com>\nTo: Grant Ellison <gellison@ellisonmarsh.com>\n" +
			"Subject: RE: Estoppel Certificate - 44 Pine Street\nMessage-ID: <r1@hartleyross.com>\nIn-Reply-To: <q1@ellisonmarsh.com>\n" +
			"References: <q1@ellisonmarsh.com>\nDate: Tue, 16 Jun 2026 10:00:00 -0400\n\n" +
			"Grant,\n\nCorvid's comments are attached. Can you confirm the lender accepts the knowledge qualifier in paragraph 7?\n\nDana\n",
	}
	for i, m := range msgs {
		if err := os.WriteFile(filepath.Join(root, "cur", fmt.Sprintf("178100000%d.M1P1.host:2,S", i)), []byte(m), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// glanceAt decides on a Thunderbird window showing subject, with the
// lawyer's addresses read from the index as the running glance reads them
// (agents/glance's Service.On, at every switch).
func glanceAt(t *testing.T, dir, subject string, now time.Time) (glance.Decision, index.ThreadHit) {
	t.Helper()
	st, err := store.OpenDirReadOnly(t.Context(), dir, store.ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := index.New(st)
	as, err := ix.Accounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	in := glance.Input{App: "Thunderbird", Title: subject + " - Mozilla Thunderbird", Now: now}
	for _, a := range as {
		in.Me = append(in.Me, a.Addresses()...)
		if in.MeName == "" {
			in.MeName = a.Name
		}
	}
	d, err := glance.Decide(t.Context(), ix, in)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := ix.SearchEmail(t.Context(), index.SearchQuery{Subject: subject})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search %q: %+v, %v; want the one thread", subject, hits, err)
	}
	return d, hits[0]
}

// TestMailEditAliasAnswersThread: Dana answered a question from an alias
// the account did not know, so the thread looked unanswered; once `spirit
// mail edit --add-address` gives the account that alias, the same indexed
// thread — not downloaded again — is one she already replied to.
func TestMailEditAliasAnswersThread(t *testing.T) {
	dir := t.TempDir()
	noKeychain(t, dir)
	for _, args := range [][]string{
		{"mail", "add", "maildir", aliasReplyMaildir(t), "--name", "Dana Whitfield", "--address", "dana.whitfield@hartleyross.com"},
		{"mail", "sync"},
	} {
		if code, out, errOut := spirit(append(args, "--data-dir", dir)...); code != 0 {
			t.Fatalf("%q: exit %d, %q %q", args, code, out, errOut)
		}
	}
	const subject = "RE: Estoppel Certificate - 44 Pine Street"
	now := time.Date(2026, 6, 16, 18, 0, 0, 0, time.UTC) // after the reply
	before, hit := glanceAt(t, dir, subject, now)
	if before.Reason == glance.ReasonAlreadyReplied || hit.LatestFromMe {
		t.Fatalf("before the edit: %s, latest from me %v; the alias's reply should not be Dana's yet", before.Reason, hit.LatestFromMe)
	}
	t.Logf("before the edit: %s/%s", before.Stage, before.Reason)

	code, out, errOut := spirit("mail", "edit", "1", "--add-address", "dwhitfield@hartleyross.com", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "dwhitfield@hartleyross.com") {
		t.Fatalf("mail edit: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	after, hit := glanceAt(t, dir, subject, now)
	if after.Reason != glance.ReasonAlreadyReplied || after.Surface || !hit.LatestFromMe {
		t.Errorf("after the edit: %s (surface %v), latest from me %v; want %s", after.Reason, after.Surface, hit.LatestFromMe, glance.ReasonAlreadyReplied)
	}
	if hit.MessageCount != 2 {
		t.Errorf("the thread has %d messages after the edit, want the 2 indexed", hit.MessageCount)
	}
}
