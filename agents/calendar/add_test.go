package calendar

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/store"
)

// memKeys is a keychain in memory: what Add keeps and Remove deletes.
type memKeys map[string]string

func (k memKeys) Set(_ context.Context, key, value string) error    { k[key] = value; return nil }
func (k memKeys) Delete(_ context.Context, key string) error        { delete(k, key); return nil }
func (k memKeys) Get(_ context.Context, key string) (string, error) { return k[key], nil }

const oneEvent = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:a@x\r\n" +
	"DTSTAMP:20260101T000000Z\r\nDTSTART:20260105T100000Z\r\nDTEND:20260105T110000Z\r\nSUMMARY:Call\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

// TestAddFieldErrors: what the lawyer gets wrong is named under its
// field, and nothing is added.
func TestAddFieldErrors(t *testing.T) {
	dir := t.TempDir()
	notICS := filepath.Join(dir, "notes.ics")
	if err := os.WriteFile(notICS, []byte("shopping list\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		nc        NewCalendar
		wantField string
		wantText  string
	}{
		{"no file", NewCalendar{Kind: store.CalendarFile}, FieldFile, "choose a calendar file"},
		{"missing file", NewCalendar{Kind: store.CalendarFile, Source: filepath.Join(dir, "gone.ics")}, FieldFile, "there is no file at"},
		{"a folder", NewCalendar{Kind: store.CalendarFile, Source: dir}, FieldFile, "is a folder"},
		{"not iCalendar", NewCalendar{Kind: store.CalendarFile, Source: notICS}, FieldFile, "not an iCalendar"},
		{"no URL", NewCalendar{Kind: store.CalendarURL, Source: "  "}, FieldURL, "address is needed"},
		{"ftp URL", NewCalendar{Kind: store.CalendarURL, Source: "ftp://x/cal.ics"}, FieldURL, "not webcal://"},
		{"no server", NewCalendar{Kind: store.CalendarCalDAV, User: "dana", Password: "pw"}, FieldServer, "address is needed"},
		{"server not a URL", NewCalendar{Kind: store.CalendarCalDAV, Source: "caldav.example.com", User: "dana", Password: "pw"}, FieldServer, "not a web address"},
		{"no user", NewCalendar{Kind: store.CalendarCalDAV, Source: "https://x.example", Password: "pw"}, FieldUser, "user name is needed"},
		{"no password", NewCalendar{Kind: store.CalendarCalDAV, Source: "https://x.example", User: "dana"}, FieldPassword, "password is needed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			_, err := Add(t.Context(), st, memKeys{}, nil, tc.nc)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.wantField || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("Add: %v (field %v), want field %q saying %q", err, fe, tc.wantField, tc.wantText)
			}
			if cs, _ := st.Calendars(t.Context()); len(cs) != 0 {
				t.Errorf("%d calendars added, want none", len(cs))
			}
		})
	}
}

