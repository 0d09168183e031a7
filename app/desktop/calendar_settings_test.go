package desktop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app"
)

func TestCalendarRowText(t *testing.T) {
	at := time.Date(2026, 6, 16, 9, 5, 0, 0, time.UTC)
	for _, tc := range []struct {
		name                             string
		c                                app.CalendarInfo
		wantTitle, wantDetail, wantIssue string
	}{
		{"synced", app.CalendarInfo{Calendar: store.Calendar{Name: "Work", Kind: store.CalendarCalDAV, LastSync: at}, Events: 42},
			"Work  ·  CalDAV", "42 events · synced Jun 16 09:05", ""},
		{"one event", app.CalendarInfo{Calendar: store.Calendar{Name: "Court", Kind: store.CalendarFile, LastSync: at}, Events: 1},
			"Court  ·  iCalendar file", "1 event · synced Jun 16 09:05", ""},
		{"outlook", app.CalendarInfo{Calendar: store.Calendar{Name: "Calendar (dana@firm.com)", Kind: store.CalendarMicrosoft, LastSync: at}, Events: 2},
			"Calendar (dana@firm.com)  ·  Microsoft 365", "2 events · synced Jun 16 09:05", ""},
		{"google", app.CalendarInfo{Calendar: store.Calendar{Name: "Family", Kind: store.CalendarGoogle}},
			"Family  ·  Google Calendar", "not synced yet", ""},
		{"new", app.CalendarInfo{Calendar: store.Calendar{Source: "https://x/h.ics", Kind: store.CalendarURL}},
			"https://x/h.ics  ·  Subscription", "not synced yet", ""},
		{"never read", app.CalendarInfo{Calendar: store.Calendar{Name: "Home", Kind: store.CalendarURL, LastError: "404 Not Found", ErrorAt: at},
			Problem: "There is no calendar at this address any more."},
			"Home  ·  Subscription", "never synced", "Last sync failed Jun 16 09:05: There is no calendar at this address any more."},
		{"failing after syncing", app.CalendarInfo{Calendar: store.Calendar{Name: "Work", Kind: store.CalendarCalDAV, LastSync: at, LastError: "x", ErrorAt: at.Add(time.Hour)},
			Events: 3, Problem: "The server could not be reached."},
			"Work  ·  CalDAV", "3 events · synced Jun 16 09:05", "Last sync failed Jun 16 10:05: The server could not be reached."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			title, detail, issue := calendarRowText(tc.c, time.UTC)
			if title != tc.wantTitle || detail != tc.wantDetail || issue != tc.wantIssue {
				t.Errorf("got %q / %q / %q\nwant %q / %q / %q", title, detail, issue, tc.wantTitle, tc.wantDetail, tc.wantIssue)
			}
		})
	}
}

