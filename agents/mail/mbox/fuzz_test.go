package mbox

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spirit-app/spirit/agents/mail"
)

// Fuzz targets for local mail files, which hold whatever a mail client,
// an export tool or a half-finished write left in them. They go through
// the connectors' public API (OpenMbox, OpenMaildir, Sync), so they keep
// testing the reader however its insides change.

// fuzzDeadline bounds one input: a hang becomes a finding, not a stalled
// run. Real inputs take well under a millisecond.
const fuzzDeadline = 10 * time.Second

func fuzzWithin(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(fuzzDeadline):
		t.Fatalf("%s did not return within %v", what, fuzzDeadline)
	}
}

func fuzzOptions(known map[string]string) Options {
	o := Options{Logger: slog.New(slog.DiscardHandler)}
	if known != nil {
		o.Known = func(context.Context) (map[string]string, error) { return known, nil }
	}
	return o
}

// fuzzSync runs one full sync (empty cursor) of c.
func fuzzSync(t *testing.T, c mail.Connector) (msgs []mail.Message, err error) {
	t.Helper()
	fuzzWithin(t, "Sync", func() {
		_, err = c.Sync(context.Background(), "", func(m mail.Message) error {
			msgs = append(msgs, m)
			return nil
		})
	})
	return msgs, err
}

// checkLocalMessage holds for every message a local connector delivers.
func checkLocalMessage(t *testing.T, m mail.Message, inputLen int) {
	t.Helper()
	if m.Deleted {
		t.Fatalf("a first sync without Known delivered a tombstone: %+v", m)
	}
	if !utf8.ValidString(m.Body) {
		t.Fatalf("body is not valid UTF-8: %q", m.Body)
	}
	// parseMessage ends a body with exactly one line end, as text files
	// end, and keeps no trailing blank space.
	if m.Body != "" && (!strings.HasSuffix(m.Body, "\n") || strings.HasSuffix(m.Body, "\n\n") || strings.HasSuffix(m.Body, " \n")) {
		t.Fatalf("body does not end in exactly one line end: %q", m.Body)
	}
	// The widest charset turns one byte into three; HTML quote prefixes
	// ("> ", at most 4 deep) are the only text not from the input.
	if limit := 3*inputLen + 8*strings.Count(m.Body, "\n"); len(m.Body) > limit {
		t.Fatalf("body of %d bytes from %d bytes of file", len(m.Body), inputLen)
	}
}

// mboxSeedFiles are the glance tests' mbox files: what Thunderbird and
// mail exports write.
func mboxSeedFiles(f *testing.F) [][]byte {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "glance", "testdata", "glance", "*", "mailbox.mbox"))
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// fuzzMboxSeeds reach the separator rules: mboxrd escapes, a separator
// without the empty line before it, CRLF files, a file still being
// written, bodies in MIME.
var fuzzMboxSeeds = []string{
	"From a@b Thu Jun 11 10:30:30 2026\nMessage-ID: <1@x>\nFrom: A <a@b.c>\nSubject: one\n\nbody\n>From the start\n>>From deeper\n\n" +
		"From b@c Thu Jun 11 10:31:00 2026\nSubject: two\n\nsecond\n",
	"From - Mon Jan  5 09:00:00 2026\nSubject: glued\n\ntext\nFrom x@y Mon Jan 5 09:01:00 +0100 2026\nSubject: no blank line before\n\nmore\n",
	"From a@b Thu Jun 11 10:30:30 2026\r\nSubject: crlf\r\nFrom: a@b.c\r\n\r\nline\r\n\r\n",
	"From a@b Thu Jun 11 10:30:30 2026\nSubject: still being written\n\nhalf a li",
	"From a@b Thu Jun 11 10:30:30 2026\nnot a header at all\n",
	"From a@b\nFrom: a@b.c\nContent-Type: multipart/alternative; boundary=z\n\n--z\nContent-Type: text/html\n\n<blockquote><p>hi</p></blockquote>\n--z--\n",
	"",
}

// FuzzMbox syncs an mbox file of arbitrary bytes. A file that starts as
// an mbox must sync without error; every message starts at a "From " line;
// RemoteIDs are unique and the same on a second read of the same file
// (the index relies on that: a second sync with the ids it knows delivers
// nothing and deletes nothing); bodies are valid UTF-8 and end in one
// line end.
func FuzzMbox(f *testing.F) {
	for _, b := range mboxSeedFiles(f) {
		f.Add(b)
	}
	for _, s := range fuzzMboxSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "Inbox")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := OpenMbox(path, fuzzOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := fuzzSync(t, c)
		if err != nil {
			if len(data) == 0 || bytes.HasPrefix(data, []byte("From ")) {
				t.Fatalf("Sync of a file starting with a From line: %v", err)
			}
			return
		}
		separators := 0
		for _, ln := range bytes.Split(data, []byte("\n")) {
			if bytes.HasPrefix(ln, []byte("From ")) {
				separators++
			}
		}
		if n := len(msgs) + len(c.Skipped()); n > separators {
			t.Fatalf("%d messages and skips from %d From lines", n, separators)
		}
		known := map[string]string{}
		for _, m := range msgs {
			checkLocalMessage(t, m, len(data))
			if m.Folder != "INBOX" || !strings.HasPrefix(m.RemoteID, "INBOX/") {
				t.Fatalf("message in folder %q with RemoteID %q", m.Folder, m.RemoteID)
			}
			if _, dup := known[m.RemoteID]; dup {
				t.Fatalf("RemoteID %q delivered twice", m.RemoteID)
			}
			known[m.RemoteID] = m.Folder
		}

		again, err := OpenMbox(path, fuzzOptions(known))
		if err != nil {
			t.Fatal(err)
		}
		msgs2, err := fuzzSync(t, again)
		if err != nil {
			t.Fatalf("second read: %v", err)
		}
		if len(msgs2) > 0 {
			t.Fatalf("second read of the same file, knowing %d ids, delivered %d: first %+v", len(known), len(msgs2), msgs2[0])
		}
	})
}

