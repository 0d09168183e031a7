package calendar

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// TestBenchBriefDecision measures the decision a nudge waits for: expand
// the day's calendar, pick the meeting, find its open threads in the
// index and judge them.
func TestBenchBriefDecision(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs the benchmarks")
	}
	ctx := context.Background()
	dir := filepath.Join("testdata", "calendar", "two-attendees-two-threads-outlook-zone")
	var c Case
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	now, _ := time.Parse(time.RFC3339, c.Now)
	cal, err := ReadFile(filepath.Join(dir, "calendar.ics"))
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	ix := index.New(st)
	if err := loadMbox(ctx, ix, filepath.Join(dir, "mailbox.mbox"), c.ID, c.Me); err != nil {
		t.Fatal(err)
	}
	var took []time.Duration
	for range 200 {
		t0 := time.Now()
		occs, err := Occurrences(cal, now.Add(-time.Hour), now.Add(24*time.Hour), now.Location())
		if err != nil {
			t.Fatal(err)
		}
		d, err := Brief(ctx, now, c.Me, occs, MailThreads(ix, c.Me, now))
		if err != nil || !d.Nudge {
			t.Fatalf("decision %+v, %v", d, err)
		}
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	p95 := took[len(took)*95/100]
	fmt.Printf("BENCH brief_decision_ms %.2f ms\n", float64(p95.Microseconds())/1000)
}

// TestBenchOccurrencesYear measures expanding a year of a dense calendar:
// forty weekly and daily series in an Outlook zone, with overrides and
// exceptions, and two hundred one-off meetings.
func TestBenchOccurrencesYear(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs the benchmarks")
	}
	var b strings.Builder
	b.WriteString(nyZone)
	base := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i := range 40 {
		rule := "FREQ=WEEKLY;BYDAY=MO,WE,FR"
		if i%4 == 0 {
			rule = "FREQ=DAILY"
		}
		start := base.Add(time.Duration(i%9) * time.Hour)
		fmt.Fprintf(&b, "BEGIN:VEVENT\nUID:s%d\nDTSTART;TZID=\"Eastern Standard Time\":%s\nDURATION:PT30M\nRRULE:%s\nEXDATE;TZID=\"Eastern Standard Time\":%s\nATTENDEE:mailto:p%d@x.com\nEND:VEVENT\n",
			i, start.Format("20060102T150405"), rule, start.AddDate(0, 1, 2).Format("20060102T150405"), i)
		fmt.Fprintf(&b, "BEGIN:VEVENT\nUID:s%d\nRECURRENCE-ID;TZID=\"Eastern Standard Time\":%s\nDTSTART;TZID=\"Eastern Standard Time\":%s\nDURATION:PT30M\nEND:VEVENT\n",
			i, start.AddDate(0, 2, 2).Format("20060102T150405"), start.AddDate(0, 2, 2).Add(3*time.Hour).Format("20060102T150405"))
	}
	for i := range 200 {
		s := base.Add(time.Duration(i) * 41 * time.Hour)
		fmt.Fprintf(&b, "BEGIN:VEVENT\nUID:o%d\nDTSTART:%s\nDTEND:%s\nEND:VEVENT\n", i, s.Format("20060102T150405Z"), s.Add(time.Hour).Format("20060102T150405Z"))
	}
	cal, err := ParseBytes([]byte(calendarOf(t, b.String())))
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var took []time.Duration
	n := 0
	for range 20 {
		t0 := time.Now()
		occs, err := Occurrences(cal, from, from.AddDate(1, 0, 0), time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		took = append(took, time.Since(t0))
		n = len(occs)
	}
	if n < 5000 {
		t.Fatalf("only %d occurrences in a year", n)
	}
	slices.Sort(took)
	fmt.Printf("BENCH occurrences_expand_ms_1y %.1f ms\n", float64(took[len(took)/2].Microseconds())/1000)
}

