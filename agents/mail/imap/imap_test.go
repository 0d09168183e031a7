package imap

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	netmail "net/mail"
	"slices"
	"strings"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail"
)

type mailMessage = mail.Message

func mustAddr(name, email string) mail.Address { return mail.Address{Name: name, Email: email} }

// expected is what a message should sync as, read with the standard
// library rather than with the code under test.
type expected struct {
	messageID, inReplyTo string
	references           []string
	subject              string
	from                 string
	fromName             string
	date                 time.Time
}

func expect(t testing.TB, raw []byte) expected {
	t.Helper()
	m, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("net/mail cannot read a corpus message: %v", err)
	}
	dec := mime.WordDecoder{}
	subj, err := dec.DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		t.Fatalf("decode subject %q: %v", m.Header.Get("Subject"), err)
	}
	from, err := netmail.ParseAddress(m.Header.Get("From"))
	if err != nil {
		t.Fatalf("parse From %q: %v", m.Header.Get("From"), err)
	}
	date, _ := m.Header.Date()
	return expected{
		messageID:  strings.TrimSpace(m.Header.Get("Message-Id")),
		inReplyTo:  strings.TrimSpace(m.Header.Get("In-Reply-To")),
		references: strings.Fields(m.Header.Get("References")),
		subject:    subj,
		from:       from.Address,
		fromName:   from.Name,
		date:       date,
	}
}

func checkMessage(t testing.TB, src string, got mail.Message, want expected) {
	t.Helper()
	if got.MessageID != want.messageID {
		t.Errorf("%s %s: Message-ID %q, want %q", src, got.RemoteID, got.MessageID, want.messageID)
	}
	if got.InReplyTo != want.inReplyTo {
		t.Errorf("%s %s: In-Reply-To %q, want %q", src, got.RemoteID, got.InReplyTo, want.inReplyTo)
	}
	if !slices.Equal(got.References, want.references) && !(len(got.References) == 0 && len(want.references) == 0) {
		t.Errorf("%s %s: References %q, want %q", src, got.RemoteID, got.References, want.references)
	}
	if got.Subject != want.subject {
		t.Errorf("%s %s: Subject %q, want %q", src, got.RemoteID, got.Subject, want.subject)
	}
	if got.From.Email != want.from || got.From.Name != want.fromName {
		t.Errorf("%s %s: From %+v, want %q <%s>", src, got.RemoteID, got.From, want.fromName, want.from)
	}
	if !got.Date.Equal(want.date) {
		t.Errorf("%s %s: Date %v, want %v", src, got.RemoteID, got.Date, want.date)
	}
	if strings.TrimSpace(got.Body) == "" {
		t.Errorf("%s %s: empty body", src, got.RemoteID)
	}
}

// seedCorpus puts every corpus message in INBOX, and the first few in
// Sent too, and returns the messages in UID order per folder.
func seedCorpus(t testing.TB, ts *testServer) (inbox, sent []mboxMessage) {
	corpus := loadCorpus(t)
	for _, m := range corpus {
		ts.appendRaw(t, "INBOX", m.raw)
	}
	sent = corpus[:5]
	for _, m := range sent {
		ts.appendRaw(t, "Sent", m.raw, goimap.FlagSeen)
	}
	return corpus, sent
}

