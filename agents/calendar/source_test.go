package calendar

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

func TestSubscriptionURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"webcal://p01-calendars.icloud.com/published/2/abc", "https://p01-calendars.icloud.com/published/2/abc"},
		{"WEBCALS://cal.example/x.ics", "https://cal.example/x.ics"},
		{" https://cal.example/x.ics ", "https://cal.example/x.ics"},
		{"http://127.0.0.1:8080/a.ics", "http://127.0.0.1:8080/a.ics"},
	}
	for _, tt := range tests {
		got, err := SubscriptionURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("SubscriptionURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"ftp://x/a.ics", "/home/a.ics", "webcal://"} {
		if _, err := SubscriptionURL(bad); err == nil {
			t.Errorf("SubscriptionURL(%q) accepted", bad)
		}
	}
}

// feed is a subscription server: it serves body with an ETag and a
// Last-Modified, answers 304 to a matching conditional GET, and counts.
type feed struct {
	mu        sync.Mutex
	body      string
	etag      string
	modified  time.Time
	full, not int
	lastIfNM  string
	lastIfMS  string
}

func (f *feed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastIfNM, f.lastIfMS = r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
	if (f.lastIfNM != "" && f.lastIfNM == f.etag) || (f.lastIfNM == "" && f.lastIfMS == f.modified.UTC().Format(http.TimeFormat)) {
		f.not++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	f.full++
	w.Header().Set("Content-Type", "text/calendar")
	w.Header().Set("ETag", f.etag)
	w.Header().Set("Last-Modified", f.modified.UTC().Format(http.TimeFormat))
	w.Write([]byte(f.body))
}

func (f *feed) set(body, etag string, mod time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.body, f.etag, f.modified = body, etag, mod
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

const subscribed = `BEGIN:VEVENT
UID:series@x
DTSTAMP:20260101T000000Z
SUMMARY:Weekly with Marcy
DTSTART;TZID="Eastern Standard Time":20260601T100000
DTEND;TZID="Eastern Standard Time":20260601T103000
RRULE:FREQ=WEEKLY;BYDAY=MO
ORGANIZER:mailto:marcy@gl.com
ATTENDEE;PARTSTAT=ACCEPTED:mailto:dana@hr.com
END:VEVENT
BEGIN:VEVENT
UID:series@x
DTSTAMP:20260101T000000Z
RECURRENCE-ID;TZID="Eastern Standard Time":20260615T100000
DTSTART;TZID="Eastern Standard Time":20260616T150000
DTEND;TZID="Eastern Standard Time":20260616T153000
SUMMARY:Weekly with Marcy (Tuesday)
END:VEVENT
BEGIN:VEVENT
UID:floating@x
SUMMARY:Lunch
DTSTART:20260615T123000
DTEND:20260615T133000
END:VEVENT`

func TestSubscriptionSync(t *testing.T) {
	ctx := context.Background()
	f := &feed{}
	mod := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	f.set(calendarOf(t, nyZone+subscribed), `"v1"`, mod)
	srv := httptest.NewServer(f)
	defer srv.Close()
	st := openStore(t)
	c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarURL, Source: srv.URL + "/dana.ics"})
	if err != nil {
		t.Fatal(err)
	}
	opt := SyncOptions{HTTP: srv.Client()}
	res, err := Sync(ctx, st, c, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 3 || res.Unchanged {
		t.Fatalf("first sync %+v, want 3 events", res)
	}
	c, _ = st.Calendar(ctx, c.ID)
	if c.ETag != `"v1"` || c.Modified == "" || c.LastSync.IsZero() {
		t.Fatalf("validators not kept: %+v", c)
	}

	// Unchanged: a 304, the events stay.
	res, err = Sync(ctx, st, c, opt)
	if err != nil || !res.Unchanged {
		t.Fatalf("second sync %+v, %v; want unchanged", res, err)
	}
	if f.lastIfNM != `"v1"` || f.not != 1 {
		t.Errorf("conditional GET sent If-None-Match %q (304s: %d)", f.lastIfNM, f.not)
	}
	if n, _ := st.CountCalendarEvents(ctx, c.ID); n != 3 {
		t.Errorf("after a 304 the calendar has %d events, want 3", n)
	}

	// Expanded from the store: the override moved the 15th to the 16th,
	// and the floating lunch is read in the reader's zone.
	ny, _ := time.LoadLocation("America/New_York")
	from := time.Date(2026, 6, 15, 0, 0, 0, 0, ny)
	occs, err := Upcoming(ctx, st, from, from.Add(48*time.Hour), ny)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range occs {
		got = append(got, o.Start.In(ny).Format("Jan 2 15:04")+" "+o.Summary)
		if o.Calendar != c.ID {
			t.Errorf("occurrence without its calendar id: %+v", o)
		}
	}
	want := "Jun 15 12:30 Lunch|Jun 16 15:00 Weekly with Marcy (Tuesday)"
	if strings.Join(got, "|") != want {
		t.Errorf("upcoming = %q, want %q", strings.Join(got, "|"), want)
	}

	// Changed: a new ETag brings the new content; the override is gone.
	f.set(calendarOf(t, nyZone+strings.Split(subscribed, "BEGIN:VEVENT\nUID:series@x\nDTSTAMP:20260101T000000Z\nRECURRENCE-ID")[0]), `"v2"`, mod.Add(time.Hour))
	c, _ = st.Calendar(ctx, c.ID)
	if res, err = Sync(ctx, st, c, opt); err != nil || res.Events != 1 {
		t.Fatalf("third sync %+v, %v; want 1 event", res, err)
	}

	// A failing server: the error is kept, the events too.
	f.set("not a calendar", `"v3"`, mod.Add(2*time.Hour))
	c, _ = st.Calendar(ctx, c.ID)
	if _, err := Sync(ctx, st, c, opt); err == nil {
		t.Fatal("a broken calendar synced")
	}
	c, _ = st.Calendar(ctx, c.ID)
	if c.LastError == "" {
		t.Error("the sync error was not recorded")
	}
	if n, _ := st.CountCalendarEvents(ctx, c.ID); n != 1 {
		t.Errorf("after a failed sync the calendar has %d events, want 1", n)
	}
}

func TestFetchURLLastModifiedOnly(t *testing.T) {
	f := &feed{}
	mod := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	f.set(calendarOf(t, subscribed), "", mod)
	srv := httptest.NewServer(f)
	defer srv.Close()
	got, err := FetchURL(context.Background(), srv.Client(), srv.URL, Validators{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FetchURL(context.Background(), srv.Client(), srv.URL, got.Valid)
	if !errors.Is(err, ErrNotModified) || f.lastIfMS != mod.Format(http.TimeFormat) {
		t.Fatalf("second fetch err %v with If-Modified-Since %q", err, f.lastIfMS)
	}
}

func TestFileSync(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	path := filepath.Join(t.TempDir(), "work.ics")
	if err := os.WriteFile(path, []byte(calendarOf(t, nyZone+subscribed)), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarFile, Source: path})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := Sync(ctx, st, c, SyncOptions{}); err != nil || res.Events != 3 {
		t.Fatalf("file sync %+v, %v", res, err)
	}
	other := filepath.Join(t.TempDir(), "gone.ics")
	gone, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarFile, Source: other})
	if err != nil {
		t.Fatal(err)
	}
	res, errs, err := SyncAll(ctx, st, SyncOptions{})
	if err != nil || res[c.ID].Events != 3 || errs[c.ID] != nil || errs[gone.ID] == nil {
		t.Fatalf("SyncAll = %v, %v, %v: want the file synced and the missing one failed", res, errs, err)
	}
	os.Remove(path)
	if _, err := Sync(ctx, st, c, SyncOptions{}); err == nil {
		t.Fatal("a missing file synced")
	}
	if err := st.RemoveCalendar(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.CountCalendarEvents(ctx, c.ID); n != 0 {
		t.Errorf("removing the calendar left %d events", n)
	}
}
