package caltools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	netmail "net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/mail/mailtools"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
)

// CreateEvent is calendar_create_event: a new event in one of the
// lawyer's calendars. A CalDAV calendar gets it through CalDAV, an Outlook
// or Google calendar through Graph or Google Calendar with the mail
// account's sign-in; Spirit cannot write to a file or a subscription, so
// for those (or when there is no calendar) the event becomes an .ics file
// in Dir for the lawyer to open. It is a task.Write: the runner runs it
// only when approved.
type CreateEvent struct {
	Calendars
	// HTTP and Secrets reach CalDAV servers (the sync's).
	HTTP    *http.Client
	Secrets calendar.Secrets
	// Cloud opens the mail account of an Outlook or Google calendar.
	Cloud calendar.CloudAuth
	// Dir is where .ics files go.
	Dir string
}

var _ task.Write = CreateEvent{}

// Name is CreateEventName.
func (CreateEvent) Name() string { return CreateEventName }

// Tool defines calendar_create_event for the model.
func (CreateEvent) Tool() llm.Tool {
	return llm.Tool{Name: CreateEventName,
		Description: "Add an event to the lawyer's calendar (CalDAV, Outlook or Google), or save it as an .ics file for them to open. " +
			"Changes the calendar: only after request_approval for exactly these arguments was approved.",
		Schema: json.RawMessage(`{"type":"object","properties":{` + eventProps + `},"required":["title","start"]}`)}
}

const eventProps = `"title":{"type":"string","description":"what the lawyer's calendar shows, e.g. Call with Marcy Howard re SNDA"},` +
	`"start":{"type":"string","description":"local date and time, YYYY-MM-DD HH:MM"},` +
	`"end":{"type":"string","description":"local date and time, YYYY-MM-DD HH:MM; or give duration_minutes"},` +
	`"duration_minutes":{"type":"integer","minimum":5,"maximum":720},` +
	`"time_zone":{"type":"string","description":"IANA zone of start and end, e.g. America/New_York; default the lawyer's"},` +
	`"attendees":{"type":"array","items":{"type":"string"},"description":"other people, as \"Name <address>\""},` +
	`"location":{"type":"string"},` +
	`"description":{"type":"string"},` +
	`"calendar":{"type":"string","description":"the calendar's name or id; default the first one Spirit can write to"}`

// eventArgs is calendar_create_event's input, and, resolved, the action
// an approval is for: then Calendar is an id ("" for an .ics file), Start
// and End are in TimeZone, Attendees are "Name <address>", Duration is
// not used.
type eventArgs struct {
	Calendar    string   `json:"calendar"`
	Title       string   `json:"title"`
	Start       string   `json:"start"`
	End         string   `json:"end"`
	Duration    int      `json:"duration_minutes,omitempty"`
	TimeZone    string   `json:"time_zone"`
	Attendees   []string `json:"attendees"`
	Location    string   `json:"location,omitempty"`
	Description string   `json:"description,omitempty"`
}

// resolved is an action read back: what Do writes.
type resolved struct {
	args      eventArgs
	cal       *store.Calendar // nil: an .ics file
	loc       *time.Location
	start     time.Time
	end       time.Time
	attendees []calendar.Person
}

// Resolve checks the arguments and makes them the action: the calendar by
// id, the times in their zone, the attendees as addresses.
func (t CreateEvent) Resolve(ctx context.Context, raw json.RawMessage) (task.Action, error) {
	r, err := t.resolve(ctx, raw)
	if err != nil {
		return task.Action{}, err
	}
	canonical, err := mailtools.JSON(r.args)
	if err != nil {
		return task.Action{}, fmt.Errorf("%s: %w", CreateEventName, err)
	}
	return task.Action{
		Canonical: canonical,
		Message:   fmt.Sprintf("Add “%s” to your calendar?", r.args.Title),
		Approval:  nudge.Approval{Tool: CreateEventName, Title: "New calendar event", Body: r.args.Description, Fields: approvalFields(r, t.where(r.cal))},
		Log: fmt.Sprintf("%s %q %s with %d attendees in %s", CreateEventName, r.args.Title, When(r.start, r.end, r.loc),
			len(r.args.Attendees), t.where(r.cal)),
	}, nil
}

// approvalFields are what the lawyer approves: title, time with its zone,
// attendees (or that there are none), the calendar, and the place if any.
func approvalFields(r resolved, where string) []nudge.Field {
	who := strings.Join(r.args.Attendees, ", ")
	if who == "" {
		who = "nobody else (only you)"
	}
	fs := []nudge.Field{
		{Label: "Title", Value: r.args.Title},
		{Label: "When", Value: When(r.start, r.end, r.loc)},
		{Label: "Attendees", Value: who},
		{Label: "Calendar", Value: where},
	}
	if r.args.Location != "" {
		fs = append(fs, nudge.Field{Label: "Location", Value: r.args.Location})
	}
	return fs
}