func newConnector(t testing.TB, cfg Config) *Connector {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// uidOf reads the UID out of a RemoteID "folder/validity/uid".
func uidOf(t testing.TB, remoteID string) (folder string, validity, uid uint32) {
	t.Helper()
	i := strings.LastIndexByte(remoteID, '/')
	j := strings.LastIndexByte(remoteID[:i], '/')
	if _, err := fmt.Sscanf(remoteID[j+1:], "%d/%d", &validity, &uid); err != nil {
		t.Fatalf("bad RemoteID %q: %v", remoteID, err)
	}
	return remoteID[:j], validity, uid
}

func TestSyncFullCorpus(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	inbox, sent := seedCorpus(t, ts)
	var progress [][2]int
	cfg := ts.config()
	cfg.BatchSize = 37 // several batches, one partial
	cfg.Progress = func(done, total int) { progress = append(progress, [2]int{done, total}) }
	c := newConnector(t, cfg)

	got, cursor := collect(t, c, "")
	if want := len(inbox) + len(sent); len(got) != want {
		t.Fatalf("full sync delivered %d messages, want %d", len(got), want)
	}
	if cursor == "" {
		t.Fatal("empty cursor")
	}
	seen := map[string]bool{}
	for _, m := range got {
		if seen[m.RemoteID] {
			t.Errorf("RemoteID %s delivered twice", m.RemoteID)
		}
		seen[m.RemoteID] = true
		if m.Deleted {
			t.Errorf("unexpected tombstone %s", m.RemoteID)
		}
		folder, _, uid := uidOf(t, m.RemoteID)
		var src mboxMessage
		switch folder {
		case "INBOX":
			if m.Folder != RoleInbox {
				t.Errorf("%s: Folder %q", m.RemoteID, m.Folder)
			}
			src = inbox[uid-1]
		case "Sent":
			if m.Folder != RoleSent {
				t.Errorf("%s: Folder %q", m.RemoteID, m.Folder)
			}
			src = sent[uid-1]
		default:
			t.Fatalf("message from unexpected folder %q", folder)
		}
		checkMessage(t, src.source, m, expect(t, src.raw))
	}

	// Spot checks the generic comparison can't make.
	var hollis, bulk *mail.Message
	for i := range got {
		if got[i].Subject == "Re: Hollis – mediation statement" {
			hollis = &got[i]
		}
		if got[i].Headers["list-id"] != "" && bulk == nil {
			bulk = &got[i]
		}
	}
	if hollis == nil {
		t.Error("RFC 2047 subject \"Re: Hollis – mediation statement\" not decoded in any message")
	} else if !strings.Contains(hollis.Body, "Will do.") {
		t.Errorf("Hollis reply body: %q", hollis.Body)
	}
	if bulk == nil {
		t.Error("no message kept its list-id header")
	} else if bulk.Headers["list-unsubscribe"] == "" && bulk.Headers["precedence"] == "" {
		t.Errorf("bulk headers of %s: %v", bulk.RemoteID, bulk.Headers)
	}

	if len(progress) == 0 || progress[len(progress)-1] != [2]int{len(got), len(got)} {
		t.Errorf("progress ended at %v, want [%d %d]", progress[len(progress)-1], len(got), len(got))
	}

	assertNoSeen(t, ts, "INBOX")
}

// assertNoSeen checks that no message in mailbox carries \Seen.
func assertNoSeen(t *testing.T, ts *testServer, mailbox string) {
	t.Helper()
	cl := ts.client(t)
	if _, err := cl.Select(mailbox, nil).Wait(); err != nil {
		t.Fatal(err)
	}
	msgs, err := cl.Fetch(goimap.SeqSet{{Start: 1, Stop: 0}}, &goimap.FetchOptions{Flags: true, UID: true}).Collect()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 {
		t.Fatalf("no messages in %s", mailbox)
	}
	for _, m := range msgs {
		if slices.Contains(m.Flags, goimap.FlagSeen) {
			t.Errorf("%s UID %d was marked \\Seen by the sync", mailbox, m.UID)
		}
	}
}

func newMessage(subject, msgID string) []byte {
	return []byte("From: Victor Hale <vhale@callowayfinch.com>\r\n" +
		"To: Nadia Petrov <nadia.petrov@callowayfinch.com>\r\n" +
		"Subject: " + subject + "\r\n" +
		"Date: Mon, 15 Jun 2026 09:00:00 -0500\r\n" +
		"Message-ID: " + msgID + "\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n" +
		"\r\n" +
		"Please call me about " + subject + ".\r\n")
}

func TestSyncIncrementalAppend(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for i := range 10 {
		ts.appendRaw(t, "INBOX", newMessage(fmt.Sprintf("old %d", i), fmt.Sprintf("<old%d@test>", i)))
	}
	c := newConnector(t, ts.config())
	got, cursor := collect(t, c, "")
	if len(got) != 10 {
		t.Fatalf("first sync: %d messages, want 10", len(got))
	}

	// Nothing changed: nothing delivered (and the UIDNEXT shortcut path).
	got, cursor = collect(t, c, cursor)
	if len(got) != 0 {
		t.Fatalf("unchanged mailbox delivered %d messages", len(got))
	}

	// Another client delivers a message with APPEND.
	other := ts.client(t)
	raw := newMessage("the Westlake PSA", "<new@test>")
	cmd := other.Append("INBOX", int64(len(raw)), nil)
	cmd.Write(raw)
	cmd.Close()
	if _, err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}

	got, _ = collect(t, c, cursor)
	if len(got) != 1 {
		t.Fatalf("incremental sync delivered %d messages, want 1: %+v", len(got), got)
	}
	if got[0].MessageID != "<new@test>" || got[0].Subject != "the Westlake PSA" || got[0].Folder != RoleInbox {
		t.Errorf("incremental sync delivered %+v", got[0])
	}
}

