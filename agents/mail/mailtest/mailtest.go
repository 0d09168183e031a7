// Package mailtest reads the mail test corpus for the connectors' tests:
// splitting mbox files into messages, and parsing each message
// independently of package mail's parser, as the truth the tests compare
// a connector's output against.
package mailtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/emersion/go-message/charset"
	gomail "github.com/emersion/go-message/mail"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
)

// CorpusDir holds the glance cases; each has a mailbox.mbox and a
// case.json naming the lawyer's addresses.
const CorpusDir = "/work/shared/cases/glance"

// Message is one message of a case mailbox, parsed with go-message
// directly rather than with the code under test.
type Message struct {
	Raw        []byte // "\n" line ends, as in the mbox
	Header     gomail.Header
	MessageID  string // in angle brackets
	InReplyTo  string
	References []string
	Subject    string
	From       mail.Address
	To, Cc     []mail.Address
	Date       time.Time
	Body       string // the first text/plain part, as sent
	Sent       bool   // from the lawyer: lives in Sent Items
}

// ThreadRoot is the first message id of m's thread, which the fakes turn
// into a conversation id.
func (m Message) ThreadRoot() string {
	switch {
	case len(m.References) > 0:
		return m.References[0]
	case m.InReplyTo != "":
		return m.InReplyTo
	}
	return m.MessageID
}

// Case is one case's mailbox.
type Case struct {
	Name     string
	Messages []Message
}

// LoadCorpus reads every case mailbox under CorpusDir, skipping the test
// when there are none.
func LoadCorpus(t testing.TB) []Case {
	t.Helper()
	dirs, err := os.ReadDir(CorpusDir)
	if err != nil {
		t.Skipf("no mail corpus: %v", err)
	}
	var cases []Case
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(CorpusDir, d.Name(), "mailbox.mbox"))
		if err != nil {
			continue
		}
		me := map[string]bool{}
		if cj, err := os.ReadFile(filepath.Join(CorpusDir, d.Name(), "case.json")); err == nil {
			var c struct {
				Me struct {
					Addresses []string `json:"addresses"`
				} `json:"me"`
			}
			if err := json.Unmarshal(cj, &c); err != nil {
				t.Fatalf("%s: %v", d.Name(), err)
			}
			for _, a := range c.Me.Addresses {
				me[strings.ToLower(a)] = true
			}
		}
		c := Case{Name: d.Name()}
		for _, raw := range SplitMbox(data) {
			m := ParseMessage(t, raw)
			m.Sent = me[strings.ToLower(m.From.Email)]
			c.Messages = append(c.Messages, m)
		}
		if len(c.Messages) > 0 {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		t.Skip("no mailboxes in the corpus")
	}
	return cases
}

// reSeparator matches an mbox "From " line: "From sender Thu Jun 11 …".
var reSeparator = regexp.MustCompile(`^From \S+ +(Mon|Tue|Wed|Thu|Fri|Sat|Sun) `)

// SplitMbox splits an mbox file: a separator line after a blank line (or
// at the top) starts a message; ">From " lines lose one ">" (mboxrd and
// mboxo alike). Messages keep "\n" line ends (see CRLF).
func SplitMbox(data []byte) [][]byte {
	var msgs [][]byte
	var cur *bytes.Buffer
	prevBlank := true
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	flush := func() {
		if cur != nil {
			// The blank line before the next "From " separates messages.
			b := cur.Bytes()
			if bytes.HasSuffix(b, []byte("\n\n")) {
				b = b[:len(b)-1]
			}
			msgs = append(msgs, b)
		}
	}
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if prevBlank && reSeparator.MatchString(line) {
			flush()
			cur = &bytes.Buffer{}
			prevBlank = false
			continue
		}
		if cur == nil {
			continue
		}
		if t := strings.TrimLeft(line, ">"); len(t) < len(line) && strings.HasPrefix(t, "From ") {
			line = line[1:]
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		prevBlank = line == ""
	}
	flush()
	return msgs
}

// CRLF converts "\n" line ends to "\r\n", as IMAP stores messages.
func CRLF(b []byte) []byte {
	return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
}

// ParseMessage parses one corpus message with go-message, failing the
// test when it cannot.
func ParseMessage(t testing.TB, raw []byte) Message {
	t.Helper()
	r, err := gomail.CreateReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("corpus message: %v\n%s", err, raw[:min(len(raw), 300)])
	}
	m := Message{Raw: raw, Header: r.Header}
	if id, _ := r.Header.MessageID(); id != "" {
		m.MessageID = "<" + id + ">"
	}
	if ids, _ := r.Header.MsgIDList("In-Reply-To"); len(ids) > 0 {
		m.InReplyTo = "<" + ids[0] + ">"
	}
	refs, _ := r.Header.MsgIDList("References")
	for _, id := range refs {
		m.References = append(m.References, "<"+id+">")
	}
	m.Subject, _ = r.Header.Subject()
	m.Date, _ = r.Header.Date()
	from, _ := r.Header.AddressList("From")
	if len(from) > 0 {
		m.From = mail.Address{Name: from[0].Name, Email: from[0].Address}
	}
	m.To = addresses(r.Header, "To")
	m.Cc = addresses(r.Header, "Cc")
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("corpus message %s: %v", m.MessageID, err)
		}
		if h, ok := p.Header.(*gomail.InlineHeader); ok {
			if ct, _, _ := h.ContentType(); ct == "text/plain" && m.Body == "" {
				b, _ := io.ReadAll(p.Body)
				m.Body = string(b)
			}
		}
	}
	return m
}

func addresses(h gomail.Header, key string) []mail.Address {
	list, _ := h.AddressList(key)
	var out []mail.Address
	for _, a := range list {
		out = append(out, mail.Address{Name: a.Name, Email: a.Address})
	}
	return out
}

// Sync runs one Sync of conn from cursor and returns the delivered
// messages by RemoteID and the next cursor; a message delivered twice or a
// failed sync fails t.
func Sync(t testing.TB, conn mail.Connector, cursor string) (map[string]mail.Message, string) {
	t.Helper()
	got := map[string]mail.Message{}
	next, err := conn.Sync(t.Context(), cursor, func(m mail.Message) error {
		if _, dup := got[m.RemoteID]; dup {
			t.Errorf("message %s delivered twice", m.RemoteID)
		}
		got[m.RemoteID] = m
		return nil
	})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return got, next
}

// SyncIndex runs one sync of conn into a new index, as Spirit does, and
// returns what it did and the RemoteIDs the index then holds; a failed
// sync fails t.
func SyncIndex(t testing.TB, conn mail.Connector) (index.SyncResult, []string) {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix := index.New(st)
	acct, err := ix.AddAccount(t.Context(), index.Account{Kind: index.KindIMAP, Name: "test", Address: "me@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.SyncAccount(t.Context(), acct.ID, conn, nil)
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	ids, err := ix.RemoteIDs(t.Context(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	return res, slices.Sorted(maps.Keys(ids))
}

// MixedCase returns a corpus case with both received and sent mail and
// more than eight messages, or the first case if none has them.
func MixedCase(t testing.TB) Case {
	t.Helper()
	cases := LoadCorpus(t)
	for _, c := range cases {
		if slices.ContainsFunc(c.Messages, func(m Message) bool { return m.Sent }) && len(c.Messages) > 8 {
			return c
		}
	}
	return cases[0]
}
