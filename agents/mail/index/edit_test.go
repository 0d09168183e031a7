package index

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/store"
)

// TestUpdateAccount: a name and aliases change; the account's own address,
// kind and settings stay; anything refused changes nothing.
func TestUpdateAccount(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name     string
		address  string // the stored account's address; "" for none
		aliases  []string
		change   func(*Account) error
		wantName string
		want     []string // the addresses afterwards
		wantErr  error    // errors.Is; nil for none
		wantText string   // part of the error
	}{
		{name: "add an alias", address: "dana@firm.com",
			change: func(a *Account) error { a.Aliases = append(a.Aliases, "DW@Firm.com"); return nil },
			want:   []string{"dana@firm.com", "dw@firm.com"}},
		{name: "replace the aliases", address: "dana@firm.com", aliases: []string{"old@firm.com"},
			change: func(a *Account) error { a.Aliases = []string{"dw@firm.com", "dana@firm.org"}; return nil },
			want:   []string{"dana@firm.com", "dw@firm.com", "dana@firm.org"}},
		{name: "remove every alias", address: "dana@firm.com", aliases: []string{"dw@firm.com"},
			change: func(a *Account) error { a.Aliases = nil; return nil },
			want:   []string{"dana@firm.com"}},
		{name: "the address again and repeats dropped", address: "dana@firm.com",
			change: func(a *Account) error {
				a.Aliases = []string{"Dana@firm.com", "dw@firm.com", "dw@firm.com "}
				return nil
			},
			want: []string{"dana@firm.com", "dw@firm.com"}},
		{name: "rename", address: "dana@firm.com", aliases: []string{"dw@firm.com"},
			change:   func(a *Account) error { a.Name = "  Work  "; return nil },
			wantName: "Work", want: []string{"dana@firm.com", "dw@firm.com"}},
		{name: "an account without an address gets one", address: "",
			change: func(a *Account) error { a.Aliases = []string{"dana@firm.com", "dw@firm.com"}; return nil },
			want:   []string{"dana@firm.com", "dw@firm.com"}},
		{name: "the own address stays", address: "dana@firm.com", aliases: []string{"dw@firm.com"},
			change:  func(a *Account) error { a.Address = "other@firm.com"; return nil },
			wantErr: store.ErrInvalid, wantText: "dana@firm.com stays"},
		{name: "not an address", address: "dana@firm.com", aliases: []string{"dw@firm.com"},
			change:  func(a *Account) error { a.Aliases = []string{"dana w"}; return nil },
			wantErr: store.ErrInvalid, wantText: `"dana w" is not an email address`},
		{name: "a name with the address", address: "dana@firm.com",
			change:  func(a *Account) error { a.Aliases = []string{"Dana <dw@firm.com>"}; return nil },
			wantErr: store.ErrInvalid, wantText: "is not an email address"},
		{name: "a list in one alias", address: "dana@firm.com",
			change:  func(a *Account) error { a.Aliases = []string{"dw@firm.com, d@firm.com"}; return nil },
			wantErr: store.ErrInvalid, wantText: "is not an email address"},
		{name: "no name", address: "dana@firm.com",
			change:  func(a *Account) error { a.Name = " "; return nil },
			wantErr: store.ErrInvalid, wantText: "needs a name"},
		{name: "change refuses", address: "dana@firm.com", aliases: []string{"dw@firm.com"},
			change:  func(a *Account) error { a.Aliases = nil; return boom },
			wantErr: boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newTestIndex(t)
			before, err := x.AddAccount(t.Context(), Account{Kind: KindMaildir, Name: "Archive", Address: tc.address,
				Aliases: tc.aliases, Config: []byte(`{"path":"/m"}`)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := x.UpdateAccount(t.Context(), before.ID, tc.change)
			stored, rerr := x.Account(t.Context(), before.ID)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantText) {
					t.Fatalf("UpdateAccount: %v; want %v with %q", err, tc.wantErr, tc.wantText)
				}
				if stored.Name != before.Name || !slices.Equal(stored.Addresses(), before.Addresses()) {
					t.Errorf("a refused edit changed the account: %+v, was %+v", stored, before)
				}
				return
			}
			if err != nil {
				t.Fatalf("UpdateAccount: %v", err)
			}
			wantName := tc.wantName
			if wantName == "" {
				wantName = "Archive"
			}
			for _, a := range []Account{got, stored} {
				if a.Name != wantName || !slices.Equal(a.Addresses(), tc.want) {
					t.Errorf("account %q %q, want %q %q", a.Name, a.Addresses(), wantName, tc.want)
				}
				if a.Kind != before.Kind || string(a.Config) != string(before.Config) || !a.Created.Equal(before.Created) {
					t.Errorf("edit changed more than name and addresses: %+v, was %+v", a, before)
				}
				if len(a.Aliases) > 0 && slices.Contains(a.Aliases, a.Address) {
					t.Errorf("aliases %q repeat the address %q", a.Aliases, a.Address)
				}
			}
		})
	}
}

func TestUpdateAccountUnknown(t *testing.T) {
	x := newTestIndex(t)
	called := false
	_, err := x.UpdateAccount(t.Context(), 7, func(*Account) error { called = true; return nil })
	if !errors.Is(err, store.ErrNotFound) || called {
		t.Errorf("UpdateAccount(7) = %v (change called: %v); want store.ErrNotFound without a call", err, called)
	}
}

// TestUpdateAccountAliasCountsForIndexedMail: a reply sent from an alias
// the account did not know is the user's once the alias is added, without
// re-reading the mail, and a thread it ends is then the user's last word.
func TestUpdateAccountAliasCountsForIndexedMail(t *testing.T) {
	x := newTestIndex(t)
	a := addAccount(t, x, "dana@firm.com")
	applyT(t, x, a.ID,
		msg("q", "Estoppel", "grant@ellison.com", 1),
		msg("r", "RE: Estoppel", "dw@firm.com", 2, "q"))
	fromMe := func() (bool, bool) {
		hits := search(t, x, SearchQuery{Subject: "Estoppel"})
		if len(hits) != 1 {
			t.Fatalf("hits %+v, want the one thread", hits)
		}
		th, err := x.ReadEmailThread(t.Context(), hits[0].ThreadID)
		if err != nil {
			t.Fatal(err)
		}
		last := th.Messages[len(th.Messages)-1]
		return hits[0].LatestFromMe, last.FromMe && last.From == (mail.Address{Name: "Dw", Email: "dw@firm.com"})
	}
	if latest, msgMine := fromMe(); latest || msgMine {
		t.Fatalf("before the edit: latest from me %v, reply mine %v; want neither", latest, msgMine)
	}
	if _, err := x.UpdateAccount(t.Context(), a.ID, func(a *Account) error {
		a.Aliases = append(a.Aliases, "dw@firm.com")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if latest, msgMine := fromMe(); !latest || !msgMine {
		t.Errorf("after the edit: latest from me %v, reply mine %v; want both", latest, msgMine)
	}
}