func TestSyncExpungeTombstone(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for i := range 5 {
		ts.appendRaw(t, "INBOX", newMessage(fmt.Sprintf("m%d", i), fmt.Sprintf("<m%d@test>", i)))
	}
	c := newConnector(t, ts.config())
	got, cursor := collect(t, c, "")
	var victim string
	for _, m := range got {
		if m.MessageID == "<m2@test>" {
			victim = m.RemoteID
		}
	}
	if victim == "" {
		t.Fatal("m2 not synced")
	}

	other := ts.client(t)
	if _, err := other.Select("INBOX", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	_, _, uid := uidOf(t, victim)
	if err := other.Store(goimap.UIDSetNum(goimap.UID(uid)), &goimap.StoreFlags{Op: goimap.StoreFlagsAdd, Flags: []goimap.Flag{goimap.FlagDeleted}, Silent: true}, nil).Close(); err != nil {
		t.Fatal(err)
	}
	if err := other.Expunge().Close(); err != nil {
		t.Fatal(err)
	}

	got, cursor = collect(t, c, cursor)
	if len(got) != 1 || !got[0].Deleted || got[0].RemoteID != victim || got[0].Folder != RoleInbox {
		t.Fatalf("after EXPUNGE got %+v, want one tombstone for %s", got, victim)
	}
	// The tombstone is not repeated.
	if got, _ = collect(t, c, cursor); len(got) != 0 {
		t.Fatalf("second sync after EXPUNGE delivered %+v", got)
	}
}

func TestSyncUIDValidityChange(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for i := range 4 {
		ts.appendRaw(t, "Sent", newMessage(fmt.Sprintf("s%d", i), fmt.Sprintf("<s%d@test>", i)))
	}
	c := newConnector(t, ts.config())
	first, cursor := collect(t, c, "")
	if len(first) != 4 {
		t.Fatalf("first sync: %d messages", len(first))
	}

	// The server renumbers Sent: deleting and recreating a mailbox gives
	// it a new UIDVALIDITY (RFC 3501 §2.3.1.1), as a restore would.
	if err := ts.user.Delete("Sent"); err != nil {
		t.Fatal(err)
	}
	if err := ts.user.Create("Sent", nil); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		ts.appendRaw(t, "Sent", newMessage(fmt.Sprintf("s%d", i), fmt.Sprintf("<s%d@test>", i)))
	}

	got, _ := collect(t, c, cursor)
	var tomb, fresh []string
	for _, m := range got {
		if m.Deleted {
			tomb = append(tomb, m.RemoteID)
		} else {
			fresh = append(fresh, m.RemoteID)
		}
	}
	var old []string
	for _, m := range first {
		old = append(old, m.RemoteID)
	}
	slices.Sort(tomb)
	slices.Sort(old)
	if !slices.Equal(tomb, old) {
		t.Errorf("tombstones %v, want the old RemoteIDs %v", tomb, old)
	}
	if len(fresh) != 4 {
		t.Fatalf("resync fetched %d messages, want 4", len(fresh))
	}
	for _, id := range fresh {
		if slices.Contains(old, id) {
			t.Errorf("resynced message kept old RemoteID %s", id)
		}
	}
}

