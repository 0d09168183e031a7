package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform/secrets"
)

// icsAround is a calendar with a meeting two hours from now and another
// thirty hours from now, in UTC.
func icsAround(now time.Time) string {
	ev := func(uid, summary string, start time.Time) string {
		return fmt.Sprintf("BEGIN:VEVENT\r\nUID:%s\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:%s\r\nDTEND:%s\r\nSUMMARY:%s\r\nORGANIZER;CN=Marcy Howard:mailto:marcy@gl.com\r\nEND:VEVENT\r\n",
			uid, start.UTC().Format("20060102T150405Z"), start.Add(30*time.Minute).UTC().Format("20060102T150405Z"), summary)
	}
	soon := now.Add(2 * time.Hour).Truncate(time.Minute)
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
		ev("soon@x", "SNDA call", soon) + ev("later@x", "Estoppel review", soon.Add(28*time.Hour)) + "END:VCALENDAR\r\n"
}

func runCal(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := runCalendar(context.Background(), append(args, "--data-dir", dir), &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestCalendarCommandsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "work.ics")
	if err := os.WriteFile(path, []byte(icsAround(time.Now())), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCal(t, dir, "add", path)
	if err != nil || !strings.Contains(out, "Added work (calendar 1): 2 events.") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "list")
	if err != nil || !strings.Contains(out, "1  file   work  "+path) || !strings.Contains(out, "2 events") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "upcoming")
	if err != nil || !strings.Contains(out, "SNDA call  with Marcy Howard") || strings.Contains(out, "Estoppel") {
		t.Fatalf("upcoming (24 h): %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "upcoming", "--hours", "48")
	if err != nil || !strings.Contains(out, "Estoppel review") {
		t.Fatalf("upcoming --hours 48: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "sync", "1")
	if err != nil || !strings.Contains(out, "work: 2 events") {
		t.Fatalf("sync: %v\n%s", err, out)
	}
	if _, err := runCal(t, dir, "sync", "7"); err == nil {
		t.Error("sync of an unknown calendar succeeded")
	}
	if _, err := runCal(t, dir, "add", path); err == nil {
		t.Error("the same file was added twice")
	}
	out, err = runCal(t, dir, "remove", "1")
	if err != nil || !strings.Contains(out, "Removed work") {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "upcoming", "--hours", "48")
	if err != nil || !strings.Contains(out, "Nothing in the next") {
		t.Fatalf("upcoming after remove: %v\n%s", err, out)
	}
	if _, err := runCal(t, dir, "remove"); !errors.Is(err, errUsage) {
		t.Errorf("remove without an id: %v, want a usage error", err)
	}
}

func TestCalendarCommandsSubscription(t *testing.T) {
	dir := t.TempDir()
	body := icsAround(time.Now())
	gets, notModified := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets++
		if r.Header.Get("If-None-Match") == `"1"` {
			notModified++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"1"`)
		w.Write([]byte(body))
	}))
	defer srv.Close()
	out, err := runCal(t, dir, "add", srv.URL+"/dana.ics", "--name", "Firm")
	if err != nil || !strings.Contains(out, "Added Firm (calendar 1): 2 events.") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "sync")
	if err != nil || !strings.Contains(out, "Firm: unchanged") || notModified != 1 {
		t.Fatalf("sync: %v (304s: %d)\n%s", err, notModified, out)
	}
	srv.Close()
	out, err = runCal(t, dir, "sync")
	if !errors.Is(err, errProblems) {
		t.Fatalf("sync against a stopped server: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "list")
	if err != nil || !strings.Contains(out, "last sync failed") || !strings.Contains(out, "2 events") {
		t.Fatalf("list after a failed sync: %v\n%s", err, out)
	}
	if _, err := runCal(t, dir, "add", "ftp://example.com/a.ics"); err == nil {
		t.Error("an ftp URL was taken for a calendar file")
	}
}

func TestEvalCalendarJSON(t *testing.T) {
	root := filepath.Join("agents", "calendar", "testdata")
	var out, errOut bytes.Buffer
	if err := runEval([]string{"calendar", root, "--json"}, &out, &errOut); err != nil {
		t.Fatalf("eval calendar: %v\n%s%s", err, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	des, _ := os.ReadDir(filepath.Join(root, "calendar"))
	if len(lines) != len(des)+1 || lines[len(lines)-1] != fmt.Sprintf("%d passed, 0 failed", len(des)) {
		t.Fatalf("%d lines for %d cases:\n%s", len(lines), len(des), out.String())
	}
	for _, l := range lines[:len(lines)-1] {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		for _, k := range []string{"id", "nudge", "event_uid", "recurrence_id", "message_ids"} {
			if _, ok := r[k]; !ok {
				t.Errorf("line %q has no %s", l, k)
			}
		}
	}
	if err := runEval([]string{"calendar"}, &out, &errOut); !errors.Is(err, errUsage) {
		t.Errorf("eval calendar without DIR: %v", err)
	}
}

func TestCalendarCommandsCalDAV(t *testing.T) {
	// The keychain is the file fallback: no session bus to reach.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/work/", "Work")
	r.MkCalendar(t, "/dana/home/", "Home")
	body := icsAround(time.Now())
	r.Put(t, "/dana/work/soon.ics", strings.Split(body, "BEGIN:VEVENT\r\nUID:later@x")[0]+"END:VCALENDAR\r\n")
	dir := t.TempDir()
	t.Setenv("SPIRIT_CALDAV_PASSWORD", calendartest.Password)

	if _, err := runCal(t, dir, "add", r.Base+"/", "--caldav"); !errors.Is(err, errUsage) {
		t.Errorf("add --caldav without --user: %v, want a usage error", err)
	}
	// A server URL adds every calendar with events.
	out, err := runCal(t, dir, "add", r.Base+"/", "--caldav", "--user", calendartest.User)
	if err != nil || !strings.Contains(out, "Added Work (calendar") || !strings.Contains(out, "Added Home (calendar") {
		t.Fatalf("add --caldav: %v\n%s", err, out)
	}
	var workID int
	if i := strings.Index(out, "Added Work (calendar "); i >= 0 {
		fmt.Sscanf(out[i+len("Added Work (calendar "):], "%d", &workID)
	}
	out, err = runCal(t, dir, "list")
	if err != nil || !strings.Contains(out, fmt.Sprintf("%d  caldav Work  %s/dana/work/ as dana  1 events", workID, r.Base)) {
		t.Fatalf("list: %v\n%s", err, out)
	}
	// The password came from the environment once and lives in the
	// keychain: a sync without it in the environment works, and asks the
	// server only what changed since the first (nothing).
	t.Setenv("SPIRIT_CALDAV_PASSWORD", "")
	out, err = runCal(t, dir, "sync")
	if err != nil || !strings.Contains(out, "Work: unchanged") || !strings.Contains(out, "Home: unchanged") {
		t.Fatalf("sync: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "upcoming")
	if err != nil || !strings.Contains(out, "SNDA call") {
		t.Fatalf("upcoming: %v\n%s", err, out)
	}
	if out, err = runCal(t, dir, "remove", fmt.Sprint(workID)); err != nil || !strings.Contains(out, "Removed Work") {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	if out, _ = runCal(t, dir, "upcoming"); strings.Contains(out, "SNDA call") {
		t.Fatalf("upcoming after remove still lists the removed calendar's event:\n%s", out)
	}
}

// TestCalendarAddSyncsTheRunningSpirit: a calendar added from the command
// line beside a running Spirit is read by it at once, not at its next
// five-minute round: the subscription is fetched once by the command and
// once more by the running Spirit, which then has no failure to report.
func TestCalendarAddSyncsTheRunningSpirit(t *testing.T) {
	dir := t.TempDir()
	body := icsAround(time.Now())
	fetched := make(chan string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched <- r.Header.Get("If-None-Match")
		w.Header().Set("ETag", `"1"`)
		w.Write([]byte(body))
	}))
	defer srv.Close()
	runningSpirit(t, dir)

	out, err := runCal(t, dir, "add", srv.URL+"/firm.ics", "--name", "Firm")
	if err != nil || !strings.Contains(out, "Added Firm (calendar 1): 2 events.") || !strings.Contains(out, "The running Spirit is syncing it now.") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	if first := <-fetched; first != "" {
		t.Errorf("the command's own fetch sent If-None-Match %q", first)
	}
	select {
	case second := <-fetched:
		// The running Spirit read the calendar's stored validator.
		if second != `"1"` {
			t.Errorf("the running Spirit's fetch sent If-None-Match %q, want the stored ETag", second)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the running Spirit did not fetch the new calendar within 30 s")
	}

	// Without a running Spirit, add says nothing of one.
	other := t.TempDir()
	out, err = runCal(t, other, "add", srv.URL+"/firm.ics")
	if err != nil || strings.Contains(out, "running Spirit") {
		t.Errorf("add without a running Spirit: %v\n%s", err, out)
	}
}

// TestCalendarCloudCommands: `spirit calendar add microsoft|google
// --account ID` against the Graph and Google fakes: refused with the
// lawyer's sentence while the sign-in lacks calendars (nothing added),
// added once signed in with them; list, sync and remove work on them.
func TestCalendarCloudCommands(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	g := calendartest.StartGraph(t)
	gg := calendartest.StartGoogle(t)
	now := time.Now()
	g.Put(calendartest.GraphEvent{ID: "e1", Subject: "SNDA call", Start: now.Add(2 * time.Hour), End: now.Add(3 * time.Hour),
		Response: "accepted", Organizer: calendartest.GraphPerson{Name: "Marcy Howard", Address: "marcy@howardlaw.com"}})
	gg.Put(calendartest.GoogleEvent{ID: "g1", Summary: "Estoppel review", Start: now.Add(3 * time.Hour), End: now.Add(4 * time.Hour)})
	withKeys := func(f func(ix *index.Index, sec secrets.Store)) {
		st, err := store.OpenDir(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		sec, err := secrets.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		f(index.New(st), sec)
	}
	withKeys(func(ix *index.Index, sec secrets.Store) {
		g.Account(t, ix, sec, g.SignIn(false, "Mail.ReadWrite", "User.Read"))
		gg.Account(t, ix, sec, gg.SignIn(false, calendartest.GoogleScopes...))
	})
	out, err := runCal(t, dir, "add", "microsoft", "--account", "1")
	if !errors.Is(err, errProblems) || !strings.Contains(out, "this account's sign-in does not include calendar access yet: sign in to the mail account again to allow it") ||
		!strings.Contains(out, "spirit mail signin 1") {
		t.Fatalf("add without calendar access: %v\n%s", err, out)
	}
	if out, _ := runCal(t, dir, "list"); !strings.Contains(out, "No calendars") {
		t.Fatalf("something was added: %s", out)
	}
	if _, err := runCal(t, dir, "add", "google", "--account", "1"); err == nil {
		t.Error("a Microsoft account was added as Google")
	}
	if _, err := runCal(t, dir, "add", "microsoft"); !errors.Is(err, errUsage) {
		t.Errorf("add microsoft without --account: %v", err)
	}
	// Signed in again, with calendars.
	withKeys(func(_ *index.Index, sec secrets.Store) {
		if err := accounts.SaveToken(t.Context(), sec, 1, g.SignIn(false, calendartest.GraphScopes...)); err != nil {
			t.Fatal(err)
		}
	})
	out, err = runCal(t, dir, "add", "microsoft", "--account", "1")
	if err != nil || !strings.Contains(out, "Added Outlook Calendar (dana@firm.com) (calendar 1): 1 events.") {
		t.Fatalf("add microsoft: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "add", "google", "--account", "2")
	if err != nil || !strings.Contains(out, "(calendar 2): 1 events.") || !strings.Contains(out, calendartest.Family+"  Family") {
		t.Fatalf("add google: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "list")
	if err != nil || !strings.Contains(out, "1  microsoft Outlook Calendar (dana@firm.com)") || !strings.Contains(out, "of mail account 2") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "upcoming")
	if err != nil || !strings.Contains(out, "SNDA call  with Marcy Howard") || !strings.Contains(out, "Estoppel review") {
		t.Fatalf("upcoming: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "sync")
	if err != nil || !strings.Contains(out, "Outlook Calendar (dana@firm.com): unchanged") {
		t.Fatalf("sync: %v\n%s", err, out)
	}
	out, err = runCal(t, dir, "remove", "1")
	if err != nil || !strings.Contains(out, "Removed Outlook Calendar (dana@firm.com)") {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	// Signing in again names a wrong account plainly.
	var sout, serr bytes.Buffer
	if err := runMail(t.Context(), []string{"signin", "9", "--data-dir", dir}, &sout, &serr); err == nil || !strings.Contains(err.Error(), "no mail account 9") {
		t.Errorf("mail signin 9: %v", err)
	}
	if err := runMail(t.Context(), []string{"signin", "--data-dir", dir}, &sout, &serr); !errors.Is(err, errUsage) {
		t.Errorf("mail signin without an id: %v", err)
	}
	// Removing the Gmail account removes its calendar.
	var mout, merr bytes.Buffer
	if err := runMail(t.Context(), []string{"remove", "2", "--data-dir", dir}, &mout, &merr); err != nil ||
		!strings.Contains(mout.String(), "its calendars (Google Calendar (dana@gmail.com)) with their events") {
		t.Fatalf("mail remove: %v\n%s%s", err, mout.String(), merr.String())
	}
	if out, _ := runCal(t, dir, "list"); !strings.Contains(out, "No calendars") {
		t.Errorf("calendars after the account went:\n%s", out)
	}
}