func TestCalendarFieldOf(t *testing.T) {
	fields := []calendarField{{key: calendar.FieldServer}, {key: calendar.FieldPassword}}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"its field", &calendar.FieldError{Field: calendar.FieldPassword, Err: errors.New("x")}, calendar.FieldPassword},
		{"wrapped", fmt.Errorf("add: %w", &calendar.FieldError{Field: calendar.FieldServer, Err: errors.New("x")}), calendar.FieldServer},
		{"a field the form lacks", &calendar.FieldError{Field: calendar.FieldFile, Err: errors.New("x")}, ""},
		{"no field", errors.New("keychain locked"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fieldOf(tc.err, fields); got != tc.want {
				t.Errorf("fieldOf = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCalendarAddedText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		added []app.CalendarAdded
		want  string
	}{
		{"one", []app.CalendarAdded{{Calendar: store.Calendar{Name: "Work"}, Events: 1}}, "Added ‘Work’: 1 event."},
		{"two", []app.CalendarAdded{{Calendar: store.Calendar{Name: "Work"}, Events: 3}, {Calendar: store.Calendar{Name: "Home"}}},
			"Added ‘Work’: 3 events. Added ‘Home’: 0 events."},
		{"not read yet", []app.CalendarAdded{{Calendar: store.Calendar{Name: "Hol"}, Err: errors.New("sync calendar 4: fetch calendar: 404 Not Found")}},
			"Could not read ‘Hol’, so it was not added: There is no calendar at this address any more. Check the address with whoever shared it."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := addedText(tc.added); got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestCalendarKinds: every entry of the Add menu has a form whose fields
// are ones an add's error can name, and something to add with.
func TestCalendarKinds(t *testing.T) {
	known := []string{calendar.FieldFile, calendar.FieldURL, calendar.FieldServer, calendar.FieldUser, calendar.FieldPassword, calendar.FieldName}
	kinds := calendarKinds()
	if len(kinds) < 3 {
		t.Fatalf("%d kinds, want file, subscription and CalDAV at least", len(kinds))
	}
	for _, k := range kinds {
		if k.cloud != "" {
			if k.label == "" || k.title == "" || k.add != nil || len(k.fields) != 0 {
				t.Errorf("cloud kind %+v: a label and title, no fields or add (its own form)", k)
			}
			continue
		}
		if k.label == "" || k.title == "" || k.add == nil || len(k.fields) == 0 {
			t.Errorf("kind %+v is missing its label, title, fields or add", k)
		}
		for _, f := range k.fields {
			if !slices.Contains(known, f.key) || f.label == "" {
				t.Errorf("kind %q: field %+v", k.label, f)
			}
		}
	}
}

// labelsIn are the texts of the labels under o.
func labelsIn(o fyne.CanvasObject) []string {
	var out []string
	switch o := o.(type) {
	case *widget.Label:
		if o.Visible() {
			out = append(out, o.Text)
		}
	case *fyne.Container:
		for _, c := range o.Objects {
			out = append(out, labelsIn(c)...)
		}
	}
	return out
}

// buttonIn is the button under o whose text is text, nil when none.
func buttonIn(o fyne.CanvasObject, text string) *widget.Button {
	switch o := o.(type) {
	case *widget.Button:
		if o.Text == text {
			return o
		}
	case *fyne.Container:
		for _, c := range o.Objects {
			if b := buttonIn(c, text); b != nil {
				return b
			}
		}
	}
	return nil
}

// overlayButton is the top overlay's (a dialog's) button text.
func overlayButton(w fyne.Window, text string) *widget.Button {
	if top := w.Canvas().Overlays().Top(); top != nil {
		for _, o := range test.LaidOutObjects(top) {
			if b, ok := o.(*widget.Button); ok && b.Text == text {
				return b
			}
		}
	}
	return nil
}

// waitFor pumps the UI queue until cond holds, for at most d: adding a
// calendar reads it, which on a loaded machine takes a while.
func waitLong(t *testing.T, g *gui, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		pump(g)
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronisation
	}
}

func newCalendarsPage(t *testing.T) (*gui, spirit, *calendarsView, fyne.Window) {
	t.Helper()
	g, sp, _ := newTestGUI(t)
	w := g.fa.NewWindow("Settings")
	w.Resize(fyne.NewSize(640, 520))
	v := newCalendarsView(g, w)
	w.SetContent(v.content)
	v.reload()
	waitLong(t, g, 10*time.Second, "the empty list", func() bool {
		return slices.ContainsFunc(labelsIn(v.rows), func(s string) bool { return strings.HasPrefix(s, "No calendars yet") })
	})
	return g, sp, v, w
}

func kindNamed(t *testing.T, prefix string) calendarKind {
	t.Helper()
	for _, k := range calendarKinds() {
		if strings.HasPrefix(k.label, prefix) {
			return k
		}
	}
	t.Fatalf("no Add entry %q", prefix)
	return calendarKind{}
}

func contains(list []string, part string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, part) })
}

// TestCalendarsPageAddFileAndRemove: an .ics file added from the page is
// read at once and listed with its events; adding it again is refused
// under the file's field with the form left open; Remove… asks, says the
// events go, and takes it away.
func TestCalendarsPageAddFileAndRemove(t *testing.T) {
	g, sp, v, w := newCalendarsPage(t)
	path := filepath.Join(t.TempDir(), "Court dates.ics")
	ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:a@x\r\nDTSTAMP:20260101T000000Z\r\n" +
		"DTSTART:20260105T100000Z\r\nDTEND:20260105T110000Z\r\nSUMMARY:Hearing\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	if err := os.WriteFile(path, []byte(ics), 0o600); err != nil {
		t.Fatal(err)
	}
	file := kindNamed(t, "iCalendar file")

	v.showAdd(file)
	v.form.entries[calendar.FieldFile].SetText(path)
	test.Tap(v.form.add)
	waitLong(t, g, 30*time.Second, "the file added", func() bool { return v.status.Text == "Added ‘Court dates’: 1 event." })
	waitLong(t, g, 10*time.Second, "its row", func() bool {
		ls := labelsIn(v.rows)
		return contains(ls, "Court dates  ·  iCalendar file") && contains(ls, "1 event · synced ")
	})
	if v.form != nil {
		t.Error("the form is still open after the calendar was added")
	}

	v.showAdd(file)
	f := v.form
	f.entries[calendar.FieldFile].SetText(path)
	test.Tap(f.add)
	waitLong(t, g, 30*time.Second, "the problem under the file", func() bool { return f.problems[calendar.FieldFile].Visible() })
	if got := f.problems[calendar.FieldFile].Text; !strings.Contains(got, "already added, as ‘Court dates’") {
		t.Errorf("under the file: %q", got)
	}
	if v.form != f || !f.add.Visible() || f.add.Disabled() {
		t.Error("the form closed or cannot be sent again after a problem")
	}
	f.dlg.Hide()

	remove := buttonIn(v.rows, "Remove…")
	if remove == nil {
		t.Fatal("the row has no Remove… button")
	}
	test.Tap(remove)
	if !contains(overlayTexts(w), "Its 1 event goes from Spirit") {
		t.Errorf("the question says %q, want it to say the event goes", overlayTexts(w))
	}
	yes := overlayButton(w, "Yes")
	if yes == nil {
		t.Fatal("no Yes in the question")
	}
	test.Tap(yes)
	waitLong(t, g, 30*time.Second, "the calendar removed", func() bool {
		return v.status.Text == "Removed ‘Court dates’ and its events." && contains(labelsIn(v.rows), "No calendars yet")
	})
	if cs, _ := sp.store.Calendars(t.Context()); len(cs) != 0 {
		t.Errorf("%d calendars left in the store", len(cs))
	}
}