func TestSyncFolderDetectionByName(t *testing.T) {
	ts := newTestServer(t, serverOpts{folders: []string{"INBOX", "Sent Items", "Drafts", "Junk", "Archive"}})
	ts.appendRaw(t, "Sent Items", newMessage("sent", "<sent@test>"))
	ts.appendRaw(t, "Junk", newMessage("spam", "<spam@test>"))
	ts.appendRaw(t, "Drafts", newMessage("draft", "<draft@test>"), goimap.FlagDraft)
	c := newConnector(t, ts.config())
	got, _ := collect(t, c, "")
	if len(got) != 2 {
		t.Fatalf("got %d messages, want the Sent Items and Drafts ones: %+v", len(got), got)
	}
	for _, m := range got {
		switch m.MessageID {
		case "<sent@test>":
			if m.Folder != RoleSent || !strings.HasPrefix(m.RemoteID, "Sent Items/") {
				t.Errorf("sent message: %+v", m)
			}
		case "<draft@test>":
			if m.Folder != RoleDrafts || !m.Draft {
				t.Errorf("draft: %+v", m)
			}
		default:
			t.Errorf("unexpected message %s", m.MessageID)
		}
	}
}

func TestSyncStopsOnCallbackError(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for i := range 3 {
		ts.appendRaw(t, "INBOX", newMessage(fmt.Sprintf("m%d", i), fmt.Sprintf("<m%d@test>", i)))
	}
	c := newConnector(t, ts.config())
	stop := errors.New("index full")
	n := 0
	next, err := c.Sync(context.Background(), "", func(mail.Message) error { n++; return stop })
	if !errors.Is(err, stop) || next != "" || n != 1 {
		t.Fatalf("Sync = %q, %v after %d calls; want the callback's error after 1", next, err, n)
	}
	// The connector recovers: the next sync starts over and succeeds.
	if got, _ := collect(t, c, ""); len(got) != 3 {
		t.Fatalf("sync after error: %d messages", len(got))
	}
}

func TestSyncSkipsRefusedMessage(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	for i := range 6 {
		ts.appendRaw(t, "INBOX", newMessage(fmt.Sprintf("m%d", i), fmt.Sprintf("<m%d@test>", i)))
	}
	ts.setPoison(3)
	cfg := ts.config()
	cfg.BatchSize = 4
	c := newConnector(t, cfg)
	got, cursor := collect(t, c, "")
	if len(got) != 5 {
		t.Fatalf("with one refused message: %d delivered, want 5", len(got))
	}
	for _, m := range got {
		if m.MessageID == "<m2@test>" {
			t.Fatal("refused message delivered")
		}
	}
	// The server recovers; the next sync picks the message up.
	ts.setPoison(0)
	got, cursor = collect(t, c, cursor)
	if len(got) != 1 || got[0].MessageID != "<m2@test>" {
		t.Fatalf("retry delivered %+v, want m2", got)
	}
	if got, _ = collect(t, c, cursor); len(got) != 0 {
		t.Fatalf("third sync delivered %d", len(got))
	}
}

