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

// googlePageSize is events.list's maxResults (Google's most is 2500).
const googlePageSize = 250

// googleMaxPages bounds one sync's pages.
const googleMaxPages = 400

// googleEvent is an event of events.list, with the fields Spirit reads.
type googleEvent struct {
	ID                string      `json:"id"`
	Status            string      `json:"status"` // confirmed, tentative, cancelled
	Summary           string      `json:"summary"`
	Description       string      `json:"description"`
	Location          string      `json:"location"`
	Start             googleTime  `json:"start"`
	End               googleTime  `json:"end"`
	RecurringEventID  string      `json:"recurringEventId"`
	OriginalStartTime *googleTime `json:"originalStartTime"`
	Transparency      string      `json:"transparency"`
	Organizer         *googlePerson
	Attendees         []googlePerson `json:"attendees"`
}

type googleTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

type googlePerson struct {
	Email          string `json:"email"`
	DisplayName    string `json:"displayName,omitempty"`
	ResponseStatus string `json:"responseStatus,omitempty"`
	Self           bool   `json:"self,omitempty"`
	Resource       bool   `json:"resource,omitempty"`
	Optional       bool   `json:"optional,omitempty"`
}

type googlePage struct {
	Items         []googleEvent `json:"items"`
	NextPageToken string        `json:"nextPageToken"`
	NextSyncToken string        `json:"nextSyncToken"`
}

// parse reads a Google time: a date (all day) or an RFC 3339 instant.
func (t googleTime) parse() (time.Time, bool, error) {
	if t.Date != "" {
		d, err := time.Parse(time.DateOnly, t.Date)
		return d, true, err
	}
	v, err := time.Parse(time.RFC3339, t.DateTime)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("time %q: %w", t.DateTime, err)
	}
	return v.UTC(), false, nil
}

// googlePartStat is a Google responseStatus as a PARTSTAT.
func googlePartStat(s string) string {
	switch s {
	case "accepted":
		return PartStatAccepted
	case "tentative":
		return PartStatTentative
	case "declined":
		return PartStatDeclined
	}
	return PartStatNeedsAction
}

// cloud maps a Google event instance: transparency "transparent" is
// free time, status its STATUS, the attendee marked self the lawyer;
// resources (rooms) are not people.
func (g googleEvent) cloud() (cloudEvent, error) {
	start, allDay, err := g.Start.parse()
	if err != nil {
		return cloudEvent{}, err
	}
	end, _, err := g.End.parse()
	if err != nil {
		return cloudEvent{}, err
	}
	e := cloudEvent{ID: g.ID, Start: start, End: end, AllDay: allDay, Summary: g.Summary, Location: g.Location,
		Description: g.Description, Free: g.Transparency == "transparent", Status: strings.ToUpper(g.Status)}
	if g.RecurringEventID != "" {
		e.SeriesID = g.RecurringEventID
		e.OriginalStart = start
		if g.OriginalStartTime != nil {
			if t, _, err := g.OriginalStartTime.parse(); err == nil {
				e.OriginalStart = t
			}
		}
	}
	if o := g.Organizer; o != nil && o.Email != "" {
		e.Organizer = &Person{Email: strings.ToLower(o.Email), Name: o.DisplayName}
	}
	for _, a := range g.Attendees {
		if a.Resource || a.Email == "" {
			continue
		}
		p := Person{Email: strings.ToLower(a.Email), Name: a.DisplayName, PartStat: googlePartStat(a.ResponseStatus), Role: "REQ-PARTICIPANT"}
		if a.Optional {
			p.Role = "OPT-PARTICIPANT"
		}
		if a.Self {
			e.Mine = p.PartStat
		}
		e.Attendees = append(e.Attendees, p)
	}
	return e, nil
}

// googleGone reports a sync token Google no longer honours (410 Gone).
func googleGone(err error) bool {
	var api *oauth.APIError
	return errors.As(err, &api) && api.Status == http.StatusGone
}

// googleEventsURL is events.list's URL for calendar id.
func googleEventsURL(a CloudAccount, id string) string {
	return a.BaseURL + "/calendars/" + url.PathEscape(id) + "/events"
}

