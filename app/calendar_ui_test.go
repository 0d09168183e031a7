package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/store"
)

func TestCalendarNote(t *testing.T) {
	for _, tc := range []struct {
		name    string
		syncing bool
		failing []string
		want    string
	}{
		{"quiet", false, nil, ""},
		{"syncing", true, nil, "Syncing calendars…"},
		{"syncing hides failures until it ends", true, []string{"Work"}, "Syncing calendars…"},
		{"one failing", false, []string{"Work"}, "Calendar ‘Work’ not syncing"},
		{"two failing", false, []string{"Work", "Home"}, "Calendars ‘Work’ and ‘Home’ not syncing"},
		{"many failing", false, []string{"A", "B", "C"}, "3 calendars not syncing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := calendarNote(tc.syncing, tc.failing); got != tc.want {
				t.Errorf("calendarNote = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCalendarHealthState(t *testing.T) {
	one := []store.Calendar{{ID: 1, Name: "Work"}}
	for _, tc := range []struct {
		name          string
		cals          []store.Calendar
		syncing       bool
		state, detail string
		wantState     string
	}{
		{"ok", one, false, "ok", "1 calendar", "ok"},
		{"syncing", one, true, "ok", "1 calendar", "syncing"},
		{"an error stays an error while syncing", one, true, "error", "Work: …", "error"},
		{"none is none", nil, true, "none", "no calendars", "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := calendarHealthState(tc.cals, tc.syncing, tc.state, tc.detail); got != tc.wantState {
				t.Errorf("state %q, want %q", got, tc.wantState)
			}
		})
	}
}

// TestCalendarTrayLine: the tray line says "Syncing calendars…" while a
// round runs, then names the calendar whose sync failed; a calendar
// removed while the round was reading it is not named afterwards (it came
// back as "not syncing" in an earlier build), and the failing one is
// shown in plain words on the page.
func TestCalendarTrayLine(t *testing.T) {
	clock := &testClock{t: time.Now()}
	c, st := newClockedCore(t, clock)
	ctx := context.Background()

	reading := make(chan struct{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(reading)
		<-release
		http.Error(w, "gone", http.StatusInternalServerError)
	}))
	defer srv.Close()
	slow, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarURL, Source: srv.URL + "/slow.ics", Name: "Slow"})
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "home.ics")
	if _, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarFile, Source: missing, Name: "Home"}); err != nil {
		t.Fatal(err)
	}

	done := make(chan struct{})
	go func() { c.calendar.sync(ctx, false); close(done) }()
	<-reading
	if got := c.Status().Line(); !strings.Contains(got, "Syncing calendars…") {
		t.Errorf("tray line during the sync %q, want it to say Syncing calendars…", got)
	}
	if err := c.RemoveCalendar(ctx, slow.ID); err != nil {
		t.Fatal(err)
	}
	close(release)
	<-done

	line := c.Status().Line()
	if !strings.Contains(line, "Calendar ‘Home’ not syncing") || strings.Contains(line, "Slow") || strings.Contains(line, "Syncing") {
		t.Errorf("tray line after the sync %q, want only Home named as not syncing", line)
	}
	infos, err := c.Calendars(ctx)
	if err != nil || len(infos) != 1 || !strings.Contains(infos[0].Problem, "file is not there any more") {
		t.Fatalf("Calendars: %+v, %v", infos, err)
	}

	// The file comes back: added again, it syncs, and the line is quiet.
	if err := os.WriteFile(missing, []byte(strings.ReplaceAll("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//t//t//EN\nEND:VCALENDAR\n", "\n", "\r\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveCalendar(ctx, infos[0].ID); err != nil {
		t.Fatal(err)
	}
	added, err := c.AddCalendar(ctx, calendar.NewCalendar{Kind: store.CalendarFile, Source: missing}, nil)
	if err != nil || len(added) != 1 || added[0].Err != nil || added[0].Calendar.Name != "home" {
		t.Fatalf("AddCalendar: %+v, %v", added, err)
	}
	if line := c.Status().Line(); strings.Contains(line, "alendar") {
		t.Errorf("tray line %q, want nothing about calendars", line)
	}
}

func TestDocumentOf(t *testing.T) {
	for _, tc := range []struct {
		id     string
		want   int64
		wantOK bool
	}{
		{documentIdentifier(12), 12, true},
		{"document-0", 0, false},
		{"document-x", 0, false},
		{"nudge-12", 0, false},
	} {
		if got, ok := DocumentOf(tc.id); got != tc.want || ok != tc.wantOK {
			t.Errorf("DocumentOf(%q) = %d, %v; want %d, %v", tc.id, got, ok, tc.want, tc.wantOK)
		}
	}
}
