package calendar

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// TestAddRefusesWhatIsNotAFile: a device, a link to one, a FIFO and a
// file over the size bound are refused on the file field before anything
// is read; none of them is added.
func TestAddRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.ics")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.ics")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.ics")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: the size is what counts, and nothing is read.
	if err := f.Truncate(maxCalendarBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tt := range []struct{ name, path, want string }{
		{"device", "/dev/zero", "device or a pipe"},
		{"link to a device", link, "device or a pipe"},
		{"fifo", fifo, "device or a pipe"},
		{"over the size bound", big, "larger than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t)
			var added []store.Calendar
			within(t, 30*time.Second, func() {
				added, err = Add(context.Background(), st, nil, nil, NewCalendar{Kind: store.CalendarFile, Source: tt.path})
			})
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != FieldFile || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Add = %v, %v; want a file field error saying %q", added, err, tt.want)
			}
			if cs, _ := st.Calendars(context.Background()); len(cs) != 0 {
				t.Errorf("added %v", cs)
			}
		})
	}
}

// TestSyncRefusesWhatIsNotAFile: a calendar file replaced by a FIFO or a
// link to /dev/zero after it was added fails its sync at once.
func TestSyncRefusesWhatIsNotAFile(t *testing.T) {
	for _, replace := range []struct {
		name string
		make func(path string) error
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
	} {
		t.Run(replace.name, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t)
			p := filepath.Join(t.TempDir(), "work.ics")
			if err := os.WriteFile(p, []byte(wrapCal(okEvent)), 0o600); err != nil {
				t.Fatal(err)
			}
			added, err := Add(ctx, st, nil, nil, NewCalendar{Kind: store.CalendarFile, Source: p})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := replace.make(p); err != nil {
				t.Fatal(err)
			}
			within(t, 30*time.Second, func() { _, err = Sync(ctx, st, added[0], SyncOptions{}) })
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("Sync = %v, want not a regular file", err)
			}
		})
	}
}

// TestSyncDeadline: a subscription that sends one byte at a time, without
// end, fails its sync at the deadline with an error that says so.
func TestSyncDeadline(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/calendar")
		fl := w.(http.Flusher)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		w.Write([]byte("BEGIN:VCALENDAR\r\nX-DRIP:"))
		for {
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-tick.C:
				w.Write([]byte("x"))
				fl.Flush()
			}
		}
	}))
	defer srv.Close()
	defer close(stop)
	ctx := context.Background()
	st := openStore(t)
	c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarURL, Source: srv.URL + "/drip.ics", Name: "drip"})
	if err != nil {
		t.Fatal(err)
	}
	within(t, time.Minute, func() {
		_, err = Sync(ctx, st, c, SyncOptions{HTTP: srv.Client(), Deadline: time.Second})
	})
	if err == nil || !strings.Contains(err.Error(), "gave up after 1s") {
		t.Fatalf("Sync = %v, want it given up at the deadline", err)
	}
	got, _ := st.Calendar(ctx, c.ID)
	if !strings.Contains(got.LastError, "gave up") {
		t.Errorf("stored error %q", got.LastError)
	}
}