func TestWrongPassword(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	cfg := ts.config()
	cfg.Password = "wrong"
	c := newConnector(t, cfg)
	_, err := c.Sync(context.Background(), "", func(mail.Message) error { return nil })
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("err = %v, want ErrAuth", err)
	}
	if !strings.Contains(err.Error(), "app password") {
		t.Errorf("error does not tell the user to check the app password: %v", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("error leaks the password: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	ln.Close() // nothing listens there now
	c := newConnector(t, Config{Host: "127.0.0.1", Port: addr.Port, TLS: TLSNone, Username: "u", Password: "p"})
	err = c.Verify(context.Background())
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
}

func TestPlaintextOnlyToLoopback(t *testing.T) {
	for _, host := range []string{"imap.example.com", "10.0.0.5"} {
		if _, err := New(Config{Host: host, TLS: TLSNone, Username: "u", Password: "p"}); err == nil {
			t.Errorf("TLSNone to %s accepted", host)
		}
	}
	for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
		if _, err := New(Config{Host: host, TLS: TLSNone, Username: "u", Password: "p"}); err != nil {
			t.Errorf("TLSNone to %s refused: %v", host, err)
		}
	}
	c, err := New(Config{Host: "imap.example.com", Username: "u", Password: "p"})
	if err != nil || c.cfg.Port != 993 || c.cfg.TLS != TLSImplicit {
		t.Errorf("defaults: %+v, %v; want implicit TLS on 993", c.cfg, err)
	}
}

func TestTLSModes(t *testing.T) {
	cert, pool := selfSignedCert(t)
	for _, mode := range []struct {
		name   string
		server string
		client TLSMode
	}{
		{"implicit", "implicit", TLSImplicit},
		{"starttls", "starttls", TLSStartTLS},
	} {
		t.Run(mode.name, func(t *testing.T) {
			ts := newTestServer(t, serverOpts{tls: mode.server, cert: cert})
			ts.appendRaw(t, "INBOX", newMessage("over TLS", "<tls@test>"))

			cfg := ts.config()
			cfg.TLS = mode.client
			cfg.TLSConfig = &tls.Config{RootCAs: pool}
			c := newConnector(t, cfg)
			if got, _ := collect(t, c, ""); len(got) != 1 || got[0].MessageID != "<tls@test>" {
				t.Fatalf("sync over %s: %+v", mode.name, got)
			}

			// The same server with the system roots: untrusted.
			cfg.TLSConfig = nil
			c2 := newConnector(t, cfg)
			err := c2.Verify(context.Background())
			if !errors.Is(err, ErrTLS) {
				t.Fatalf("untrusted certificate: err = %v, want ErrTLS", err)
			}
		})
	}

	t.Run("implicit TLS to a plaintext port", func(t *testing.T) {
		ts := newTestServer(t, serverOpts{})
		cfg := ts.config()
		cfg.TLS = TLSImplicit
		c := newConnector(t, cfg)
		err := c.Verify(context.Background())
		if !errors.Is(err, ErrTLS) || !strings.Contains(err.Error(), "STARTTLS") {
			t.Fatalf("err = %v, want ErrTLS suggesting the TLS mode", err)
		}
	})
	t.Run("STARTTLS refused", func(t *testing.T) {
		ts := newTestServer(t, serverOpts{}) // no TLS config: no STARTTLS
		cfg := ts.config()
		cfg.TLS = TLSStartTLS
		c := newConnector(t, cfg)
		if err := c.Verify(context.Background()); !errors.Is(err, ErrTLS) {
			t.Fatalf("err = %v, want ErrTLS", err)
		}
	})
}

// silentServer accepts connections, optionally greets, then never answers.
func silentServer(t *testing.T, greet bool) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { conn.Close() })
			if greet {
				io.WriteString(conn, "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] hello\r\n")
			}
			go io.Copy(io.Discard, conn)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestTimeouts(t *testing.T) {
	t.Run("no greeting", func(t *testing.T) {
		port := silentServer(t, false)
		c := newConnector(t, Config{Host: "127.0.0.1", Port: port, TLS: TLSNone, Username: "u", Password: "p", DialTimeout: 200 * time.Millisecond})
		start := time.Now()
		err := c.Verify(context.Background())
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("no answer to LOGIN", func(t *testing.T) {
		port := silentServer(t, true)
		c := newConnector(t, Config{Host: "127.0.0.1", Port: port, TLS: TLSNone, Username: "u", Password: "p", CommandTimeout: 200 * time.Millisecond})
		if err := c.Verify(context.Background()); !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
	})
	t.Run("context cancelled", func(t *testing.T) {
		port := silentServer(t, true)
		c := newConnector(t, Config{Host: "127.0.0.1", Port: port, TLS: TLSNone, Username: "u", Password: "p"})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Sync(ctx, "", func(mail.Message) error { return nil })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v to notice the context", d)
		}
	})
}

func TestCreateDraft(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	c := newConnector(t, ts.config())
	now := time.Date(2026, 6, 15, 10, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }

	d := mail.Draft{
		To:         []mail.Address{{Name: "Carla Benítez", Email: "cbenitez@benitezlawgroup.com"}},
		Cc:         []mail.Address{{Email: "vhale@callowayfinch.com"}},
		Subject:    "Re: Deposition scheduling – Brandt & Lund",
		Body:       "Carla,\n\nKyle Brandt is available July 14; Teresa Lund July 16.\n\nNadia",
		InReplyTo:  "<MN2PR19MB6791@namprd19.prod.outlook.com>",
		References: []string{"<first@example.com>"},
	}
	ref, err := c.CreateDraft(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ref.MessageID, "<") || !strings.HasSuffix(ref.MessageID, "@callowayfinch.com>") {
		t.Errorf("Message-ID %q", ref.MessageID)
	}
	if ref.Folder != RoleDrafts || !strings.HasPrefix(ref.RemoteID, "Drafts/") {
		t.Errorf("DraftRef %+v", ref)
	}

	// Look at it as another mail client would.
	cl := ts.client(t)
	if _, err := cl.Select("Drafts", &goimap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		t.Fatal(err)
	}
	msgs, err := cl.Fetch(goimap.SeqSet{{Start: 1, Stop: 0}}, &goimap.FetchOptions{
		UID: true, Flags: true, BodySection: []*goimap.FetchItemBodySection{{Peek: true}},
	}).Collect()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 {
		t.Fatalf("%d messages in Drafts, want 1", len(msgs))
	}
	if !slices.Contains(msgs[0].Flags, goimap.FlagDraft) {
		t.Errorf("flags %v lack \\Draft", msgs[0].Flags)
	}
	var raw []byte
	for _, b := range msgs[0].BodySection {
		raw = b.Bytes
	}
	nm, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("draft is not a valid message: %v\n%s", err, raw)
	}
	h := nm.Header
	if got := h.Get("In-Reply-To"); got != d.InReplyTo {
		t.Errorf("In-Reply-To %q, want %q", got, d.InReplyTo)
	}
	if got := strings.Fields(h.Get("References")); !slices.Equal(got, []string{"<first@example.com>", d.InReplyTo}) {
		t.Errorf("References %q", got)
	}
	if got := h.Get("Message-Id"); got != ref.MessageID {
		t.Errorf("Message-ID header %q, ref %q", got, ref.MessageID)
	}
	if subj, _ := new(mime.WordDecoder).DecodeHeader(h.Get("Subject")); subj != d.Subject {
		t.Errorf("Subject %q", subj)
	}
	if from, err := netmail.ParseAddress(h.Get("From")); err != nil || from.Address != testUser || from.Name != "Nadia Petrov" {
		t.Errorf("From %q", h.Get("From"))
	}
	if to, err := h.AddressList("To"); err != nil || len(to) != 1 || to[0].Name != "Carla Benítez" {
		t.Errorf("To %q: %v", h.Get("To"), err)
	}
	if date, err := h.Date(); err != nil || !date.Equal(now) {
		t.Errorf("Date %q", h.Get("Date"))
	}
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || !strings.Contains(strings.ToLower(ct), "utf-8") {
		t.Errorf("Content-Type %q", ct)
	}
	if !bytes.Contains(raw, []byte("\r\n")) || bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("draft has bare LF line ends")
	}

	// The next sync delivers the same draft under the same RemoteID.
	got, _ := collect(t, c, "")
	if len(got) != 1 || got[0].RemoteID != ref.RemoteID || !got[0].Draft || got[0].MessageID != ref.MessageID || got[0].InReplyTo != d.InReplyTo {
		t.Fatalf("sync after CreateDraft: %+v, want the draft %+v", got, ref)
	}
	if !strings.Contains(got[0].Body, "Teresa Lund July 16") {
		t.Errorf("draft body %q", got[0].Body)
	}
}

