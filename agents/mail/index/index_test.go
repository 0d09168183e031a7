package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/store"
)

func newTestIndex(t testing.TB) *Index {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(st)
}

func search(t *testing.T, x *Index, q SearchQuery) []ThreadHit {
	t.Helper()
	hits, err := x.SearchEmail(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func addAccount(t *testing.T, x *Index, addr string, aliases ...string) Account {
	t.Helper()
	a, err := x.AddAccount(t.Context(), Account{Kind: KindIMAP, Name: addr, Address: addr, Aliases: aliases})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// count runs a count(*) query.
func count(t *testing.T, x *Index, q string, args ...any) int {
	t.Helper()
	var n int
	if err := x.st.Reader().QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

var t0 = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

func addr(s string) mail.Address {
	name, _, _ := strings.Cut(s, "@")
	return mail.Address{Name: strings.ToUpper(name[:1]) + name[1:], Email: s}
}

// msg builds a message; refs are the ids of its chain (parent last).
func msg(rid, subject, from string, day int, refs ...string) mail.Message {
	m := mail.Message{
		RemoteID: rid, Folder: "INBOX", MessageID: "<" + rid + "@test>", Subject: subject,
		From: addr(from), To: []mail.Address{addr("me@firm.com")}, Date: t0.Add(time.Duration(day) * 24 * time.Hour),
		Body: "Text of " + rid + ".\n",
	}
	for _, r := range refs {
		m.References = append(m.References, "<"+r+"@test>")
	}
	if len(refs) > 0 {
		m.InReplyTo = m.References[len(m.References)-1]
	}
	return m
}

// threads maps each RemoteID of the account to its thread id.
func threads(t *testing.T, x *Index, accountID int64) map[string]int64 {
	t.Helper()
	rows, err := x.st.Reader().QueryContext(t.Context(), `SELECT remote_id, thread_id FROM mail_messages WHERE account_id = ?`, accountID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var rid string
		var tid int64
		if err := rows.Scan(&rid, &tid); err != nil {
			t.Fatal(err)
		}
		out[rid] = tid
	}
	return out
}

// groups renders the threads as sorted groups of RemoteIDs: "a b|c".
func groups(t *testing.T, x *Index, accountID int64) string {
	t.Helper()
	by := map[int64][]string{}
	for rid, tid := range threads(t, x, accountID) {
		by[tid] = append(by[tid], rid)
	}
	var gs []string
	for _, g := range by {
		slices.Sort(g)
		gs = append(gs, strings.Join(g, " "))
	}
	slices.Sort(gs)
	if n := count(t, x, `SELECT count(*) FROM mail_threads WHERE account_id = ?`, accountID); n != len(gs) {
		t.Errorf("%d thread rows for %d groups", n, len(gs))
	}
	return strings.Join(gs, "|")
}

func applyT(t *testing.T, x *Index, accountID int64, msgs ...mail.Message) {
	t.Helper()
	if err := x.Apply(t.Context(), accountID, msgs); err != nil {
		t.Fatal(err)
	}
}

func TestThreadingByHeaders(t *testing.T) {
	x := newTestIndex(t)
	a := addAccount(t, x, "me@firm.com")
	// Replies arrive before their parents, one per batch.
	applyT(t, x, a.ID, msg("c", "RE: Lease", "bob@x.com", 3, "a", "b"))
	applyT(t, x, a.ID, msg("b", "RE: Lease", "me@firm.com", 2, "a"))
	if g := groups(t, x, a.ID); g != "b c" {
		t.Fatalf("before the root: %s", g)
	}
	applyT(t, x, a.ID, msg("a", "Lease", "bob@x.com", 1), msg("z", "Other", "bob@x.com", 1))
	if g := groups(t, x, a.ID); g != "a b c|z" {
		t.Fatalf("with the root: %s", g)
	}
	// Siblings whose parent never arrived still share its reference.
	applyT(t, x, a.ID, msg("s1", "RE: Missing", "bob@x.com", 5, "gone"), msg("s2", "RE: Missing", "carol@y.com", 6, "gone"))
	if g := groups(t, x, a.ID); g != "a b c|s1 s2|z" {
		t.Fatalf("orphans: %s", g)
	}
	// A conversation id joins messages without headers.
	m1 := msg("g1", "Budget", "bob@x.com", 7)
	m2 := msg("g2", "Budget v2", "bob@x.com", 8)
	m1.ConversationID, m2.ConversationID = "conv-1", "conv-1"
	applyT(t, x, a.ID, m1, m2)
	if g := groups(t, x, a.ID); g != "a b c|g1 g2|s1 s2|z" {
		t.Fatalf("conversation: %s", g)
	}
	// Thread summary.
	hits := search(t, x, SearchQuery{Subject: "Lease"})
	if len(hits) != 1 || hits[0].MessageCount != 3 || hits[0].Latest.MessageID != "<c@test>" || hits[0].Subject != "Lease" {
		t.Fatalf("lease thread: %+v", hits)
	}
}

func TestThreadSplitsAndKeepsItsID(t *testing.T) {
	x := newTestIndex(t)
	a := addAccount(t, x, "me@firm.com")
	// In-Reply-To only, no References: b is the only link between a and c.
	ma, mb, mc := msg("a", "Lease", "bob@x.com", 1), msg("b", "RE: Lease", "me@firm.com", 2), msg("c", "RE: Lease", "bob@x.com", 3)
	mb.InReplyTo, mb.References = "<a@test>", nil
	mc.InReplyTo, mc.References = "<b@test>", nil
	md := msg("d", "RE: Lease", "bob@x.com", 4)
	md.InReplyTo = "<c@test>"
	applyT(t, x, a.ID, ma, mb, mc, md)
	before := threads(t, x, a.ID)
	if g := groups(t, x, a.ID); g != "a b c d" {
		t.Fatalf("chain: %s", g)
	}
	applyT(t, x, a.ID, mail.Message{RemoteID: "b", Deleted: true})
	if g := groups(t, x, a.ID); g != "a|c d" {
		t.Fatalf("after deleting the link: %s", g)
	}
	after := threads(t, x, a.ID)
	// The bigger part keeps the id the analyst may hold.
	if after["c"] != before["c"] || after["a"] == before["a"] {
		t.Fatalf("ids before %v after %v", before, after)
	}
	// Thread ids are never reused.
	applyT(t, x, a.ID, mail.Message{RemoteID: "a", Deleted: true})
	applyT(t, x, a.ID, msg("n", "New", "bob@x.com", 5))
	if got := threads(t, x, a.ID)["n"]; got == after["a"] || got == before["a"] {
		t.Fatalf("thread id %d reused", got)
	}
}

func TestSubjectThreadingOnlyWithoutHeaders(t *testing.T) {
	x := newTestIndex(t)
	a := addAccount(t, x, "me@firm.com", "m.e@firm.com")
	noHeaders := func(m mail.Message) mail.Message { m.InReplyTo, m.References = "", nil; return m }
	// A headerless reply arrives first; its parent later.
	applyT(t, x, a.ID, noHeaders(msg("r1", "RE: Lease amendment", "bob@x.com", 10)))
	applyT(t, x, a.ID, msg("p1", "Lease amendment", "me@firm.com", 9))
	// p1 was to me only; the reply's sender must be a participant of p1.
	if g := groups(t, x, a.ID); g != "p1|r1" {
		t.Fatalf("no shared participant but the user: %s", g)
	}
	p2 := msg("p2", "Side letter", "m.e@firm.com", 20)
	p2.To = []mail.Address{addr("bob@x.com")}
	applyT(t, x, a.ID, p2)
	applyT(t, x, a.ID, noHeaders(msg("r2", "RE: [EXTERNAL] Side letter", "bob@x.com", 21)))
	// Out of the window: 90 days later.
	applyT(t, x, a.ID, noHeaders(msg("r3", "Re: Side letter", "bob@x.com", 20+90)))
	// Not a reply: a new message with the same subject stays apart.
	applyT(t, x, a.ID, noHeaders(msg("n1", "Side letter", "bob@x.com", 22)))
	// A message with headers is never threaded by subject.
	applyT(t, x, a.ID, msg("h1", "RE: Side letter", "bob@x.com", 23, "elsewhere"))
	if g := groups(t, x, a.ID); g != "h1|n1|p1|p2 r2|r1|r3" {
		t.Fatalf("subject threading: %s", g)
	}
	// The parent arriving after its headerless reply.
	applyT(t, x, a.ID, noHeaders(msg("r4", "AW: Mietvertrag", "carol@y.com", 30)))
	p4 := msg("p4", "Mietvertrag", "me@firm.com", 29)
	p4.To = []mail.Address{addr("carol@y.com")}
	applyT(t, x, a.ID, p4)
	if g := groups(t, x, a.ID); g != "h1|n1|p1|p2 r2|p4 r4|r1|r3" {
		t.Fatalf("parent after reply: %s", g)
	}
}

func TestApplyIsIdempotent(t *testing.T) {
	x := newTestIndex(t)
	a := addAccount(t, x, "me@firm.com")
	batch := []mail.Message{
		msg("a", "Lease", "bob@x.com", 1), msg("b", "RE: Lease", "me@firm.com", 2, "a"),
		msg("c", "RE: Lease", "bob@x.com", 3, "a", "b"), msg("d", "Other", "carol@y.com", 4),
	}
	applyT(t, x, a.ID, batch...)
	g1, ids1 := groups(t, x, a.ID), threads(t, x, a.ID)
	applyT(t, x, a.ID, batch...)
	applyT(t, x, a.ID, batch[2], batch[0])
	if g2, ids2 := groups(t, x, a.ID), threads(t, x, a.ID); g2 != g1 || !mapsEqual(ids1, ids2) {
		t.Fatalf("re-applied: %s %v, first %s %v", g2, ids2, g1, ids1)
	}
	if n := count(t, x, `SELECT count(*) FROM mail_messages`); n != 4 {
		t.Fatalf("%d messages", n)
	}
	if n := count(t, x, `SELECT count(*) FROM mail_fts_docsize`); n != 4 {
		t.Fatalf("%d full-text rows", n)
	}
	// A changed body is re-indexed, not duplicated.
	batch[3].Body = "Revised text about the estoppel.\n"
	applyT(t, x, a.ID, batch[3])
	if hits := search(t, x, SearchQuery{Query: "estoppel"}); len(hits) != 1 || hits[0].Latest.MessageID != "<d@test>" {
		t.Fatalf("changed body: %+v", hits)
	}
	if n := count(t, x, `SELECT count(*) FROM mail_fts_docsize`); n != 4 {
		t.Fatalf("%d full-text rows after an update", n)
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// fakeConn delivers msgs from its cursor (an index into msgs) and fails
// after failAfter deliveries if failAfter > 0.
type fakeConn struct {
	msgs      []mail.Message
	failAfter int
	calls     []string // cursors it was called with
}

var errCut = errors.New("connection cut")

func (f *fakeConn) Sync(ctx context.Context, cursor string, fn func(mail.Message) error) (string, error) {
	f.calls = append(f.calls, cursor)
	start := 0
	fmt.Sscan(cursor, &start)
	for i := start; i < len(f.msgs); i++ {
		if f.failAfter > 0 && i-start == f.failAfter {
			return "", errCut
		}
		if err := fn(f.msgs[i]); err != nil {
			return "", err
		}
	}
	return fmt.Sprint(len(f.msgs)), nil
}

func (f *fakeConn) CreateDraft(context.Context, mail.Draft) (mail.DraftRef, error) {
	return mail.DraftRef{}, errors.New("not supported")
}
func (f *fakeConn) Close() error { return nil }

func TestSyncInterruptedRepeatsSafely(t *testing.T) {
	ctx := t.Context()
	x := newTestIndex(t)
	a := addAccount(t, x, "me@firm.com")
	var msgs []mail.Message
	for i := range 450 {
		if i%3 == 0 {
			msgs = append(msgs, msg(fmt.Sprint("m", i), fmt.Sprint("Matter ", i), "bob@x.com", i%50))
		} else {
			root := fmt.Sprint("m", i-i%3)
			msgs = append(msgs, msg(fmt.Sprint("m", i), fmt.Sprint("RE: Matter ", i-i%3), "carol@y.com", i%50, root))
		}
	}
	conn := &fakeConn{msgs: msgs, failAfter: 430}
	var progress []int
	n, err := x.Sync(ctx, a.ID, conn, func(done, total int) { progress = append(progress, done) })
	if !errors.Is(err, errCut) {
		t.Fatalf("sync: %d, %v", n, err)
	}
	if n != 2*BatchSize || !slices.Equal(progress, []int{200, 400}) {
		t.Fatalf("applied %d, progress %v", n, progress)
	}
	if acc, _ := x.Account(ctx, a.ID); acc.Cursor != "" || !acc.LastSync.IsZero() {
		t.Fatalf("cursor stored after a failed sync: %+v", acc)
	}
	conn.failAfter = 0
	if n, err = x.Sync(ctx, a.ID, conn, nil); err != nil || n != 450 {
		t.Fatalf("repeat: %d, %v", n, err)
	}
	st, err := x.Stats(ctx)
	if err != nil || st.Messages != 450 || st.Threads != 150 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	// And again: the cursor says there is nothing new.
	if n, err = x.Sync(ctx, a.ID, conn, nil); err != nil || n != 0 {
		t.Fatalf("third: %d, %v", n, err)
	}
	if !slices.Equal(conn.calls, []string{"", "", "450"}) {
		t.Fatalf("cursors %q", conn.calls)
	}
	if acc, _ := x.Account(ctx, a.ID); acc.Cursor != "450" || acc.LastSync.IsZero() {
		t.Fatalf("account after sync: %+v", acc)
	}
}

func TestSyncOneAtATime(t *testing.T) {
	ctx := t.Context()
	x := newTestIndex(t)
	a := addAccount(t, x, "me@firm.com")
	block := make(chan struct{})
	started := make(chan struct{})
	conn := &blockingConn{started: started, block: block}
	done := make(chan error)
	go func() { _, err := x.Sync(ctx, a.ID, conn, nil); done <- err }()
	<-started
	if _, err := x.Sync(ctx, a.ID, &fakeConn{}, nil); !errors.Is(err, ErrSyncRunning) {
		t.Fatalf("second sync: %v", err)
	}
	close(block)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

type blockingConn struct {
	fakeConn
	started, block chan struct{}
}

func (b *blockingConn) Sync(ctx context.Context, cursor string, fn func(mail.Message) error) (string, error) {
	close(b.started)
	<-b.block
	return "x", nil
}

func TestRemoveAccountDeletesItsMail(t *testing.T) {
	ctx := t.Context()
	x := newTestIndex(t)
	a := addAccount(t, x, "me@firm.com")
	b := addAccount(t, x, "me@home.org")
	applyT(t, x, a.ID, msg("a1", "Estoppel", "bob@x.com", 1), msg("a2", "RE: Estoppel", "me@firm.com", 2, "a1"))
	applyT(t, x, b.ID, msg("b1", "Estoppel", "bob@x.com", 1))
	if hits := search(t, x, SearchQuery{Query: "estoppel"}); len(hits) != 2 {
		t.Fatalf("before: %d hits", len(hits))
	}
	if err := x.RemoveAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{
		`SELECT count(*) FROM mail_messages`:    1,
		`SELECT count(*) FROM mail_threads`:     1,
		`SELECT count(*) FROM mail_refs`:        1,
		`SELECT count(*) FROM mail_fts_docsize`: 1,
		`SELECT count(*) FROM mail_accounts`:    1,
	} {
		if n := count(t, x, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
	if hits := search(t, x, SearchQuery{Query: "estoppel"}); len(hits) != 1 || hits[0].AccountID != b.ID {
		t.Fatalf("after: %+v", hits)
	}
	if err := x.RemoveAccount(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("removing again: %v", err)
	}
	if _, err := x.Account(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("account: %v", err)
	}
	if err := x.Apply(ctx, a.ID, []mail.Message{msg("z", "Z", "bob@x.com", 1)}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("apply to a removed account: %v", err)
	}
}

func TestAccounts(t *testing.T) {
	ctx := t.Context()
	x := newTestIndex(t)
	x.now = func() time.Time { return t0 }
	a, err := x.AddAccount(ctx, Account{Kind: KindMaildir, Name: "Local", Address: " Dana@Firm.com ",
		Aliases: []string{"dana@firm.com", "dw@firm.com"}, Config: json.RawMessage(`{"path":"/home/dana/Maildir"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if a.Address != "dana@firm.com" || !slices.Equal(a.Aliases, []string{"dw@firm.com"}) || !a.Created.Equal(t0) {
		t.Fatalf("added %+v", a)
	}
	got, err := x.Account(ctx, a.ID)
	if err != nil || got.Address != a.Address || string(got.Config) != `{"path":"/home/dana/Maildir"}` || !slices.Equal(got.Aliases, a.Aliases) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if err := x.SetCursor(ctx, a.ID, "c1"); err != nil {
		t.Fatal(err)
	}
	all, err := x.Accounts(ctx)
	if err != nil || len(all) != 1 || all[0].Cursor != "c1" || !all[0].LastSync.Equal(t0) {
		t.Fatalf("accounts %+v, %v", all, err)
	}
	for _, bad := range []Account{
		{Kind: "pop3"},
		{Kind: KindIMAP, Config: json.RawMessage(`{"host":"imap.x.com","Password":"hunter2"}`)},
		{Kind: KindGmail, Config: json.RawMessage(`{"refresh_token":"x"}`)},
		{Kind: KindIMAP, Config: json.RawMessage(`[1]`)},
	} {
		if _, err := x.AddAccount(ctx, bad); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("AddAccount(%+v): %v", bad, err)
		}
	}
	if err := x.SetCursor(ctx, 99, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("cursor of a missing account: %v", err)
	}
	if err := x.Apply(ctx, a.ID, []mail.Message{{Subject: "no id"}}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("message without RemoteID: %v", err)
	}
}

func TestSearchAndRead(t *testing.T) {
	x := newTestIndex(t)
	a := addAccount(t, x, "dana@firm.com", "dw@firm.com")
	root := msg("r", "Estoppel Certificate – 44 Pine Street", "gellison@ellisonmarsh.com", 1)
	root.From.Name = "Grant Ellison"
	root.Body = "Dana,\n\nAttached is the form of tenant estoppel certificate the lender requires.\n"
	reply := msg("s", "RE: Estoppel Certificate – 44 Pine Street", "dw@firm.com", 2, "r")
	reply.Body = "Grant,\n\nCorvid's comments are attached; paragraph 7 needs a knowledge qualifier.\n\n" +
		"-----Original Message-----\nFrom: Grant Ellison\nSent: Monday\n\nDana,\n\nAttached is the form of tenant estoppel certificate.\n"
	draft := msg("d", "RE: Estoppel Certificate – 44 Pine Street", "dana@firm.com", 5, "r", "s")
	draft.Draft, draft.Body = true, "Draft reply about the rent commencement.\n"
	news := msg("n", "Property Law Daily: SNDA ruling", "no-reply@news.example.com", 3)
	news.Headers = map[string]string{"list-unsubscribe": "<https://x>", "precedence": "bulk"}
	news.Body = "The appellate court ruled on an SNDA.\n"
	other := msg("o", "Rent commencement – Brooklyn Gardens", "mhoward@greenleaf.com", 4)
	other.From.Name = "Marcy Howard"
	other.Body = "Can you look at Section 3.2 on rent commencement and the loading dock?\n"
	applyT(t, x, a.ID, root, reply, draft, news, other)

	hits := search(t, x, SearchQuery{Subject: "RE: Estoppel Certificate - 44 Pine Street"})
	if len(hits) != 1 {
		t.Fatalf("subject: %+v", hits)
	}
	h := hits[0]
	if h.Match != MatchSubject || h.MessageCount != 3 || h.Drafts != 1 || h.Latest.MessageID != "<s@test>" || !h.LatestFromMe {
		t.Fatalf("hit %+v", h)
	}
	if !strings.HasPrefix(h.Latest.Snippet, "Grant, Corvid's comments are attached") || strings.Contains(h.Latest.Snippet, "Original") {
		t.Fatalf("snippet %q", h.Latest.Snippet)
	}
	for _, q := range []SearchQuery{
		{Sender: "Grant Ellison"}, {Sender: "grant"}, {Sender: "gellison@ellisonmarsh.com"},
		{Sender: "gellison@ellisonmarsh.corn"}, // misread top-level domain
		{Query: "knowledge qualifier"}, {Query: `"estoppel certificate" lender`},
		{Query: "Estoppel", Sender: "Grant"}, {Subject: "Estoppel Certificate – 44 Pi…"},
		{Subject: "Estoppel Certifcate — 44 Pine Street"}, // OCR
	} {
		hits := search(t, x, q)
		if len(hits) == 0 || hits[0].ThreadID != h.ThreadID {
			t.Errorf("%+v: %s", q, hitSubjects(hits))
		}
	}
	// Only the new text of a reply is indexed: the quoted history does
	// not make the reply match.
	if n := count(t, x, `SELECT count(*) FROM mail_fts WHERE mail_fts MATCH 'form'`); n != 1 {
		t.Errorf("quoted words: %d messages match", n)
	}
	if hits := search(t, x, SearchQuery{Subject: "Estoppel Certificate – 44 Pine Street", Sender: "Marcy"}); len(hits) != 0 {
		t.Errorf("subject and another sender: %s", hitSubjects(hits))
	}
	if hits := search(t, x, SearchQuery{Query: "nonexistentword"}); len(hits) != 0 {
		t.Errorf("no such word: %s", hitSubjects(hits))
	}
	// Many words, not all in one message: ranked by any.
	hits = search(t, x, SearchQuery{Query: "rent commencement loading dock zebra"})
	if len(hits) == 0 || hits[0].Subject != other.Subject || hits[0].Match != MatchTextAny {
		t.Errorf("any word: %s", hitSubjects(hits))
	}
	hits = search(t, x, SearchQuery{Query: "SNDA"})
	if len(hits) != 1 || !hits[0].Latest.Bulk || hits[0].Latest.Snippet != "The appellate court ruled on an SNDA." {
		t.Errorf("newsletter: %+v", hits)
	}
	hits = search(t, x, SearchQuery{Limit: 2})
	if len(hits) != 2 || hits[0].Match != MatchRecent || hits[0].Subject != other.Subject {
		t.Errorf("recent: %s", hitSubjects(hits))
	}
	if hits := search(t, x, SearchQuery{Query: "estoppel", AccountID: a.ID + 1}); len(hits) != 0 {
		t.Errorf("other account: %s", hitSubjects(hits))
	}

	th, err := x.ReadEmailThread(t.Context(), h.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Messages) != 3 || th.Messages[0].MessageID != "<r@test>" || th.Messages[2].MessageID != "<d@test>" || !th.Messages[2].Draft {
		t.Fatalf("thread %+v", th)
	}
	m := th.Messages[1]
	if !m.FromMe || m.InReplyTo != "<r@test>" || !strings.HasSuffix(m.Body, "knowledge qualifier.\n\n") ||
		!strings.HasPrefix(m.Quoted, "-----Original Message-----") || m.Body+m.Quoted != reply.Body {
		t.Fatalf("reply %+v", m)
	}
	if _, err := x.ReadEmailThread(t.Context(), 9999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing thread: %v", err)
	}
}

func TestSearchLatestIgnoresDrafts(t *testing.T) {
	x := newTestIndex(t)
	a := addAccount(t, x, "dana@firm.com")
	in := msg("i", "Question", "bob@x.com", 1)
	d := msg("d", "RE: Question", "dana@firm.com", 2, "i")
	d.Draft = true
	applyT(t, x, a.ID, in, d)
	hits := search(t, x, SearchQuery{Subject: "Question"})
	if len(hits) != 1 || hits[0].LatestFromMe || hits[0].Latest.MessageID != "<i@test>" || hits[0].Drafts != 1 {
		t.Fatalf("%+v", hits)
	}
}
