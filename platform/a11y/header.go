package a11y

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Window is the foreground window whose message header is wanted, as
// screen.Switch reports it.
type Window struct {
	// PID is the window's process (_NET_WM_PID); 0 when unknown.
	PID int
	// Title is the window's title, which mail clients also give their
	// accessible frame.
	Title string
}

// MessageHeader is the header of the message a window shows, as the mail
// client exposes it: exact text, not OCR.
type MessageHeader struct {
	// SenderName and SenderEmail are the From line's parts; either may be
	// empty when the client shows only the other.
	SenderName, SenderEmail string
	// To and Cc are the recipients, each "Name <addr>", "addr" or "Name"
	// as much as the client exposes. A client may show the account's own
	// address as "Me"; Thunderbird keeps the full mailbox in that entry's
	// accessible name, and then it is returned in full.
	To, Cc []string
	// Subject is the message's subject.
	Subject string
	// Date is the header's date as shown ("11/23/26, 10:00").
	Date string
	// Time is the same date in machine form when the client exposes it
	// (an HTML <time datetime=…>, as Thunderbird does); zero otherwise.
	Time time.Time
}

var (
	// ErrUnavailable means there is no accessibility bus, accessibility is
	// not enabled, or the window's application is not on the bus: the
	// caller falls back to OCR.
	ErrUnavailable = errors.New("a11y: accessibility tree unavailable")
	// ErrNoHeader means the window's tree shows no message header: a
	// message list with nothing selected, a compose window, a dialog.
	ErrNoHeader = errors.New("a11y: window shows no message header")
	// ErrUnsupported is returned where this OS's accessibility API is not
	// implemented yet. It wraps ErrUnavailable, so callers fall back to
	// OCR with the same check.
	ErrUnsupported = fmt.Errorf("a11y: not implemented on this OS: %w", ErrUnavailable)
)

// Node is one accessible object of a snapshot, reduced to what reading a
// header needs. The OS readers build it (AT-SPI on Linux); the header is
// then found in it by HeaderFromTree, which is pure.
type Node struct {
	// Role is the toolkit-neutral role name as AT-SPI spells it
	// ("landmark", "list", "list item", "static", "section", "push
	// button", …), never a localized one.
	Role string
	// Name and Description are the accessible name and description (a
	// tooltip usually lands in one of them).
	Name, Description string
	// Text is the object's own text, with embedded-object characters
	// (U+FFFC) already removed; "" when it has none.
	Text string
	// Attrs holds the object attributes the header reading uses:
	// "xml-roles" and "datetime".
	Attrs    map[string]string
	Children []*Node
}

// Attribute names kept in Node.Attrs.
const (
	attrXMLRoles = "xml-roles"
	attrDatetime = "datetime"
)

// skipRoles are subtrees that never hold header text but whose names would
// pollute it: the reply/forward toolbar, "Not in the Address Book" buttons
// and their icons, popup menus.
var skipRoles = map[string]bool{
	"tool bar":      true,
	"push button":   true,
	"toggle button": true,
	"check box":     true,
	"menu":          true,
	"menu bar":      true,
	"image":         true,
	"icon":          true,
}

// Header row labels: the accessible name Thunderbird gives each recipient
// list is the row's visible label, which is localized. The common UI
// languages are listed; with an unknown label, the first list is taken as
// From (every client shows the sender first) and To/Cc stay empty.
var (
	fromLabels = words("from von de da van från fra od z от remitente expéditeur mittente afzender absender 发件人 寄件者 差出人 보낸사람")
	toLabels   = words("to an à a para aan til till do per кому destinataire destinatario 收件人 宛先 받는사람")
	ccLabels   = words("cc kopie copie copia kopia копия 抄送 副本")
	// meWords are what clients show instead of the account's own name
	// (Thunderbird's "Me", localized): never a name, though the entry's
	// address stays.
	meWords = words("me ich moi yo io ik eu jag mig meg minä ja já я 我 私 나")
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	// addrRe is a bare addr-spec as a header shows it.
	addrRe = regexp.MustCompile(`^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$`)
	// angleRe finds "<addr>" anywhere, for "Name <addr>".
	angleRe = regexp.MustCompile(`<\s*([^\s@<>]+@[^\s@<>]+)\s*>`)
)

// HeaderFromTree reads a message header out of banner, the subtree of a
// header landmark. docTitle is the name of the document around it, used
// as the subject when no header row carries one (Thunderbird titles its
// message document with the subject). ok is false when banner holds no
// sender: it is not a message header.
//
// What it relies on (Thunderbird 115–153, and any client marking its
// header up the same way):
//   - recipients are lists (role "list") named by the row's label
//     ("From", "To", "Cc"), one list item per mailbox;
//   - a mailbox's parts are the texts, names and descriptions inside its
//     item: "Name <addr>", or a name and a bare address apart (two-line
//     sender), or a display name ("Me") with the full mailbox as its
//     name or tooltip;
//   - the subject row's name is "<label>: <its text>";
//   - the date is an element with xml-roles "time" (HTML <time>), its
//     machine value in the "datetime" attribute.
func HeaderFromTree(banner *Node, docTitle string) (h MessageHeader, ok bool) {
	var lists []*Node
	var subjects []string
	walk(banner, func(n *Node) bool {
		if skipRoles[n.Role] {
			return false
		}
		if n.Role == "list" {
			lists = append(lists, n)
			return false
		}
		if n.Attrs[attrXMLRoles] == "time" && h.Date == "" {
			h.Date = clean(n.Text)
			if t, err := time.Parse(time.RFC3339, n.Attrs[attrDatetime]); err == nil {
				h.Time = t
			}
		}
		if s, ok := labelled(n); ok {
			subjects = append(subjects, s)
		}
		return true
	})

	var from *Node
	for _, l := range lists {
		switch label := rowLabel(l.Name); {
		case fromLabels[label] && from == nil:
			from = l
		case toLabels[label]:
			h.To = append(h.To, mailboxes(l)...)
		case isCc(label):
			h.Cc = append(h.Cc, mailboxes(l)...)
		}
	}
	if from == nil && len(lists) > 0 {
		if first := rowLabel(lists[0].Name); !toLabels[first] && !isCc(first) {
			from = lists[0]
		}
	}
	if from != nil {
		for _, item := range items(from) {
			if name, addr := mailbox(item); name != "" || addr != "" {
				h.SenderName, h.SenderEmail = name, addr
				break
			}
		}
	}
	if len(subjects) > 0 {
		h.Subject = subjects[0]
	} else {
		h.Subject = clean(docTitle)
	}
	return h, h.SenderName != "" || h.SenderEmail != ""
}

