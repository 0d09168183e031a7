package a11y

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Tree builders for the tests: the shapes are those Thunderbird 153's
// header has over AT-SPI (see the package comment).
func node(role, name, text string, kids ...*Node) *Node {
	return &Node{Role: role, Name: name, Text: text, Children: kids}
}

func list(label string, items ...*Node) *Node { return node("list", label, "", items...) }

// abButton is the "Not in the Address Book" button Thunderbird puts in
// every recipient entry, whose name must never be read as a recipient.
func abButton() *Node {
	return node("push button", "Not in the Address Book", "", node("image", "Not in the Address Book", ""))
}

// single is a one-line recipient entry: a static whose text is shown and
// whose name, when set, is the full mailbox.
func single(name, text string) *Node {
	return node("list item", text+" Not in the Address Book", text+",", node("static", name, text), abButton())
}

// twoLine is the sender entry with name and address on two lines.
func twoLine(name, addr string) *Node {
	return node("list item", name+" <"+addr+"> Not in the Address Book", "",
		node("section", "", ""), node("section", "", name), node("section", "", addr), abButton())
}

func timeNode(shown, machine string) *Node {
	n := node("static", "", shown)
	n.Attrs = map[string]string{attrXMLRoles: "time"}
	if machine != "" {
		n.Attrs[attrDatetime] = machine
	}
	return n
}

func subjectRow(subject string) *Node {
	return node("section", "", "", node("section", "", "", node("section", "Subject: "+subject, subject)))
}

func toolbar() *Node {
	return node("tool bar", "", "", node("push button", "Reply", ""), node("push button", "Forward", ""))
}

func banner(rows ...*Node) *Node {
	b := node("landmark", "", "", rows...)
	b.Attrs = map[string]string{attrXMLRoles: "banner"}
	return b
}

func TestParseMailbox(t *testing.T) {
	tests := map[string]struct {
		in         string
		name, addr string
		ok         bool
	}{
		"name and address":            {"Marcy Howard <marcy@x.com>", "Marcy Howard", "marcy@x.com", true},
		"quoted name with comma":      {`"Reyes, Monica" <monica@example.com>`, "Reyes, Monica", "monica@example.com", true},
		"angle address only":          {"<bob@lee.example>", "", "bob@lee.example", true},
		"bare address":                {"bob@lee.example", "", "bob@lee.example", true},
		"mailto link":                 {"mailto:bob@lee.example", "", "bob@lee.example", true},
		"name only":                   {"Marcy Howard", "Marcy Howard", "", false},
		"entry name with button text": {"Marcy Howard <marcy@x.com> Not in the Address Book", "Marcy Howard", "marcy@x.com", true},
		"not an address":              {"see @home", "see @home", "", false},
		"empty":                       {"", "", "", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			n, a, ok := parseMailbox(tc.in)
			if n != tc.name || a != tc.addr || ok != tc.ok {
				t.Errorf("parseMailbox(%q) = %q, %q, %v; want %q, %q, %v", tc.in, n, a, ok, tc.name, tc.addr, tc.ok)
			}
		})
	}
}

func TestMailbox(t *testing.T) {
	withDesc := func(n *Node, desc string) *Node { n.Description = desc; return n }
	tests := map[string]struct {
		item       *Node
		name, addr string
	}{
		"one line, name and address": {single("", "Marcy Howard <marcy@x.com>"), "Marcy Howard", "marcy@x.com"},
		"two lines":                  {twoLine("Marcy Howard", "marcy@x.com"), "Marcy Howard", "marcy@x.com"},
		"name only, address in tooltip description": {
			node("list item", "Marcy Howard", "", withDesc(node("static", "", "Marcy Howard"), "marcy@x.com"), abButton()),
			"Marcy Howard", "marcy@x.com"},
		"name only, full mailbox as accessible name": {single("Marcy Howard <marcy@x.com>", "Marcy Howard"), "Marcy Howard", "marcy@x.com"},
		"Me with the full mailbox as its name":       {single("Dana Scully <dana@example.com>", "Me"), "Dana Scully", "dana@example.com"},
		"Me with a bare address as its name":         {single("dana@example.com", "Me"), "", "dana@example.com"},
		"localized Me":                               {single("dana@example.com", "Ich"), "", "dana@example.com"},
		"address only":                               {single("", "bob@lee.example"), "", "bob@lee.example"},
		"name only, no address anywhere":             {single("", "Marcy Howard"), "Marcy Howard", ""},
		"leaf entry, only its own name":              {node("list item", "Marcy Howard <marcy@x.com> In Address Book", ""), "Marcy Howard", "marcy@x.com"},
		"button label never a name":                  {node("list item", "", "", abButton()), "", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			n, a := mailbox(tc.item)
			if n != tc.name || a != tc.addr {
				t.Errorf("mailbox = %q, %q; want %q, %q", n, a, tc.name, tc.addr)
			}
		})
	}
}

