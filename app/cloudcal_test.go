package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
)

// TestAddCloudCalendar: what Settings → Calendars calls. A Microsoft 365
// account signed in before calendars adds nothing and says why; signed in
// with them, its Outlook calendar is added and synced; when its access
// goes, /health names the calendar with the lawyer's sentence.
func TestAddCloudCalendar(t *testing.T) {
	ctx := context.Background()
	clock := &testClock{t: time.Now()}
	c, st := newClockedCore(t, clock)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // the keychain in the data folder's file
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	sec, err := c.keys.secrets()
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(st)
	g := calendartest.StartGraph(t)
	g.Put(calendartest.GraphEvent{ID: "e1", Subject: "SNDA call", Start: clock.Now().Add(time.Hour), End: clock.Now().Add(2 * time.Hour)})
	acct := g.Account(t, ix, sec, g.SignIn(false, "Mail.ReadWrite", "User.Read"))

	if _, err := c.CloudCalendars(ctx, acct.ID); !errors.Is(err, calendar.ErrNoCalendarAccess) {
		t.Errorf("calendars of an account without calendar access: %v", err)
	}
	if _, err := c.AddCloudCalendar(ctx, acct.ID, ""); !errors.Is(err, calendar.ErrNoCalendarAccess) {
		t.Fatalf("added without calendar access: %v", err)
	}
	if cs, _ := st.Calendars(ctx); len(cs) != 0 {
		t.Fatalf("calendars %+v", cs)
	}

	if err := accounts.SaveToken(ctx, sec, acct.ID, g.SignIn(false, calendartest.GraphScopes...)); err != nil {
		t.Fatal(err)
	}
	cals, err := c.CloudCalendars(ctx, acct.ID)
	if err != nil || len(cals) != 1 || cals[0].Name != "Calendar" {
		t.Fatalf("calendars %+v, %v", cals, err)
	}
	cal, err := c.AddCloudCalendar(ctx, acct.ID, "")
	if err != nil || cal.Kind != store.CalendarMicrosoft {
		t.Fatalf("add: %+v, %v", cal, err)
	}
	if n, _ := st.CountCalendarEvents(ctx, cal.ID); n != 1 {
		t.Errorf("%d events after adding, want 1", n)
	}

	// The access withdrawn: the part's sync fails and /health says why.
	if err := accounts.SaveToken(ctx, sec, acct.ID, g.SignIn(false, "Mail.ReadWrite")); err != nil {
		t.Fatal(err)
	}
	part := newCalendar(c, ix, slog.New(slog.NewTextHandler(io.Discard, nil)))
	part.sync(ctx, false)
	h := c.Health(ctx).Subsystems["calendars"]
	if h.State != "error" || !strings.Contains(h.Detail, cal.Name+": this account's sign-in does not include calendar access yet: sign in to the mail account again to allow it") {
		t.Errorf("/health calendars %+v", h)
	}
}