// TestHeldCalendar: a calendar whose sync never ended (its mark still
// set, as a killed Spirit leaves it) is held at the next start, left alone
// by the round with ErrHeld, shown with the held message, and read again
// when the lawyer asks.
func TestHeldCalendar(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	p := filepath.Join(t.TempDir(), "work.ics")
	if err := os.WriteFile(p, []byte(wrapCal(okEvent)), 0o600); err != nil {
		t.Fatal(err)
	}
	added, err := Add(ctx, st, nil, nil, NewCalendar{Kind: store.CalendarFile, Source: p})
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarFile, Source: p + ".other", Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	// A sync that ended leaves nothing to hold.
	if _, err := Sync(ctx, st, added[0], SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if held, err := HoldInterrupted(ctx, st); err != nil || len(held) != 0 {
		t.Fatalf("after a sync that ended: held %v, %v", held, err)
	}
	// The mark of a sync that never ended: Spirit died in it.
	if err := st.BeginCalendarSync(ctx, added[0].ID); err != nil {
		t.Fatal(err)
	}
	held, err := HoldInterrupted(ctx, st)
	if err != nil || len(held) != 1 || held[0].ID != added[0].ID || !held[0].Held {
		t.Fatalf("held %+v, %v; want calendar %d", held, err, added[0].ID)
	}
	if got := Plain(held[0].LastError); !strings.Contains(got, "stopped while reading this calendar") {
		t.Errorf("the lawyer reads %q", got)
	}
	results, errs, err := SyncAll(ctx, st, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(errs[added[0].ID], ErrHeld) {
		t.Errorf("the round's error for the held calendar: %v, want ErrHeld", errs[added[0].ID])
	}
	if _, ok := results[added[0].ID]; ok {
		t.Error("the round read the held calendar")
	}
	if _, ok := errs[other.ID]; !ok {
		t.Error("the other calendar was not read (its file is missing, so it should fail)")
	}
	// The lawyer asks: read again, released.
	if _, errs, _ := SyncAll(ctx, st, SyncOptions{Retry: true}); errs[added[0].ID] != nil {
		t.Fatalf("retry: %v", errs[added[0].ID])
	}
	c, err := st.Calendar(ctx, added[0].ID)
	if err != nil || c.Held || c.LastError != "" {
		t.Fatalf("after the retry: %+v, %v", c, err)
	}
	if held, _ := HoldInterrupted(ctx, st); len(held) != 0 {
		t.Errorf("held again after a sync that ended: %v", held)
	}
}

// TestAddAndSyncKeepsOnlyWhatReads: a subscription whose first read fails
// is not kept, and says why on its address field; one whose add was cut
// short (never read: the program was killed during the first read) can be
// added again.
func TestAddAndSyncKeepsOnlyWhatReads(t *testing.T) {
	ctx := context.Background()
	good := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !good {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/calendar")
		w.Write([]byte(wrapCal(okEvent)))
	}))
	defer srv.Close()
	st := openStore(t)
	good = false
	added, err := AddAndSync(ctx, st, nil, srv.Client(), NewCalendar{Kind: store.CalendarURL, Source: srv.URL + "/gone.ics"}, SyncOptions{}, nil)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != FieldURL || !strings.Contains(err.Error(), "not added") {
		t.Fatalf("AddAndSync of an address that fails = %v, %v; want an error on the URL field", added, err)
	}
	if cs, _ := st.Calendars(ctx); len(cs) != 0 {
		t.Fatalf("kept %v", cs)
	}

	// A leftover: added, never read (as a killed add leaves it).
	if _, err := Add(ctx, st, nil, srv.Client(), NewCalendar{Kind: store.CalendarURL, Source: srv.URL + "/work.ics"}); err != nil {
		t.Fatal(err)
	}
	good = true
	added, err = AddAndSync(ctx, st, nil, srv.Client(), NewCalendar{Kind: store.CalendarURL, Source: srv.URL + "/work.ics"}, SyncOptions{}, nil)
	if err != nil || len(added) != 1 || added[0].Events != 1 {
		t.Fatalf("adding the leftover's address again = %+v, %v", added, err)
	}
	cs, _ := st.Calendars(ctx)
	if len(cs) != 1 || cs[0].ID != added[0].Calendar.ID {
		t.Fatalf("calendars %+v, want only the new one", cs)
	}
	// Once read, the same address is a duplicate again.
	if _, err := Add(ctx, st, nil, srv.Client(), NewCalendar{Kind: store.CalendarURL, Source: srv.URL + "/work.ics"}); !errors.As(err, &fe) || !strings.Contains(err.Error(), "already added") {
		t.Fatalf("adding a calendar that reads twice = %v, want already added", err)
	}
}

// endless writes a multistatus that never ends, as fast as it can, until
// the client goes.
func endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(http.StatusMultiStatus)
	w.Write([]byte(`<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/`))
	chunk := []byte(strings.Repeat("a", 64<<10))
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// TestCalDAVAnswersBounded: a server whose PROPFIND (on add) or REPORT (on
// sync) answer never ends is read up to the bound and refused, not read
// until memory runs out.
func TestCalDAVAnswersBounded(t *testing.T) {
	t.Run("add, endless PROPFIND", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(endless))
		defer srv.Close()
		st := openStore(t)
		var err error
		within(t, time.Minute, func() {
			_, err = Add(context.Background(), st, memKeys{}, srv.Client(), NewCalendar{Kind: store.CalendarCalDAV,
				Source: srv.URL + "/", User: "dana", Password: "pw-123456"})
		})
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != FieldServer {
			t.Fatalf("Add = %v, want an error on the server field", err)
		}
	})
	t.Run("sync, endless REPORT", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "PROPFIND" {
				w.WriteHeader(http.StatusNotFound) // no sync token: the window is read whole
				return
			}
			endless(w, r)
		}))
		defer srv.Close()
		ctx := context.Background()
		st := openStore(t)
		c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarCalDAV, Source: srv.URL + "/dana/work/", Name: "Work"})
		if err != nil {
			t.Fatal(err)
		}
		within(t, time.Minute, func() { _, err = Sync(ctx, st, c, SyncOptions{HTTP: srv.Client()}) })
		if err == nil || !strings.Contains(err.Error(), "too large") {
			t.Fatalf("Sync = %v, want the answer refused as too large", err)
		}
	})
}
