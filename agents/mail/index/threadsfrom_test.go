package index

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
)

// TestThreadsFrom: exactly the address's own threads in the span, newest
// first, whatever other senders begin alike and however many there are;
// drafts and messages outside the span do not count.
func TestThreadsFrom(t *testing.T) {
	x := newTestIndex(t)
	ctx := t.Context()
	acc, err := x.AddAccount(ctx, Account{Kind: KindIMAP, Name: "Dana", Address: "dana@firm.com"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var msgs []mail.Message
	add := func(subject, from string, at time.Time, draft bool) {
		msgs = append(msgs, mail.Message{RemoteID: fmt.Sprint(len(msgs)), Folder: "INBOX", MessageID: fmt.Sprintf("<m%d@x>", len(msgs)),
			Subject: subject, From: mail.Address{Email: from}, To: []mail.Address{{Email: "dana@firm.com"}}, Date: at, Body: "b", Draft: draft})
	}
	add("Lease", "P42@Client2.com", now.Add(-2*24*time.Hour), false)
	add("Estoppel", "p42@client2.com", now.Add(-5*24*time.Hour), false)
	add("Old matter", "p42@client2.com", now.Add(-40*24*time.Hour), false)
	add("Unsent", "p42@client2.com", now.Add(-time.Hour), true)
	// Many newer messages from addresses that begin the same way.
	for i := range 120 {
		add(fmt.Sprintf("Other %d", i), fmt.Sprintf("p42%d@client2%d.com", i%10, i%10), now.Add(-time.Duration(i)*time.Minute), false)
	}
	for part := range slices.Chunk(msgs, BatchSize) {
		if err := x.Apply(ctx, acc.ID, part); err != nil {
			t.Fatal(err)
		}
	}
	subjects := func(ids []int64) []string {
		var out []string
		for _, id := range ids {
			th, err := x.ReadEmailThread(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, th.Subject)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		addr  string
		since time.Duration
		limit int
		want  []string
	}{
		{"the last 30 days, newest first", "p42@client2.com", 30 * 24 * time.Hour, 50, []string{"Lease", "Estoppel"}},
		{"any case", " P42@CLIENT2.COM ", 30 * 24 * time.Hour, 50, []string{"Lease", "Estoppel"}},
		{"a longer span", "p42@client2.com", 60 * 24 * time.Hour, 50, []string{"Lease", "Estoppel", "Old matter"}},
		{"the limit keeps the newest", "p42@client2.com", 60 * 24 * time.Hour, 1, []string{"Lease"}},
		{"nobody of that address", "p4@client2.com", 30 * 24 * time.Hour, 50, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, err := x.ThreadsFrom(ctx, tc.addr, now.Add(-tc.since), now, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := subjects(ids); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
