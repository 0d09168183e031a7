package desktop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
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