// TestAddFileAndSubscription: a file is named for itself and stored by
// its absolute path; a webcal:// subscription is stored as https:// and
// named for its host and file.
func TestAddFileAndSubscription(t *testing.T) {
	st := openStore(t)
	path := filepath.Join(t.TempDir(), "Court dates.ics")
	if err := os.WriteFile(path, []byte(oneEvent), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Add(t.Context(), st, nil, nil, NewCalendar{Kind: store.CalendarFile, Source: path})
	if err != nil || len(got) != 1 || got[0].Name != "Court dates" || got[0].Source != path {
		t.Fatalf("Add file: %+v, %v", got, err)
	}
	// Read once, it is a calendar, not what a cut-short add left.
	if _, err := Sync(t.Context(), st, got[0], SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = Add(t.Context(), st, nil, nil, NewCalendar{Kind: store.CalendarFile, Source: path})
	if fe := (*FieldError)(nil); !errors.As(err, &fe) || fe.Field != FieldFile || !strings.Contains(err.Error(), "already added, as ‘Court dates’") {
		t.Fatalf("Add the file again: %v", err)
	}
	got, err = Add(t.Context(), st, nil, nil, NewCalendar{Kind: store.CalendarURL, Source: "webcal://cal.example.com/firm/holidays.ics"})
	if err != nil || len(got) != 1 || got[0].Name != "cal.example.com · holidays" || got[0].Source != "https://cal.example.com/firm/holidays.ics" {
		t.Fatalf("Add subscription: %+v, %v", got, err)
	}
}

// TestAddCalDAVRadicale: a server's address adds each of the account's
// calendars with events, with the password in the keychain only; a
// calendar's own address adds that one; Remove takes the password too.
func TestAddCalDAVRadicale(t *testing.T) {
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/work/", "Work")
	r.MkCalendar(t, "/dana/home/", "Home")
	st := openStore(t)
	keys := memKeys{}
	got, err := Add(t.Context(), st, keys, r.HTTP, NewCalendar{Kind: store.CalendarCalDAV, Source: r.Base + "/",
		User: calendartest.User, Password: calendartest.Password})
	if err != nil || len(got) != 2 {
		t.Fatalf("Add server: %+v, %v", got, err)
	}
	for _, c := range got {
		if keys[PasswordKey(c.ID)] != calendartest.Password || c.Username != calendartest.User {
			t.Errorf("calendar %+v: password %q in the keychain", c, keys[PasswordKey(c.ID)])
		}
		// Read once, it is a calendar, not what a cut-short add left.
		if _, err := Sync(t.Context(), st, c, SyncOptions{HTTP: r.HTTP, Secrets: keys}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Add(t.Context(), st, keys, r.HTTP, NewCalendar{Kind: store.CalendarCalDAV, Source: r.Base + "/",
		User: calendartest.User, Password: calendartest.Password})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != FieldServer || !strings.Contains(err.Error(), "already added") {
		t.Fatalf("Add the same account again: %v, want it said under the server", err)
	}
	for _, c := range got {
		if strings.HasSuffix(c.Source, "/dana/work/") {
			if err := Remove(t.Context(), st, keys, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	one, err := Add(t.Context(), st, keys, r.HTTP, NewCalendar{Kind: store.CalendarCalDAV, Source: r.Base + "/dana/work/",
		Name: "Office", User: calendartest.User, Password: calendartest.Password})
	if err != nil || len(one) != 1 || one[0].Name != "Office" || one[0].Source != r.Base+"/dana/work/" {
		t.Fatalf("Add one calendar: %+v, %v", one, err)
	}
	before := maps.Clone(keys)
	if err := Remove(t.Context(), st, keys, one[0]); err != nil {
		t.Fatal(err)
	}
	if _, ok := keys[PasswordKey(one[0].ID)]; ok || len(keys) != len(before)-1 || len(keys) != 1 {
		t.Errorf("after Remove the keychain holds %v", keys)
	}
}

// TestAddCalDAVRefused: a server that refuses the sign-in puts the error
// on the password, in plain words; one that cannot be reached on the
// server's address. Nothing is added.
func TestAddCalDAVRefused(t *testing.T) {
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="cal"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer refuse.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // its address now refuses connections
	for _, tc := range []struct {
		name, server, wantField, wantText string
	}{
		{"wrong password", refuse.URL + "/", FieldPassword, "refused the user name or password"},
		{"server down", gone.URL + "/", FieldServer, "could not be reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			keys := memKeys{}
			_, err := Add(t.Context(), st, keys, nil, NewCalendar{Kind: store.CalendarCalDAV, Source: tc.server, User: "dana", Password: "x"})
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.wantField || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("Add: %v, want field %q saying %q", err, tc.wantField, tc.wantText)
			}
			if cs, _ := st.Calendars(t.Context()); len(cs) != 0 || len(keys) != 0 {
				t.Errorf("left %d calendars and keys %v", len(cs), keys)
			}
		})
	}
}

func TestPlain(t *testing.T) {
	for _, tc := range []struct{ name, msg, want string }{
		{"refused", "caldav: find principal: 401 Unauthorized", "refused the user name or password"},
		{"forbidden", "fetch calendar: 403 Forbidden", "refused the user name or password"},
		{"no password", "caldav: password: secret not found", "cannot read this calendar's password"},
		{"file gone", "read calendar: open /x/a.ics: no such file or directory", "file is not there any more"},
		{"not found", "fetch calendar: 404 Not Found", "no calendar at this address"},
		{"no host", "fetch calendar: Get \"https://nope.example/x\": dial tcp: lookup nope.example: no such host", "could not be reached"},
		{"timeout", "caldav: query /a/: context deadline exceeded", "could not be reached"},
		{"not ical", "parse calendar: ical: malformed line", "not a calendar Spirit can read"},
		{"server", "fetch calendar: 503 Service Unavailable", "server had a problem"},
		{"duplicate", "this calendar is already added, as ‘Work’", "already added"},
		{"a port is not a status", `caldav: Propfind "http://127.0.0.1:40351/": dial tcp 127.0.0.1:40351: connect: connection refused`, "could not be reached"},
		{"unknown", "something odd", "something odd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Plain(tc.msg); !strings.Contains(got, tc.want) {
				t.Errorf("Plain(%q) = %q, want it to say %q", tc.msg, got, tc.want)
			}
		})
	}
}
