package calendar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/emersion/go-ical"
	"github.com/emersion/go-webdav"
	"github.com/emersion/go-webdav/caldav"

	"github.com/spirit-app/spirit/agents/redact"
	"github.com/spirit-app/spirit/agents/store"
)

// maxCalendarBytes bounds what one fetch reads: a busy lawyer's
// ten-year calendar export is a few MiB.
const maxCalendarBytes = 64 << 20

// ErrNotModified is FetchURL's answer when the server says the calendar
// has not changed since the validators it was given.
var ErrNotModified = errors.New("calendar not modified")

// SubscriptionURL turns what a lawyer pastes into the URL to fetch:
// webcal:// and webcals:// are https://.
func SubscriptionURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("calendar URL: %w", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "webcal", "webcals":
		u.Scheme = "https"
	case "http", "https":
	default:
		return "", fmt.Errorf("calendar URL %q: not webcal://, http:// or https://", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("calendar URL %q: no host", raw)
	}
	return u.String(), nil
}

// Validators are what a conditional GET sends back: the last ETag and
// Last-Modified.
type Validators struct {
	ETag, LastModified string
}

// Fetched is a subscription's content and its new validators.
type Fetched struct {
	Events []store.CalendarEvent
	Valid  Validators
	Bytes  int
}

// FetchURL fetches a subscription with a conditional GET: with v from the
// last fetch, an unchanged calendar costs the server a 304 and returns
// ErrNotModified.
func FetchURL(ctx context.Context, hc *http.Client, rawURL string, v Validators) (Fetched, error) {
	u, err := SubscriptionURL(rawURL)
	if err != nil {
		return Fetched{}, err
	}
	hc = subscriptionClient(hc)
	scrub := subscriptionScrubber(u)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch calendar: %w", err)
	}
	req.Header.Set("Accept", "text/calendar, */*;q=0.5")
	if v.ETag != "" {
		req.Header.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		req.Header.Set("If-Modified-Since", v.LastModified)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Fetched{}, scrub.Error(fmt.Errorf("fetch calendar: %w", err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return Fetched{Valid: v}, ErrNotModified
	case resp.StatusCode != http.StatusOK:
		// The status line is the server's text.
		return Fetched{}, scrub.Error(fmt.Errorf("fetch calendar: %s", resp.Status))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCalendarBytes+1))
	if err != nil {
		return Fetched{}, fmt.Errorf("fetch calendar: %w", err)
	}
	if len(b) > maxCalendarBytes {
		return Fetched{}, fmt.Errorf("fetch calendar: larger than %d MiB", maxCalendarBytes>>20)
	}
	// The events are read from the bytes as rows (bytesEvents), not as one
	// tree of the whole calendar, which costs several times its size.
	evs, err := bytesEvents(b)
	if err != nil {
		return Fetched{}, err
	}
	return Fetched{Events: evs, Bytes: len(b),
		Valid: Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}}, nil
}

// CalDAV is a CalDAV account: a server URL (the service root or any URL
// the server answers current-user-principal on) with basic auth.
type CalDAV struct {
	c *caldav.Client
	// hc and base send what go-webdav has no call for (RFC 6578).
	hc   webdav.HTTPClient
	base *url.URL
	// scrub knows the account's secrets (see clean).
	scrub *redact.Scrubber
}

// NewCalDAV connects to endpoint as user. hc nil is http.DefaultClient.
// The password goes to endpoint's origin only (davClient).
func NewCalDAV(hc *http.Client, endpoint, user, password string) (*CalDAV, error) {
	base, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("caldav %s: %w", endpoint, err)
	}
	dc, scrub := davClient(hc, base, user, password)
	c, err := caldav.NewClient(dc, endpoint)
	if err != nil {
		return nil, fmt.Errorf("caldav %s: %w", endpoint, err)
	}
	return &CalDAV{c: c, hc: dc, base: base, scrub: scrub}, nil
}

// RemoteCalendar is a calendar collection found on a CalDAV server.
type RemoteCalendar struct {
	Path, Name, Description string
	// Events is whether the collection holds VEVENTs (not only tasks).
	Events bool
}

// FindCalendars lists the account's calendar collections: the current
// user's principal, its calendar home set, the collections in it.
func (d *CalDAV) FindCalendars(ctx context.Context) ([]RemoteCalendar, error) {
	principal, err := d.c.FindCurrentUserPrincipal(ctx)
	if err != nil {
		return nil, d.clean(fmt.Errorf("caldav: find principal: %w", err))
	}
	home, err := d.c.FindCalendarHomeSet(ctx, principal)
	if err != nil {
		return nil, d.clean(fmt.Errorf("caldav: find calendar home: %w", err))
	}
	cals, err := d.c.FindCalendars(ctx, home)
	if err != nil {
		return nil, d.clean(fmt.Errorf("caldav: find calendars: %w", err))
	}
	out := make([]RemoteCalendar, 0, len(cals))
	for _, c := range cals {
		rc := RemoteCalendar{Path: c.Path, Name: c.Name, Description: c.Description, Events: len(c.SupportedComponentSet) == 0}
		for _, comp := range c.SupportedComponentSet {
			if strings.EqualFold(comp, ical.CompEvent) {
				rc.Events = true
			}
		}
		out = append(out, rc)
	}
	return out, nil
}

// Object is one calendar object resource: its path, ETag and content.
type Object struct {
	Path, ETag string
	Calendar   *ical.Calendar
}

// Query asks the collection at path for the event objects with an
// occurrence in [from, to) (the server expands recurrence to decide); each
// comes whole, series and overrides, for Occurrences to expand here. The
// REPORT is Spirit's own (report, caldavreport.go), not go-webdav's, whose
// calendar-data decoder is go-ical's.
func (d *CalDAV) Query(ctx context.Context, path string, from, to time.Time) ([]Object, error) {
	objs, err := d.report(ctx, path, calendarQueryBody(from, to))
	if err != nil {
		return nil, fmt.Errorf("caldav: query %s: %w", path, err)
	}
	return objs, nil
}
