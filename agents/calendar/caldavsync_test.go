package calendar

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/store"
)

// meter counts the requests a client sends and the bytes it receives.
type meter struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs int
	recv int64
	sent int64
}

func (m *meter) RoundTrip(r *http.Request) (*http.Response, error) {
	m.mu.Lock()
	m.reqs++
	m.sent += max(r.ContentLength, 0)
	m.mu.Unlock()
	resp, err := m.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, m: m}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	m *meter
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.m.mu.Lock()
	b.m.recv += int64(n)
	b.m.mu.Unlock()
	return n, err
}

// take returns the counts since the last take.
func (m *meter) take() (reqs int, recv, sent int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	reqs, recv, sent = m.reqs, m.recv, m.sent
	m.reqs, m.recv, m.sent = 0, 0, 0
	return
}

func syncEvent(i int, summary string) string {
	start := time.Date(2026, 6, 15, 13, 0, 0, 0, time.UTC).Add(time.Duration(i) * 5 * time.Hour)
	return fmt.Sprintf(`BEGIN:VEVENT
UID:sync-%d@x
DTSTAMP:20260101T000000Z
DTSTART:%s
DTEND:%s
SUMMARY:%s
ORGANIZER;CN=Marcy Howard:mailto:marcy@howardlaw.com
ATTENDEE;PARTSTAT=ACCEPTED:mailto:dana@firm.com
END:VEVENT`, i, start.Format("20060102T150405Z"), start.Add(30*time.Minute).Format("20060102T150405Z"), summary)
}

// TestCalDAVSyncToken syncs thirty events from radicale whole, then by
// the collection's sync token (RFC 6578): unchanged in one request, one
// change and one deletion in two (sync-collection, then one multiget), a
// refused token by reading the calendar whole. It prints what each costs.
func TestCalDAVSyncToken(t *testing.T) {
	ctx := t.Context()
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/sync/", "Sync")
	for i := range 30 {
		r.Put(t, fmt.Sprintf("/dana/sync/e%d.ics", i), calendarOf(t, syncEvent(i, fmt.Sprintf("Meeting %d", i))))
	}
	m := &meter{next: http.DefaultTransport}
	hc := &http.Client{Transport: m, Timeout: 30 * time.Second}
	st := openStore(t)
	c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarCalDAV, Source: r.Base + "/dana/sync/", Name: "Sync", Username: "dana"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 14, 12, 0, 0, 0, time.UTC)
	opt := SyncOptions{HTTP: hc, Secrets: calendartest.Secrets{PasswordKey(c.ID): "pw"}, Now: now}

	res := syncAgain(t, st, c.ID, opt)
	reqs, recv, sent := m.take()
	if res.Events != 30 || res.Incremental {
		t.Fatalf("first sync %+v", res)
	}
	c, _ = st.Calendar(ctx, c.ID)
	if !strings.HasPrefix(c.SyncToken, "http://radicale.org/ns/sync/") {
		t.Fatalf("no sync token kept: %q", c.SyncToken)
	}
	fmt.Printf("CALDAV first sync of 30 events: %d bytes received (%d sent) in %d requests\n", recv, sent, reqs)

	res = syncAgain(t, st, c.ID, opt)
	reqs, recv, sent = m.take()
	if !res.Unchanged || !res.Incremental || reqs != 1 {
		t.Errorf("unchanged: %+v in %d requests, want 1", res, reqs)
	}
	fmt.Printf("CALDAV unchanged: %d bytes received (%d sent) in %d requests\n", recv, sent, reqs)

	r.Put(t, "/dana/sync/e3.ics", calendarOf(t, syncEvent(3, "Meeting 3 moved to the big room")))
	r.Do(t, http.MethodDelete, "/dana/sync/e7.ics", "", "")
	res = syncAgain(t, st, c.ID, opt)
	reqs, recv, sent = m.take()
	if !res.Incremental || res.Events != 1 || res.Removed != 1 || res.Objects != 1 || reqs != 2 {
		t.Errorf("one change, one deletion: %+v in %d requests, want 2", res, reqs)
	}
	fmt.Printf("CALDAV one change and one deletion: %d bytes received (%d sent) in %d requests\n", recv, sent, reqs)
	if n, _ := st.CountCalendarEvents(ctx, c.ID); n != 29 {
		t.Errorf("%d events stored, want 29", n)
	}
	occs, err := Upcoming(ctx, st, now, now.AddDate(0, 0, 30), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var summaries []string
	for _, o := range occs {
		summaries = append(summaries, o.Summary)
	}
	all := strings.Join(summaries, "|")
	if !strings.Contains(all, "Meeting 3 moved to the big room") || strings.Contains(all, "Meeting 7|") || len(occs) != 29 {
		t.Errorf("after the changes: %q", all)
	}

	// A token the server refuses (valid-sync-token): the calendar is
	// read whole, with a new token.
	if err := st.MarkCalendarSynced(ctx, c.ID, store.CalendarSync{SyncToken: "http://radicale.org/ns/sync/" + strings.Repeat("0", 64)}); err != nil {
		t.Fatal(err)
	}
	res = syncAgain(t, st, c.ID, opt)
	reqs, _, _ = m.take()
	if res.Incremental || res.Events != 29 || reqs != 3 {
		t.Errorf("refused token: %+v in %d requests, want the calendar read whole in 3", res, reqs)
	}
	if c, _ = st.Calendar(ctx, c.ID); strings.HasSuffix(c.SyncToken, strings.Repeat("0", 64)) || c.SyncToken == "" {
		t.Errorf("token after a whole read: %q", c.SyncToken)
	}
}

