package mbox

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
)

// collect runs a sync and returns what it delivered.
func collect(t *testing.T, c mail.Connector, cursor string) ([]mail.Message, string) {
	t.Helper()
	var got []mail.Message
	next, err := c.Sync(t.Context(), cursor, func(m mail.Message) error {
		got = append(got, m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, next
}

func subjects(ms []mail.Message) []string {
	var out []string
	for _, m := range ms {
		if m.Deleted {
			out = append(out, "deleted "+m.RemoteID)
		} else {
			out = append(out, m.Subject)
		}
	}
	return out
}

func plainMessage(id, subject, body string) string {
	return "Message-ID: <" + id + "@test>\nDate: Thu, 11 Jun 2026 10:30:30 -0400\nFrom: Grant Ellison <gellison@ellisonmarsh.com>\n" +
		"To: Dana Whitfield <dana@firm.com>\nSubject: " + subject + "\n\n" + body
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// touch moves a file's modification time so a rewrite within the same
// clock tick still counts as a change.
func touch(t *testing.T, path string, d time.Duration) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime().Add(d), st.ModTime().Add(d)); err != nil {
		t.Fatal(err)
	}
}

func TestScanMboxrd(t *testing.T) {
	data := "From a@x Thu Jun 11 14:30:30 2026\n" + plainMessage("1", "One",
		">From our perspective the certificate cannot be signed.\n>>From here on, quoted.\nFrom the top, unescaped mid-paragraph.\n\n") +
		"From b@x Fri Jun 12 14:15:05 2026\n" + plainMessage("2", "Two", "Body two.\n") + // no empty line before the next separator
		"From c@x Fri Jun 12 15:20:08 2026\n" + plainMessage("3", "Three", "Body three.\n")
	var got []rawMessage
	if err := scanMbox(strings.NewReader(data), func(r rawMessage) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d messages", len(got))
	}
	body := string(got[0].data)
	if !strings.HasSuffix(body, "\nFrom our perspective the certificate cannot be signed.\n>From here on, quoted.\nFrom the top, unescaped mid-paragraph.\n") {
		t.Fatalf("unescaping: %q", body)
	}
	if got[1].offset != int64(strings.Index(data, "From b@x")) || !got[2].complete {
		t.Fatalf("offsets or completeness: %+v", got[1:])
	}
	if want := time.Date(2026, 6, 12, 14, 15, 5, 0, time.UTC); !got[1].fromDate.Equal(want) {
		t.Fatalf("From line date %v", got[1].fromDate)
	}
	if err := scanMbox(strings.NewReader("Subject: not an mbox\n\n"), func(rawMessage) error { return nil }); err == nil {
		t.Fatal("a file without a From line was read as mbox")
	}
}

func TestParseMessage(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		check     func(t *testing.T, m mail.Message)
	}{
		{"encoded words and quoted-printable", "Message-ID: <a@x>\nDate: Fri, 12 Jun 2026 12:40:19 -0400\n" +
			"From: =?utf-8?q?Dana_Whitfield?= <Dana.Whitfield@HartleyRoss.com>\n" +
			"To: Marcy Howard <mhoward@greenleafmarkets.com>, \"Ortega, Luis\" <lortega@x.com>\n" +
			"Subject: =?utf-8?b?UkU6IEJyb29rbHluIEdhcmRlbnMg4oCTIHJlbnQgY29tbWVuY2Vt?=\n =?utf-8?b?ZW50IGRhdGU=?=\n" +
			"In-Reply-To: <p@x> (message from Marcy)\nReferences: <r@x>\n <p@x>\n" +
			"List-Id: Firm news <news.x>\nX-Other: dropped\n" +
			"MIME-Version: 1.0\nContent-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: quoted-printable\n\n" +
			"Sent: Friday, June 12, 2026 10:15 AM=20\nSubject: Brooklyn Gardens =E2=80=93 rent\n",
			func(t *testing.T, m mail.Message) {
				if m.Subject != "RE: Brooklyn Gardens – rent commencement date" {
					t.Errorf("subject %q", m.Subject)
				}
				if m.From != (mail.Address{Name: "Dana Whitfield", Email: "dana.whitfield@hartleyross.com"}) {
					t.Errorf("from %+v", m.From)
				}
				if len(m.To) != 2 || m.To[1].Name != "Ortega, Luis" {
					t.Errorf("to %+v", m.To)
				}
				if m.MessageID != "<a@x>" || m.InReplyTo != "<p@x>" || !slices.Equal(m.References, []string{"<r@x>", "<p@x>"}) {
					t.Errorf("ids %q %q %q", m.MessageID, m.InReplyTo, m.References)
				}
				if m.Body != "Sent: Friday, June 12, 2026 10:15 AM \nSubject: Brooklyn Gardens – rent\n" {
					t.Errorf("body %q", m.Body)
				}
				if len(m.Headers) != 1 || m.Headers["list-id"] != "Firm news <news.x>" {
					t.Errorf("headers %v", m.Headers)
				}
				if want := time.Date(2026, 6, 12, 16, 40, 19, 0, time.UTC); !m.Date.Equal(want) {
					t.Errorf("date %v", m.Date)
				}
			}},
		{"latin-1 body, multipart alternative, attachment", "Message-ID: <b@x>\nFrom: a@x.com\nSubject: =?iso-8859-1?q?R=E9sum=E9?=\n" +
			"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"outer\"\n\n" +
			"--outer\nContent-Type: multipart/alternative; boundary=\"inner\"\n\n" +
			"--inner\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nCaf=E9 cr=E8me\n" +
			"--inner\nContent-Type: text/html; charset=utf-8\n\n<p>HTML version</p>\n--inner--\n" +
			"--outer\nContent-Type: text/plain\nContent-Disposition: attachment; filename=notes.txt\n\nattached notes\n--outer--\n",
			func(t *testing.T, m mail.Message) {
				if m.Subject != "Résumé" || m.Body != "Café crème\n" {
					t.Errorf("subject %q body %q", m.Subject, m.Body)
				}
				if !m.Date.Equal(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("fallback date %v", m.Date)
				}
			}},
		{"html only", "Message-ID: <c@x>\nFrom: a@x.com\nSubject: News\nContent-Type: text/html; charset=utf-8\n\n" +
			"<html><head><style>p{}</style></head><body><p>Hello&nbsp;<b>Dana</b>,</p><ul><li>one</li><li>two</li></ul>" +
			"<blockquote>earlier<br>text</blockquote><script>x()</script></body></html>",
			func(t *testing.T, m mail.Message) {
				if want := "Hello Dana,\n\n- one\n- two\n> earlier\n> text\n"; m.Body != want {
					t.Errorf("body %q, want %q", m.Body, want)
				}
			}},
		{"unknown charset still read", "Message-ID: <d@x>\nFrom: a@x.com\nSubject: x\nContent-Type: text/plain; charset=x-unknown\n\nplain ascii\n",
			func(t *testing.T, m mail.Message) {
				if m.Body != "plain ascii\n" {
					t.Errorf("body %q", m.Body)
				}
			}},
		{"lenient addresses", "Message-ID: <e@x>\nFrom: Baptiste, Ray <rbaptiste@title.com>\nTo: a@x.com; b@y.com\nSubject: x\n\nbody\n",
			func(t *testing.T, m mail.Message) {
				if m.From.Email != "rbaptiste@title.com" || len(m.To) != 2 || m.To[1].Email != "b@y.com" {
					t.Errorf("from %+v to %+v", m.From, m.To)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseMessage(strings.NewReader(tc.raw), time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, m)
		})
	}
}

func TestCorruptMessagesSkipped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Inbox")
	data := "From a Thu Jun 11 14:30:30 2026\n" + plainMessage("1", "Good one", "Fine.\n") + "\n" +
		"From b Thu Jun 11 14:31:30 2026\nthis is not a header line\nSubject: broken\n\nbody\n\n" +
		"From c Thu Jun 11 14:32:30 2026\nX-Garbage: \x00\x01\x02\n\nbinary junk\n\n" +
		"From d Thu Jun 11 14:33:30 2026\n" + plainMessage("4", "Good two", "Also fine.\n") + "\n" +
		"From e Thu Jun 11 14:34:30 2026\nMessage-ID: <5@test>\nSubject: half wri" // a client still writing
	writeFile(t, path, data)
	var logs bytes.Buffer
	c, err := OpenMbox(path, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := collect(t, c, "")
	if s := subjects(got); !slices.Equal(s, []string{"Good one", "Good two"}) {
		t.Fatalf("delivered %q", s)
	}
	sk := c.Skipped()
	if len(sk) != 3 {
		t.Fatalf("skipped %+v", sk)
	}
	for i, want := range []string{"malformed", "no mail headers", "incomplete"} {
		if !strings.Contains(sk[i].Reason, want) {
			t.Errorf("skip %d: %+v, want %q", i, sk[i], want)
		}
		if !strings.Contains(logs.String(), sk[i].Where) {
			t.Errorf("skip at %s not logged: %s", sk[i].Where, logs.String())
		}
	}
	t.Log(logs.String())
	// Once the write completes, the message arrives.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("tten\nFrom: a@x.com\n\nNow whole.\n")
	f.Close()
	known := map[string]string{}
	for _, m := range got {
		known[m.RemoteID] = m.Folder
	}
	c.SetKnown(func(context.Context) (map[string]string, error) { return known, nil })
	got, _ = collect(t, c, "")
	if s := subjects(got); !slices.Equal(s, []string{"half written"}) {
		t.Fatalf("after the write completed: %q", s)
	}
}

func TestMboxSyncCursorAndTombstones(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Inbox")
	msgs := []string{
		"From a Thu Jun 11 14:30:30 2026\n" + plainMessage("1", "One", "1\n") + "\n",
		"From a Thu Jun 11 14:30:30 2026\n" + plainMessage("2", "Two", "2\n") + "\n",
		"From a Thu Jun 11 14:30:30 2026\n" + strings.Replace(plainMessage("x", "No id", "3\n"), "Message-ID: <x@test>\n", "", 1) + "\n",
	}
	writeFile(t, path, strings.Join(msgs, ""))
	c, err := OpenMbox(path, Options{Folder: "Inbox"})
	if err != nil {
		t.Fatal(err)
	}
	// The index's view of what it holds.
	var mu sync.Mutex
	known := map[string]string{}
	c.SetKnown(func(context.Context) (map[string]string, error) {
		mu.Lock()
		defer mu.Unlock()
		return maps(known), nil
	})
	index := func(ms []mail.Message) {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range ms {
			if m.Deleted {
				delete(known, m.RemoteID)
			} else {
				known[m.RemoteID] = m.Folder
			}
		}
	}
	got, cur := collect(t, c, "")
	if len(got) != 3 || got[0].Folder != "Inbox" || !strings.HasPrefix(got[0].RemoteID, "Inbox/") {
		t.Fatalf("first sync %+v", got)
	}
	ids := []string{got[0].RemoteID, got[1].RemoteID, got[2].RemoteID}
	index(got)
	// Unchanged file: not even read.
	if got, cur2 := collect(t, c, cur); len(got) != 0 || cur2 != cur {
		t.Fatalf("unchanged: %d messages, cursor %q → %q", len(got), cur, cur2)
	}
	// Appended: only the new message.
	writeFile(t, path, strings.Join(msgs, "")+"From a Thu Jun 11 14:30:30 2026\n"+plainMessage("4", "Four", "4\n"))
	got, cur = collect(t, c, cur)
	if s := subjects(got); !slices.Equal(s, []string{"Four"}) {
		t.Fatalf("appended: %q", s)
	}
	index(got)
	// Compacted: message 1 removed; the others keep their ids although
	// their offsets moved.
	writeFile(t, path, msgs[1]+msgs[2]+"From a Thu Jun 11 14:30:30 2026\n"+plainMessage("4", "Four", "4\n"))
	touch(t, path, time.Second)
	got, cur = collect(t, c, cur)
	if s := subjects(got); !slices.Equal(s, []string{"deleted " + ids[0]}) {
		t.Fatalf("compacted: %q", s)
	}
	index(got)
	// A cleared cursor re-reads, but known messages are not re-sent.
	if got, _ := collect(t, c, ""); len(got) != 0 {
		t.Fatalf("re-read: %q", subjects(got))
	}
	// Without Known, a changed file delivers everything (the index's
	// upsert makes that harmless).
	c2, _ := OpenMbox(path, Options{Folder: "Inbox"})
	if got, _ := collect(t, c2, ""); len(got) != 3 || got[1].RemoteID != ids[2] {
		t.Fatalf("without Known: %+v", got)
	}
	// The file is gone: all its messages go.
	os.Remove(path)
	if c3, err := OpenMbox(dir, Options{}); err != nil {
		t.Fatal(err)
	} else {
		c3.SetKnown(func(context.Context) (map[string]string, error) { return maps(known), nil })
		got, _ = collect(t, c3, cur)
		if len(got) != 3 || !got[0].Deleted || !got[2].Deleted {
			t.Fatalf("file removed: %q", subjects(got))
		}
	}
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestMboxDirectoryAndDraft(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "Inbox"), "From a Thu Jun 11 14:30:30 2026\n"+plainMessage("1", "Estoppel", "In.\n"))
	writeFile(t, filepath.Join(dir, "Sent"), "From a Thu Jun 11 14:30:30 2026\n"+plainMessage("2", "RE: Estoppel", "Out.\n"))
	writeFile(t, filepath.Join(dir, "Archives.sbd", "2025"), "From a Thu Jun 11 14:30:30 2026\n"+plainMessage("3", "Old", "Old.\n"))
	writeFile(t, filepath.Join(dir, "Inbox.msf"), "// Thunderbird's summary file, not mail")
	writeFile(t, filepath.Join(dir, "Trash"), "From a Thu Jun 11 14:30:30 2026\n"+plainMessage("9", "Thrown away", "x\n"))
	writeFile(t, filepath.Join(dir, "Drafts"), "")
	now := time.Date(2026, 6, 18, 15, 0, 0, 0, time.UTC)
	c, err := OpenMbox(dir, Options{From: mail.Address{Name: "Dana Whitfield", Email: "dana@firm.com"}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	got, cur := collect(t, c, "")
	var folders []string
	for _, m := range got {
		folders = append(folders, m.Folder)
	}
	slices.Sort(folders)
	if !slices.Equal(folders, []string{"Archives/2025", "Inbox", "Sent"}) {
		t.Fatalf("folders %q", folders)
	}
	ref, err := c.CreateDraft(t.Context(), mail.Draft{
		To: []mail.Address{{Name: "Grant Ellison", Email: "gellison@ellisonmarsh.com"}}, Subject: "RE: Estoppel – paragraph 7",
		Body: "Grant,\nFrom our side, agreed.\n", InReplyTo: "<1@test>", References: []string{"<1@test>"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = collect(t, c, cur)
	if len(got) != 1 {
		t.Fatalf("after the draft: %q", subjects(got))
	}
	d := got[0]
	if d.RemoteID != ref.RemoteID || d.MessageID != ref.MessageID || d.Folder != "Drafts" || !d.Draft ||
		d.Subject != "RE: Estoppel – paragraph 7" || d.InReplyTo != "<1@test>" || !slices.Equal(d.References, []string{"<1@test>"}) ||
		d.Body != "Grant,\nFrom our side, agreed.\n" || d.From.Email != "dana@firm.com" || !d.Date.Equal(now) {
		t.Fatalf("draft read back %+v (ref %+v)", d, ref)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "Drafts"))
	if !bytes.Contains(raw, []byte("\n>From our side")) || bytes.Contains(raw, []byte("\r")) {
		t.Fatalf("draft not mboxrd-escaped or has CRs:\n%s", raw)
	}

	// A single file's drafts go next to it.
	single := filepath.Join(t.TempDir(), "mailbox.mbox")
	writeFile(t, single, "From a Thu Jun 11 14:30:30 2026\n"+plainMessage("1", "Estoppel", "In.\n"))
	c2, _ := OpenMbox(single, Options{From: mail.Address{Email: "dana@firm.com"}})
	if _, err := c2.CreateDraft(t.Context(), mail.Draft{Subject: "x", Body: "y"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := collect(t, c2, ""); len(got) != 2 || got[1].Folder != "Drafts" {
		t.Fatalf("single file with drafts: %+v", got)
	}
	c3, _ := OpenMbox(single, Options{})
	if _, err := c3.CreateDraft(t.Context(), mail.Draft{Subject: "x"}); err == nil {
		t.Fatal("a draft without the user's address")
	}
}

func TestMaildirRoundTrip(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"cur", "new", "tmp", ".Sent/cur", ".Sent/new", ".Sent/tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(root, "new", "1718000000.M1P1.host"), plainMessage("1", "Lease", "New mail.\n"))
	writeFile(t, filepath.Join(root, "cur", "1718000001.M2P1.host:2,S"), plainMessage("2", "Estoppel", "Read mail.\n"))
	writeFile(t, filepath.Join(root, "cur", "1718000002.M3P1.host:2,ST"), plainMessage("3", "Trashed", "Gone.\n"))
	writeFile(t, filepath.Join(root, "cur", "1718000003.M4P1.host:2,"), "garbage without headers\x00\n\nbody\n")
	writeFile(t, filepath.Join(root, ".Sent", "cur", "1718000004.M5P1.host:2,S"), plainMessage("4", "RE: Estoppel", "Sent.\n"))
	writeFile(t, filepath.Join(root, ".Junk", "cur", "1718000005.M6P1.host:2,"), plainMessage("5", "You won", "Spam.\n"))

	known := map[string]string{}
	c, err := OpenMaildir(root, Options{From: mail.Address{Email: "dana@firm.com"}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetKnown(func(context.Context) (map[string]string, error) { return maps(known), nil })
	index := func(ms []mail.Message) {
		for _, m := range ms {
			if m.Deleted {
				delete(known, m.RemoteID)
			} else {
				known[m.RemoteID] = m.Folder
			}
		}
	}
	got, cur := collect(t, c, "")
	byID := map[string]mail.Message{}
	for _, m := range got {
		byID[m.RemoteID] = m
	}
	if len(got) != 3 || byID["1718000000.M1P1.host"].Folder != "INBOX" || byID["1718000004.M5P1.host"].Folder != "Sent" ||
		byID["1718000001.M2P1.host"].Subject != "Estoppel" {
		t.Fatalf("first sync %+v", got)
	}
	if sk := c.Skipped(); len(sk) != 1 || sk[0].Where != "1718000003.M4P1.host:2," {
		t.Fatalf("skipped %+v", sk)
	}
	index(got)
	if got, cur2 := collect(t, c, cur); len(got) != 0 || cur2 != cur {
		t.Fatalf("unchanged: %q", subjects(got))
	}

	ref, err := c.CreateDraft(t.Context(), mail.Draft{
		To: []mail.Address{{Name: "Grant", Email: "g@x.com"}}, Subject: "RE: Estoppel", Body: "Agreed.",
		InReplyTo: "<2@test>", References: []string{"<0@test>"},
	})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, ".Drafts", "cur", ref.RemoteID+":2,DS"))
	if len(files) != 1 || ref.Folder != "Drafts" {
		t.Fatalf("draft file %v, ref %+v", files, ref)
	}
	if tmp, _ := os.ReadDir(filepath.Join(root, ".Drafts", "tmp")); len(tmp) != 0 {
		t.Fatalf("left in tmp: %v", tmp)
	}
	got, cur = collect(t, c, cur)
	if len(got) != 1 || !got[0].Draft || got[0].Folder != "Drafts" || got[0].RemoteID != ref.RemoteID ||
		got[0].InReplyTo != "<2@test>" || !slices.Equal(got[0].References, []string{"<0@test>", "<2@test>"}) || got[0].Body != "Agreed.\n" {
		t.Fatalf("draft read back %+v", got)
	}
	index(got)

	// The client reads message 1 (new → cur, flags) and moves message 2
	// to Sent; message 4 is deleted.
	if err := os.Rename(filepath.Join(root, "new", "1718000000.M1P1.host"), filepath.Join(root, "cur", "1718000000.M1P1.host:2,S")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "cur", "1718000001.M2P1.host:2,S"), filepath.Join(root, ".Sent", "cur", "1718000001.M2P1.host:2,S")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, ".Sent", "cur", "1718000004.M5P1.host:2,S"))
	for _, d := range []string{"cur", "new", ".Sent/cur"} {
		touch(t, filepath.Join(root, d), time.Second)
	}
	got, _ = collect(t, c, cur)
	if s := subjects(got); !slices.Equal(s, []string{"Estoppel", "deleted 1718000004.M5P1.host"}) || got[0].Folder != "Sent" {
		t.Fatalf("after moves: %q %+v", s, got)
	}
}

func TestHTMLToText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<p>One</p><p>Two</p>", "One\n\nTwo\n"},
		{"<div>a<br/>b</div><div>c</div>", "a\nb\nc\n"},
		{"<table><tr><td>Rent</td><td>$10</td></tr><tr><td>Term</td><td>5y</td></tr></table>", "Rent $10\nTerm 5y\n"},
		{"<pre>  keep\n  spacing</pre>", "keep\n  spacing\n"},
		{"x &amp; y &lt;z&gt;", "x & y <z>\n"},
		{"<div>On Monday Bob wrote:</div><blockquote><div>Can you <i>look</i>?</div><blockquote>older</blockquote></blockquote>",
			"On Monday Bob wrote:\n> Can you look?\n> > older\n"},
	} {
		if got := lineEnded(mail.HTMLToText(tc.in)); got != tc.want {
			t.Errorf("htmlToText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCaseMailboxesParse reads every case mailbox without a skip.
func TestCaseMailboxesParse(t *testing.T) {
	paths, _ := filepath.Glob("/work/shared/cases/glance/*/mailbox.mbox")
	if len(paths) == 0 {
		t.Skip("no glance cases")
	}
	for _, p := range paths {
		c, err := OpenMbox(p, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := collect(t, c, "")
		raw, _ := os.ReadFile(p)
		if n := bytes.Count(raw, []byte("\nFrom ")) + 1; len(got) != n || len(c.Skipped()) > 0 {
			t.Errorf("%s: %d messages of %d, skipped %+v", p, len(got), n, c.Skipped())
		}
		for _, m := range got {
			if m.MessageID == "" || m.From.Email == "" || m.Date.IsZero() || m.Subject == "" || m.Body == "" {
				t.Errorf("%s: incomplete %+v", p, m)
			}
			if strings.Contains(m.Body, "\n>From ") {
				t.Errorf("%s: %s kept an mboxrd escape", p, m.MessageID)
			}
		}
	}
}
