package calendar

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/store"
)

func TestCalDAVRadicale(t *testing.T) {
	ctx := context.Background()
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/work/", "Work")
	r.MkCalendar(t, "/dana/home/", "Home")
	r.Put(t, "/dana/work/series.ics", calendarOf(t, nyZone+strings.Split(subscribed, "BEGIN:VEVENT\nUID:floating@x")[0]))
	r.Put(t, "/dana/work/old.ics", calendarOf(t, `BEGIN:VEVENT
UID:old@x
DTSTAMP:20200101T000000Z
DTSTART:20200105T100000Z
DTEND:20200105T110000Z
SUMMARY:Long ago
END:VEVENT`))

	d, err := NewCalDAV(r.HTTP, r.Base+"/", "dana", "pw")
	if err != nil {
		t.Fatal(err)
	}
	cals, err := d.FindCalendars(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cals {
		names = append(names, c.Name+"="+c.Path)
	}
	if strings.Join(names, ",") != "Home=/dana/home/,Work=/dana/work/" && strings.Join(names, ",") != "Work=/dana/work/,Home=/dana/home/" {
		t.Fatalf("calendars %v", names)
	}

	st := openStore(t)
	c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarCalDAV, Source: r.Base + "/dana/work/", Name: "Work", Username: "dana"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 14, 12, 0, 0, 0, time.UTC)
	opt := SyncOptions{HTTP: r.HTTP, Secrets: calendartest.Secrets{PasswordKey(c.ID): "pw"}, Now: now}
	res, err := Sync(ctx, st, c, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The series object (master and override) is in the window, the 2020
	// event is not.
	if res.Objects != 1 || res.Events != 2 {
		t.Fatalf("sync %+v, want 1 object with 2 events", res)
	}
	ny, _ := time.LoadLocation("America/New_York")
	occs, err := Upcoming(ctx, st, now, now.Add(72*time.Hour), ny)
	if err != nil {
		t.Fatal(err)
	}
	if len(occs) != 1 || occs[0].UID != "series@x" || !occs[0].Start.Equal(time.Date(2026, 6, 16, 15, 0, 0, 0, ny)) ||
		!occs[0].RecurrenceID.Equal(time.Date(2026, 6, 15, 10, 0, 0, 0, ny)) {
		t.Fatalf("upcoming %+v", occs)
	}
	// Without the password in the keychain the sync fails and says so.
	c, _ = st.Calendar(ctx, c.ID)
	if _, err := Sync(ctx, st, c, SyncOptions{HTTP: r.HTTP, Secrets: calendartest.Secrets{}, Now: now}); err == nil {
		t.Fatal("synced without a password")
	}
}

// TestBenchCalDAVSync measures a full CalDAV sync of a few hundred events
// from radicale on loopback.
func TestBenchCalDAVSync(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs the benchmarks")
	}
	ctx := context.Background()
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/bench/", "Bench")
	const n = 300
	base := time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC)
	for i := range n {
		start := base.Add(time.Duration(i) * 3 * time.Hour)
		rule := ""
		if i%10 == 0 {
			rule = "\nRRULE:FREQ=WEEKLY;COUNT=20"
		}
		r.Put(t, fmt.Sprintf("/dana/bench/e%d.ics", i), calendarOf(t, fmt.Sprintf(`BEGIN:VEVENT
UID:bench-%d@x
DTSTAMP:20260101T000000Z
DTSTART:%s
DTEND:%s
SUMMARY:Meeting %d%s
ORGANIZER:mailto:p%d@client.com
ATTENDEE;PARTSTAT=ACCEPTED:mailto:dana@hr.com
END:VEVENT`, i, start.Format("20060102T150405Z"), start.Add(30*time.Minute).Format("20060102T150405Z"), i, rule, i%17)))
	}
	st := openStore(t)
	c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarCalDAV, Source: r.Base + "/dana/bench/", Username: "dana"})
	if err != nil {
		t.Fatal(err)
	}
	opt := SyncOptions{HTTP: r.HTTP, Secrets: calendartest.Secrets{PasswordKey(c.ID): "pw"}, Now: base}
	var best float64
	for range 3 {
		t0 := time.Now()
		res, err := Sync(ctx, st, c, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Events != n {
			t.Fatalf("synced %d events, want %d", res.Events, n)
		}
		if v := float64(res.Events) / time.Since(t0).Seconds(); v > best {
			best = v
		}
	}
	fmt.Printf("BENCH calendar_sync_events_per_s %.0f events/s\n", best)
}
