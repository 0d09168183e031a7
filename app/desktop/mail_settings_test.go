package desktop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/mail/index"
)

// formParts are the entries, buttons and labels of the window's top
// overlay (a dialog), in layout order.
func formParts(w fyne.Window) (entries []*widget.Entry, buttons []*widget.Button, labels []string) {
	top := w.Canvas().Overlays().Top()
	if top == nil {
		return nil, nil, nil
	}
	for _, o := range test.LaidOutObjects(top) {
		switch o := o.(type) {
		case *widget.Entry:
			entries = append(entries, o)
		case *widget.Button:
			buttons = append(buttons, o)
		case *widget.Label:
			labels = append(labels, o.Text)
		}
	}
	return entries, buttons, labels
}

// TestMailSettingsAddFolderAddresses: the Add mail folder form takes the
// lawyer's addresses as a comma-separated list and stores the first as the
// account's address and the rest as its aliases; an entry that is not an
// address is named and nothing is added.
func TestMailSettingsAddFolderAddresses(t *testing.T) {
	root := filepath.Join(t.TempDir(), "Maildir")
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name      string
		addresses string
		want      []string // the stored addresses; nil: nothing stored
		wantError string   // part of the error dialog's text
	}{
		{name: "address and aliases", addresses: "Dana@example.com, dw@example.com", want: []string{"dana@example.com", "dw@example.com"}},
		{name: "not an address", addresses: "dana@example.com, dana w", wantError: `"dana w" is not an email address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, sp, _ := newTestGUI(t)
			w := g.fa.NewWindow("Settings")
			w.Resize(fyne.NewSize(700, 600))
			v := newMailView(g, w)
			w.SetContent(v.content)
			v.addFolder()
			entries, buttons, _ := formParts(w)
			if len(entries) < 2 {
				t.Fatalf("the form has %d entries, want the folder and the addresses", len(entries))
			}
			entries[0].SetText(root)
			entries[len(entries)-1].SetText(tc.addresses)
			i := slices.IndexFunc(buttons, func(b *widget.Button) bool { return b.Text == "Add" })
			if i < 0 {
				t.Fatal("the form has no Add button")
			}
			test.Tap(buttons[i])

			if tc.wantError != "" {
				_, _, labels := formParts(w)
				if !slices.ContainsFunc(labels, func(l string) bool { return strings.Contains(l, tc.wantError) }) {
					t.Errorf("dialog says %q, want %q", labels, tc.wantError)
				}
			}
			var got []string
			poll(t, g, "the account", func() bool {
				m, err := sp.core.MailAccounts(context.Background())
				if err != nil || len(m.Accounts) == 0 {
					return tc.want == nil
				}
				got = m.Accounts[0].Addresses()
				return true
			})
			if !slices.Equal(got, tc.want) {
				t.Errorf("stored addresses %q, want %q", got, tc.want)
			}
		})
	}
}

// overlayTexts are the words the top overlay shows: labels and the form's
// hints and validation messages.
func overlayTexts(w fyne.Window) []string {
	var out []string
	if top := w.Canvas().Overlays().Top(); top != nil {
		for _, o := range test.LaidOutObjects(top) {
			switch o := o.(type) {
			case *widget.Label:
				out = append(out, o.Text)
			case *canvas.Text:
				out = append(out, o.Text)
			}
		}
	}
	return out
}

// TestMailSettingsEditAddresses: an account's row has an Addresses button
// whose form shows its own address, which stays, and its other addresses,
// one a line, which the lawyer edits; entries that are not addresses are
// named as they are typed and cannot be saved; a saved list is what the
// index then holds.
func TestMailSettingsEditAddresses(t *testing.T) {
	for _, tc := range []struct {
		name      string
		newName   string // "" keeps "Archive"
		aliases   string
		want      []string // stored afterwards; nil: unchanged and Save disabled
		wantName  string
		wantError string // a message the form shows
	}{
		{name: "one a line", aliases: "dw@example.com\nD@Example.org\n",
			want: []string{"dana@example.com", "dw@example.com", "d@example.org"}},
		{name: "comma-separated", aliases: "dw@example.com, old@example.com",
			want: []string{"dana@example.com", "dw@example.com", "old@example.com"}},
		{name: "the own address typed again", aliases: "Dana@example.com\ndw@example.com",
			want: []string{"dana@example.com", "dw@example.com"}},
		{name: "none", aliases: "",
			want: []string{"dana@example.com"}},
		{name: "rename", newName: "Work", aliases: "old@example.com",
			want: []string{"dana@example.com", "old@example.com"}, wantName: "Work"},
		{name: "not an address", aliases: "dw@example.com\ndana w",
			wantError: `"dana w" is not an email address`},
		{name: "no name", newName: " ", aliases: "dw@example.com",
			wantError: "the account needs a name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, sp, _ := newTestGUI(t)
			ctx := context.Background()
			if _, err := index.New(sp.store).AddAccount(ctx, index.Account{Kind: index.KindMaildir, Name: "Archive",
				Address: "dana@example.com", Aliases: []string{"old@example.com"}, Config: []byte(`{"path":"/nowhere"}`)}); err != nil {
				t.Fatal(err)
			}
			w := g.fa.NewWindow("Settings")
			w.Resize(fyne.NewSize(700, 700))
			v := newMailView(g, w)
			w.SetContent(v.content)
			m, err := sp.core.MailAccounts(ctx)
			if err != nil || len(m.Accounts) != 1 {
				t.Fatalf("accounts %+v, %v", m.Accounts, err)
			}
			v.show(m.Accounts, m.Stats, nil, nil)
			var edit *widget.Button
			for _, o := range test.LaidOutObjects(w.Canvas().Content()) {
				if b, ok := o.(*widget.Button); ok && b.Text == editAddressesLabel {
					edit = b
				}
			}
			if edit == nil {
				t.Fatal("the account's row has no Addresses button")
			}
			test.Tap(edit)

			entries, buttons, _ := formParts(w)
			if len(entries) != 2 {
				t.Fatalf("the form has %d entries, want the name and the other addresses", len(entries))
			}
			if texts := overlayTexts(w); !slices.Contains(texts, "dana@example.com") {
				t.Errorf("the form shows %q, not the account's own address", texts)
			}
			if entries[0].Text != "Archive" || entries[1].Text != "old@example.com" {
				t.Errorf("the form starts with %q and %q, want the account's name and its alias", entries[0].Text, entries[1].Text)
			}
			if tc.newName != "" {
				entries[0].SetText(tc.newName)
			}
			entries[1].SetText(tc.aliases)
			i := slices.IndexFunc(buttons, func(b *widget.Button) bool { return b.Text == "Save" })
			if i < 0 {
				t.Fatal("the form has no Save button")
			}
			save := buttons[i]

			if tc.wantError != "" {
				if !save.Disabled() {
					t.Error("Save is enabled for an invalid form")
				}
				if texts := overlayTexts(w); !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, tc.wantError) }) {
					t.Errorf("the form says %q, want %q", texts, tc.wantError)
				}
				test.Tap(save)
				a, err := index.New(sp.store).Account(ctx, m.Accounts[0].ID)
				if err != nil || a.Name != "Archive" || !slices.Equal(a.Addresses(), []string{"dana@example.com", "old@example.com"}) {
					t.Errorf("stored %+v, %v; want the account unchanged", a, err)
				}
				return
			}
			if save.Disabled() {
				t.Fatalf("Save is disabled; the form says %q", overlayTexts(w))
			}
			test.Tap(save)
			wantName := tc.wantName
			if wantName == "" {
				wantName = "Archive"
			}
			var got index.Account
			poll(t, g, "the edit", func() bool {
				m, err := sp.core.MailAccounts(ctx)
				if err != nil || len(m.Accounts) != 1 {
					return false
				}
				got = m.Accounts[0]
				return got.Name == wantName && slices.Equal(got.Addresses(), tc.want)
			})
			poll(t, g, "the row showing the addresses", func() bool {
				for _, o := range test.LaidOutObjects(w.Canvas().Content()) {
					if l, ok := o.(*widget.Label); ok && l.Text == strings.Join(tc.want, ", ") {
						return true
					}
				}
				return false
			})
		})
	}
}