// TestBenchBriefSelect measures what a meeting's brief waits on in a big
// mailbox: finding the open threads of the meeting's people (search by
// sender, read each thread, the glance's verdict) over a 50,000-message
// index on a real SQLite file. Each meeting's answer is checked against
// the threads the generator left open.
func TestBenchBriefSelect(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs the benchmarks")
	}
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	me := Me{Name: "Dana Whitfield", Addresses: []string{"dana@firm.com"}}
	gen := newMailbox(rand.New(rand.NewPCG(7, 11)), me, now, 50_000)

	st := openStore(t)
	ix := index.New(st)
	acc, err := ix.AddAccount(ctx, index.Account{Kind: index.KindIMAP, Name: me.Name, Address: me.Addresses[0]})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for part := range slices.Chunk(gen.msgs, index.BatchSize) {
		if err := ix.Apply(ctx, acc.ID, part); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("indexed %d messages in %d threads (%d open) in %v", len(gen.msgs), gen.threads, len(gen.open), time.Since(t0).Round(time.Millisecond))

	rng := rand.New(rand.NewPCG(3, 5))
	open := MailThreads(ix, me, now)
	var took []time.Duration
	found := 0
	for i := range 220 {
		addrs := []string{gen.people[rng.IntN(len(gen.people))], gen.people[rng.IntN(len(gen.people))]}
		t1 := time.Now()
		threads, err := open(ctx, addrs)
		d := time.Since(t1)
		if err != nil {
			t.Fatal(err)
		}
		if i >= 20 { // the first ones warm the page cache, as a running Spirit has it
			took = append(took, d)
		}
		var got []string
		for _, th := range threads {
			got = append(got, th.Subject)
		}
		want := gen.openOf(addrs)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("open threads of %v:\n got %q\nwant %q", addrs, got, want)
		}
		found += len(got)
	}
	if found == 0 {
		t.Fatal("no meeting had open threads: the generator left none open")
	}
	slices.Sort(took)
	p95 := took[len(took)*95/100]
	t.Logf("brief select over %d meetings: p50 %v, p95 %v; %d open threads found", len(took), took[len(took)/2], p95, found)
	fmt.Printf("BENCH brief_select_ms %.2f ms\n", float64(p95.Microseconds())/1000)
}

// mailbox is a lawyer's generated mail: threads with clients, most
// answered, some waiting on the lawyer (open), some waiting but too old
// to count.
type mailbox struct {
	msgs    []mail.Message
	people  []string
	threads int
	// open are the subjects of the open threads by sender address.
	open map[string][]string
}

func newMailbox(rng *rand.Rand, me Me, now time.Time, total int) *mailbox {
	b := &mailbox{open: map[string][]string{}}
	for i := range 500 {
		b.people = append(b.people, fmt.Sprintf("p%d@client%d.com", i, i%40))
	}
	lawyer := mail.Address{Name: me.Name, Email: me.Addresses[0]}
	for t := 0; len(b.msgs) < total; t++ {
		b.threads++
		who := b.people[rng.IntN(len(b.people))]
		them := mail.Address{Name: fmt.Sprintf("Client %s", strings.SplitN(who, "@", 2)[0]), Email: who}
		subject := fmt.Sprintf("Matter %d: lease comments", t)
		// Up to nine messages, a few hours to two days apart, none after now.
		dates := []time.Time{now.Add(-time.Duration(1+rng.IntN(720*24)) * time.Hour)}
		for n := 1 + rng.IntN(9); len(dates) < n; {
			next := dates[len(dates)-1].Add(time.Duration(1+rng.IntN(48)) * time.Hour)
			if next.After(now) {
				break
			}
			dates = append(dates, next)
		}
		n := len(dates)
		var refs []string
		for m, at := range dates {
			from, to, folder := them, lawyer, "INBOX"
			body := "Thanks, noted. I will pass this on."
			if m%2 == 1 {
				from, to, folder = lawyer, them, "Sent"
				body = "Will do; comments to follow."
			}
			last := m == n-1
			if last && m%2 == 0 {
				body = "Dana,\n\nCould you send me your comments on section 4.2 of the lease by Friday?\n\nThanks"
			}
			id := fmt.Sprintf("<t%d-m%d@bench>", t, m)
			msg := mail.Message{RemoteID: fmt.Sprintf("%s/%d-%d", folder, t, m), Folder: folder, MessageID: id,
				References: slices.Clone(refs), Subject: subject, From: from, To: []mail.Address{to}, Date: at, Body: body}
			if len(refs) > 0 {
				msg.InReplyTo = refs[len(refs)-1]
				msg.Subject = "RE: " + subject
			}
			refs = append(refs, id)
			b.msgs = append(b.msgs, msg)
			if last && m%2 == 0 && !at.Before(now.Add(-Lookback)) {
				b.open[who] = append(b.open[who], subject)
			}
		}
	}
	return b
}

// openOf is what MailThreads should find for addrs, sorted.
func (b *mailbox) openOf(addrs []string) []string {
	var out []string
	for _, a := range slices.Compact(slices.Sorted(slices.Values(addrs))) {
		out = append(out, b.open[a]...)
	}
	slices.Sort(out)
	return out
}