func TestCreateDraftWithoutDraftsFolder(t *testing.T) {
	ts := newTestServer(t, serverOpts{folders: []string{"INBOX"}})
	c := newConnector(t, ts.config())
	_, err := c.CreateDraft(context.Background(), mail.Draft{Subject: "x"})
	if !errors.Is(err, ErrNoDrafts) {
		t.Fatalf("err = %v, want ErrNoDrafts", err)
	}
}

type countingTokenSource struct {
	tok string
	n   int
}

func (s *countingTokenSource) Token() (*oauth2.Token, error) {
	s.n++
	return &oauth2.Token{AccessToken: s.tok, TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}, nil
}

func TestOAuthLogin(t *testing.T) {
	for _, mech := range []string{MechXOAUTH2, MechOAuthBearer} {
		t.Run(mech, func(t *testing.T) {
			ts := newTestServer(t, serverOpts{})
			ts.appendRaw(t, "INBOX", newMessage("oauth", "<oauth@test>"))
			cfg := ts.config()
			cfg.Password = ""
			src := &countingTokenSource{tok: testToken}
			cfg.TokenSource = src
			cfg.OAuthMechanism = mech
			c := newConnector(t, cfg)
			got, _ := collect(t, c, "")
			if len(got) != 1 {
				t.Fatalf("sync with %s: %d messages", mech, len(got))
			}
			if src.n == 0 {
				t.Error("token source not asked")
			}
			wire := string(ts.lastWire())
			var want string
			if mech == MechXOAUTH2 {
				want = "user=" + testUser + "\x01auth=Bearer " + testToken + "\x01\x01"
			} else {
				want = "n,a=" + testUser + ",\x01host=127.0.0.1\x01port=" + fmt.Sprint(ts.port) + "\x01auth=Bearer " + testToken + "\x01\x01"
			}
			if wire != want {
				t.Errorf("%s client response on the wire:\n%q\nwant\n%q", mech, wire, want)
			}

			cfg.TokenSource = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "expired"})
			bad := newConnector(t, cfg)
			err := bad.Verify(context.Background())
			if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "sign in") {
				t.Fatalf("bad token: err = %v, want ErrAuth asking to sign in again", err)
			}
		})
	}
}