// TestCalendarsPageFieldProblems: what is wrong is said under its field,
// nothing is added, and the form stays open.
func TestCalendarsPageFieldProblems(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		values     map[string]string
		field      string
		want       string
	}{
		{"subscription not a web address", "Subscription", map[string]string{calendar.FieldURL: "ftp://cal.example.com/x.ics"}, calendar.FieldURL, "not webcal://"},
		{"file missing", "iCalendar file", map[string]string{calendar.FieldFile: "/nowhere/cal.ics"}, calendar.FieldFile, "there is no file at /nowhere/cal.ics"},
		{"CalDAV without password", "CalDAV", map[string]string{calendar.FieldServer: "https://caldav.example.com", calendar.FieldUser: "dana"}, calendar.FieldPassword, "password is needed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, sp, v, _ := newCalendarsPage(t)
			v.showAdd(kindNamed(t, tc.kind))
			f := v.form
			for k, val := range tc.values {
				f.entries[k].SetText(val)
			}
			test.Tap(f.add)
			waitLong(t, g, 30*time.Second, "the problem", func() bool { return f.problems[tc.field].Visible() })
			if got := f.problems[tc.field].Text; !strings.Contains(got, tc.want) {
				t.Errorf("under %s: %q, want %q", tc.field, got, tc.want)
			}
			for k, l := range f.problems {
				if k != tc.field && l.Visible() {
					t.Errorf("a problem under %s too: %q", k, l.Text)
				}
			}
			if cs, _ := sp.store.Calendars(t.Context()); len(cs) != 0 || v.form != f {
				t.Errorf("%d calendars added; form open: %v", len(cs), v.form == f)
			}
		})
	}
}