func TestHeaderFromTree(t *testing.T) {
	sent := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	// thunderbird is the header as Thunderbird 153 shows it in the
	// reading pane: toolbar and two-line sender, To with "Me", Cc, date,
	// subject row.
	thunderbird := func(to, cc *Node) *Node {
		rows := []*Node{
			node("section", "", "", toolbar(), node("section", "", "", node("section", "", "", list("From", twoLine("Marcy Howard", "marcy@howard-law.com"))))),
			node("section", "", "", node("section", "", "", node("section", "", "To"), to), timeNode("11/23/26, 10:00", "2026-11-23T10:00:00.000Z")),
		}
		if cc != nil {
			rows = append(rows, node("section", "", "", node("section", "", "", node("section", "", "Cc"), cc)))
		}
		rows = append(rows, subjectRow("Settlement draft for Henderson"), node("section", "", ""))
		return banner(rows...)
	}
	tests := map[string]struct {
		banner   *Node
		docTitle string
		want     MessageHeader
		ok       bool
	}{
		"thunderbird reading pane": {
			banner: thunderbird(
				list("To", single("Dana Scully <dana@example.com>", "Me"), single("", "Fox Mulder <fox@example.com>")),
				list("Cc", single("", "Walter Skinner <skinner@example.com>"), single("", "Reyes, Monica <monica@example.com>"))),
			want: MessageHeader{
				SenderName: "Marcy Howard", SenderEmail: "marcy@howard-law.com",
				To:      []string{"Dana Scully <dana@example.com>", "Fox Mulder <fox@example.com>"},
				Cc:      []string{"Walter Skinner <skinner@example.com>", "Reyes, Monica <monica@example.com>"},
				Subject: "Settlement draft for Henderson", Date: "11/23/26, 10:00", Time: sent,
			},
			ok: true,
		},
		"no cc, bare recipient shown as Me": {
			banner: thunderbird(list("To", single("dana@example.com", "Me")), nil),
			want: MessageHeader{
				SenderName: "Marcy Howard", SenderEmail: "marcy@howard-law.com",
				To:      []string{"dana@example.com"},
				Subject: "Settlement draft for Henderson", Date: "11/23/26, 10:00", Time: sent,
			},
			ok: true,
		},
		"german labels": {
			banner: banner(
				list("Von", single("", "Marcy Howard <marcy@x.com>")),
				list("An", single("", "Fox Mulder <fox@example.com>")),
				list("Kopie (CC)", single("", "x@y.com")),
				list("Blindkopie (BCC)", single("", "hidden@y.com")), // not Cc
				node("section", "Betreff: Vergleich", "Vergleich")),
			want: MessageHeader{SenderName: "Marcy Howard", SenderEmail: "marcy@x.com",
				To: []string{"Fox Mulder <fox@example.com>"}, Cc: []string{"x@y.com"}, Subject: "Vergleich"},
			ok: true,
		},
		"unknown labels: first list is the sender": {
			banner: banner(list("Fra:", single("", "Marcy Howard <marcy@x.com>")), list("Til", single("", "fox@example.com"))),
			want:   MessageHeader{SenderName: "Marcy Howard", SenderEmail: "marcy@x.com", To: []string{"fox@example.com"}},
			ok:     true,
		},
		"subject from the document title": {
			banner:   banner(list("From", single("", "bob@lee.example"))),
			docTitle: "Lunch on Thursday?",
			want:     MessageHeader{SenderEmail: "bob@lee.example", Subject: "Lunch on Thursday?"},
			ok:       true,
		},
		"date without machine value": {
			banner: banner(list("From", single("", "bob@lee.example")), timeNode("Yesterday 11:30", "")),
			want:   MessageHeader{SenderEmail: "bob@lee.example", Date: "Yesterday 11:30"},
			ok:     true,
		},
		"toolbar names never a header": {
			banner: banner(toolbar(), node("section", "Subject: x", "x")),
			want:   MessageHeader{Subject: "x"},
			ok:     false,
		},
		"a page banner without lists": {
			banner:   banner(node("heading", "Welcome", "Welcome"), node("link", "Home", "Home")),
			docTitle: "Example",
			want:     MessageHeader{Subject: "Example"},
			ok:       false,
		},
		"only To and Cc: no sender": {
			banner: banner(list("To", single("", "fox@example.com")), list("Cc", single("", "x@y.com"))),
			want:   MessageHeader{To: []string{"fox@example.com"}, Cc: []string{"x@y.com"}},
			ok:     false,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, ok := HeaderFromTree(tc.banner, tc.docTitle)
			if ok != tc.ok || !sameHeader(got, tc.want) {
				t.Errorf("HeaderFromTree =\n %#v, %v\nwant\n %#v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func sameHeader(a, b MessageHeader) bool {
	return a.SenderName == b.SenderName && a.SenderEmail == b.SenderEmail &&
		slices.Equal(a.To, b.To) && slices.Equal(a.Cc, b.Cc) &&
		a.Subject == b.Subject && a.Date == b.Date && a.Time.Equal(b.Time)
}

func TestClean(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"embedded objects":  {"\uFFFC\uFFFCMe,", "Me"},
		"zero-width space":  {"\u200b", ""},
		"runs of spaces":    {"  Marcy \n Howard ", "Marcy Howard"},
		"trailing comma":    {"Fox Mulder <fox@example.com>,", "Fox Mulder <fox@example.com>"},
		"inner comma stays": {"Reyes, Monica", "Reyes, Monica"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := clean(tc.in); got != tc.want {
				t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzHeaderFromTree checks that any strings in the header's shape give a
// header with trimmed single-line fields, ok exactly when it has a
// sender, and never panic.
func FuzzHeaderFromTree(f *testing.F) {
	f.Add("Marcy Howard", "marcy@x.com", "Me", "dana@example.com", "Subject: Hi", "Hi")
	f.Add("", "<a@b.c>", "\uFFFC", "x", ":", "")
	f.Fuzz(func(t *testing.T, name, addr, shown, full, subjName, subjText string) {
		b := banner(list("From", twoLine(name, addr)), list("To", single(full, shown)), node("section", subjName, subjText))
		h, ok := HeaderFromTree(b, "")
		if ok != (h.SenderName != "" || h.SenderEmail != "") {
			t.Fatalf("ok = %v for %#v", ok, h)
		}
		for _, s := range append([]string{h.SenderName, h.SenderEmail, h.Subject}, h.To...) {
			if strings.ContainsAny(s, "\uFFFC\n\t") || s != strings.TrimSpace(s) {
				t.Fatalf("field %q not clean in %#v", s, h)
			}
		}
	})
}
