package calendar

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform/secrets"
)

// cloudWorld is a store, its mail index and a keychain in a file.
func cloudWorld(t *testing.T) (*store.Store, *index.Index, secrets.Store) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // no OS keychain: the encrypted file
	t.Setenv("XDG_RUNTIME_DIR", dir)
	st, err := store.Open(context.Background(), filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sec, err := secrets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st, index.New(st), sec
}

var (
	cloudNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	dana     = Me{Name: "Dana", Addresses: []string{"dana@firm.com", calendartest.Primary}}
)

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// upcomingByKey expands the store's events over the test's month.
func upcomingByKey(t *testing.T, st *store.Store) map[string]Occurrence {
	t.Helper()
	occs, err := Upcoming(t.Context(), st, cloudNow, cloudNow.AddDate(0, 0, 30), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Occurrence{}
	for _, o := range occs {
		if _, dup := out[o.Key()]; dup {
			t.Errorf("occurrence %s twice", o.Key())
		}
		out[o.Key()] = o
	}
	return out
}

func syncAgain(t *testing.T, st *store.Store, id int64, opt SyncOptions) SyncResult {
	t.Helper()
	c, err := st.Calendar(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Sync(t.Context(), st, c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGraphCalendar reads an Outlook calendar from the Graph fake: a
// weekly series made in New York time with a moved and a cancelled
// occurrence, a free and a declined meeting, a room, and enough one-off
// events for several pages; then its changes by the delta link, a
// deletion, a deleted series, and a delta link Graph forgot (410).
func TestGraphCalendar(t *testing.T) {
	ctx := t.Context()
	st, ix, sec := cloudWorld(t)
	g := calendartest.StartGraph(t)
	// The stored access token has expired at Microsoft: the first request
	// is refused, the token refreshed, the request sent again.
	acct := g.Account(t, ix, sec, g.SignIn(true, calendartest.GraphScopes...))
	auth := MailAccounts{Index: ix, Secrets: sec}
	opt := SyncOptions{Cloud: auth, Now: cloudNow}

	ny := mustLoc(t, "America/New_York")
	marcy := calendartest.GraphPerson{Name: "Marcy Howard", Address: "Marcy@HowardLaw.com", Type: "required", Response: "accepted"}
	me := calendartest.GraphPerson{Name: "Dana", Address: "dana@firm.com", Type: "required", Response: "accepted"}
	room := calendartest.GraphPerson{Name: "Board Room 4", Address: "room4@firm.com", Type: "resource", Response: "accepted"}
	week := func(i int) time.Time { return time.Date(2026, 12, 1+7*i, 10, 0, 0, 0, ny) }
	for i := range 2 {
		g.Put(calendartest.GraphEvent{ID: fmt.Sprintf("occ-%d", i), Type: "occurrence", Series: "series-1", Subject: "SNDA weekly",
			Start: week(i), End: week(i).Add(time.Hour), Zone: "Eastern Standard Time", Loc: ny, Response: "accepted",
			Organizer: marcy, Attendees: []calendartest.GraphPerson{marcy, me, room}})
	}
	// The third week moved an hour later; the fourth cancelled.
	g.Put(calendartest.GraphEvent{ID: "occ-2", Type: "exception", Series: "series-1", OriginalStart: week(2), Subject: "SNDA weekly (moved)",
		Start: week(2).Add(time.Hour), End: week(2).Add(2 * time.Hour), Zone: "Eastern Standard Time", Loc: ny, Response: "accepted",
		Organizer: marcy, Attendees: []calendartest.GraphPerson{marcy, me}})
	g.Put(calendartest.GraphEvent{ID: "occ-3", Type: "exception", Series: "series-1", OriginalStart: week(3), Subject: "SNDA weekly",
		Start: week(3), End: week(3).Add(time.Hour), Cancelled: true, Response: "accepted", Organizer: marcy,
		Attendees: []calendartest.GraphPerson{marcy, me}})
	g.Put(calendartest.GraphEvent{ID: "free", Subject: "Lunch, tentative hold", Start: cloudNow.Add(24 * time.Hour),
		End: cloudNow.Add(25 * time.Hour), ShowAs: "free", Response: "organizer", Organizer: me})
	g.Put(calendartest.GraphEvent{ID: "declined", Subject: "Vendor pitch", Start: cloudNow.Add(26 * time.Hour),
		End: cloudNow.Add(27 * time.Hour), Response: "declined", Organizer: calendartest.GraphPerson{Address: "sales@vendor.com"},
		Attendees: []calendartest.GraphPerson{me}})
	for i := range 23 {
		s := cloudNow.Add(time.Duration(30+i) * time.Hour)
		g.Put(calendartest.GraphEvent{ID: fmt.Sprintf("one-%02d", i), Subject: fmt.Sprintf("Call %d", i), Start: s, End: s.Add(30 * time.Minute),
			Response: "organizer", Organizer: me})
	}
	// Outside the window: not read.
	g.Put(calendartest.GraphEvent{ID: "far", Subject: "Far", Start: cloudNow.AddDate(2, 0, 0), End: cloudNow.AddDate(2, 0, 0).Add(time.Hour)})

	c, res, err := AddCloudCalendar(ctx, st, auth, acct.ID, "", opt)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != store.CalendarMicrosoft || c.Name != "Outlook Calendar (dana@firm.com)" || c.Account != acct.ID || c.Source != "AAMkMainCalendar" {
		t.Errorf("added %+v", c)
	}
	if res.Events != 29 || res.Incremental {
		t.Errorf("first sync %+v, want 29 events read whole", res)
	}
	if g.Refreshes() != 1 {
		t.Errorf("%d token refreshes, want 1 (the expired token)", g.Refreshes())
	}
	if tok, _ := secrets.LoadToken(ctx, sec, accounts.TokenKey(acct.ID)); tok == nil || !strings.HasPrefix(tok.AccessToken, "refreshed-") {
		t.Errorf("the refreshed token was not kept: %+v", tok)
	}
	reqs := g.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[0], "startDateTime=2026-10-30T12") || !strings.Contains(reqs[1], "skiptoken") {
		t.Errorf("delta requests %q, want the window then two next links", reqs)
	}

	occs := upcomingByKey(t, st)
	first := occs["series-1/20261201T150000Z"]
	if first.Summary != "SNDA weekly" || !first.Start.Equal(week(0)) || !first.End.Equal(week(0).Add(time.Hour)) {
		t.Errorf("the first occurrence (10:00 New York) is %+v", first)
	}
	var people []string
	for _, p := range first.People() {
		people = append(people, p.Email+"="+p.PartStat)
	}
	if got := strings.Join(people, ","); got != "marcy@howardlaw.com=ACCEPTED,dana@firm.com=ACCEPTED" {
		t.Errorf("people %s (the room is no person)", got)
	}
	moved, ok := occs["series-1/20261215T150000Z"]
	if !ok || !moved.Start.Equal(week(2).Add(time.Hour)) || moved.Summary != "SNDA weekly (moved)" {
		t.Errorf("the moved occurrence keeps its original start as its key: %+v (%v)", moved, ok)
	}
	if o := occs["series-1/20261222T150000Z"]; o.Status != StatusCancelled || Skip(o, dana) != SkipCancelled {
		t.Errorf("the cancelled occurrence %+v", o)
	}
	if o := occs["free"]; !o.Transparent || Busy(o, dana) {
		t.Errorf("the free event %+v", o)
	}
	if o := occs["declined"]; !Declined(o, dana) {
		t.Errorf("the declined meeting %+v", o)
	}
	if _, ok := occs["one-22"]; !ok || len(occs) != 29 {
		t.Errorf("%d occurrences in a month, want 29", len(occs))
	}

	// A change and a deletion: read by the delta link.
	g.Put(calendartest.GraphEvent{ID: "occ-2", Type: "exception", Series: "series-1", OriginalStart: week(2), Subject: "SNDA weekly (moved again)",
		Start: week(2).Add(2 * time.Hour), End: week(2).Add(3 * time.Hour), Response: "accepted", Organizer: marcy,
		Attendees: []calendartest.GraphPerson{marcy, me}})
	g.Remove("one-05")
	res = syncAgain(t, st, c.ID, opt)
	if !res.Incremental || res.Events != 1 || res.Removed != 1 {
		t.Errorf("delta sync %+v, want 1 changed and 1 removed", res)
	}
	if last := g.Requests()[len(g.Requests())-1]; !strings.Contains(last, "deltatoken") {
		t.Errorf("the second sync asked %q, not its delta link", last)
	}
	occs = upcomingByKey(t, st)
	if o := occs["series-1/20261215T150000Z"]; o.Summary != "SNDA weekly (moved again)" || !o.Start.Equal(week(2).Add(2*time.Hour)) {
		t.Errorf("moved again: %+v", o)
	}
	if _, ok := occs["one-05"]; ok || len(occs) != 28 {
		t.Errorf("after the deletion %d occurrences (one-05 there: %v)", len(occs), ok)
	}
	if res := syncAgain(t, st, c.ID, opt); !res.Unchanged {
		t.Errorf("nothing changed, sync says %+v", res)
	}

	// The series deleted: every occurrence goes.
	g.Remove("series-1")
	syncAgain(t, st, c.ID, opt)
	for k := range upcomingByKey(t, st) {
		if strings.HasPrefix(k, "series-1") {
			t.Errorf("%s left after its series was deleted", k)
		}
	}

	// Graph forgot the delta link: 410, and the window is read whole.
	g.ForgetDeltaLinks()
	g.Put(calendartest.GraphEvent{ID: "late", Subject: "Late addition", Start: cloudNow.Add(5 * time.Hour), End: cloudNow.Add(6 * time.Hour)})
	res = syncAgain(t, st, c.ID, opt)
	if res.Incremental || res.Events != 25 {
		t.Errorf("after 410: %+v, want the window read whole (25 events)", res)
	}
	// A day later the window is read whole again, token or not.
	res = syncAgain(t, st, c.ID, SyncOptions{Cloud: auth, Now: cloudNow.Add(25 * time.Hour)})
	if res.Incremental {
		t.Errorf("a day later the sync was incremental: %+v", res)
	}
}

// TestCloudCalendarNoAccess: a mail account signed in before calendars
// (its grant lacks them, or the service says so) gets the lawyer's
// sentence and nothing is added; an added calendar whose access went
// says it as its error.
func TestCloudCalendarNoAccess(t *testing.T) {
	ctx := t.Context()
	st, ix, sec := cloudWorld(t)
	g := calendartest.StartGraph(t)
	gg := calendartest.StartGoogle(t)
	auth := MailAccounts{Index: ix, Secrets: sec}
	old := g.Account(t, ix, sec, g.SignIn(false, "Mail.ReadWrite", "User.Read", "offline_access"))
	oldGoogle := gg.Account(t, ix, sec, gg.SignIn(false, calendartest.GoogleScopes[:2]...))
	for _, id := range []int64{old.ID, oldGoogle.ID} {
		// Known from the grant, then (the grant unknown, as for a
		// sign-in kept before Spirit kept scopes) from the service.
		for _, known := range []bool{true, false} {
			if !known {
				if err := sec.Delete(ctx, accounts.ScopeKey(id)); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := AddCloudCalendar(ctx, st, auth, id, "", SyncOptions{Cloud: auth, Now: cloudNow})
			if !errors.Is(err, ErrNoCalendarAccess) || err.Error() != "this account's sign-in does not include calendar access yet: sign in to the mail account again to allow it" {
				t.Errorf("account %d (grant known %v): %v", id, known, err)
			}
		}
	}
	if cs, _ := st.Calendars(ctx); len(cs) != 0 {
		t.Fatalf("calendars added without access: %+v", cs)
	}

	// Signed in again with calendar access: added; then the access is
	// withdrawn, and the calendar's error says so.
	if err := accounts.SaveToken(ctx, sec, old.ID, g.SignIn(false, calendartest.GraphScopes...)); err != nil {
		t.Fatal(err)
	}
	c, _, err := AddCloudCalendar(ctx, st, auth, old.ID, "", SyncOptions{Cloud: auth, Now: cloudNow})
	if err != nil {
		t.Fatal(err)
	}
	if err := accounts.SaveToken(ctx, sec, old.ID, g.SignIn(false, "Mail.ReadWrite")); err != nil {
		t.Fatal(err)
	}
	if err := sec.Delete(ctx, accounts.ScopeKey(old.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, st, c, SyncOptions{Cloud: auth, Now: cloudNow}); !errors.Is(err, ErrNoCalendarAccess) {
		t.Fatalf("sync without access: %v", err)
	}
	c, _ = st.Calendar(ctx, c.ID)
	if c.LastError != ErrNoCalendarAccess.Error() {
		t.Errorf("the calendar's error is %q", c.LastError)
	}
}

// TestGoogleCalendar reads a Google calendar from the fake: expanded
// instances of a series in New York time with an override and a cancelled
// instance, a free and a declined event, a room, several pages; then by
// its sync token a change and a cancelled instance, a deleted series, and
// a forgotten token (410).
func TestGoogleCalendar(t *testing.T) {
	ctx := t.Context()
	st, ix, sec := cloudWorld(t)
	g := calendartest.StartGoogle(t)
	acct := g.Account(t, ix, sec, g.SignIn(true, calendartest.GoogleScopes...))
	auth := MailAccounts{Index: ix, Secrets: sec}
	opt := SyncOptions{Cloud: auth, Now: cloudNow}

	a, err := auth.CloudAccount(ctx, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	cals, err := CloudCalendars(ctx, a)
	if err != nil || len(cals) != 2 || !cals[0].Primary || cals[1].Name != "Family" || !cals[1].ReadOnly {
		t.Fatalf("calendar list %+v, %v", cals, err)
	}

	ny := mustLoc(t, "America/New_York")
	marcy := calendartest.GooglePerson{Email: "marcy@howardlaw.com", Name: "Marcy Howard", Response: "accepted"}
	me := calendartest.GooglePerson{Email: calendartest.Primary, Response: "accepted", Self: true}
	room := calendartest.GooglePerson{Email: "c_188@resource.calendar.google.com", Name: "Board Room", Response: "accepted", Resource: true}
	week := func(i int) time.Time { return time.Date(2026, 12, 1+7*i, 10, 0, 0, 0, ny) }
	inst := func(i int) string { return "ser1_" + week(i).UTC().Format("20060102T150405Z") }
	for i := range 4 {
		ev := calendartest.GoogleEvent{ID: inst(i), Series: "ser1", OriginalStart: week(i), Summary: "SNDA weekly",
			Start: week(i), End: week(i).Add(time.Hour), Zone: "America/New_York", Organizer: calendartest.GooglePerson{Email: marcy.Email},
			Attendees: []calendartest.GooglePerson{marcy, me, room}}
		if i == 2 { // the override: an hour later, its original start kept
			ev.Start, ev.End, ev.Summary = week(i).Add(time.Hour), week(i).Add(2*time.Hour), "SNDA weekly (moved)"
		}
		g.Put(ev)
	}
	g.Cancel(inst(3))
	g.Put(calendartest.GoogleEvent{ID: "free1", Summary: "Hold", Start: cloudNow.Add(24 * time.Hour), End: cloudNow.Add(25 * time.Hour), Transparent: true})
	g.Put(calendartest.GoogleEvent{ID: "decl1", Summary: "Vendor pitch", Start: cloudNow.Add(26 * time.Hour), End: cloudNow.Add(27 * time.Hour),
		Organizer: calendartest.GooglePerson{Email: "sales@vendor.com"},
		Attendees: []calendartest.GooglePerson{{Email: calendartest.Primary, Self: true, Response: "declined"}, {Email: "sales@vendor.com", Response: "accepted"}}})
	g.Put(calendartest.GoogleEvent{ID: "allday", Summary: "Filing deadline", AllDay: true, Start: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC),
		End: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)})
	for i := range 20 {
		s := cloudNow.Add(time.Duration(30+i) * time.Hour)
		g.Put(calendartest.GoogleEvent{ID: fmt.Sprintf("one%02d", i), Summary: fmt.Sprintf("Call %d", i), Start: s, End: s.Add(30 * time.Minute)})
	}
	g.Put(calendartest.GoogleEvent{ID: "family1", Calendar: calendartest.Family, Summary: "School play", Start: cloudNow.Add(3 * time.Hour),
		End: cloudNow.Add(4 * time.Hour)})

	c, res, err := AddCloudCalendar(ctx, st, auth, acct.ID, "", opt)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != store.CalendarGoogle || c.Source != calendartest.Primary || c.Name != "Google Calendar (dana@gmail.com)" {
		t.Errorf("added %+v", c)
	}
	if res.Events != 26 || g.Refreshes() != 1 {
		t.Errorf("first sync %+v with %d refreshes, want 26 events and 1 refresh", res, g.Refreshes())
	}
	if qs := g.Requests(); len(qs) != 3 || !strings.Contains(qs[0], "singleEvents=true") || !strings.Contains(qs[0], "timeMin=2026-10-30T12") ||
		!strings.Contains(qs[1], "pageToken") {
		t.Errorf("events.list queries %q", qs)
	}
	occs := upcomingByKey(t, st)
	first := occs["ser1/20261201T150000Z"]
	if !first.Start.Equal(week(0)) || len(first.People()) != 2 {
		t.Errorf("the first instance (10:00 New York, the room left out): %+v", first)
	}
	if o, ok := occs["ser1/20261215T150000Z"]; !ok || !o.Start.Equal(week(2).Add(time.Hour)) || o.Summary != "SNDA weekly (moved)" {
		t.Errorf("the override: %+v (%v)", o, ok)
	}
	if _, ok := occs["ser1/20261222T150000Z"]; ok {
		t.Error("the cancelled instance is listed")
	}
	if o := occs["free1"]; !o.Transparent {
		t.Errorf("free: %+v", o)
	}
	if o := occs["decl1"]; !Declined(o, dana) {
		t.Errorf("declined: %+v", o)
	}
	if o := occs["allday"]; !o.AllDay || !o.Start.Equal(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("all day: %+v", o)
	}
	if _, ok := occs["family1"]; ok {
		t.Error("another calendar's event was read")
	}

	// A change and a cancelled instance, by the sync token.
	g.Put(calendartest.GoogleEvent{ID: "one03", Summary: "Call 3, renamed", Start: cloudNow.Add(33 * time.Hour), End: cloudNow.Add(34 * time.Hour)})
	g.Cancel(inst(1))
	res = syncAgain(t, st, c.ID, opt)
	if !res.Incremental || res.Events != 1 || res.Removed != 1 {
		t.Errorf("sync by token %+v", res)
	}
	if q := g.Requests()[len(g.Requests())-1]; !strings.Contains(q, "syncToken=") || strings.Contains(q, "timeMin") {
		t.Errorf("the second sync asked %q", q)
	}
	occs = upcomingByKey(t, st)
	if occs["one03"].Summary != "Call 3, renamed" {
		t.Errorf("changed: %+v", occs["one03"])
	}
	if _, ok := occs["ser1/20261208T150000Z"]; ok {
		t.Error("the instance cancelled later is still listed")
	}
	// The whole series deleted: its instances go.
	g.Cancel("ser1")
	syncAgain(t, st, c.ID, opt)
	for k := range upcomingByKey(t, st) {
		if strings.HasPrefix(k, "ser1") {
			t.Errorf("%s left after its series was deleted", k)
		}
	}
	// A forgotten sync token: 410 Gone, and the window is read whole.
	g.ForgetSyncTokens()
	res = syncAgain(t, st, c.ID, opt)
	if res.Incremental || res.Events != 23 {
		t.Errorf("after 410: %+v, want 23 events read whole", res)
	}

	// Another calendar of the account, by its name.
	fam, _, err := AddCloudCalendar(ctx, st, auth, acct.ID, "Family", opt)
	if err != nil || fam.Source != calendartest.Family {
		t.Fatalf("family calendar %+v, %v", fam, err)
	}
	if _, _, err := AddCloudCalendar(ctx, st, auth, acct.ID, "Work", opt); err == nil || !strings.Contains(err.Error(), `"Family"`) {
		t.Errorf("an unknown calendar: %v", err)
	}
}

// TestCloudMappings table-tests how Graph's and Google's fields read as
// iCalendar's.
func TestCloudMappings(t *testing.T) {
	at := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	utc := graphTime{DateTime: "2026-12-01T15:00:00.0000000", TimeZone: "UTC"}
	utcEnd := graphTime{DateTime: "2026-12-01T16:00:00.0000000", TimeZone: "UTC"}
	for _, tc := range []struct {
		name string
		ev   graphEvent
		want func(cloudEvent) string // "" when right
	}{
		{"free is transparent", graphEvent{ID: "a", Start: utc, End: utcEnd, ShowAs: "free"},
			func(e cloudEvent) string {
				return check(e.Free && e.Status == StatusConfirmed, "free %v status %s", e.Free, e.Status)
			}},
		{"busy is opaque", graphEvent{ID: "a", Start: utc, End: utcEnd, ShowAs: "busy"},
			func(e cloudEvent) string { return check(!e.Free, "free %v", e.Free) }},
		{"cancelled", graphEvent{ID: "a", Start: utc, End: utcEnd, IsCancelled: true},
			func(e cloudEvent) string { return check(e.Status == StatusCancelled, "status %s", e.Status) }},
		{"tentative shows as tentative", graphEvent{ID: "a", Start: utc, End: utcEnd, ShowAs: "tentative"},
			func(e cloudEvent) string { return check(e.Status == StatusTentative, "status %s", e.Status) }},
		{"declined", graphEvent{ID: "a", Start: utc, End: utcEnd, ResponseStatus: struct {
			Response string `json:"response"`
		}{"declined"}}, func(e cloudEvent) string { return check(e.Mine == PartStatDeclined, "mine %s", e.Mine) }},
		{"tentatively accepted", graphEvent{ID: "a", Start: utc, End: utcEnd, ResponseStatus: struct {
			Response string `json:"response"`
		}{"tentativelyAccepted"}}, func(e cloudEvent) string { return check(e.Mine == PartStatTentative, "mine %s", e.Mine) }},
		{"organizer has no answer", graphEvent{ID: "a", Start: utc, End: utcEnd, ResponseStatus: struct {
			Response string `json:"response"`
		}{"organizer"}}, func(e cloudEvent) string { return check(e.Mine == "", "mine %s", e.Mine) }},
		{"rooms are not people", graphEvent{ID: "a", Start: utc, End: utcEnd, Attendees: []graphAttendee{
			{Type: "resource", EmailAddress: graphAddress{Address: "room@x.com"}},
			{Type: "optional", EmailAddress: graphAddress{Address: "Ann@X.com"}}}},
			func(e cloudEvent) string {
				return check(len(e.Attendees) == 1 && e.Attendees[0].Email == "ann@x.com" && e.Attendees[0].Role == "OPT-PARTICIPANT" &&
					e.Attendees[0].PartStat == PartStatNeedsAction, "attendees %+v", e.Attendees)
			}},
		{"an exception keeps its original start", graphEvent{ID: "o", Type: "exception", SeriesMasterID: "m", Start: utc, End: utcEnd,
			OriginalStart: "2026-12-01T14:00:00Z"},
			func(e cloudEvent) string {
				return check(e.SeriesID == "m" && e.OriginalStart.Equal(at.Add(-time.Hour)) && e.Start.Equal(at), "%+v", e)
			}},
		{"an occurrence's original start is its start", graphEvent{ID: "o", Type: "occurrence", SeriesMasterID: "m", Start: utc, End: utcEnd},
			func(e cloudEvent) string { return check(e.SeriesID == "m" && e.OriginalStart.Equal(at), "%+v", e) }},
		{"New York time", graphEvent{ID: "a", Start: graphTime{DateTime: "2026-12-01T10:00:00.0000000", TimeZone: "America/New_York"},
			End: utcEnd}, func(e cloudEvent) string { return check(e.Start.Equal(at), "start %s", e.Start) }},
		{"all day", graphEvent{ID: "a", IsAllDay: true, Start: graphTime{DateTime: "2026-12-01T00:00:00.0000000", TimeZone: "UTC"},
			End: graphTime{DateTime: "2026-12-02T00:00:00.0000000", TimeZone: "UTC"}},
			func(e cloudEvent) string { return check(e.AllDay && e.End.Sub(e.Start) == 24*time.Hour, "%+v", e) }},
	} {
		t.Run("graph/"+tc.name, func(t *testing.T) {
			e, err := tc.ev.cloud()
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.want(e); msg != "" {
				t.Error(msg)
			}
		})
	}
	if _, err := (graphEvent{ID: "a", Start: graphTime{DateTime: "2026-12-01T10:00:00", TimeZone: "Eastern Standard Time"}, End: utcEnd}).cloud(); err == nil {
		t.Error("a Windows zone name was read (Spirit asks Graph for UTC)")
	}

	gt := googleTime{DateTime: "2026-12-01T10:00:00-05:00", TimeZone: "America/New_York"}
	gEnd := googleTime{DateTime: "2026-12-01T11:00:00-05:00"}
	for _, tc := range []struct {
		name string
		ev   googleEvent
		want func(cloudEvent) string
	}{
		{"New York time", googleEvent{ID: "a", Start: gt, End: gEnd},
			func(e cloudEvent) string {
				return check(e.Start.Equal(at) && e.End.Equal(at.Add(time.Hour)), "%s–%s", e.Start, e.End)
			}},
		{"transparent", googleEvent{ID: "a", Start: gt, End: gEnd, Transparency: "transparent"},
			func(e cloudEvent) string { return check(e.Free, "free %v", e.Free) }},
		{"tentative", googleEvent{ID: "a", Status: "tentative", Start: gt, End: gEnd},
			func(e cloudEvent) string { return check(e.Status == StatusTentative, "status %s", e.Status) }},
		{"self declined, room left out", googleEvent{ID: "a", Start: gt, End: gEnd, Attendees: []googlePerson{
			{Email: "me@x.com", Self: true, ResponseStatus: "declined"}, {Email: "room@r.com", Resource: true}, {Email: "b@x.com", ResponseStatus: "needsAction", Optional: true}}},
			func(e cloudEvent) string {
				return check(e.Mine == PartStatDeclined && len(e.Attendees) == 2 && e.Attendees[1].Role == "OPT-PARTICIPANT", "%+v", e)
			}},
		{"override keeps its original start", googleEvent{ID: "s_1", RecurringEventID: "s", Start: gt, End: gEnd,
			OriginalStartTime: &googleTime{DateTime: "2026-12-01T09:00:00-05:00"}},
			func(e cloudEvent) string {
				return check(e.SeriesID == "s" && e.OriginalStart.Equal(at.Add(-time.Hour)), "%+v", e)
			}},
		{"all day", googleEvent{ID: "a", Start: googleTime{Date: "2026-12-01"}, End: googleTime{Date: "2026-12-02"}},
			func(e cloudEvent) string {
				return check(e.AllDay && e.Start.Equal(at.Truncate(24*time.Hour)), "%+v", e)
			}},
	} {
		t.Run("google/"+tc.name, func(t *testing.T) {
			e, err := tc.ev.cloud()
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.want(e); msg != "" {
				t.Error(msg)
			}
		})
	}

	for _, tc := range []struct{ name, kind, calendar, address, want string }{
		{"Outlook's main calendar", store.CalendarMicrosoft, "Calendar", "dana@firm.com", "Outlook Calendar (dana@firm.com)"},
		{"another Outlook name", store.CalendarMicrosoft, "Court dates", "dana@firm.com", "Court dates (dana@firm.com)"},
		{"Google's main calendar", store.CalendarGoogle, "Dana@Gmail.com", "dana@gmail.com", "Google Calendar (dana@gmail.com)"},
		{"a shared Google calendar", store.CalendarGoogle, "Family", "dana@gmail.com", "Family (dana@gmail.com)"},
		{"no address", store.CalendarGoogle, "Family", "", "Family"},
	} {
		t.Run("name/"+tc.name, func(t *testing.T) {
			if got := CloudCalendarName(tc.kind, tc.calendar, tc.address); got != tc.want {
				t.Errorf("CloudCalendarName = %q, want %q", got, tc.want)
			}
		})
	}

	for _, tc := range []struct {
		name, kind string
		granted    []string
		want       []string
	}{
		{"unknown grant", store.CalendarMicrosoft, nil, nil},
		{"mail only", store.CalendarMicrosoft, []string{"Mail.ReadWrite", "User.Read"}, []string{"Calendars.ReadWrite"}},
		{"Graph resource form", store.CalendarMicrosoft, []string{"https://graph.microsoft.com/Calendars.ReadWrite"}, nil},
		{"Google mail only", store.CalendarGoogle, calendartest.GoogleScopes[:2], []string{
			"https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/calendar.calendarlist.readonly"}},
		{"Google with calendars", store.CalendarGoogle, calendartest.GoogleScopes, nil},
	} {
		t.Run("scopes/"+tc.name, func(t *testing.T) {
			if got := MissingScopes(tc.kind, tc.granted); !slices.Equal(got, tc.want) {
				t.Errorf("MissingScopes = %q, want %q", got, tc.want)
			}
		})
	}
}

func check(ok bool, format string, a ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, a...)
}

// TestSignInAgainAllowsCalendars: a Gmail account signed in before Spirit
// read calendars is refused; `spirit mail signin` (accounts.SignInAgain)
// asks for the calendar scopes, and then the calendar is added.
func TestSignInAgainAllowsCalendars(t *testing.T) {
	ctx := t.Context()
	st, ix, sec := cloudWorld(t)
	g := calendartest.StartGoogle(t)
	acct := g.Account(t, ix, sec, g.SignIn(false, calendartest.GoogleScopes[:2]...))
	auth := MailAccounts{Index: ix, Secrets: sec}
	if _, _, err := AddCloudCalendar(ctx, st, auth, acct.ID, "", SyncOptions{Cloud: auth, Now: cloudNow}); !errors.Is(err, ErrNoCalendarAccess) {
		t.Fatalf("before signing in again: %v", err)
	}
	// The lawyer's browser: consent to what was asked, then the redirect.
	redirected := make(chan error, 1)
	var asked string
	_, err := accounts.SignInAgain(ctx, ix, sec, acct.ID, func(_, consent string) {
		u, err := url.Parse(consent)
		if err != nil {
			redirected <- err
			return
		}
		q := u.Query()
		asked = q.Get("scope")
		back := q.Get("redirect_uri") + "/?state=" + url.QueryEscape(q.Get("state")) + "&code=" + g.Code(strings.Fields(asked)...)
		go func() {
			resp, err := http.Get(back)
			if err == nil {
				resp.Body.Close()
			}
			redirected <- err
		}()
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-redirected; err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/calendar.calendarlist.readonly"} {
		if !strings.Contains(asked, s) {
			t.Errorf("the sign-in asked for %q, without %s", asked, s)
		}
	}
	c, _, err := AddCloudCalendar(ctx, st, auth, acct.ID, "", SyncOptions{Cloud: auth, Now: cloudNow})
	if err != nil || c.Source != calendartest.Primary {
		t.Fatalf("after signing in again: %+v, %v", c, err)
	}
}
