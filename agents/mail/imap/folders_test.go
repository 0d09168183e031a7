package imap

import (
	"testing"

	goimap "github.com/emersion/go-imap/v2"
)

func TestPickFolders(t *testing.T) {
	ld := func(name string, attrs ...goimap.MailboxAttr) *goimap.ListData {
		return &goimap.ListData{Mailbox: name, Delim: '/', Attrs: attrs}
	}
	for _, tc := range []struct {
		name         string
		list         []*goimap.ListData
		sent, drafts string
	}{
		{"gmail special-use", []*goimap.ListData{
			ld("INBOX"), ld("[Gmail]", goimap.MailboxAttrNoSelect),
			ld("[Gmail]/All Mail", goimap.MailboxAttrAll), ld("[Gmail]/Drafts", goimap.MailboxAttrDrafts),
			ld("[Gmail]/Sent Mail", goimap.MailboxAttrSent), ld("Sent"),
		}, "[Gmail]/Sent Mail", "[Gmail]/Drafts"},
		{"localised names with special-use", []*goimap.ListData{
			ld("INBOX"), ld("Gesendete Elemente", `\sent`), ld("Entwürfe", goimap.MailboxAttrDrafts),
		}, "Gesendete Elemente", "Entwürfe"},
		{"names only, Outlook style", []*goimap.ListData{
			ld("INBOX"), ld("Deleted Items"), ld("sent items"), ld("Drafts"),
		}, "sent items", "Drafts"},
		{"nested under INBOX", []*goimap.ListData{
			{Mailbox: "INBOX", Delim: '.'}, {Mailbox: "INBOX.Sent", Delim: '.'}, {Mailbox: "INBOX.Drafts", Delim: '.'},
		}, "INBOX.Sent", "INBOX.Drafts"},
		{"preference order and noselect", []*goimap.ListData{
			ld("INBOX"), ld("Sent Messages"), ld("Sent", goimap.MailboxAttrNoSelect), ld("Sent Items"),
		}, "Sent Items", ""},
		{"nothing", []*goimap.ListData{ld("INBOX"), ld("Archive")}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pickFolders(tc.list)
			if got[0] != (folder{Name: "INBOX", Role: RoleInbox}) {
				t.Errorf("first folder %+v", got[0])
			}
			var sent, drafts string
			for _, f := range got[1:] {
				switch f.Role {
				case RoleSent:
					sent = f.Name
				case RoleDrafts:
					drafts = f.Name
				}
			}
			if sent != tc.sent || drafts != tc.drafts {
				t.Errorf("sent %q drafts %q, want %q %q", sent, drafts, tc.sent, tc.drafts)
			}
		})
	}
}