// FuzzMaildir syncs a Maildir holding one message file of arbitrary bytes
// under an arbitrary name. At most that one message comes out, under the
// name without its ":2,flags" info, in INBOX; trashed files (flag T),
// dot files and names that cannot be files never do.
func FuzzMaildir(f *testing.F) {
	for _, b := range mboxSeedFiles(f) {
		// The first message of a glance mailbox, as a Maildir file holds it.
		if _, msg, ok := bytes.Cut(b, []byte("\n")); ok {
			msg, _, _ = bytes.Cut(msg, []byte("\n\nFrom "))
			f.Add(msg, "1718000000.M1P2.host:2,S")
		}
	}
	for _, s := range fuzzMboxSeeds {
		f.Add([]byte(s), "1718000000.M1P2.host:2,S")
	}
	f.Add([]byte("From: a@b.c\nSubject: draft\n\nd\n"), "1718000001.M2P2.host:2,DS")
	f.Add([]byte("Subject: trashed\n\nt\n"), "1718000002.M3P2.host:2,T")
	f.Add([]byte("Subject: bang\n\nt\n"), "1718000003.M4P2.host!2,S")
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || len(name) > 200 {
			t.Skip("not a file name")
		}
		dir, err := os.MkdirTemp(root, "md")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		for _, sub := range []string{"cur", "new", "tmp"} {
			if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "cur", name), data, 0o600); err != nil {
			t.Skip("the file system refuses the name:", err)
		}
		c, err := OpenMaildir(dir, fuzzOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := fuzzSync(t, c)
		if err != nil {
			t.Fatalf("Sync: %v", err)
		}
		id, flags := splitInfo(name)
		if len(msgs) > 1 {
			t.Fatalf("%d messages from one file", len(msgs))
		}
		if strings.HasPrefix(name, ".") || strings.Contains(flags, "T") {
			if len(msgs) > 0 {
				t.Fatalf("file %q delivered", name)
			}
			return
		}
		if len(msgs) == 0 && len(c.Skipped()) == 0 {
			t.Fatalf("file %q neither delivered nor skipped", name)
		}
		for _, m := range msgs {
			checkLocalMessage(t, m, len(data))
			if m.RemoteID != id || m.Folder != "INBOX" {
				t.Fatalf("file %q delivered as %q in %q", name, m.RemoteID, m.Folder)
			}
			if strings.Contains(flags, "D") && !m.Draft {
				t.Fatalf("file %q with the D flag is not a draft", name)
			}
		}
	})
}

// FuzzMboxDraft saves a draft with an arbitrary subject and body into an
// mbox Drafts file and reads the folder back: exactly that one draft comes
// out, with its subject and its body as the reader normalises any text
// (valid UTF-8, "\n" line ends, one final line end). It tests the writer's
// escaping against the reader's separators: a body line "From …" must not
// start a message, nor may ">From …" lose or gain a ">".
func FuzzMboxDraft(f *testing.F) {
	f.Add("Re: SNDA", "Marcy,\n\nFrom the lender's side it is fine.\n>From memory: yes.\n\nFrom a@b Thu Jun 11 10:30:30 2026\nDana\n")
	f.Add("Émile – café", "line\r\nwith CRLF\rand CR \n\n\n")
	f.Add("", "")
	f.Add("\xff", "From \xfe\n")
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, subject, body string) {
		dir, err := os.MkdirTemp(root, "d")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		inbox := filepath.Join(dir, "Inbox")
		if err := os.WriteFile(inbox, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		opt := fuzzOptions(nil)
		opt.From = mail.Address{Name: "Dana Whitfield", Email: "dana@firm.com"}
		opt.Now = func() time.Time { return time.Date(2026, 6, 18, 10, 0, 0, 0, time.UTC) }
		c, err := OpenMbox(inbox, opt)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := c.CreateDraft(context.Background(), mail.Draft{
			To: []mail.Address{{Name: "Marcy Howard", Email: "mhoward@example.com"}}, Subject: subject, Body: body,
			InReplyTo: "<m1@example.com>",
		})
		if err != nil {
			t.Fatalf("CreateDraft: %v", err)
		}
		msgs, err := fuzzSync(t, c)
		if err != nil {
			t.Fatalf("Sync: %v", err)
		}
		if len(msgs) != 1 || len(c.Skipped()) != 0 {
			t.Fatalf("one draft saved, %d messages read back, skipped %+v", len(msgs), c.Skipped())
		}
		m := msgs[0]
		if m.Folder != "Drafts" || !m.Draft || m.MessageID != ref.MessageID || m.InReplyTo != "<m1@example.com>" {
			t.Fatalf("read back %+v for draft %+v", m, ref)
		}
		want := strings.ToValidUTF8(body, "\uFFFD")
		want = strings.ReplaceAll(strings.ReplaceAll(want, "\r\n", "\n"), "\r", "\n")
		if want = strings.TrimRight(want, "\n "); want != "" {
			want += "\n"
		}
		if strings.TrimSpace(want) == "" {
			want = "" // mail.Parse keeps no body of blank space only
		}
		if m.Body != want {
			t.Fatalf("body %q read back as %q", body, m.Body)
		}
		if wantSubject := strings.Join(strings.Fields(subject), " "); utf8.ValidString(subject) && m.Subject != wantSubject {
			t.Fatalf("subject %q read back as %q", subject, m.Subject)
		}
	})
}
