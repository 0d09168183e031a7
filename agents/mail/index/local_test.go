package index

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/mbox"
)

// TestSyncMboxTwiceAndTombstones syncs a case mailbox through the mbox
// connector: a second sync changes nothing, and a message removed from
// the file is removed from the index and its thread.
func TestSyncMboxTwiceAndTombstones(t *testing.T) {
	src := filepath.Join(casesDir, "snda-needs-reply", "mailbox.mbox")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("no case mailbox: %v", err)
	}
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "Inbox")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	x := newTestIndex(t)
	acc, err := x.AddAccount(ctx, Account{Kind: KindMbox, Address: "dana.whitfield@hartleyross.com", Aliases: []string{"dwhitfield@hartleyross.com"}})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMbox(path, mbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n1, err := x.Sync(ctx, acc.ID, conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := x.Stats(ctx)
	g1 := groups(t, x, acc.ID)
	n2, err := x.Sync(ctx, acc.ID, conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := x.Stats(ctx)
	if n2 != 0 || s2.Messages != s1.Messages || s2.Threads != s1.Threads || groups(t, x, acc.ID) != g1 {
		t.Fatalf("second sync: %d applied, stats %+v then %+v", n2, s1, s2)
	}
	// A cleared cursor re-reads the file but re-sends nothing indexed.
	if err := x.SetCursor(ctx, acc.ID, ""); err != nil {
		t.Fatal(err)
	}
	if n, err := x.Sync(ctx, acc.ID, conn, nil); err != nil || n != 0 {
		t.Fatalf("re-read: %d, %v", n, err)
	}

	// Remove the latest SNDA message from the file.
	const latest = "<PH0PR08MB25269AAA75C6ABF07B6EA18FD871C4F5CFC7@PH0PR08MB2526.namprd08.prod.outlook.com>"
	i := bytes.Index(data, []byte("Message-ID: "+latest))
	start := bytes.LastIndex(data[:i], []byte("\nFrom ")) + 1
	cut := bytes.Clone(data[:start])
	if end := bytes.Index(data[i:], []byte("\nFrom ")); end >= 0 {
		cut = append(cut, data[i+end+1:]...)
	}
	if err := os.WriteFile(path, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	os.Chtimes(path, st.ModTime().Add(time.Second), st.ModTime().Add(time.Second))
	n3, err := x.Sync(ctx, acc.ID, conn, nil)
	if err != nil || n3 != 1 {
		t.Fatalf("after the removal: %d applied, %v", n3, err)
	}
	s3, _ := x.Stats(ctx)
	if s3.Messages != n1-1 || s3.Threads != s1.Threads {
		t.Fatalf("stats %+v", s3)
	}
	hits := search(t, x, SearchQuery{Subject: "SNDA - Brooklyn Gardens"})
	if len(hits) != 1 || hits[0].Latest.MessageID == latest || !hits[0].LatestFromMe {
		t.Fatalf("thread after the removal: %+v", hits)
	}
}

// TestMaildirDraftJoinsItsThread syncs a Maildir, saves a reply draft
// through the connector and syncs again: the draft is in the thread,
// counted as a draft, and not taken for the user's answer.
func TestMaildirDraftJoinsItsThread(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	for _, d := range []string{"cur", "new", "tmp"} {
		os.MkdirAll(filepath.Join(root, d), 0o700)
	}
	os.WriteFile(filepath.Join(root, "new", "1718000000.M1P1.host"), []byte("Message-ID: <q@x>\nDate: Thu, 18 Jun 2026 09:47:18 -0400\n"+
		"From: Marcy Howard <mhoward@greenleafmarkets.com>\nTo: Dana <dana@firm.com>\nSubject: SNDA - Brooklyn Gardens\n\nCan you give me your read before 2:00?\n"), 0o600)
	x := newTestIndex(t)
	acc, err := x.AddAccount(ctx, Account{Kind: KindMaildir, Address: "dana@firm.com"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMaildir(root, mbox.Options{From: mail.Address{Name: "Dana", Email: "dana@firm.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := x.Sync(ctx, acc.ID, conn, nil); err != nil || n != 1 {
		t.Fatalf("first sync: %d, %v", n, err)
	}
	hit := search(t, x, SearchQuery{Subject: "RE: SNDA - Brooklyn Gardens"})[0]
	th, err := x.ReadEmailThread(ctx, hit.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	last := th.Messages[len(th.Messages)-1]
	ref, err := conn.CreateDraft(ctx, mail.Draft{
		To: []mail.Address{last.From}, Subject: "RE: " + th.Subject, Body: "Marcy,\n\nYes: 4.2(b) as drafted wipes out the offset.\n",
		InReplyTo: last.MessageID, References: append(last.References, last.MessageID),
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := x.Sync(ctx, acc.ID, conn, nil); err != nil || n != 1 {
		t.Fatalf("sync after the draft: %d, %v", n, err)
	}
	hits := search(t, x, SearchQuery{Subject: "SNDA - Brooklyn Gardens"})
	if len(hits) != 1 || hits[0].MessageCount != 2 || hits[0].Drafts != 1 || hits[0].LatestFromMe || hits[0].Latest.MessageID != "<q@x>" {
		t.Fatalf("thread with the draft: %+v", hits)
	}
	th, _ = x.ReadEmailThread(ctx, hits[0].ThreadID)
	if d := th.Messages[1]; !d.Draft || d.MessageID != ref.MessageID || d.RemoteID != ref.RemoteID || d.InReplyTo != "<q@x>" || d.Folder != "Drafts" {
		t.Fatalf("draft in the thread: %+v", d)
	}
}