// syncGoogle reads a Google calendar through events.list with recurring
// events expanded: by the changes since the kept sync token, or (no token,
// a token refused with 410, a day passed) the whole window.
func syncGoogle(ctx context.Context, st *store.Store, c store.Calendar, a CloudAccount, now time.Time, opt SyncOptions) (SyncResult, error) {
	if incremental(c, now) {
		// A sync token goes without the window: Google refuses both.
		ch, err := googleList(ctx, a, c.Source, url.Values{"singleEvents": {"true"}, "syncToken": {c.SyncToken}})
		switch {
		case googleGone(err):
			slog.InfoContext(ctx, "calendar: Google asks for a full sync", "calendar", c.ID, "err", err)
		case err != nil:
			return SyncResult{}, err
		default:
			return ch.store(ctx, st, c, a.Address, now, false)
		}
	}
	from, to := opt.window(now)
	ch, err := googleList(ctx, a, c.Source, url.Values{"singleEvents": {"true"},
		"timeMin": {from.UTC().Format(time.RFC3339)}, "timeMax": {to.UTC().Format(time.RFC3339)}})
	if err != nil {
		return SyncResult{}, err
	}
	return ch.store(ctx, st, c, a.Address, now, true)
}

// googleList pages through events.list with q, gathering the events and
// the cancelled ones (an instance, or a whole series by its id).
func googleList(ctx context.Context, a CloudAccount, calendarID string, q url.Values) (cloudChanges, error) {
	q.Set("maxResults", fmt.Sprint(googlePageSize))
	return pageThrough("Google Calendar", googleMaxPages, "", func(token string, ch *cloudChanges) (string, error) {
		if token != "" {
			q.Set("pageToken", token)
		}
		var page googlePage
		if err := a.API.DoJSON(ctx, http.MethodGet, googleEventsURL(a, calendarID)+"?"+q.Encode(), nil, nil, &page); err != nil {
			return "", err
		}
		for _, g := range page.Items {
			if err := ch.add(g.ID, g.Status == "cancelled", g.cloud); err != nil {
				return "", err
			}
		}
		ch.next = page.NextSyncToken
		return page.NextPageToken, nil
	})
}

// googleCalendars is the account's calendar list.
func googleCalendars(ctx context.Context, a CloudAccount) ([]CloudCalendar, error) {
	var out []CloudCalendar
	q := url.Values{"maxResults": {"250"}}
	for range googleMaxPages {
		var page struct {
			Items []struct {
				ID              string `json:"id"`
				Summary         string `json:"summary"`
				SummaryOverride string `json:"summaryOverride"`
				Primary         bool   `json:"primary"`
				AccessRole      string `json:"accessRole"`
			} `json:"items"`
			NextPageToken string `json:"nextPageToken"`
		}
		if err := a.API.DoJSON(ctx, http.MethodGet, a.BaseURL+"/users/me/calendarList?"+q.Encode(), nil, nil, &page); err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			name := it.SummaryOverride
			if name == "" {
				name = it.Summary
			}
			out = append(out, CloudCalendar{ID: it.ID, Name: name, Primary: it.Primary,
				ReadOnly: it.AccessRole != "owner" && it.AccessRole != "writer"})
		}
		if page.NextPageToken == "" {
			return out, nil
		}
		q.Set("pageToken", page.NextPageToken)
	}
	return nil, errors.New("Google Calendar: too many calendars")
}

// googleCreate inserts e into calendar id, inviting its attendees, and
// returns the new event's id.
func googleCreate(ctx context.Context, a CloudAccount, id string, e NewEvent) (string, error) {
	body := map[string]any{
		"summary": e.Title,
		"start":   googleTime{DateTime: e.Start.UTC().Format(time.RFC3339), TimeZone: "UTC"},
		"end":     googleTime{DateTime: e.End.UTC().Format(time.RFC3339), TimeZone: "UTC"},
	}
	if e.Description != "" {
		body["description"] = e.Description
	}
	if e.Location != "" {
		body["location"] = e.Location
	}
	var att []googlePerson
	for _, p := range e.Attendees {
		att = append(att, googlePerson{Email: p.Email, DisplayName: p.Name})
	}
	if len(att) > 0 {
		body["attendees"] = att
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := a.API.DoJSON(ctx, http.MethodPost, googleEventsURL(a, id)+"?sendUpdates=all", nil, body, &out); err != nil {
		return "", accessError(err)
	}
	return out.ID, nil
}
