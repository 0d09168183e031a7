package imap

import (
	"slices"
	"strings"

	goimap "github.com/emersion/go-imap/v2"
)

// Folder roles, used as mail.Message.Folder: the index and the glance
// reason about "the lawyer's sent mail", not about what the server calls it.
const (
	RoleInbox  = "INBOX"
	RoleSent   = "Sent"
	RoleDrafts = "Drafts"
)

// folder is one mailbox to sync and the role it plays.
type folder struct {
	Name string // the server's name, e.g. "[Gmail]/Sent Mail"
	Role string
}

// Fallback names for servers without SPECIAL-USE (RFC 6154), in order of
// preference. Matched case-insensitively, also below an "INBOX." or
// "INBOX/" prefix (Courier, older Dovecot and cPanel hosts nest folders
// under INBOX).
var (
	sentNames   = []string{"Sent", "Sent Items", "Sent Mail", "Sent Messages", "[Gmail]/Sent Mail", "[Google Mail]/Sent Mail"}
	draftsNames = []string{"Drafts", "Draft", "[Gmail]/Drafts", "[Google Mail]/Drafts"}
)

// pickFolders chooses INBOX, Sent and Drafts from a LIST answer: by
// SPECIAL-USE attribute first, else by common names. Missing Sent or
// Drafts are simply left out.
func pickFolders(list []*goimap.ListData) []folder {
	var usable []*goimap.ListData
	for _, d := range list {
		if d == nil || hasAttr(d, goimap.MailboxAttrNoSelect) || hasAttr(d, goimap.MailboxAttrNonExistent) {
			continue
		}
		usable = append(usable, d)
	}
	// INBOX always exists (RFC 3501 §5.1) even if a server leaves it out
	// of a LIST answer.
	out := []folder{{Name: "INBOX", Role: RoleInbox}}
	if name := findRole(usable, goimap.MailboxAttrSent, sentNames); name != "" {
		out = append(out, folder{Name: name, Role: RoleSent})
	}
	if name := findRole(usable, goimap.MailboxAttrDrafts, draftsNames); name != "" {
		out = append(out, folder{Name: name, Role: RoleDrafts})
	}
	return out
}

func findRole(list []*goimap.ListData, attr goimap.MailboxAttr, names []string) string {
	for _, d := range list {
		if hasAttr(d, attr) && !strings.EqualFold(d.Mailbox, "INBOX") {
			return d.Mailbox
		}
	}
	for _, want := range names {
		for _, d := range list {
			if nameMatches(d, want) {
				return d.Mailbox
			}
		}
	}
	return ""
}

func nameMatches(d *goimap.ListData, want string) bool {
	if strings.EqualFold(d.Mailbox, want) {
		return true
	}
	if d.Delim == 0 || len(d.Mailbox) <= len("INBOX")+1 {
		return false
	}
	prefix, rest := d.Mailbox[:len("INBOX")+1], d.Mailbox[len("INBOX")+1:]
	return strings.EqualFold(prefix, "INBOX"+string(d.Delim)) && strings.EqualFold(rest, want)
}

func hasAttr(d *goimap.ListData, attr goimap.MailboxAttr) bool {
	return slices.ContainsFunc(d.Attrs, func(a goimap.MailboxAttr) bool {
		return strings.EqualFold(string(a), string(attr))
	})
}
