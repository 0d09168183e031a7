package calendartest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// Google is a loopback fake of the Google Calendar API v3 endpoints
// Spirit uses, speaking their documented protocol: GET
// /calendar/v3/users/me/calendarList, GET and POST
// /calendar/v3/calendars/{id}/events (singleEvents, timeMin/timeMax,
// pageToken, nextSyncToken, syncToken with cancelled entries, 410 for a
// forgotten token), and a token endpoint at /token. A token without the
// calendar scopes gets 403 insufficientPermissions.
type Google struct {
	*httptest.Server
	// BaseURL is the API root for the client, ".../calendar/v3".
	BaseURL string
	// PageSize caps a page below maxResults (10).
	PageSize int
	*tokens
	journal

	mu     sync.Mutex
	seq    int
	events map[string]*googleEntry
	forget int
}

type googleEntry struct {
	ev  GoogleEvent
	seq int
}

// GoogleEvent is an event instance (or, cancelled, a series) as the fake
// keeps it.
type GoogleEvent struct {
	ID       string
	Calendar string // "" is Primary
	// Status is confirmed (default), tentative or cancelled.
	Status     string
	Summary    string
	Start, End time.Time
	// Zone is the IANA zone the times are given in; empty: UTC.
	Zone   string
	AllDay bool
	// Series is the recurring event's id, OriginalStart the instance's
	// start in it.
	Series        string
	OriginalStart time.Time
	Transparent   bool
	Organizer     GooglePerson
	Attendees     []GooglePerson
}

// GooglePerson is an organizer or attendee; Self marks the lawyer,
// Resource a room.
type GooglePerson struct {
	Email, Name, Response string
	Self, Resource        bool
}

// Primary is the fake account's main calendar id, Family a shared
// calendar it only reads.
const (
	Primary = "dana@gmail.com"
	Family  = "family0123@group.calendar.google.com"
)

// GoogleScopes are the scopes of a sign-in that allows the calendar.
var GoogleScopes = []string{"https://www.googleapis.com/auth/gmail.readonly", "https://www.googleapis.com/auth/gmail.compose",
	"https://www.googleapis.com/auth/calendar.events", "https://www.googleapis.com/auth/calendar.calendarlist.readonly"}

const (
	scopeEvents   = "https://www.googleapis.com/auth/calendar.events"
	scopeCalendar = "https://www.googleapis.com/auth/calendar"
	scopeList     = "https://www.googleapis.com/auth/calendar.calendarlist.readonly"
)

// StartGoogle starts the fake, closed with the test.
func StartGoogle(t testing.TB) *Google {
	g := &Google{PageSize: 10, tokens: newTokens(), events: map[string]*googleEntry{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", g.serveToken)
	mux.HandleFunc("GET /calendar/v3/users/me/calendarList", g.calendarList)
	mux.HandleFunc("GET /calendar/v3/calendars/{id}/events", g.list)
	mux.HandleFunc("POST /calendar/v3/calendars/{id}/events", g.insert)
	g.Server = httptest.NewServer(mux)
	g.BaseURL = g.URL + "/calendar/v3"
	t.Cleanup(g.Close)
	return g
}

// SignIn is a token as a Google sign-in with scopes gives it; expired
// makes the service refuse its access token.
func (g *Google) SignIn(expired bool, scopes ...string) *oauth2.Token {
	return g.signIn("google", expired, scopes...)
}

// Put adds or changes an event.
func (g *Google) Put(ev GoogleEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ev.Calendar == "" {
		ev.Calendar = Primary
	}
	g.seq++
	g.events[ev.Calendar+"\x00"+ev.ID] = &googleEntry{ev: ev, seq: g.seq}
}

// Cancel cancels an instance, or deletes a whole series: as Google does
// with expanded instances, a sync then names the series' id cancelled.
func (g *Google) Cancel(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	series := false
	for _, e := range g.events {
		if e.ev.Series == id {
			series = true
			e.ev.Status, e.seq = "cancelled", -1 // gone with the series, not listed alone
		}
		if e.ev.ID == id {
			e.ev.Status, e.seq = "cancelled", g.seq
		}
	}
	if series {
		g.events[Primary+"\x00"+id] = &googleEntry{ev: GoogleEvent{ID: id, Calendar: Primary, Status: "cancelled"}, seq: g.seq}
	}
}

// ForgetSyncTokens makes every sync token issued so far answer 410.
func (g *Google) ForgetSyncTokens() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forget = g.seq + 1
}

func googleError(w http.ResponseWriter, status int, reason, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg,
		"errors": []map[string]string{{"message": msg, "domain": "global", "reason": reason}}}})
}