// walk visits n and its descendants in document order; visit returns
// whether to descend.
func walk(n *Node, visit func(*Node) bool) {
	if n == nil || !visit(n) {
		return
	}
	for _, c := range n.Children {
		walk(c, visit)
	}
}

// labelled returns the text of a "<label>: <text>" row, such as
// Thunderbird's subject ("Subject: Settlement draft"), whose accessible
// name repeats its text after a short label.
func labelled(n *Node) (string, bool) {
	text := clean(n.Text)
	name := clean(n.Name)
	if text == "" || name == text || !strings.HasSuffix(name, text) {
		return "", false
	}
	label := strings.TrimSpace(strings.TrimSuffix(name, text))
	if !strings.HasSuffix(label, ":") || utf8.RuneCountInString(label) > 30 || strings.Contains(label, "@") {
		return "", false
	}
	return text, true
}

// isCc reports whether a row label names the Cc row: a known label, or
// one with "cc" as a word ("Kopie (CC)").
func isCc(label string) bool {
	if ccLabels[label] {
		return true
	}
	return slices.Contains(strings.FieldsFunc(label, func(r rune) bool { return !unicode.IsLetter(r) }), "cc")
}

// rowLabel normalizes a row label: "To:" and " to " are "to".
func rowLabel(s string) string {
	return strings.ToLower(strings.TrimSuffix(clean(s), ":"))
}

// items returns the list items of a recipient list; a list whose entries
// are not list items (a client exposing plain children) counts each child.
func items(list *Node) []*Node {
	var out []*Node
	walk(list, func(n *Node) bool {
		if n == list {
			return true
		}
		if n.Role == "list item" {
			out = append(out, n)
			return false
		}
		return !skipRoles[n.Role]
	})
	if len(out) == 0 {
		for _, c := range list.Children {
			if !skipRoles[c.Role] {
				out = append(out, c)
			}
		}
	}
	return out
}

// mailboxes formats every entry of a recipient list.
func mailboxes(list *Node) []string {
	var out []string
	for _, item := range items(list) {
		if s := formatMailbox(mailbox(item)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func formatMailbox(name, addr string) string {
	switch {
	case name != "" && addr != "":
		return name + " <" + addr + ">"
	case addr != "":
		return addr
	}
	return name
}

// mailbox reads one recipient entry. The strings inside it (texts, then
// names, then descriptions of each descendant, in document order) are
// tried as a whole "Name <addr>" first, since a display name such as "Me"
// may carry the full mailbox as its name or tooltip; else the first bare
// address and the first other string are the parts. The entry's own name
// is used only when its descendants say nothing: Thunderbird makes it of
// the children's texts plus the address-book button's label.
func mailbox(item *Node) (name, addr string) {
	var strs []string
	walk(item, func(n *Node) bool {
		if skipRoles[n.Role] {
			return false
		}
		if n != item {
			strs = append(strs, clean(n.Text), clean(n.Name), clean(n.Description))
		}
		return true
	})
	strs = append(strs, clean(item.Text), clean(item.Description))
	if name, addr = pickMailbox(strs); name == "" && addr == "" {
		name, addr = pickMailbox([]string{clean(item.Name)})
	}
	return name, addr
}

func pickMailbox(strs []string) (name, addr string) {
	for _, s := range strs {
		if n, a, ok := parseMailbox(s); ok && n != "" {
			return n, a
		}
	}
	for _, s := range strs {
		switch n, a, ok := parseMailbox(s); {
		case ok && addr == "":
			addr = a
		case !ok && name == "" && s != "" && !strings.Contains(s, "@") && !meWords[strings.ToLower(n)]:
			name = n
		}
	}
	return name, addr
}

// parseMailbox splits "Name <addr>", "<addr>" or a bare "addr"; ok is
// false when s holds no address, and name is then s unquoted.
func parseMailbox(s string) (name, addr string, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "mailto:")
	if m := angleRe.FindStringSubmatchIndex(s); m != nil {
		return unquote(s[:m[0]]), s[m[2]:m[3]], true
	}
	if addrRe.MatchString(s) {
		return "", s, true
	}
	return unquote(s), "", false
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// clean trims what a tree's text carries besides the words: embedded
// object characters, zero-width spaces, the separators between
// recipients ("Me," "Fox Mulder <fox@…>"), runs of white space.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\uFFFC', '\u200B', '\u200E', '\u200F', '\u2060', '\uFEFF':
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimRight(s, ",;")
}