// When says an event's time as the approval shows it: "Tue 1 Dec 2026,
// 10:00–11:00 EST (America/New_York)", the end with its date when it is
// another day.
func When(start, end time.Time, loc *time.Location) string {
	s, e := start.In(loc), end.In(loc)
	to := e.Format("15:04")
	if sy, sm, sd := s.Date(); func() bool { ey, em, ed := e.Date(); return sy != ey || sm != em || sd != ed }() {
		to = e.Format("Mon 2 Jan 2006, 15:04")
	}
	return fmt.Sprintf("%s–%s %s (%s)", s.Format("Mon 2 Jan 2006, 15:04"), to, e.Format("MST"), loc.String())
}

// writable reports whether Spirit writes to c itself.
func writable(c store.Calendar) bool {
	return c.Kind == store.CalendarCalDAV || store.CloudCalendar(c.Kind)
}

func (t CreateEvent) where(c *store.Calendar) string {
	if c == nil || !writable(*c) {
		name := ""
		if c != nil {
			name = " (“" + calendarName(*c) + "” is a file or a subscription Spirit cannot change)"
		}
		return "an .ics file for you to open, saved in " + t.Dir + name
	}
	return calendarName(*c)
}

func (t CreateEvent) resolve(ctx context.Context, raw json.RawMessage) (resolved, error) {
	var a eventArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return resolved{}, fmt.Errorf("bad %s arguments: %w", CreateEventName, err)
	}
	r := resolved{}
	now := t.now()
	r.loc = now.Location()
	if z := strings.TrimSpace(a.TimeZone); z != "" {
		loc, err := time.LoadLocation(z)
		if err != nil {
			return resolved{}, fmt.Errorf("time_zone %q is not a time zone like America/New_York", z)
		}
		r.loc = loc
	}
	a.Title = strings.TrimSpace(a.Title)
	switch {
	case a.Title == "":
		return resolved{}, fmt.Errorf("%s needs a title", CreateEventName)
	case len([]rune(a.Title)) > maxTitleRunes:
		return resolved{}, fmt.Errorf("the title is longer than %d characters", maxTitleRunes)
	case len([]rune(a.Description)) > maxTextRunes:
		return resolved{}, fmt.Errorf("the description is longer than %d characters", maxTextRunes)
	}
	var err error
	var dateOnly bool
	if r.start, dateOnly, err = ParseLocal(a.Start, r.loc); err != nil {
		return resolved{}, fmt.Errorf("start: %w", err)
	}
	if dateOnly {
		return resolved{}, errors.New("start needs a time of day, YYYY-MM-DD HH:MM")
	}
	switch {
	case strings.TrimSpace(a.End) != "":
		if r.end, dateOnly, err = ParseLocal(a.End, r.loc); err != nil {
			return resolved{}, fmt.Errorf("end: %w", err)
		}
		if dateOnly {
			return resolved{}, errors.New("end needs a time of day, YYYY-MM-DD HH:MM")
		}
	case a.Duration > 0:
		r.end = r.start.Add(time.Duration(a.Duration) * time.Minute)
	default:
		return resolved{}, errors.New("give end or duration_minutes")
	}
	switch {
	case !r.end.After(r.start):
		return resolved{}, errors.New("end must be after start")
	case r.end.Sub(r.start) > maxDuration*time.Minute:
		return resolved{}, fmt.Errorf("an event may last at most %d hours", maxDuration/60)
	case !r.start.After(now):
		return resolved{}, fmt.Errorf("start %s is in the past", When(r.start, r.end, r.loc))
	}
	for _, s := range a.Attendees {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		ad, err := netmail.ParseAddress(s)
		if err != nil {
			return resolved{}, fmt.Errorf("attendee %q is not an email address; give \"Name <address>\"", s)
		}
		r.attendees = append(r.attendees, calendar.Person{Name: ad.Name, Email: strings.ToLower(ad.Address)})
	}
	if r.cal, err = t.pick(ctx, a.Calendar); err != nil {
		return resolved{}, err
	}
	r.args = eventArgs{Title: a.Title, Start: r.start.In(r.loc).Format("2006-01-02 15:04"), End: r.end.In(r.loc).Format("2006-01-02 15:04"),
		TimeZone: r.loc.String(), Attendees: []string{}, Location: strings.TrimSpace(a.Location), Description: strings.TrimSpace(a.Description)}
	for _, p := range r.attendees {
		r.args.Attendees = append(r.args.Attendees, addressText(p))
	}
	if r.cal != nil {
		r.args.Calendar = strconv.FormatInt(r.cal.ID, 10)
	}
	return r, nil
}

