package calendar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/agents/store"
)

// graphPageSize is how many events one Graph page holds at most.
const graphPageSize = 100

// graphMaxPages bounds one sync's pages (100,000 events).
const graphMaxPages = 1000

// graphHeader asks Graph for times in UTC and pages of graphPageSize.
func graphHeader() http.Header {
	h := http.Header{}
	h.Add("Prefer", `outlook.timezone="UTC"`)
	h.Add("Prefer", fmt.Sprintf("odata.maxpagesize=%d", graphPageSize))
	return h
}

// graphEvent is an event of Graph's calendarView (delta), with the fields
// Spirit reads.
type graphEvent struct {
	ID      string `json:"id"`
	Removed *struct {
		Reason string `json:"reason"`
	} `json:"@removed"`
	Type           string    `json:"type"` // singleInstance, occurrence, exception, seriesMaster
	SeriesMasterID string    `json:"seriesMasterId"`
	OriginalStart  string    `json:"originalStart"`
	Subject        string    `json:"subject"`
	BodyPreview    string    `json:"bodyPreview"`
	Start          graphTime `json:"start"`
	End            graphTime `json:"end"`
	IsAllDay       bool      `json:"isAllDay"`
	IsCancelled    bool      `json:"isCancelled"`
	ShowAs         string    `json:"showAs"`
	ResponseStatus struct {
		Response string `json:"response"`
	} `json:"responseStatus"`
	Organizer struct {
		EmailAddress graphAddress `json:"emailAddress"`
	} `json:"organizer"`
	Attendees []graphAttendee `json:"attendees"`
	Location  struct {
		DisplayName string `json:"displayName"`
	} `json:"location"`
}

type graphTime struct {
	DateTime string `json:"dateTime"`
	TimeZone string `json:"timeZone"`
}

type graphAddress struct {
	Name    string `json:"name,omitempty"`
	Address string `json:"address"`
}

type graphAttendee struct {
	Type   string `json:"type"` // required, optional, resource
	Status struct {
		Response string `json:"response"`
	} `json:"status"`
	EmailAddress graphAddress `json:"emailAddress"`
}

// graphPage is one page of a delta answer.
type graphPage struct {
	Value     []graphEvent `json:"value"`
	NextLink  string       `json:"@odata.nextLink"`
	DeltaLink string       `json:"@odata.deltaLink"`
}

// graphPartStat is a Graph response as a PARTSTAT; "" for the organizer
// and for no answer known.
func graphPartStat(response string) string {
	switch strings.ToLower(response) {
	case "accepted":
		return PartStatAccepted
	case "tentativelyaccepted":
		return PartStatTentative
	case "declined":
		return PartStatDeclined
	case "notresponded", "none":
		return PartStatNeedsAction
	}
	return ""
}

// parseGraphTime reads a dateTimeTimeZone: a local time and the zone it
// is in (UTC, as Spirit asks; an IANA name otherwise).
func parseGraphTime(t graphTime) (time.Time, error) {
	loc := time.UTC
	if z := strings.TrimSpace(t.TimeZone); z != "" && !strings.EqualFold(z, "UTC") {
		l, err := time.LoadLocation(z)
		if err != nil {
			return time.Time{}, fmt.Errorf("time zone %q not understood (Spirit asks Graph for UTC)", z)
		}
		loc = l
	}
	v, err := time.ParseInLocation("2006-01-02T15:04:05.9999999", t.DateTime, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: %w", t.DateTime, err)
	}
	return v, nil
}

// cloud maps a Graph event: free time is TRANSP:TRANSPARENT, a cancelled
// one STATUS:CANCELLED, the lawyer's response their PARTSTAT; rooms and
// other resources are not people.
func (g graphEvent) cloud() (cloudEvent, error) {
	start, err := parseGraphTime(g.Start)
	if err != nil {
		return cloudEvent{}, err
	}
	end, err := parseGraphTime(g.End)
	if err != nil {
		return cloudEvent{}, err
	}
	e := cloudEvent{ID: g.ID, Start: start, End: end, AllDay: g.IsAllDay, Summary: g.Subject, Location: g.Location.DisplayName,
		Description: g.BodyPreview, Free: strings.EqualFold(g.ShowAs, "free"), Mine: graphPartStat(g.ResponseStatus.Response)}
	if e.AllDay {
		e.Start = time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
		e.End = time.Date(end.Year(), end.Month(), end.Day(), 0, 0, 0, 0, time.UTC)
	}
	switch {
	case g.IsCancelled:
		e.Status = StatusCancelled
	case strings.EqualFold(g.ShowAs, "tentative"):
		e.Status = StatusTentative
	default:
		e.Status = StatusConfirmed
	}
	if g.SeriesMasterID != "" && (g.Type == "occurrence" || g.Type == "exception") {
		e.SeriesID = g.SeriesMasterID
		e.OriginalStart = e.Start
		if g.OriginalStart != "" {
			if t, err := time.Parse(time.RFC3339Nano, g.OriginalStart); err == nil {
				e.OriginalStart = t.UTC()
				if e.AllDay {
					e.OriginalStart = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
				}
			}
		}
	}
	if a := g.Organizer.EmailAddress; a.Address != "" {
		e.Organizer = &Person{Email: strings.ToLower(a.Address), Name: a.Name}
	}
	for _, a := range g.Attendees {
		if strings.EqualFold(a.Type, "resource") || a.EmailAddress.Address == "" {
			continue
		}
		p := Person{Email: strings.ToLower(a.EmailAddress.Address), Name: a.EmailAddress.Name, PartStat: graphPartStat(a.Status.Response),
			Role: "REQ-PARTICIPANT"}
		if p.PartStat == "" {
			p.PartStat = PartStatNeedsAction
		}
		if strings.EqualFold(a.Type, "optional") {
			p.Role = "OPT-PARTICIPANT"
		}
		e.Attendees = append(e.Attendees, p)
	}
	return e, nil
}

