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

// Graph is a loopback fake of the Microsoft Graph endpoints Spirit's
// calendar uses, speaking their documented protocol:
// GET /v1.0/me/calendar, GET /v1.0/me/calendarView/delta (next links, a
// delta link, "@removed", 410 syncStateNotFound for a forgotten link, the
// Prefer header's outlook.timezone and odata.maxpagesize), POST
// /v1.0/me/events, and a token endpoint at /token. Tokens carry scopes:
// one without Calendars.Read(Write) gets 403 ErrorAccessDenied.
type Graph struct {
	*httptest.Server
	// BaseURL is the Graph root for the client, ".../v1.0".
	BaseURL string
	// PageSize caps a delta page below what the client asks (10).
	PageSize int
	*tokens
	journal

	mu     sync.Mutex
	seq    int
	events map[string]*graphEntry
	forget int // delta links from before this change are refused
}

type graphEntry struct {
	ev      GraphEvent
	seq     int
	removed bool
}

// GraphEvent is an event instance as the fake keeps it.
type GraphEvent struct {
	ID string
	// Type is singleInstance (default), occurrence or exception; Series
	// the series master's id and OriginalStart the instance's start in it.
	Type, Series  string
	OriginalStart time.Time
	Subject       string
	Start, End    time.Time
	// Zone is the Windows zone the event was made in ("Eastern Standard
	// Time"), Loc the same zone; times are given in it unless the client
	// asks for UTC. Empty: UTC.
	Zone      string
	Loc       *time.Location
	AllDay    bool
	Cancelled bool
	ShowAs    string // free, tentative, busy…; busy when empty
	// Response is the lawyer's answer: organizer, accepted, declined,
	// tentativelyAccepted, notResponded, none.
	Response  string
	Organizer GraphPerson
	Attendees []GraphPerson
	Location  string
}

// GraphPerson is an organizer or attendee; Type is required, optional or
// resource (a room).
type GraphPerson struct {
	Name, Address, Type, Response string
}

// GraphScopes are the scopes of a sign-in that allows the calendar.
var GraphScopes = []string{"Mail.ReadWrite", "User.Read", "Calendars.ReadWrite", "offline_access"}

// StartGraph starts the fake, closed with the test.
func StartGraph(t testing.TB) *Graph {
	g := &Graph{PageSize: 10, tokens: newTokens(), events: map[string]*graphEntry{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", g.serveToken)
	mux.HandleFunc("GET /v1.0/me/calendar", g.calendar)
	mux.HandleFunc("GET /v1.0/me/calendarView/delta", g.delta)
	mux.HandleFunc("POST /v1.0/me/events", g.createEvent)
	g.Server = httptest.NewServer(mux)
	g.BaseURL = g.URL + "/v1.0"
	t.Cleanup(g.Close)
	return g
}

// SignIn is a token as a Microsoft sign-in with scopes gives it; expired
// makes the service refuse its access token.
func (g *Graph) SignIn(expired bool, scopes ...string) *oauth2.Token {
	return g.signIn("ms", expired, scopes...)
}

// Put adds or changes an event.
func (g *Graph) Put(ev GraphEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	g.events[ev.ID] = &graphEntry{ev: ev, seq: g.seq}
}

// Remove deletes an event (an instance, or a series master with every
// instance of it).
func (g *Graph) Remove(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq++
	for _, e := range g.events {
		if e.ev.ID == id || e.ev.Series == id {
			e.removed, e.seq = true, g.seq
		}
	}
}

// ForgetDeltaLinks makes every delta link issued so far answer 410.
func (g *Graph) ForgetDeltaLinks() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forget = g.seq + 1
}

func graphError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": code, "message": msg,
		"innerError": map[string]string{"request-id": "fake-request"}}})
}