func TestOAuthMechanismFromCaps(t *testing.T) {
	// The test server advertises both; XOAUTH2 is preferred.
	ts := newTestServer(t, serverOpts{})
	cfg := ts.config()
	cfg.TokenSource = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken})
	c := newConnector(t, cfg)
	if err := c.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(ts.lastWire()), "user=") {
		t.Errorf("auto mechanism sent %q, want XOAUTH2", ts.lastWire())
	}
}

func TestSASLClientWire(t *testing.T) {
	c := &xoauth2Client{username: "someone@example.com", token: "ya29.vF9dft4qmTc2Nvb3RlckBhdHRhdmlzdGEuY29tCg"}
	mech, ir, err := c.Start()
	if err != nil || mech != "XOAUTH2" {
		t.Fatal(mech, err)
	}
	// The example from Google's XOAUTH2 documentation.
	if want := "user=someone@example.com\x01auth=Bearer ya29.vF9dft4qmTc2Nvb3RlckBhdHRhdmlzdGEuY29tCg\x01\x01"; string(ir) != want {
		t.Errorf("XOAUTH2 initial response %q, want %q", ir, want)
	}
	resp, err := c.Next([]byte(`{"status":"401","schemes":"bearer mac","scope":"https://mail.google.com/"}`))
	if err != nil || len(resp) != 0 || c.serverErr.Status != "401" {
		t.Errorf("XOAUTH2 error challenge: resp %q, err %v, serverErr %+v", resp, err, c.serverErr)
	}

	b := &oauthBearerClient{username: "a,b=c@example.com", token: "tok", host: "imap.example.com", port: 993}
	mech, ir, _ = b.Start()
	if want := "n,a=a=2Cb=3Dc@example.com,\x01host=imap.example.com\x01port=993\x01auth=Bearer tok\x01\x01"; mech != "OAUTHBEARER" || string(ir) != want {
		t.Errorf("OAUTHBEARER %s %q, want %q", mech, ir, want)
	}
	if resp, _ := b.Next([]byte(`{"status":"invalid_token"}`)); !bytes.Equal(resp, []byte{1}) {
		t.Errorf("OAUTHBEARER error reply %q, want %%x01", resp)
	}
}

func TestReconnectAfterServerDrop(t *testing.T) {
	ts := newTestServer(t, serverOpts{})
	ts.appendRaw(t, "INBOX", newMessage("a", "<a@test>"))
	c := newConnector(t, ts.config())
	_, cursor := collect(t, c, "")
	// Simulate the server hanging up (idle timeout, network change).
	c.mu.Lock()
	c.cl.Close()
	c.mu.Unlock()
	ts.appendRaw(t, "INBOX", newMessage("b", "<b@test>"))
	got, _ := collect(t, c, cursor)
	if len(got) != 1 || got[0].MessageID != "<b@test>" {
		t.Fatalf("after reconnect: %+v", got)
	}
}
