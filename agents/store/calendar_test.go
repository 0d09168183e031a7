package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openCalendarStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCalendarAddListRemove(t *testing.T) {
	ctx := context.Background()
	s := openCalendarStore(t)
	a, err := s.AddCalendar(ctx, Calendar{Kind: CalendarFile, Source: "/home/dana/work.ics", Name: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.AddCalendar(ctx, Calendar{Kind: CalendarCalDAV, Source: "https://dav.example/cal/dana/", Username: "dana"})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Calendar{
		{Kind: CalendarFile, Source: "/home/dana/work.ics"}, // the same source again
		{Kind: "exchange", Source: "x"},
		{Kind: CalendarURL, Source: " "},
	} {
		if _, err := s.AddCalendar(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("AddCalendar(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	cs, err := s.Calendars(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].ID != a.ID || cs[1].Username != "dana" || !cs[0].LastSync.IsZero() {
		t.Fatalf("Calendars = %+v", cs)
	}

	start := time.Date(2026, 6, 18, 14, 30, 0, 0, time.UTC)
	ev := CalendarEvent{UID: "u1", Start: start, End: start.Add(30 * time.Minute), Until: start, Zone: "America/New_York",
		Summary: "Call", Organizer: "Dana@X.com", Attendees: []CalendarAttendee{{Email: "m@y.com", PartStat: "ACCEPTED"}}, Raw: "BEGIN:VCALENDAR"}
	if err := s.ReplaceCalendarEvents(ctx, a.ID, []CalendarEvent{ev}, CalendarSync{ETag: `"e1"`}); err != nil {
		t.Fatal(err)
	}
	other := ev
	other.UID = "u2"
	if err := s.ReplaceCalendarEvents(ctx, b.ID, []CalendarEvent{other}, CalendarSync{SyncToken: "t1"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.CalendarEvents(ctx, a.ID, start.Add(-time.Hour), start.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].UID != "u1" || got[0].Organizer != "dana@x.com" || !got[0].Start.Equal(start) ||
		len(got[0].Attendees) != 1 || got[0].Attendees[0].Email != "m@y.com" || got[0].Zone != "America/New_York" {
		t.Fatalf("CalendarEvents = %+v", got)
	}
	if c, _ := s.Calendar(ctx, a.ID); c.ETag != `"e1"` || c.LastSync.IsZero() {
		t.Fatalf("after sync: %+v", c)
	}
	if err := s.SetCalendarError(ctx, a.ID, "404 Not Found"); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Calendar(ctx, a.ID); c.LastError != "404 Not Found" || c.ErrorAt.IsZero() || c.ETag != `"e1"` {
		t.Fatalf("after error: %+v", c)
	}

	if err := s.RemoveCalendar(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountCalendarEvents(ctx, a.ID); n != 0 {
		t.Errorf("removed calendar keeps %d events", n)
	}
	if n, _ := s.CountCalendarEvents(ctx, 0); n != 1 {
		t.Errorf("other calendar has %d events, want 1", n)
	}
	if err := s.RemoveCalendar(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second remove: %v, want ErrNotFound", err)
	}
	if err := s.ReplaceCalendarEvents(ctx, a.ID, nil, CalendarSync{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("sync of a removed calendar: %v, want ErrNotFound", err)
	}
}

func TestCalendarEventsWindow(t *testing.T) {
	ctx := context.Background()
	s := openCalendarStore(t)
	c, err := s.AddCalendar(ctx, Calendar{Kind: CalendarURL, Source: "https://cal.example/a.ics"})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 6, 18, 0, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return day.Add(time.Duration(h) * time.Hour) }
	evs := []CalendarEvent{
		{UID: "past", Start: at(-48), End: at(-47), Until: at(-48), Raw: "x"},
		{UID: "today", Start: at(10), End: at(11), Until: at(10), Raw: "x"},
		{UID: "spanning", Start: at(-2), End: at(12), Until: at(-2), Raw: "x"},
		{UID: "series", Start: at(-24 * 30), End: at(-24*30 + 1), Recurring: true, Raw: "x"},
		{UID: "ended", Start: at(-24 * 30), End: at(-24*30 + 1), Until: at(-24 * 2), Recurring: true, Raw: "x"},
		{UID: "ended", RecurrenceID: at(-24 * 3), Start: at(-24 * 3), End: at(-24*3 + 1), Until: at(-24 * 3), Raw: "x"},
		{UID: "series", RecurrenceID: at(-24 * 7), Start: at(-24 * 7), End: at(-24*7 + 1), Until: at(-24 * 7), Raw: "x"},
		{UID: "later", Start: at(48), End: at(49), Until: at(48), Raw: "x"},
	}
	if err := s.ReplaceCalendarEvents(ctx, c.ID, evs, CalendarSync{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.CalendarEvents(ctx, 0, day, day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range got {
		k := e.UID
		if !e.RecurrenceID.IsZero() {
			k += "@" + e.RecurrenceID.Format("0102")
		}
		keys = append(keys, k)
	}
	want := []string{"series", "series@0611", "spanning", "today"}
	if len(keys) != len(want) {
		t.Fatalf("events in the window = %v, want %v", keys, want)
	}
	for i := range want {
		if keys[i] != want[i] {
			t.Fatalf("events in the window = %v, want %v", keys, want)
		}
	}

	// An incremental sync replaces an object's events by href and removes others.
	a := CalendarEvent{UID: "obj", Href: "/c/obj.ics", Start: at(9), End: at(10), Until: at(9), Raw: "x"}
	b := CalendarEvent{UID: "gone", Href: "/c/gone.ics", Start: at(9), End: at(10), Until: at(9), Raw: "x"}
	if err := s.UpdateCalendarEvents(ctx, c.ID, CalendarChanges{Events: []CalendarEvent{a, b}}, CalendarSync{SyncToken: "1"}); err != nil {
		t.Fatal(err)
	}
	a.Summary = "moved"
	if err := s.UpdateCalendarEvents(ctx, c.ID, CalendarChanges{Events: []CalendarEvent{a}, RemovedHref: []string{"/c/gone.ics"}}, CalendarSync{SyncToken: "2"}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.CalendarEvents(ctx, c.ID, at(8), at(11))
	n := 0
	for _, e := range got {
		switch e.UID {
		case "gone":
			t.Error("removed object still has its event")
		case "obj":
			n++
			if e.Summary != "moved" {
				t.Errorf("obj summary %q, want moved", e.Summary)
			}
		}
	}
	if n != 1 {
		t.Errorf("obj stored %d times", n)
	}
	if cal, _ := s.Calendar(ctx, c.ID); cal.SyncToken != "2" {
		t.Errorf("sync token %q, want 2", cal.SyncToken)
	}
}

// TestCloudCalendarChanges: a cloud calendar belongs to a mail account
// (and goes with it), an incremental sync removes by event id and by
// series, and only a whole sync moves FullSync.
func TestCloudCalendarChanges(t *testing.T) {
	ctx := context.Background()
	s := openCalendarStore(t)
	if _, err := s.AddCalendar(ctx, Calendar{Kind: CalendarMicrosoft, Source: "calendar"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a cloud calendar without its account: %v, want ErrInvalid", err)
	}
	if _, err := s.AddCalendar(ctx, Calendar{Kind: CalendarFile, Source: "/x.ics", Account: 1}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a file calendar with an account: %v, want ErrInvalid", err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO mail_accounts (id, kind, name, created) VALUES (7, 'graph', 'Work', 0), (8, 'gmail', 'Home', 0)`); err != nil {
		t.Fatal(err)
	}
	ms, err := s.AddCalendar(ctx, Calendar{Kind: CalendarMicrosoft, Source: "calendar", Name: "Outlook", Account: 7})
	if err != nil {
		t.Fatal(err)
	}
	// The same source for another account is another calendar.
	g, err := s.AddCalendar(ctx, Calendar{Kind: CalendarGoogle, Source: "calendar", Name: "Google", Account: 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddCalendar(ctx, Calendar{Kind: CalendarMicrosoft, Source: "calendar", Account: 7}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("the same calendar twice: %v", err)
	}
	start := time.Date(2026, 6, 18, 14, 30, 0, 0, time.UTC)
	ev := func(uid, href string, day int) CalendarEvent {
		s := start.AddDate(0, 0, day)
		e := CalendarEvent{UID: uid, Href: href, Start: s, End: s.Add(time.Hour), Until: s, Raw: "BEGIN:VCALENDAR"}
		if day > 0 {
			e.RecurrenceID = s
		}
		return e
	}
	if err := s.ReplaceCalendarEvents(ctx, ms.ID, []CalendarEvent{ev("one", "e1", 0), ev("series", "s1", 1), ev("series", "s2", 2),
		ev("series", "s3", 3)}, CalendarSync{SyncToken: "delta-1"}); err != nil {
		t.Fatal(err)
	}
	c, _ := s.Calendar(ctx, ms.ID)
	full := c.FullSync
	if full.IsZero() || c.Account != 7 || c.SyncToken != "delta-1" {
		t.Fatalf("after a whole sync: %+v", c)
	}
	moved := ev("series", "s2", 2)
	moved.Start = moved.Start.Add(time.Hour)
	if err := s.UpdateCalendarEvents(ctx, ms.ID, CalendarChanges{Events: []CalendarEvent{moved}, RemovedHref: []string{"s1"}},
		CalendarSync{SyncToken: "delta-2"}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.CalendarEvents(ctx, ms.ID, start.Add(-time.Hour), start.AddDate(0, 0, 5))
	var hrefs []string
	for _, e := range got {
		hrefs = append(hrefs, e.Href+"@"+e.Start.UTC().Format("02T15"))
	}
	if want := "e1@18T14,s2@20T15,s3@21T14"; fmt.Sprint(strings.Join(hrefs, ",")) != want {
		t.Fatalf("after the change: %v, want %s", hrefs, want)
	}
	if err := s.UpdateCalendarEvents(ctx, ms.ID, CalendarChanges{RemovedUID: []string{"series"}}, CalendarSync{SyncToken: "delta-3"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountCalendarEvents(ctx, ms.ID); n != 1 {
		t.Fatalf("%d events after the series went, want 1", n)
	}
	c, _ = s.Calendar(ctx, ms.ID)
	if !c.FullSync.Equal(full) || c.SyncToken != "delta-3" {
		t.Fatalf("an incremental sync moved FullSync or kept the old token: %+v", c)
	}
	// Removing the mail account removes its calendars and their events.
	if _, err := s.w.ExecContext(ctx, `DELETE FROM mail_accounts WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	cs, _ := s.Calendars(ctx)
	if len(cs) != 1 || cs[0].ID != g.ID {
		t.Fatalf("calendars after the account went: %+v", cs)
	}
	if n, _ := s.CountCalendarEvents(ctx, 0); n != 0 {
		t.Fatalf("%d events left", n)
	}
}

// TestCalendarMigration12 migrates a version-11 file holding a CalDAV
// calendar with an event and a removed calendar's used id: the calendar
// and its event stay, its sync token too, and the removed id is not
// handed out again.
func TestCalendarMigration12(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	db := rawDB(t, path)
	if err := MigrateTo(ctx, db, 11); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO calendars (id, kind, source, name, username, sync_token, created) VALUES (1, 'caldav', 'https://dav/x/', 'Work', 'dana', 'tok-1', 0)`,
		`INSERT INTO calendars (id, kind, source, created) VALUES (2, 'file', '/gone.ics', 0)`,
		`DELETE FROM calendars WHERE id = 2`,
		`INSERT INTO calendar_events (calendar_id, uid, starts, ends, raw) VALUES (1, 'u1', 0, 1, 'BEGIN:VCALENDAR')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.Calendar(ctx, 1)
	if err != nil || c.Name != "Work" || c.SyncToken != "tok-1" || c.Username != "dana" || c.Account != 0 {
		t.Fatalf("calendar after migration: %+v, %v", c, err)
	}
	if n, _ := s.CountCalendarEvents(ctx, 1); n != 1 {
		t.Fatalf("%d events after migration, want 1", n)
	}
	added, err := s.AddCalendar(ctx, Calendar{Kind: CalendarFile, Source: "/new.ics"})
	if err != nil || added.ID != 3 {
		t.Fatalf("a new calendar got id %d (%v), want 3", added.ID, err)
	}
	// Removing the calendar still removes its events.
	if err := s.RemoveCalendar(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountCalendarEvents(ctx, 0); n != 0 {
		t.Fatalf("%d events left after their calendar went", n)
	}
}