// TestCalendarsPageCalDAVRadicale: the CalDAV entry against a real
// radicale on loopback adds each of the account's calendars, reads them at
// once (the page says how many events), keeps the password in the
// keychain, and Sync now reads them again with the progress shown.
func TestCalendarsPageCalDAVRadicale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts radicale")
	}
	// The keychain is the file fallback: no session bus to reach.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/work/", "Work")
	r.MkCalendar(t, "/dana/home/", "Home")
	start := time.Now().Add(24 * time.Hour).UTC().Format("20060102T150405Z")
	end := time.Now().Add(25 * time.Hour).UTC().Format("20060102T150405Z")
	r.Put(t, "/dana/work/call.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:call@x\r\n"+
		"DTSTAMP:20260101T000000Z\r\nDTSTART:"+start+"\r\nDTEND:"+end+"\r\nSUMMARY:SNDA call\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")

	g, sp, v, _ := newCalendarsPage(t)
	v.showAdd(kindNamed(t, "CalDAV"))
	f := v.form
	f.entries[calendar.FieldServer].SetText(r.Base + "/")
	f.entries[calendar.FieldUser].SetText(calendartest.User)
	f.entries[calendar.FieldPassword].SetText(calendartest.Password)
	test.Tap(f.add)
	if !f.progress.Visible() || !f.add.Disabled() {
		t.Error("no progress shown while the account is read")
	}
	waitLong(t, g, 60*time.Second, "the account added", func() bool { return strings.HasPrefix(v.status.Text, "Added ") })
	for _, want := range []string{"Added ‘Work’: 1 event.", "Added ‘Home’: 0 events."} {
		if !strings.Contains(v.status.Text, want) {
			t.Errorf("the page says %q, want %q", v.status.Text, want)
		}
	}
	waitLong(t, g, 10*time.Second, "both rows", func() bool {
		ls := labelsIn(v.rows)
		return contains(ls, "Work  ·  CalDAV") && contains(ls, "Home  ·  CalDAV") && contains(ls, r.Base+"/dana/work/ as dana")
	})
	cs, err := sp.store.Calendars(t.Context())
	if err != nil || len(cs) != 2 {
		t.Fatalf("calendars %+v, %v", cs, err)
	}

	// Another event on the server; Sync now reads it, showing progress.
	r.Put(t, "/dana/home/lunch.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:lunch@x\r\n"+
		"DTSTAMP:20260101T000000Z\r\nDTSTART:"+start+"\r\nDTEND:"+end+"\r\nSUMMARY:Lunch\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
	test.Tap(v.syncNow)
	if !v.progress.Visible() || v.status.Text != "Syncing calendars…" {
		t.Errorf("Sync now shows progress %v and %q", v.progress.Visible(), v.status.Text)
	}
	waitLong(t, g, 60*time.Second, "the sync", func() bool { return strings.HasPrefix(v.status.Text, "Synced ") })
	waitLong(t, g, 10*time.Second, "Home's event", func() bool {
		ls := labelsIn(v.rows)
		return !contains(ls, "0 events ·") && contains(ls, "1 event · synced")
	})
	if line := sp.core.Status().Line(); strings.Contains(line, "alendar") {
		t.Errorf("tray line %q after a good sync, want nothing about calendars", line)
	}
}