// TestCalDAVSyncAnswers table-tests how a server's answers to the sync
// token's PROPFIND and to sync-collection are read: a server without
// tokens, a refused token (valid-sync-token), a server that cannot answer
// the report, and failures that are not about the token.
func TestCalDAVSyncAnswers(t *testing.T) {
	const noToken = `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/c/</d:href>` +
		`<d:propstat><d:prop><d:sync-token/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat></d:response></d:multistatus>`
	const changes = `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:sync-token>t2</d:sync-token>` +
		`<d:response><d:href>/c/</d:href><d:propstat><d:prop/><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>` +
		`<d:response><d:href>/c/a%20b.ics</d:href><d:propstat><d:prop><d:getetag>"1"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>` +
		`<d:response><d:href>http://x/c/gone.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response></d:multistatus>`
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		token   string // SyncToken's answer
		changed string // Changes' answer: changed|removed|next
		refused bool   // Changes says ErrSyncTokenRefused
		failed  bool   // Changes fails otherwise
	}{
		{name: "no sync tokens", status: http.StatusMultiStatus, body: noToken, token: "", refused: true},
		{name: "changes", status: http.StatusMultiStatus, body: changes, changed: "/c/a b.ics|/c/gone.ics|t2"},
		{name: "token refused", status: http.StatusForbidden, body: `<d:error xmlns:d="DAV:"><d:valid-sync-token/></d:error>`, refused: true},
		{name: "token refused with 409", status: http.StatusConflict, body: `<d:error xmlns:d="DAV:"><d:valid-sync-token/></d:error>`, refused: true},
		{name: "report not implemented", status: http.StatusNotImplemented, body: "", refused: true},
		{name: "server down", status: http.StatusBadGateway, body: "", failed: true},
		{name: "report unknown", status: http.StatusBadRequest, body: "unknown report", refused: true},
		{name: "password wrong", status: http.StatusUnauthorized, body: "", failed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptestServer(t, tc.status, tc.body)
			d, err := NewCalDAV(srv.Client(), srv.URL+"/c/", "", "")
			if err != nil {
				t.Fatal(err)
			}
			if tc.status == http.StatusMultiStatus {
				if tok, err := d.SyncToken(t.Context(), "/c/"); err != nil || (tc.token == "" && tok != "" && tc.changed == "") {
					t.Errorf("SyncToken = %q, %v", tok, err)
				}
			}
			changed, removed, next, err := d.Changes(t.Context(), "/c/", "t1")
			switch {
			case tc.refused:
				if !errors.Is(err, ErrSyncTokenRefused) {
					t.Errorf("Changes: %v, want the token refused", err)
				}
			case tc.failed:
				if err == nil || errors.Is(err, ErrSyncTokenRefused) {
					t.Errorf("Changes: %v, want a failure that is not a refused token", err)
				}
			default:
				if got := strings.Join(changed, ",") + "|" + strings.Join(removed, ",") + "|" + next; err != nil || got != tc.changed {
					t.Errorf("Changes = %q, %v; want %q", got, err, tc.changed)
				}
			}
		})
	}
}

func httptestServer(t *testing.T, status int, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}