// addressText writes p as the lawyer reads it, "Name <address>", unless
// the name needs the quotes of "\"Howard, Marcy\" <address>" to be read
// back as one address.
func addressText(p calendar.Person) string {
	if p.Name == "" {
		return p.Email
	}
	plain := p.Name + " <" + p.Email + ">"
	if a, err := netmail.ParseAddress(plain); err == nil && a.Name == p.Name && strings.EqualFold(a.Address, p.Email) {
		return plain
	}
	return (&netmail.Address{Name: p.Name, Address: p.Email}).String()
}

// pick finds the calendar named (by id or name); with none named, the
// first calendar Spirit writes to (CalDAV, Outlook, Google), else the
// first calendar; nil when there are none.
func (t CreateEvent) pick(ctx context.Context, named string) (*store.Calendar, error) {
	cs, err := t.Store.Calendars(ctx)
	if err != nil {
		return nil, fmt.Errorf("calendars unreadable: %w", err)
	}
	named = strings.TrimSpace(named)
	if named != "" {
		for i, c := range cs {
			if strconv.FormatInt(c.ID, 10) == named || strings.EqualFold(calendarName(c), named) {
				return &cs[i], nil
			}
		}
		var names []string
		for _, c := range cs {
			names = append(names, fmt.Sprintf("%q (id %d)", calendarName(c), c.ID))
		}
		return nil, fmt.Errorf("no calendar %q; the calendars are: %s", named, strings.Join(names, ", "))
	}
	for i, c := range cs {
		if writable(c) {
			return &cs[i], nil
		}
	}
	if len(cs) > 0 {
		return &cs[0], nil
	}
	return nil, nil
}

// Do writes the approved event: through CalDAV, then syncs that calendar
// so the event is in Spirit's store as the server has it; or as an .ics
// file.
func (t CreateEvent) Do(ctx context.Context, canonical string) (string, error) {
	r, err := t.resolve(ctx, json.RawMessage(canonical))
	if err != nil {
		return "", err
	}
	now := t.now()
	ev := calendar.NewEvent{UID: calendar.NewUID(), Title: r.args.Title, Start: r.start, End: r.end, Attendees: r.attendees,
		Location: r.args.Location, Description: r.args.Description}
	if me := t.me(ctx); len(me.Addresses) > 0 {
		ev.Organizer = &calendar.Person{Name: me.Name, Email: strings.ToLower(me.Addresses[0])}
	}
	when := When(r.start, r.end, r.loc)
	if r.cal != nil && store.CloudCalendar(r.cal.Kind) {
		if _, err := calendar.CreateCloudEvent(ctx, t.Cloud, *r.cal, ev); err != nil {
			return "", fmt.Errorf("the calendar service did not save it: %w", err)
		}
		return t.synced(ctx, *r.cal, fmt.Sprintf("“%s”, %s, added to the calendar “%s”", ev.Title, when, calendarName(*r.cal)), now), nil
	}
	if r.cal == nil || r.cal.Kind != store.CalendarCalDAV {
		p, err := calendar.WriteICS(t.Dir, ev, now, r.loc)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("“%s”, %s, saved as %s: open that file to add it to your calendar (nothing was sent to anyone)", ev.Title, when, p), nil
	}
	password := ""
	if r.cal.Username != "" {
		if t.Secrets == nil {
			return "", errors.New("the keychain is not available for the calendar's password")
		}
		if password, err = t.Secrets.Get(ctx, calendar.PasswordKey(r.cal.ID)); err != nil {
			return "", fmt.Errorf("the calendar's password: %w", err)
		}
	}
	d, err := calendar.NewCalDAV(t.HTTP, r.cal.Source, r.cal.Username, password)
	if err != nil {
		return "", err
	}
	if _, err := d.PutEvent(ctx, r.cal.Source, ev, now); err != nil {
		return "", fmt.Errorf("the calendar server did not save it: %w", err)
	}
	return t.synced(ctx, *r.cal, fmt.Sprintf("“%s”, %s, added to the calendar “%s”", ev.Title, when, calendarName(*r.cal)), now), nil
}

// synced syncs c after a write, so the event is in Spirit's store as the
// service has it, and says so in out when that failed.
func (t CreateEvent) synced(ctx context.Context, c store.Calendar, out string, now time.Time) string {
	if _, err := calendar.Sync(ctx, t.Store, c, calendar.SyncOptions{HTTP: t.HTTP, Secrets: t.Secrets, Cloud: t.Cloud, Now: now}); err != nil {
		out += "; Spirit will see it at the next sync"
	}
	return out
}