// graphResync reports a delta link Graph no longer honours (410 Gone,
// syncStateNotFound, resyncRequired…): the window is read whole again.
func graphResync(err error) bool {
	var api *oauth.APIError
	if !errors.As(err, &api) {
		return false
	}
	if api.Status == http.StatusGone {
		return true
	}
	switch strings.ToLower(api.Code) {
	case "syncstatenotfound", "resyncrequired", "syncstateinvalid", "fullsyncrequired":
		return true
	}
	return false
}

// syncGraph reads the lawyer's main Outlook calendar through
// /me/calendarView/delta: by the changes since the kept delta link, or
// (no link, a link refused with 410, a day passed) the whole window.
func syncGraph(ctx context.Context, st *store.Store, c store.Calendar, a CloudAccount, now time.Time, opt SyncOptions) (SyncResult, error) {
	if incremental(c, now) {
		ch, err := graphDelta(ctx, a, c.SyncToken)
		switch {
		case graphResync(err):
			slog.InfoContext(ctx, "calendar: Graph asks for a full sync", "calendar", c.ID, "err", err)
		case err != nil:
			return SyncResult{}, err
		default:
			return ch.store(ctx, st, c, a.Address, now, false)
		}
	}
	from, to := opt.window(now)
	q := url.Values{"startDateTime": {from.UTC().Format(time.RFC3339)}, "endDateTime": {to.UTC().Format(time.RFC3339)}}
	ch, err := graphDelta(ctx, a, a.BaseURL+"/me/calendarView/delta?"+q.Encode())
	if err != nil {
		return SyncResult{}, err
	}
	return ch.store(ctx, st, c, a.Address, now, true)
}

// graphDelta follows a delta query from link through its next links to
// the delta link, gathering the events and the removals.
func graphDelta(ctx context.Context, a CloudAccount, link string) (cloudChanges, error) {
	return pageThrough("Graph", graphMaxPages, link, func(link string, ch *cloudChanges) (string, error) {
		var page graphPage
		if err := a.API.DoJSON(ctx, http.MethodGet, link, graphHeader(), nil, &page); err != nil {
			return "", err
		}
		for _, g := range page.Value {
			// The view lists a series' instances; the master itself is
			// not one.
			if g.Type == "seriesMaster" && g.Removed == nil {
				continue
			}
			if err := ch.add(g.ID, g.Removed != nil, g.cloud); err != nil {
				return "", err
			}
		}
		ch.next = page.DeltaLink
		return page.NextLink, nil
	})
}

// graphCalendars is the main Outlook calendar, the one Spirit reads.
func graphCalendars(ctx context.Context, a CloudAccount) ([]CloudCalendar, error) {
	var cal struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		CanEdit *bool  `json:"canEdit"`
	}
	if err := a.API.DoJSON(ctx, http.MethodGet, a.BaseURL+"/me/calendar", nil, nil, &cal); err != nil {
		return nil, err
	}
	if cal.ID == "" {
		return nil, errors.New("Graph: the main calendar has no id")
	}
	if cal.Name == "" {
		cal.Name = "Calendar"
	}
	return []CloudCalendar{{ID: cal.ID, Name: cal.Name, Primary: true, ReadOnly: cal.CanEdit != nil && !*cal.CanEdit}}, nil
}

// graphNewEvent is POST /me/events' body.
type graphNewEvent struct {
	Subject string `json:"subject"`
	Body    *struct {
		ContentType string `json:"contentType"`
		Content     string `json:"content"`
	} `json:"body,omitempty"`
	Start    graphTime `json:"start"`
	End      graphTime `json:"end"`
	Location *struct {
		DisplayName string `json:"displayName"`
	} `json:"location,omitempty"`
	Attendees []graphNewAttendee `json:"attendees,omitempty"`
}

type graphNewAttendee struct {
	EmailAddress graphAddress `json:"emailAddress"`
	Type         string       `json:"type"`
}

// graphCreate adds e to the main calendar (Graph sends the invitations)
// and returns the new event's id.
func graphCreate(ctx context.Context, a CloudAccount, e NewEvent) (string, error) {
	body := graphNewEvent{Subject: e.Title,
		Start: graphTime{DateTime: e.Start.UTC().Format("2006-01-02T15:04:05"), TimeZone: "UTC"},
		End:   graphTime{DateTime: e.End.UTC().Format("2006-01-02T15:04:05"), TimeZone: "UTC"}}
	if e.Description != "" {
		body.Body = &struct {
			ContentType string `json:"contentType"`
			Content     string `json:"content"`
		}{"text", e.Description}
	}
	if e.Location != "" {
		body.Location = &struct {
			DisplayName string `json:"displayName"`
		}{e.Location}
	}
	for _, p := range e.Attendees {
		body.Attendees = append(body.Attendees, graphNewAttendee{EmailAddress: graphAddress{Name: p.Name, Address: p.Email}, Type: "required"})
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := a.API.DoJSON(ctx, http.MethodPost, a.BaseURL+"/me/events", nil, body, &out); err != nil {
		return "", accessError(err)
	}
	return out.ID, nil
}
