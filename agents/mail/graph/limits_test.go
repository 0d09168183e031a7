package graph_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/graph"
	"github.com/spirit-app/spirit/agents/mail/mailtest"
)

// inboxMessage is a message from Bob with body.
func inboxMessage(subject, body string) mailtest.Message {
	return mailtest.Message{
		MessageID: "<" + strings.ReplaceAll(subject, " ", ".") + "@example.com>",
		Subject:   subject,
		From:      mail.Address{Name: "Bob", Email: "bob@example.com"},
		To:        []mail.Address{{Email: "me@example.com"}},
		Date:      time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC),
		Body:      body,
	}
}

// TestSyncSkipsMessagesOverTheCap: a message whose size in the mailbox
// (PidTagMessageSize, attachments included) is over the cap, between two
// normal ones, is skipped and reported, and the two are indexed, however
// Graph spells the property's id.
func TestSyncSkipsMessagesOverTheCap(t *testing.T) {
	const capBytes = 64 << 10
	for _, tc := range []struct {
		name, sizeProp string
	}{
		{"the property as asked for", "Integer 0x0E08"},
		{"the property as Graph may spell it", "integer 0xe08"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil, graph.Options{MaxMessageBytes: capBytes})
			e.fake.sizeProp = tc.sizeProp
			a := e.fake.add(inboxMessage("estoppel", "Fine.\n"), "inbox")
			big := e.fake.add(inboxMessage("closing binder", "The binder is attached.\n"), "inbox")
			e.fake.msgs[big].size = 30 << 20 // its attachments
			b := e.fake.add(inboxMessage("SNDA", "Fine too.\n"), "inbox")

			res, ids := mailtest.SyncIndex(t, e.conn)
			if want := []string{a, b}; !slices.Equal(ids, want) || res.Applied != 2 {
				t.Fatalf("indexed %q (%d applied), want %q", ids, res.Applied, want)
			}
			if want := []mail.Skip{mail.TooLarge("INBOX", big, 30<<20, capBytes)}; !slices.Equal(res.Skipped, want) {
				t.Errorf("skipped %+v, want %+v", res.Skipped, want)
			}
			if got, want := res.String(), "synced 2 messages; skipped 1 too large to read (over 64 KB)"; got != want {
				t.Errorf("result %q, want %q", got, want)
			}
		})
	}
}

// TestSyncBoundsAnswers: what one answer of Graph may cost is bounded. A
// delta page over the cap is asked for again in smaller pages, and a body
// of megabytes is cut as it streams in; either way every message comes.
func TestSyncBoundsAnswers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     graph.Options
		bodies   []int // bytes of each message's body
		wantPage string
		// maxBody is the longest body delivered.
		maxBody int
	}{
		{name: "a page over the cap comes again in smaller pages",
			opts:   graph.Options{MaxPageBytes: 300 << 10},
			bodies: []int{120 << 10, 120 << 10, 120 << 10}, wantPage: "odata.maxpagesize=1", maxBody: 120 << 10},
		{name: "a body of megabytes is cut",
			bodies: []int{100, 5 << 20, 100}, wantPage: "odata.maxpagesize=50", maxBody: 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil, tc.opts)
			var ids []string
			for i, n := range tc.bodies {
				body := strings.Repeat(strings.Repeat("word ", 19)+"\n", n/96+1)[:n]
				ids = append(ids, e.fake.add(inboxMessage("matter "+string(rune('a'+i)), body), "inbox"))
			}
			got, _ := e.sync(t, "")
			for _, id := range ids {
				m, ok := got[id]
				if !ok {
					t.Fatalf("message %s not delivered", id)
				}
				if len(m.Body) == 0 || len(m.Body) > tc.maxBody || !strings.HasPrefix(m.Body, "word word") {
					t.Errorf("message %s: body of %d bytes, want some up to %d", id, len(m.Body), tc.maxBody)
				}
			}
			if len(e.conn.Skipped()) != 0 {
				t.Errorf("skipped %+v", e.conn.Skipped())
			}
			var asked []string
			for _, r := range e.fake.log() {
				if strings.HasSuffix(r.Path, "/delta") {
					asked = append(asked, strings.Join(r.Header.Values("Prefer"), ", "))
				}
			}
			if !slices.ContainsFunc(asked, func(p string) bool { return strings.Contains(p, tc.wantPage) }) {
				t.Errorf("delta requests asked for %q, want one with %s", asked, tc.wantPage)
			}
		})
	}
}
