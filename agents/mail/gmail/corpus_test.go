package gmail_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
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
)

// corpusDir holds the glance cases; each has a mailbox.mbox and a
// case.json naming the lawyer's addresses.
const corpusDir = "/work/shared/cases/glance"

// corpusMessage is one message of a case mailbox, parsed independently of
// the connector: the truth the tests compare against.
type corpusMessage struct {
	Raw        []byte
	Header     gomail.Header
	MessageID  string // in angle brackets
	InReplyTo  string
	References []string
	Subject    string
	From       mail.Address
	To, Cc     []mail.Address
	Date       time.Time
	Body       string
	Sent       bool // from the lawyer: lives in Sent Items
}

// corpusCase is one case's mailbox.
type corpusCase struct {
	Name     string
	Messages []corpusMessage
}

// loadCorpus reads every case mailbox, skipping the test when there are
// none.
func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	dirs, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Skipf("no mail corpus: %v", err)
	}
	var cases []corpusCase
	for _, d := range dirs {
		mbox := filepath.Join(corpusDir, d.Name(), "mailbox.mbox")
		data, err := os.ReadFile(mbox)
		if err != nil {
			continue
		}
		me := map[string]bool{}
		if cj, err := os.ReadFile(filepath.Join(corpusDir, d.Name(), "case.json")); err == nil {
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
		cc := corpusCase{Name: d.Name()}
		for _, raw := range splitMbox(data) {
			m := parseCorpusMessage(t, raw)
			m.Sent = me[strings.ToLower(m.From.Email)]
			cc.Messages = append(cc.Messages, m)
		}
		if len(cc.Messages) > 0 {
			cases = append(cases, cc)
		}
	}
	if len(cases) == 0 {
		t.Skip("no mailboxes in the corpus")
	}
	return cases
}

// reSeparator matches an mbox "From " line: "From sender Thu Jun 11 …".
var reSeparator = regexp.MustCompile(`^From \S+ +(Mon|Tue|Wed|Thu|Fri|Sat|Sun) `)

// splitMbox splits an mbox file: a separator line after a blank line (or
// at the top) starts a message; ">From " lines lose one ">" (mboxrd and
// mboxo alike).
func splitMbox(data []byte) [][]byte {
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
		line := sc.Text()
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

func parseCorpusMessage(t *testing.T, raw []byte) corpusMessage {
	t.Helper()
	r, err := gomail.CreateReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("corpus message: %v\n%s", err, raw[:min(len(raw), 300)])
	}
	m := corpusMessage{Raw: raw, Header: r.Header}
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
	m.To = corpusAddresses(r.Header, "To")
	m.Cc = corpusAddresses(r.Header, "Cc")
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

func corpusAddresses(h gomail.Header, key string) []mail.Address {
	list, _ := h.AddressList(key)
	var out []mail.Address
	for _, a := range list {
		out = append(out, mail.Address{Name: a.Name, Email: a.Address})
	}
	return out
}

// threadRoot is the first message id of m's thread, which the fakes turn
// into a conversation id.
func (m corpusMessage) threadRoot() string {
	switch {
	case len(m.References) > 0:
		return m.References[0]
	case m.InReplyTo != "":
		return m.InReplyTo
	}
	return m.MessageID
}

func TestSplitMbox(t *testing.T) {
	data := []byte("From a@b Thu Jun 11 14:30:30 2026\nSubject: one\n\nFrom here on\n>From escaped\n\nFrom c@d Fri Jun 12 10:00:00 2026\nSubject: two\n\nbody\n")
	got := splitMbox(data)
	want := []string{"Subject: one\n\nFrom here on\nFrom escaped\n", "Subject: two\n\nbody\n"}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, string(g))
	}
	if !slices.Equal(gotS, want) {
		t.Errorf("splitMbox = %q, want %q", gotS, want)
	}
}
