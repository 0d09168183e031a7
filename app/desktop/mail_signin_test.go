package desktop

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/platform/secrets"
)

// TestMailSettingsSignInAgain: a Gmail account signed in before Spirit read
// calendars has "Sign in again…" on its row (a mail folder has not); the
// button opens the service's consent page in the browser, asking for the
// calendars too, and once the browser comes back the page says so and the
// account's calendar can be added, which it could not before.
func TestMailSettingsSignInAgain(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // the keychain file, never a real keychain
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	g, sp, _ := newTestGUI(t)
	sec, err := secrets.Open(sp.dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(sp.store)
	gg := calendartest.StartGoogle(t)
	acct := gg.Account(t, ix, sec, gg.SignIn(false, calendartest.GoogleScopes[:2]...))
	if _, err := ix.AddAccount(t.Context(), index.Account{Kind: index.KindMaildir, Name: "Archive", Address: "dana@example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.core.AddCloudCalendar(t.Context(), acct.ID, ""); !errors.Is(err, calendar.ErrNoCalendarAccess) {
		t.Fatalf("before signing in again: %v, want no calendar access", err)
	}

	w := g.fa.NewWindow("Settings")
	w.Resize(fyne.NewSize(800, 600))
	v := newMailView(g, w)
	w.SetContent(v.content)
	// The lawyer's browser: consent to what was asked, then the redirect.
	asked := make(chan string, 1)
	redirected := make(chan error, 1)
	v.openURL = func(u *url.URL) error {
		q := u.Query()
		asked <- q.Get("scope")
		back := q.Get("redirect_uri") + "/?state=" + url.QueryEscape(q.Get("state")) + "&code=" + gg.Code(strings.Fields(q.Get("scope"))...)
		go func() {
			resp, err := http.Get(back)
			if err == nil {
				resp.Body.Close()
			}
			redirected <- err
		}()
		return nil
	}
	v.reload()
	waitLong(t, g, 10*time.Second, "the two accounts", func() bool { return len(v.rows.Objects) == 4 })
	if buttonIn(v.rows.Objects[2], signInAgainLabel) != nil {
		t.Errorf("the mail folder's row (%q) has a %q button", labelsIn(v.rows.Objects[2]), signInAgainLabel)
	}
	again := buttonIn(v.rows.Objects[0], signInAgainLabel)
	if again == nil {
		t.Fatalf("the Gmail row (%q) has no %q button", labelsIn(v.rows.Objects[0]), signInAgainLabel)
	}
	test.Tap(again)
	if s := v.status.Text; !strings.Contains(s, "finish in your browser") {
		t.Errorf("while signing in the page says %q", s)
	}
	select {
	case scope := <-asked:
		for _, s := range []string{"https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/calendar.calendarlist.readonly"} {
			if !strings.Contains(scope, s) {
				t.Errorf("the sign-in asked for %q, without %s", scope, s)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no sign-in page opened")
	}
	if err := <-redirected; err != nil {
		t.Fatal(err)
	}
	want := "Signed in to " + acct.Name + " again."
	waitLong(t, g, 30*time.Second, "the sign-in done", func() bool { return v.status.Text == want })
	if _, err := sp.core.AddCloudCalendar(t.Context(), acct.ID, ""); err != nil {
		t.Errorf("after signing in again the calendar cannot be added: %v", err)
	}
}
