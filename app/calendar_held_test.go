package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/calendar"
)

// TestCalendarHeldAtStart: a calendar whose sync was running when Spirit
// last died is held when the part starts: the world log and the tray say
// so, the part's rounds leave it alone, and Sync now reads it again.
func TestCalendarHeldAtStart(t *testing.T) {
	ctx := context.Background()
	w := newCalendarWorld(t, edtAt(9, 0))
	cals, err := w.st.Calendars(ctx)
	if err != nil || len(cals) != 1 {
		t.Fatalf("calendars %v, %v", cals, err)
	}
	id := cals[0].ID
	// What a Spirit killed in the middle of a sync leaves.
	if err := w.st.BeginCalendarSync(ctx, id); err != nil {
		t.Fatal(err)
	}
	w.part.holdInterrupted(ctx)
	entries, err := w.st.RecentEvents(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	logged := false
	for _, e := range entries {
		logged = logged || strings.Contains(e.Text, "was skipped: it stopped Spirit last time")
	}
	if !logged {
		t.Errorf("no world-log line says the calendar was held: %+v", entries)
	}
	if note := w.part.note(); !strings.Contains(note, "Work") {
		t.Errorf("tray note %q does not name the held calendar", note)
	}
	w.part.sync(ctx, false)
	if err := w.part.Errors()[id]; !errors.Is(err, calendar.ErrHeld) {
		t.Errorf("the round's error %v, want ErrHeld", err)
	}
	if n, _ := w.st.CountCalendarEvents(ctx, id); n != 0 {
		t.Errorf("the round read the held calendar: %d events", n)
	}
	if err := w.c.SyncCalendarsNow(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := w.st.Calendar(ctx, id)
	if err != nil || c.Held || c.LastError != "" {
		t.Fatalf("after Sync now: %+v, %v", c, err)
	}
	if n, _ := w.st.CountCalendarEvents(ctx, id); n == 0 {
		t.Error("Sync now did not read the calendar")
	}
}
