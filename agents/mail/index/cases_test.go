package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"mime"
	netmail "net/mail"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/mail/mbox"
)

// casesDir holds the labelled glance cases (see its README).
const casesDir = "/work/shared/cases/glance"

type glanceCase struct {
	ID string `json:"id"`
	Me struct {
		Name      string   `json:"name"`
		Addresses []string `json:"addresses"`
	} `json:"me"`
	App        string `json:"app"`
	Title      string `json:"title"`
	ScreenText string `json:"screen_text"`
	Expect     struct {
		Surface   bool   `json:"surface"`
		MessageID string `json:"message_id"`
		Reason    string `json:"reason"`
	} `json:"expect"`
}

// TestGlanceCaseMailboxes imports every case's mailbox and checks the
// threads against what the headers imply, computed here independently
// (net/mail and a union-find), and that the tools find the thread the
// case is about from what the window shows.
func TestGlanceCaseMailboxes(t *testing.T) {
	des, err := os.ReadDir(casesDir)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no glance cases at %s", casesDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, de := range des {
		dir := filepath.Join(casesDir, de.Name())
		if !de.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "mailbox.mbox")); err != nil {
			continue
		}
		ran++
		t.Run(de.Name(), func(t *testing.T) { checkCase(t, dir) })
	}
	if ran == 0 {
		t.Skipf("no case folders with a mailbox under %s", casesDir)
	}
}

