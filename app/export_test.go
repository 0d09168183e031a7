package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/settings"
)

// The export is the whole world log, oldest first, one entry a line in
// the plain-text format, across page boundaries, whatever the page size.
func TestExportActivity(t *testing.T) {
	ctx := context.Background()
	_, st := newTestParts(t, t.TempDir())
	for i := range 5 {
		if _, err := st.AppendEvent(ctx, store.Event{Source: "user", Identifier: fmt.Sprintf("n-%d", i),
			Text: fmt.Sprintf("entry %d\nwith a second line", i)}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := st.Since(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, e := range all {
		fmt.Fprintln(&want, e)
	}
	for _, page := range []int{1, 2, 5, 1000} {
		t.Run(fmt.Sprintf("page %d", page), func(t *testing.T) {
			var b bytes.Buffer
			n, err := exportActivity(ctx, st, &b, page)
			if err != nil || n != len(all) {
				t.Fatalf("exported %d, %v; want %d", n, err, len(all))
			}
			if b.String() != want.String() {
				t.Errorf("export:\n%s\nwant:\n%s", b.String(), want.String())
			}
			if lines := strings.Count(b.String(), "\n"); lines != len(all) {
				t.Errorf("%d lines, want one an entry (%d)", lines, len(all))
			}
		})
	}
}

// Activity retention: nothing is deleted until the lawyer sets how long
// activity is kept; then the events older than that go, but for the
// reminders' and the agents' history, and the deletion is recorded.
func TestCompactActivity(t *testing.T) {
	ctx := context.Background()
	c, st := newTestCore(t, t.TempDir())
	longAgo := time.Now().AddDate(0, 0, -100)
	st.Now = func() time.Time { return longAgo }
	for _, ev := range []store.Event{
		{Source: "screen", Identifier: "w-1", Text: "switched to Outlook"},
		{Source: "user", Identifier: "nudge-1", Text: "dismiss"},
		{Source: "user", Identifier: store.ReminderIdentifier(1), Text: "set: call Marcy Howard"},
	} {
		if _, err := st.AppendEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.AppendAgent(ctx, store.AgentRecord{Status: store.StatusStart, Session: "task-1", Text: "draft", Need: "a draft"}); err != nil {
		t.Fatal(err)
	}
	st.Now = time.Now

	if n, err := c.compactActivity(ctx); err != nil || n != 0 {
		t.Fatalf("with activity kept forever: deleted %d, %v", n, err)
	}
	if _, err := c.UpdateSettings(ctx, "test", func(s *settings.Settings) { s.WorldKeepDays = 90 }); err != nil {
		t.Fatal(err)
	}
	if n, err := c.compactActivity(ctx); err != nil || n != 2 {
		t.Fatalf("kept 90 days: deleted %d, %v; want the 2 old events not about a reminder", n, err)
	}
	var b bytes.Buffer
	if _, err := ExportActivity(ctx, st, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"set: call Marcy Howard", "[agent:start][task-1]", "deleted 2 activity entries older than 90 days"} {
		if !strings.Contains(out, want) {
			t.Errorf("activity after compaction lacks %q:\n%s", want, out)
		}
	}
	for _, gone := range []string{"switched to Outlook", "[nudge-1] dismiss"} {
		if strings.Contains(out, gone) {
			t.Errorf("activity after compaction still holds %q", gone)
		}
	}
}