func (g *Google) auth(w http.ResponseWriter, r *http.Request, scopes ...string) bool {
	switch g.check(r, scopes...) {
	case http.StatusUnauthorized:
		googleError(w, http.StatusUnauthorized, "authError", "Invalid Credentials")
		return false
	case http.StatusForbidden:
		googleError(w, http.StatusForbidden, "insufficientPermissions", "Request had insufficient authentication scopes.")
		return false
	}
	return true
}

func (g *Google) calendarList(w http.ResponseWriter, r *http.Request) {
	if !g.auth(w, r, scopeList, scopeCalendar) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"kind": "calendar#calendarList", "items": []map[string]any{
		{"id": Primary, "summary": Primary, "primary": true, "accessRole": "owner"},
		{"id": Family, "summary": "Family", "accessRole": "reader"},
	}})
}

type googlePageState struct {
	Offset int    `json:"o"`
	Since  int    `json:"s"`
	Upto   int    `json:"u"`
	Query  string `json:"q"`
}

func (g *Google) list(w http.ResponseWriter, r *http.Request) {
	if !g.auth(w, r, scopeEvents, scopeCalendar) {
		return
	}
	cal := r.PathValue("id")
	q := r.URL.Query()
	g.ask(r.URL.RawQuery)
	g.mu.Lock()
	defer g.mu.Unlock()
	if q.Get("singleEvents") != "true" {
		googleError(w, http.StatusBadRequest, "badRequest", "the fake serves expanded instances only (singleEvents=true)")
		return
	}
	if q.Get("syncToken") != "" && (q.Get("timeMin") != "" || q.Get("timeMax") != "") {
		googleError(w, http.StatusBadRequest, "invalid", "syncToken cannot be used with timeMin or timeMax")
		return
	}
	st := googlePageState{Upto: g.seq}
	if pt := q.Get("pageToken"); pt != "" {
		b, err := base64.RawURLEncoding.DecodeString(pt)
		if err != nil || json.Unmarshal(b, &st) != nil {
			googleError(w, http.StatusBadRequest, "invalid", "bad page token")
			return
		}
	} else if tok := q.Get("syncToken"); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "sync-"))
		if err != nil || n < g.forget {
			googleError(w, http.StatusGone, "fullSyncRequired", "Sync token is no longer valid, a full sync is required.")
			return
		}
		st.Since = n
	}
	min_, _ := time.Parse(time.RFC3339, q.Get("timeMin"))
	max_, _ := time.Parse(time.RFC3339, q.Get("timeMax"))
	size := g.PageSize
	if n, err := strconv.Atoi(q.Get("maxResults")); err == nil && n < size {
		size = n
	}
	var keys []string
	for k, e := range g.events {
		switch {
		case e.ev.Calendar != cal, e.seq <= st.Since, e.seq > st.Upto:
			continue
		case st.Since == 0 && e.ev.Status == "cancelled":
			continue
		case st.Since == 0 && (!min_.IsZero() && !e.ev.End.After(min_) || !max_.IsZero() && !e.ev.Start.Before(max_)):
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	page := keys[min(st.Offset, len(keys)):]
	more := len(page) > size
	if more {
		page = page[:size]
	}
	items := []any{}
	for _, k := range page {
		items = append(items, g.events[k].ev.json())
	}
	out := map[string]any{"kind": "calendar#events", "summary": cal, "items": items}
	if more {
		next := st
		next.Offset += size
		b, _ := json.Marshal(next)
		out["nextPageToken"] = base64.RawURLEncoding.EncodeToString(b)
	} else {
		out["nextSyncToken"] = fmt.Sprintf("sync-%d", st.Upto)
	}
	writeJSON(w, http.StatusOK, out)
}

func (ev GoogleEvent) json() map[string]any {
	if ev.Status == "cancelled" {
		m := map[string]any{"kind": "calendar#event", "id": ev.ID, "status": "cancelled"}
		if ev.Series != "" {
			m["recurringEventId"] = ev.Series
			m["originalStartTime"] = map[string]string{"dateTime": ev.OriginalStart.UTC().Format(time.RFC3339)}
		}
		return m
	}
	loc := time.UTC
	if ev.Zone != "" {
		loc, _ = time.LoadLocation(ev.Zone)
	}
	at := func(t time.Time) map[string]string {
		if ev.AllDay {
			return map[string]string{"date": t.Format(time.DateOnly)}
		}
		m := map[string]string{"dateTime": t.In(loc).Format(time.RFC3339)}
		if ev.Zone != "" {
			m["timeZone"] = ev.Zone
		}
		return m
	}
	status := ev.Status
	if status == "" {
		status = "confirmed"
	}
	m := map[string]any{"kind": "calendar#event", "id": ev.ID, "status": status, "summary": ev.Summary,
		"start": at(ev.Start), "end": at(ev.End), "iCalUID": ev.ID + "@google.com",
		"organizer": map[string]any{"email": ev.Organizer.Email, "displayName": ev.Organizer.Name, "self": ev.Organizer.Self}}
	if ev.Transparent {
		m["transparency"] = "transparent"
	}
	if ev.Series != "" {
		m["recurringEventId"] = ev.Series
		m["originalStartTime"] = at(ev.OriginalStart)
	}
	var att []any
	for _, a := range ev.Attendees {
		p := map[string]any{"email": a.Email, "responseStatus": a.Response}
		if a.Name != "" {
			p["displayName"] = a.Name
		}
		if a.Self {
			p["self"] = true
		}
		if a.Resource {
			p["resource"] = true
		}
		att = append(att, p)
	}
	if len(att) > 0 {
		m["attendees"] = att
	}
	return m
}

func (g *Google) insert(w http.ResponseWriter, r *http.Request) {
	if !g.auth(w, r, scopeEvents, scopeCalendar) {
		return
	}
	var body struct {
		Summary    string `json:"summary"`
		Start, End struct {
			DateTime string `json:"dateTime"`
		}
		Attendees []struct {
			Email       string `json:"email"`
			DisplayName string `json:"displayName"`
		}
	}
	raw := json.RawMessage{}
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil || json.Unmarshal(raw, &body) != nil || body.Summary == "" {
		googleError(w, http.StatusBadRequest, "invalid", "bad event")
		return
	}
	start, err1 := time.Parse(time.RFC3339, body.Start.DateTime)
	end, err2 := time.Parse(time.RFC3339, body.End.DateTime)
	if err1 != nil || err2 != nil {
		googleError(w, http.StatusBadRequest, "invalid", "bad time")
		return
	}
	id := fmt.Sprintf("created%d", g.create(raw))
	ev := GoogleEvent{ID: id, Calendar: r.PathValue("id"), Summary: body.Summary, Start: start, End: end,
		Organizer: GooglePerson{Email: Primary, Self: true}}
	for _, a := range body.Attendees {
		ev.Attendees = append(ev.Attendees, GooglePerson{Email: a.Email, Name: a.DisplayName, Response: "needsAction"})
	}
	g.Put(ev)
	writeJSON(w, http.StatusOK, map[string]any{"kind": "calendar#event", "id": id, "status": "confirmed"})
}