func (g *Graph) auth(w http.ResponseWriter, r *http.Request, scopes ...string) bool {
	switch g.check(r, scopes...) {
	case http.StatusUnauthorized:
		graphError(w, http.StatusUnauthorized, "InvalidAuthenticationToken", "Access token has expired or is not yet valid.")
		return false
	case http.StatusForbidden:
		graphError(w, http.StatusForbidden, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
		return false
	}
	return true
}

func (g *Graph) calendar(w http.ResponseWriter, r *http.Request) {
	if !g.auth(w, r, "Calendars.Read", "Calendars.ReadWrite") {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": "AAMkMainCalendar", "name": "Calendar", "canEdit": true})
}

// deltaState is what a next or delta link carries.
type deltaState struct {
	Since  int       `json:"since"` // changes after this sequence; 0: everything
	Upto   int       `json:"upto"`
	Offset int       `json:"offset"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
}

func (g *Graph) delta(w http.ResponseWriter, r *http.Request) {
	if !g.auth(w, r, "Calendars.Read", "Calendars.ReadWrite") {
		return
	}
	q := r.URL.Query()
	g.ask(r.URL.RawQuery)
	g.mu.Lock()
	defer g.mu.Unlock()
	var st deltaState
	switch {
	case q.Get("$skiptoken") != "" || q.Get("$deltatoken") != "":
		raw := q.Get("$skiptoken") + q.Get("$deltatoken")
		b, err := base64.RawURLEncoding.DecodeString(raw)
		if err != nil || json.Unmarshal(b, &st) != nil {
			graphError(w, http.StatusBadRequest, "BadRequest", "bad token")
			return
		}
		if q.Get("$deltatoken") != "" {
			if st.Upto < g.forget {
				graphError(w, http.StatusGone, "SyncStateNotFound", "The sync state generation is not found.")
				return
			}
			st = deltaState{Since: st.Upto, Upto: g.seq, Start: st.Start, End: st.End}
		}
	default:
		var err1, err2 error
		st.Start, err1 = time.Parse(time.RFC3339, q.Get("startDateTime"))
		st.End, err2 = time.Parse(time.RFC3339, q.Get("endDateTime"))
		if err1 != nil || err2 != nil {
			graphError(w, http.StatusBadRequest, "ErrorInvalidParameter", "startDateTime and endDateTime are required")
			return
		}
		st.Upto = g.seq
	}
	utc, size := false, 1000
	for _, p := range r.Header.Values("Prefer") {
		for _, part := range strings.Split(p, ",") {
			part = strings.TrimSpace(part)
			if strings.EqualFold(part, `outlook.timezone="UTC"`) {
				utc = true
			}
			if n, ok := strings.CutPrefix(part, "odata.maxpagesize="); ok {
				size, _ = strconv.Atoi(n)
			}
		}
	}
	size = min(size, g.PageSize)
	var ids []string
	for id, e := range g.events {
		if e.seq <= st.Since || e.seq > st.Upto {
			continue
		}
		if !e.removed && (!e.ev.Start.Before(st.End) || !e.ev.End.After(st.Start)) {
			continue
		}
		if e.removed && st.Since == 0 {
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	page := ids[min(st.Offset, len(ids)):]
	more := len(page) > size
	if more {
		page = page[:size]
	}
	var value []any
	for _, id := range page {
		e := g.events[id]
		if e.removed {
			value = append(value, map[string]any{"id": id, "@removed": map[string]string{"reason": "deleted"}})
			continue
		}
		value = append(value, e.ev.json(utc))
	}
	out := map[string]any{"@odata.context": g.BaseURL + "/$metadata#Collection(event)", "value": value}
	link := func(s deltaState) string {
		b, _ := json.Marshal(s)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	if more {
		next := st
		next.Offset += size
		out["@odata.nextLink"] = g.BaseURL + "/me/calendarView/delta?$skiptoken=" + link(next)
	} else {
		out["@odata.deltaLink"] = g.BaseURL + "/me/calendarView/delta?$deltatoken=" + link(deltaState{Upto: st.Upto, Start: st.Start, End: st.End})
	}
	writeJSON(w, http.StatusOK, out)
}

func (ev GraphEvent) json(utc bool) map[string]any {
	loc, zone := time.UTC, "UTC"
	if !utc && ev.Loc != nil {
		loc, zone = ev.Loc, ev.Zone
	}
	at := func(t time.Time) map[string]string {
		return map[string]string{"dateTime": t.In(loc).Format("2006-01-02T15:04:05.0000000"), "timeZone": zone}
	}
	person := func(p GraphPerson) map[string]any {
		return map[string]any{"type": p.Type, "status": map[string]string{"response": p.Response},
			"emailAddress": map[string]string{"name": p.Name, "address": p.Address}}
	}
	typ := ev.Type
	if typ == "" {
		typ = "singleInstance"
	}
	showAs := ev.ShowAs
	if showAs == "" {
		showAs = "busy"
	}
	m := map[string]any{"id": ev.ID, "type": typ, "subject": ev.Subject, "start": at(ev.Start), "end": at(ev.End),
		"isAllDay": ev.AllDay, "isCancelled": ev.Cancelled, "showAs": showAs,
		"responseStatus": map[string]string{"response": ev.Response, "time": "0001-01-01T00:00:00Z"},
		"organizer":      map[string]any{"emailAddress": map[string]string{"name": ev.Organizer.Name, "address": ev.Organizer.Address}},
		"location":       map[string]string{"displayName": ev.Location}, "bodyPreview": "", "iCalUId": "040000008200E" + ev.ID}
	if ev.Series != "" {
		m["seriesMasterId"] = ev.Series
	}
	if !ev.OriginalStart.IsZero() && typ == "exception" {
		m["originalStart"] = ev.OriginalStart.UTC().Format("2006-01-02T15:04:05Z")
	}
	var att []any
	for _, a := range ev.Attendees {
		att = append(att, person(a))
	}
	m["attendees"] = att
	return m
}

func (g *Graph) createEvent(w http.ResponseWriter, r *http.Request) {
	if !g.auth(w, r, "Calendars.ReadWrite") {
		return
	}
	var body struct {
		Subject    string `json:"subject"`
		Start, End struct {
			DateTime, TimeZone string
		}
		Attendees []struct {
			EmailAddress struct{ Name, Address string }
		}
	}
	raw := json.RawMessage{}
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil || json.Unmarshal(raw, &body) != nil || body.Subject == "" {
		graphError(w, http.StatusBadRequest, "ErrorInvalidRequest", "bad event")
		return
	}
	loc, err := time.LoadLocation(body.Start.TimeZone)
	if err != nil {
		graphError(w, http.StatusBadRequest, "TimeZoneNotSupportedException", "time zone")
		return
	}
	start, err1 := time.ParseInLocation("2006-01-02T15:04:05", body.Start.DateTime, loc)
	end, err2 := time.ParseInLocation("2006-01-02T15:04:05", body.End.DateTime, loc)
	if err1 != nil || err2 != nil {
		graphError(w, http.StatusBadRequest, "ErrorInvalidRequest", "bad time")
		return
	}
	id := fmt.Sprintf("AAMkCreated%d", g.create(raw))
	ev := GraphEvent{ID: id, Subject: body.Subject, Start: start, End: end, Response: "organizer",
		Organizer: GraphPerson{Name: "Dana", Address: "dana@firm.com"}}
	for _, a := range body.Attendees {
		ev.Attendees = append(ev.Attendees, GraphPerson{Name: a.EmailAddress.Name, Address: a.EmailAddress.Address, Type: "required", Response: "none"})
	}
	g.Put(ev)
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "subject": body.Subject})
}
