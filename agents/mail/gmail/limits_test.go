package gmail_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/gmail"
	"github.com/spirit-app/spirit/agents/mail/mailtest"
)

// TestSyncSkipsMessagesOverTheCap: a message over the size cap, between two
// normal ones, is skipped and reported, and the two are indexed: one just
// over by Gmail's sizeEstimate, one far over without reading its answer
// past the cap.
func TestSyncSkipsMessagesOverTheCap(t *testing.T) {
	const capBytes = 64 << 10
	message := func(subject string, bodyBytes int) []byte {
		return fmt.Appendf(nil, "From: Bob <bob@example.com>\r\nTo: me@example.com\r\nSubject: %s\r\n"+
			"Date: Mon, 15 Jun 2026 09:00:00 +0000\r\nMessage-ID: <%s@example.com>\r\n\r\n%s\r\n",
			subject, strings.ReplaceAll(subject, " ", "."), strings.Repeat(strings.Repeat("x", 99)+"\r\n", bodyBytes/101))
	}
	for _, tc := range []struct {
		name    string
		bigBody int
		// want is the skip, with the big message's id and size filled in.
		want func(id string, size int64) mail.Skip
	}{
		{name: "just over, by its size estimate", bigBody: capBytes + 4<<10,
			want: func(id string, size int64) mail.Skip { return mail.TooLarge("INBOX", id, size, capBytes) }},
		{name: "far over, its answer cut short", bigBody: 1 << 20,
			want: func(id string, _ int64) mail.Skip { return mail.TooLarge("", id, 0, capBytes) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil, gmail.Options{MaxMessageBytes: capBytes})
			date := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
			a := e.fake.add(message("estoppel", 100), "", date, "INBOX")
			raw := message("closing binder", tc.bigBody)
			big := e.fake.add(raw, "", date, "INBOX")
			b := e.fake.add(message("SNDA", 100), "", date, "INBOX")

			res, ids := mailtest.SyncIndex(t, e.conn)
			if want := []string{a, b}; !slices.Equal(ids, want) || res.Applied != 2 {
				t.Fatalf("indexed %q (%d applied), want %q", ids, res.Applied, want)
			}
			if want := []mail.Skip{tc.want(big, int64(len(raw)))}; !slices.Equal(res.Skipped, want) {
				t.Errorf("skipped %+v, want %+v", res.Skipped, want)
			}
			if got, want := res.String(), "synced 2 messages; skipped 1 too large to read (over 64 KB)"; got != want {
				t.Errorf("result %q, want %q", got, want)
			}
		})
	}
}
