package calendar

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