func checkCase(t *testing.T, dir string) {
	ctx := t.Context()
	var c glanceCase
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mailbox.mbox")
	want := refParse(t, path)

	x := newTestIndex(t)
	acc, err := x.AddAccount(ctx, Account{Kind: KindMbox, Name: c.ID, Address: c.Me.Addresses[0], Aliases: c.Me.Addresses[1:]})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMbox(path, mbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := x.Sync(ctx, acc.ID, conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sk := conn.Skipped(); len(sk) > 0 {
		t.Errorf("skipped %v", sk)
	}
	if n != len(want) {
		t.Fatalf("imported %d messages, the file has %d", n, len(want))
	}

	// Threads as the headers imply them: messages sharing any id of
	// their chain (own Message-ID, In-Reply-To, References) are one
	// thread.
	uf := newUnionFind()
	first := map[string]int64{}
	for i, m := range want {
		uf.add(int64(i))
		for _, id := range append([]string{m.messageID, m.inReplyTo}, m.references...) {
			if id == "" {
				continue
			}
			if j, ok := first[id]; ok {
				uf.union(int64(i), j)
			} else {
				first[id] = int64(i)
			}
		}
	}
	components := map[int64]bool{}
	for i := range want {
		components[uf.find(int64(i))] = true
	}
	threadOf := map[string]int64{}
	rows, err := x.st.Reader().QueryContext(ctx, `SELECT message_id, thread_id FROM mail_messages WHERE account_id = ?`, acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var mid string
		var tid int64
		if err := rows.Scan(&mid, &tid); err != nil {
			t.Fatal(err)
		}
		threadOf[mid] = tid
	}
	rows.Close()
	for i, m := range want {
		if m.messageID == "" {
			t.Fatalf("case message %d has no Message-ID; the check below needs one", i)
		}
		for j, o := range want {
			same := uf.find(int64(i)) == uf.find(int64(j))
			if got := threadOf[m.messageID] == threadOf[o.messageID]; got != same {
				t.Errorf("%s and %s: same thread %v, headers say %v", m.messageID, o.messageID, got, same)
			}
		}
		// Spelled out: a reply lands in its parent's thread.
		for _, p := range append([]string{m.inReplyTo}, m.references...) {
			if tid, ok := threadOf[p]; ok && p != "" && tid != threadOf[m.messageID] {
				t.Errorf("%s is not in the thread of its parent %s", m.messageID, p)
			}
		}
	}
	st, err := x.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Threads != len(components) || st.Messages != len(want) {
		t.Errorf("stats %+v: want %d threads, %d messages", st, len(components), len(want))
	}

	subject := windowSubject(c)
	if subject != "" {
		t.Logf("window subject %q: %s", subject, hitSubjects(search(t, x, SearchQuery{Subject: subject})))
	}
	switch {
	case c.Expect.Surface:
		if subject == "" {
			t.Fatalf("no subject in title %q or on screen", c.Title)
		}
		var sender string
		for _, m := range want {
			if m.messageID == c.Expect.MessageID {
				sender = m.fromName
			}
		}
		if sender == "" {
			t.Fatalf("expected message %s is not in the mailbox", c.Expect.MessageID)
		}
		expectTop(t, x, SearchQuery{Subject: subject}, c.Expect.MessageID)
		expectTop(t, x, SearchQuery{Subject: subject, Sender: sender}, c.Expect.MessageID)
		hits, err := x.SearchEmail(ctx, SearchQuery{Sender: sender, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(hits, func(h ThreadHit) bool { return h.Latest.MessageID == c.Expect.MessageID }) {
			t.Errorf("sender %q: the thread is not among %d hits", sender, len(hits))
		}
		if c.Expect.Reason == "needs_reply" && hits[0].LatestFromMe {
			t.Errorf("needs a reply, yet the latest message is from the user")
		}
	case subject != "" && c.Expect.Reason == "no_match":
		if hits := search(t, x, SearchQuery{Subject: subject}); len(hits) != 0 {
			t.Errorf("subject %q: want no thread, got %s", subject, hitSubjects(hits))
		}
	case subject != "" && c.Expect.Reason == "ambiguous":
		if hits := search(t, x, SearchQuery{Subject: subject}); len(hits) < 2 {
			t.Errorf("subject %q: want several threads, got %s", subject, hitSubjects(hits))
		}
	case subject != "" && c.Expect.Reason == "already_replied":
		hits := search(t, x, SearchQuery{Subject: subject})
		if len(hits) != 1 || !hits[0].LatestFromMe {
			t.Errorf("subject %q: want one thread whose latest message is the user's, got %+v", subject, hits)
		}
	case subject != "" && c.Expect.Reason == "newsletter":
		hits := search(t, x, SearchQuery{Subject: subject})
		if len(hits) != 1 || !hits[0].Latest.Bulk {
			t.Errorf("subject %q: want one bulk thread, got %+v", subject, hits)
		}
	case subject != "" && c.Expect.Reason == "fyi":
		if hits := search(t, x, SearchQuery{Subject: subject}); len(hits) != 1 || hits[0].LatestFromMe {
			t.Errorf("subject %q: want one thread with the latest from the correspondent, got %+v", subject, hits)
		}
	}
}

func expectTop(t *testing.T, x *Index, q SearchQuery, messageID string) {
	t.Helper()
	hits := search(t, x, q)
	if len(hits) == 0 || hits[0].Latest.MessageID != messageID {
		t.Errorf("%+v: want the thread of %s first, got %s", q, messageID, hitSubjects(hits))
	}
}

func hitSubjects(hits []ThreadHit) string {
	var s []string
	for _, h := range hits {
		s = append(s, h.Subject+" ("+h.Latest.MessageID+", "+h.Match+")")
	}
	return "[" + strings.Join(s, "; ") + "]"
}

// Client suffixes of window titles, and the title of a folder view
// (which names no message).
var (
	titleSuffixes = []string{" - Message (HTML)", " - Message (Plain Text)", " - Message (Rich Text)",
		" - Mozilla Thunderbird", " - Google Chrome", " - Microsoft Edge", " - Outlook", " - Gmail"}
	browserSuffixes = []string{" - Google Chrome", " - Microsoft Edge"}
	viewTitleRe     = regexp.MustCompile(`^(?:Inbox|Mail|Sent Items|Drafts)(?: - |$)`)
)

// windowSubject is the subject as the window shows it: the title without
// the client's suffix, the account and the mail service's name; for a
// folder view, the line above the sender on screen.
func windowSubject(c glanceCase) string {
	t := c.Title
	mailish := false // a browser's title names mail only with an address or a mail service
	for {
		before := t
		for _, s := range titleSuffixes {
			if strings.HasSuffix(t, s) {
				t = strings.TrimSuffix(t, s)
				mailish = mailish || !slices.Contains(browserSuffixes, s)
			}
		}
		if i := strings.LastIndex(t, " - "); i >= 0 {
			if seg := t[i+3:]; strings.Contains(seg, "@") || strings.HasSuffix(seg, " Mail") {
				t, mailish = t[:i], true
			}
		}
		if t == before {
			break
		}
	}
	if !mailish {
		return ""
	}
	if !viewTitleRe.MatchString(t) {
		return t
	}
	lines := strings.Split(c.ScreenText, "\n")
	for i, l := range lines {
		if i > 0 && regexp.MustCompile(`<[^<>\s]+@[^<>\s]+>`).MatchString(l) {
			return strings.TrimSpace(lines[i-1])
		}
	}
	return ""
}

type refMsg struct {
	messageID, inReplyTo string
	references           []string
	fromName, subject    string
}

// refParse reads an mbox file with the standard library only, for the
// expectations: split at "From " lines after an empty line, ">From "
// unescaped.
func refParse(t *testing.T, path string) []refMsg {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var chunks [][]byte
	prevBlank := true
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		switch {
		case prevBlank && bytes.HasPrefix(l, []byte("From ")):
			chunks = append(chunks, nil)
		case len(chunks) == 0:
		case regexp.MustCompile(`^>+From `).Match(l):
			chunks[len(chunks)-1] = append(chunks[len(chunks)-1], l[1:]...)
		default:
			chunks[len(chunks)-1] = append(chunks[len(chunks)-1], l...)
		}
		prevBlank = len(bytes.TrimSpace(l)) == 0
	}
	var dec mime.WordDecoder
	var out []refMsg
	for i, c := range chunks {
		m, err := netmail.ReadMessage(bytes.NewReader(c))
		if err != nil {
			t.Fatalf("%s message %d: %v", path, i, err)
		}
		r := refMsg{
			messageID:  strings.TrimSpace(m.Header.Get("Message-Id")),
			inReplyTo:  strings.TrimSpace(m.Header.Get("In-Reply-To")),
			references: strings.Fields(m.Header.Get("References")),
		}
		if r.subject, err = dec.DecodeHeader(m.Header.Get("Subject")); err != nil {
			t.Fatal(err)
		}
		if a, err := netmail.ParseAddress(m.Header.Get("From")); err == nil {
			r.fromName = a.Name
		}
		out = append(out, r)
	}
	return out
}
