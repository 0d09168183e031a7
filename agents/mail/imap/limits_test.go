package imap

import (
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/imap/imaptest"
	"github.com/spirit-app/spirit/agents/mail/mailtest"
)

// TestSyncSkipsMessagesOverTheCap: a message over the size cap, between two
// normal ones, is skipped and reported, and the two are indexed. A server
// that reports RFC822.SIZE never has to send it; one that leaves sizes out
// has it cut short by the parser. Either way it counts as synced: the
// next sync does not fetch it again.
func TestSyncSkipsMessagesOverTheCap(t *testing.T) {
	const capBytes = 64 << 10
	big := newMessage("the scanned closing binder", "<big@test>")
	big = append(big, strings.Repeat(strings.Repeat("x", 99)+"\r\n", 2*capBytes/100)...)
	for _, tc := range []struct {
		name      string
		omitSizes bool
		// bodyFetched: whether the big message's body may be downloaded.
		bodyFetched bool
	}{
		{name: "server reports sizes", omitSizes: false, bodyFetched: false},
		{name: "server leaves sizes out", omitSizes: true, bodyFetched: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := imaptest.New(t, "nadia@example.com", "pw")
			date := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
			srv.Append(t, "INBOX", newMessage("estoppel", "<a@test>"), date)
			srv.Append(t, "INBOX", big, date)
			srv.Append(t, "INBOX", newMessage("SNDA", "<b@test>"), date)
			var (
				mu         sync.Mutex
				bigFetched bool // a body FETCH asked for UID 2
			)
			srv.OnFetch(func(uids goimap.NumSet, o *goimap.FetchOptions) {
				if tc.omitSizes {
					o.RFC822Size = false
				}
				if set, ok := uids.(goimap.UIDSet); ok && len(o.BodySection) > 0 && set.Contains(2) {
					mu.Lock()
					bigFetched = true
					mu.Unlock()
				}
			})
			c := newConnector(t, Config{Host: srv.Host, Port: srv.Port, TLS: TLSNone, Username: srv.User, Password: srv.Password,
				MaxMessageBytes: capBytes, Logger: slog.New(slog.DiscardHandler)})

			res, ids := mailtest.SyncIndex(t, c)
			if len(ids) != 2 || res.Applied != 2 {
				t.Fatalf("indexed %q (%d applied), want the two normal messages", ids, res.Applied)
			}
			want := []mail.Skip{mail.TooLarge("INBOX", "UID 2", int64(len(big)), capBytes)}
			if tc.omitSizes {
				want[0] = mail.TooLarge("INBOX", "UID 2", 0, capBytes) // its size unknown
			}
			if !slices.Equal(res.Skipped, want) {
				t.Errorf("skipped %+v, want %+v", res.Skipped, want)
			}
			if got, want := res.String(), "synced 2 messages; skipped 1 too large to read (over 64 KB)"; got != want {
				t.Errorf("result %q, want %q", got, want)
			}
			mu.Lock()
			fetched := bigFetched
			mu.Unlock()
			if fetched != tc.bodyFetched {
				t.Errorf("the big message's body fetched: %v, want %v", fetched, tc.bodyFetched)
			}

			// After a sync, the next has nothing to do: the big message is
			// not fetched, delivered or reported again.
			_, cursor := collect(t, c, "")
			if got, _ := collect(t, c, cursor); len(got) != 0 || len(c.Skipped()) != 0 {
				t.Errorf("the next sync delivered %d messages and skipped %+v", len(got), c.Skipped())
			}
		})
	}
}
