package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar/calendartest"
)

// TestCalendarSyncScrubsServerEcho: a CalDAV server that, once the
// account is added, refuses every request with a 403 whose status line
// and DAV error echo the password and the Basic credential it was sent:
// `spirit calendar sync` and `spirit calendar list` say the sync failed,
// in words without either.
func TestCalendarSyncScrubsServerEcho(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // the keychain is the file fallback
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	const password = "correct-Horse-battery-9"
	basic := base64.StdEncoding.EncodeToString([]byte(calendartest.User + ":" + password))
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/work/", "Work")
	body := icsAround(time.Now()) // one object, one event
	r.Put(t, "/dana/work/soon.ics", strings.Split(body, "BEGIN:VEVENT\r\nUID:later@x")[0]+"END:VCALENDAR\r\n")
	base, err := url.Parse(r.Base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(base)
	var echo atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !echo.Load() {
			proxy.ServeHTTP(w, req)
			return
		}
		io.Copy(io.Discard, req.Body)
		echo := fmt.Sprintf("%s may not read this with %s (you sent %s)", calendartest.User, password, req.Header.Get("Authorization"))
		body := fmt.Sprintf(`<?xml version="1.0"?><d:error xmlns:d="DAV:"><d:responsedescription>%s</d:responsedescription></d:error>`, echo)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 403 Forbidden %s\r\nContent-Type: application/xml; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			echo, len(body), body)
		buf.Flush()
	}))
	t.Cleanup(front.Close)

	dir := t.TempDir()
	t.Setenv("SPIRIT_CALDAV_PASSWORD", password)
	if out, err := runCal(t, dir, "add", front.URL+"/dana/work/", "--caldav", "--user", calendartest.User); err != nil || !strings.Contains(out, "Added Work") {
		t.Fatalf("add --caldav: %v\n%s", err, out)
	}
	t.Setenv("SPIRIT_CALDAV_PASSWORD", "")
	echo.Store(true)
	out, err := runCal(t, dir, "sync")
	if err == nil || !strings.Contains(out, "Work: ") || !strings.Contains(out, "403") {
		t.Fatalf("sync against the refusing server: %v\n%s", err, out)
	}
	list, err := runCal(t, dir, "list")
	if err != nil || !strings.Contains(list, "last sync failed") {
		t.Fatalf("list: %v\n%s", err, list)
	}
	for _, s := range []string{password, basic} {
		if strings.Contains(out, s) {
			t.Errorf("sync printed %q:\n%s", s, out)
		}
		if strings.Contains(list, s) {
			t.Errorf("list printed %q:\n%s", s, list)
		}
	}
}
