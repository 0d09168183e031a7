package store

import (
	"database/sql"
	"strings"
	"testing"
	"time"
)

// CompactWorld deletes the events older than the cut-off and keeps the
// agents' lifecycles, the reminders' events and everything newer; the log
// stays append-only for anyone else, and a consumer's cursor still reads
// what came after it.
func TestCompactWorld(t *testing.T) {
	s, clk := openTest(t)
	ctx := t.Context()
	oldScreen := mustAppendEvent(t, s, Event{Source: "screen", Identifier: "w-1", Text: "switched to Outlook"})
	oldReminder := mustAppendEvent(t, s, Event{Source: "user", Identifier: ReminderIdentifier(3), Text: "set: call Marcy"})
	oldAgent := mustAppendAgent(t, s, AgentRecord{Status: StatusStart, Session: "task-1", Text: "draft the reply", Need: "a draft"})
	mustAppendEvent(t, s, Event{Source: "user", Identifier: "nudge-4", Text: "dismiss"})
	if _, err := s.Check(ctx, "reader", 2); err != nil { // a consumer read the first two
		t.Fatal(err)
	}
	clk.Advance(40 * 24 * time.Hour)
	cut := clk.Now().Add(-30 * 24 * time.Hour)
	recent := mustAppendEvent(t, s, Event{Source: "screen", Identifier: "w-2", Text: "switched to Word"})

	n, err := s.CompactWorld(ctx, cut)
	if err != nil || n != 2 {
		t.Fatalf("CompactWorld = %d, %v; want the 2 old events other than the reminder's", n, err)
	}
	got, err := s.Since(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	want := []int64{oldReminder.ID, oldAgent.ID, recent.ID}
	if len(ids) != len(want) || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Errorf("log after compaction: ids %v, want %v (the old screen event %d gone)", ids, want, oldScreen.ID)
	}
	if n, err := s.CompactWorld(ctx, cut); err != nil || n != 0 {
		t.Errorf("compacting again = %d, %v; want nothing left to delete", n, err)
	}
	// The consumer goes on after what it read.
	es, err := s.Check(ctx, "reader", 10)
	if err != nil || len(es) != 2 || es[0].ID != oldAgent.ID || es[1].ID != recent.ID {
		t.Errorf("consumer after compaction: %v, %v; want the agent record and the recent event", es, err)
	}
	// Outside CompactWorld, nobody may delete: the trigger is back, as it
	// was.
	var trigger string
	if err := s.r.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'world_no_delete'`).Scan(&trigger); err != nil ||
		!strings.Contains(trigger, "append-only") {
		t.Errorf("the append-only trigger after compaction: %q, %v", trigger, err)
	}
	other := rawDB(t, s.Path())
	for _, db := range []*sql.DB{s.w, other} {
		if _, err := db.ExecContext(ctx, `DELETE FROM world`); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("a delete outside compaction: %v", err)
		}
	}
}
