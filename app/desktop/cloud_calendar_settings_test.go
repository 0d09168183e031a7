package desktop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform/secrets"
)

func TestCloudCalendarChoices(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cs         []calendar.CloudCalendar
		want       []string
		wantChosen int
	}{
		{"outlook's one", []calendar.CloudCalendar{{Name: "Calendar", Primary: true}}, []string{"Calendar (main calendar)"}, 0},
		{"main not first", []calendar.CloudCalendar{{ID: "f", Name: "Family"}, {ID: "d", Name: "dana@gmail.com", Primary: true}},
			[]string{"Family", "dana@gmail.com (main calendar)"}, 1},
		{"no main", []calendar.CloudCalendar{{ID: "a", Name: "Court"}, {ID: "b", Name: "Team"}}, []string{"Court", "Team"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, chosen := calendarChoices(tc.cs)
			if !slices.Equal(got, tc.want) || chosen != tc.wantChosen {
				t.Errorf("got %q, %d; want %q, %d", got, chosen, tc.want, tc.wantChosen)
			}
		})
	}
}

func TestAsSentence(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"lower, no stop", "this sign-in lacks it", "This sign-in lacks it."},
		{"already one", "Done.", "Done."},
		{"non-ASCII first", "équipe absente", "Équipe absente."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := asSentence(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCloudAccounts(t *testing.T) {
	as := []index.Account{{ID: 1, Kind: index.KindIMAP, Name: "a"}, {ID: 2, Kind: index.KindGmail, Name: "b"},
		{ID: 3, Kind: index.KindGraph, Name: "c", Address: "c@firm.com"}, {ID: 4, Kind: index.KindGmail, Name: "d@gmail.com", Address: "d@gmail.com"}}
	for _, tc := range []struct {
		name, kind string
		want       []string
	}{
		{"gmail", index.KindGmail, []string{"b", "d@gmail.com"}},
		{"microsoft", index.KindGraph, []string{"c <c@firm.com>"}},
		{"none", "other", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, a := range cloudAccounts(as, tc.kind) {
				got = append(got, accountChoice(a))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// cloudPage is the Calendars page on a real Spirit whose keychain is the
// file in its data folder, and that keychain opened by the test.
func cloudPage(t *testing.T) (*gui, spirit, *calendarsView, fyne.Window, *index.Index, secrets.Store) {
	t.Helper()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // the keychain file, never a real keychain
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	g, sp, v, w := newCalendarsPage(t)
	sec, err := secrets.Open(sp.dir)
	if err != nil {
		t.Fatal(err)
	}
	return g, sp, v, w, index.New(sp.store), sec
}

// TestCalendarsPageCloudNoAccount: with no mail account of the service
// (a Gmail account does not count for Microsoft 365) the form says to add
// one first, offers nothing to add, and its button opens Mail accounts.
func TestCalendarsPageCloudNoAccount(t *testing.T) {
	g, sp, v, _, ix, _ := cloudPage(t)
	if _, err := ix.AddAccount(t.Context(), index.Account{Kind: index.KindGmail, Name: "dana@gmail.com", Address: "dana@gmail.com"}); err != nil {
		t.Fatal(err)
	}
	opened := 0
	v.openMail = func() { opened++ }
	v.showCloudAdd(kindNamed(t, "Microsoft 365"))
	f := v.cloud
	waitLong(t, g, 10*time.Second, "the missing account said", func() bool { return f.missing.Visible() })
	if got := f.missing.Text; !strings.Contains(got, "Add your Microsoft 365 (Outlook) mail account first") {
		t.Errorf("the form says %q", got)
	}
	if f.fields.Visible() || !f.add.Disabled() || f.progress.Visible() {
		t.Errorf("fields shown %v, Add enabled %v, progress %v with no account", f.fields.Visible(), !f.add.Disabled(), f.progress.Visible())
	}
	if !f.openMail.Visible() {
		t.Fatal("no button to open Mail accounts")
	}
	test.Tap(f.openMail)
	if opened != 1 || v.cloud != nil {
		t.Errorf("Mail accounts opened %d times; form still open: %v", opened, v.cloud != nil)
	}
	if cs, _ := sp.store.Calendars(t.Context()); len(cs) != 0 {
		t.Errorf("%d calendars added", len(cs))
	}
}

// TestCalendarsPageGoogleCalendar: a Gmail account's calendars are listed
// against the Google fake, the main one chosen; choosing the shared
// Family calendar adds that one, read at once.
func TestCalendarsPageGoogleCalendar(t *testing.T) {
	g, sp, v, _, ix, sec := cloudPage(t)
	gg := calendartest.StartGoogle(t)
	now := time.Now()
	gg.Put(calendartest.GoogleEvent{ID: "play", Calendar: calendartest.Family, Summary: "School play", Start: now.Add(3 * time.Hour), End: now.Add(4 * time.Hour)})
	gg.Put(calendartest.GoogleEvent{ID: "call", Summary: "SNDA call", Start: now.Add(time.Hour), End: now.Add(2 * time.Hour)})
	acct := gg.Account(t, ix, sec, gg.SignIn(false, calendartest.GoogleScopes...))

	v.showCloudAdd(kindNamed(t, "Google Calendar"))
	f := v.cloud
	if !f.progress.Visible() {
		t.Error("no progress while the accounts are read")
	}
	waitLong(t, g, 30*time.Second, "the calendars listed", func() bool { return !f.calendar.Disabled() })
	if f.account.Selected != acct.Name || len(f.account.Options) != 1 {
		t.Errorf("account field %q of %q", f.account.Selected, f.account.Options)
	}
	if want := []string{calendartest.Primary + " (main calendar)", "Family"}; !slices.Equal(f.calendar.Options, want) || f.calendar.Selected != want[0] {
		t.Fatalf("calendar field %q of %q, want the main one of %q", f.calendar.Selected, f.calendar.Options, want)
	}
	if f.add.Disabled() || f.accountProblem.Visible() || f.general.Visible() {
		t.Errorf("Add disabled %v; problems %q %q", f.add.Disabled(), f.accountProblem.Text, f.general.Text)
	}
	f.calendar.SetSelected("Family")
	test.Tap(f.add)
	if !f.progress.Visible() || !f.add.Disabled() {
		t.Error("no progress while the calendar is added")
	}
	waitLong(t, g, 60*time.Second, "the calendar added", func() bool { return strings.HasPrefix(v.status.Text, "Added ") })
	name := "Family (" + calendartest.Primary + ")" // the account's name with it
	if v.status.Text != "Added ‘"+name+"’." || v.cloud != nil {
		t.Errorf("the page says %q; form still open: %v", v.status.Text, v.cloud != nil)
	}
	waitLong(t, g, 10*time.Second, "its row", func() bool {
		ls := labelsIn(v.rows)
		return contains(ls, name+"  ·  Google Calendar")
	})
	if ls := labelsIn(v.rows); !contains(ls, "1 event · synced ") {
		t.Errorf("the row says %q, want the family's one event synced", ls)
	}
	cs, err := sp.store.Calendars(t.Context())
	if err != nil || len(cs) != 1 || cs[0].Kind != store.CalendarGoogle || cs[0].Source != calendartest.Family {
		t.Fatalf("calendars %+v, %v", cs, err)
	}
}

// TestCalendarsPageMicrosoftNoCalendarAccess: a Microsoft 365 account
// signed in for mail only: the sentence the lawyer must see is under the
// account field, no calendar can be chosen, and nothing is added.
func TestCalendarsPageMicrosoftNoCalendarAccess(t *testing.T) {
	g, sp, v, _, ix, sec := cloudPage(t)
	gr := calendartest.StartGraph(t)
	gr.Account(t, ix, sec, gr.SignIn(false, "Mail.ReadWrite", "User.Read"))

	v.showCloudAdd(kindNamed(t, "Microsoft 365"))
	f := v.cloud
	waitLong(t, g, 30*time.Second, "the problem under the account", func() bool { return f.accountProblem.Visible() })
	if got, want := f.accountProblem.Text, "This account's sign-in does not include calendar access yet: sign in to the mail account again to allow it."; got != want {
		t.Errorf("under the account: %q", got)
	}
	if !f.add.Disabled() || !f.calendar.Disabled() || f.general.Visible() || f.progress.Visible() {
		t.Errorf("Add enabled %v, calendar enabled %v, other problem %q, progress %v",
			!f.add.Disabled(), !f.calendar.Disabled(), f.general.Text, f.progress.Visible())
	}
	test.Tap(f.add)
	pump(g)
	if cs, _ := sp.store.Calendars(t.Context()); len(cs) != 0 || v.cloud != f {
		t.Errorf("%d calendars added; form open: %v", len(cs), v.cloud == f)
	}
}

// TestCalendarsPageMicrosoftCalendar: a Microsoft 365 account signed in
// with calendar access: its Outlook calendar is offered, chosen, and
// added with its event.
func TestCalendarsPageMicrosoftCalendar(t *testing.T) {
	g, sp, v, _, ix, sec := cloudPage(t)
	gr := calendartest.StartGraph(t)
	now := time.Now()
	gr.Put(calendartest.GraphEvent{ID: "e1", Subject: "SNDA call", Start: now.Add(time.Hour), End: now.Add(2 * time.Hour)})
	gr.Account(t, ix, sec, gr.SignIn(false, calendartest.GraphScopes...))

	v.showCloudAdd(kindNamed(t, "Microsoft 365"))
	f := v.cloud
	waitLong(t, g, 30*time.Second, "the calendar listed", func() bool { return !f.calendar.Disabled() })
	if f.calendar.Selected != "Calendar (main calendar)" || len(f.calendar.Options) != 1 {
		t.Fatalf("calendar field %q of %q", f.calendar.Selected, f.calendar.Options)
	}
	test.Tap(f.add)
	waitLong(t, g, 60*time.Second, "the calendar added", func() bool { return strings.HasPrefix(v.status.Text, "Added ") })
	cs, err := sp.store.Calendars(t.Context())
	if err != nil || len(cs) != 1 || cs[0].Kind != store.CalendarMicrosoft {
		t.Fatalf("calendars %+v, %v", cs, err)
	}
	if v.status.Text != "Added ‘"+cs[0].Name+"’." || v.status.Importance == widget.DangerImportance {
		t.Errorf("the page says %q", v.status.Text)
	}
	if n, _ := sp.store.CountCalendarEvents(t.Context(), cs[0].ID); n != 1 {
		t.Errorf("%d events, want 1", n)
	}
}

// TestSettingsCalendarsOpensMailAccounts: in the Settings window, the
// cloud form's button with no mail account goes to the Mail accounts tab.
func TestSettingsCalendarsOpensMailAccounts(t *testing.T) {
	g, _, _ := newTestGUI(t)
	g.showSettings()
	tabs, ok := g.settingsWindow.Content().(*container.AppTabs)
	if !ok {
		t.Fatalf("the Settings window shows %T, want tabs", g.settingsWindow.Content())
	}
	tabs.SelectIndex(slices.IndexFunc(tabs.Items, func(it *container.TabItem) bool { return it.Text == "Calendars" }))
	v := g.calendarsView
	v.showCloudAdd(kindNamed(t, "Google Calendar"))
	f := v.cloud
	waitLong(t, g, 10*time.Second, "the missing account said", func() bool { return f.missing.Visible() })
	if !strings.Contains(f.missing.Text, "Add your Gmail account first") || !f.openMail.Visible() {
		t.Fatalf("the form says %q; button shown %v", f.missing.Text, f.openMail.Visible())
	}
	test.Tap(f.openMail)
	if got := tabs.Selected().Text; got != "Mail accounts" || v.cloud != nil {
		t.Errorf("tab %q after the button; form open %v", got, v.cloud != nil)
	}
}
