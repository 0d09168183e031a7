// Package caltools holds the calendar tools a task agent may call:
// calendar_list_upcoming and calendar_find_free_slots, which read the
// stored, expanded events of every calendar, and calendar_create_event, a
// write the agent runner runs only against the lawyer's approval of
// exactly its arguments. Each tool is its name, its definition and its
// handler together, as in package mailtools. Times are the lawyer's: read
// and shown in the location of Now.
package caltools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/mail/mailtools"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work"
)

// Tool names.
const (
	ListUpcomingName  = "calendar_list_upcoming"
	FindFreeSlotsName = "calendar_find_free_slots"
	CreateEventName   = "calendar_create_event"
)

// Limits on what the tools read and return.
const (
	defaultHours  = 24
	maxHours      = 14 * 24
	maxEvents     = 60
	defaultDays   = 7
	maxSpanDays   = 62
	defaultSlots  = 10
	maxSlots      = 30
	maxDuration   = 12 * 60 // minutes
	minDuration   = 5
	maxTitleRunes = 200
	maxTextRunes  = 2000
)

// Hours are the lawyer's working hours (the work runner's active hours)
// and how they read ("mon-fri 08:00-19:00").
type Hours struct {
	work.ActiveHours
	Text string
}

// Calendars is what the calendar tools read: the store's calendars, the
// lawyer, their clock and their working hours.
type Calendars struct {
	Store *store.Store
	// Me is the lawyer (their addresses tell their own answer to an
	// invitation); nil: unknown.
	Me func(ctx context.Context) (calendar.Me, error)
	// Now is the clock; its location is the lawyer's time zone.
	Now func() time.Time
	// Hours are the working hours free slots are found in; nil:
	// work.DefaultActiveHours.
	Hours func(ctx context.Context) (Hours, error)
}

func (c Calendars) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

func (c Calendars) me(ctx context.Context) calendar.Me {
	if c.Me == nil {
		return calendar.Me{}
	}
	me, err := c.Me(ctx)
	if err != nil {
		return calendar.Me{}
	}
	return me
}

func (c Calendars) hours(ctx context.Context) (Hours, error) {
	if c.Hours == nil {
		return Hours{ActiveHours: work.DefaultActiveHours, Text: "mon-fri 08:00-19:00"}, nil
	}
	return c.Hours(ctx)
}

func (c Calendars) clock() mailtools.Clock { return mailtools.Clock{Loc: c.now().Location()} }

// names are the calendars' names by id.
func (c Calendars) names(ctx context.Context) map[int64]string {
	out := map[int64]string{}
	cs, err := c.Store.Calendars(ctx)
	if err != nil {
		return out
	}
	for _, cal := range cs {
		out[cal.ID] = calendarName(cal)
	}
	return out
}

func calendarName(c store.Calendar) string {
	if n := strings.TrimSpace(c.Name); n != "" {
		return n
	}
	return c.Source
}

// ListUpcoming is calendar_list_upcoming: the occurrences of every
// calendar in a stretch of time.
type ListUpcoming struct{ Calendars }

// Name is ListUpcomingName.
func (ListUpcoming) Name() string { return ListUpcomingName }

// Tool defines calendar_list_upcoming for the model.
func (ListUpcoming) Tool() llm.Tool {
	return llm.Tool{Name: ListUpcomingName,
		Description: "List the lawyer's meetings and events from all their calendars, in their time zone, soonest first. " +
			"busy is false for events marked free, cancelled or declined. Read-only.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"from":{"type":"string","description":"local date or date and time, YYYY-MM-DD or YYYY-MM-DD HH:MM; default now"},` +
			`"hours":{"type":"integer","minimum":1,"maximum":336,"description":"how many hours from then, default 24"}}}`)}
}

// Event is one occurrence as the tools show it.
type Event struct {
	Title     string     `json:"title"`
	Start     string     `json:"start"`
	End       string     `json:"end"`
	AllDay    bool       `json:"all_day,omitempty"`
	Location  string     `json:"location,omitempty"`
	Calendar  string     `json:"calendar,omitempty"`
	Organizer string     `json:"organizer,omitempty"`
	Attendees []Attendee `json:"attendees,omitempty"`
	Status    string     `json:"status,omitempty"`
	Busy      bool       `json:"busy"`
}

// Attendee is one person on an event.
type Attendee struct {
	Name   string `json:"name,omitempty"`
	Email  string `json:"email"`
	Answer string `json:"answer,omitempty"` // PARTSTAT, lower-case
}

// Run lists the occurrences.
func (t ListUpcoming) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		From  string `json:"from"`
		Hours int    `json:"hours"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return "", fmt.Errorf("bad %s input: %w", ListUpcomingName, err)
		}
	}
	now := t.now()
	from := now
	if strings.TrimSpace(a.From) != "" {
		var err error
		if from, _, err = ParseLocal(a.From, now.Location()); err != nil {
			return "", err
		}
	}
	if a.Hours <= 0 {
		a.Hours = defaultHours
	}
	to := from.Add(time.Duration(min(a.Hours, maxHours)) * time.Hour)
	occs, err := calendar.Upcoming(ctx, t.Store, from, to, now.Location())
	if err != nil {
		return "", fmt.Errorf("calendars unreadable: %w", err)
	}
	me, names, clock := t.me(ctx), t.names(ctx), t.clock()
	out := struct {
		TimeZone string  `json:"time_zone"`
		From     string  `json:"from"`
		To       string  `json:"to"`
		Events   []Event `json:"events"`
		More     int     `json:"more,omitempty"`
	}{TimeZone: now.Location().String(), From: clock.Date(from), To: clock.Date(to), Events: []Event{}}
	for _, o := range occs {
		if len(out.Events) == maxEvents {
			out.More++
			continue
		}
		out.Events = append(out.Events, view(o, me, names, clock))
	}
	return mailtools.JSON(out)
}

func view(o calendar.Occurrence, me calendar.Me, names map[int64]string, clock mailtools.Clock) Event {
	e := Event{Title: o.Summary, Start: clock.Date(o.Start), End: clock.Date(o.End), AllDay: o.AllDay,
		Location: o.Location, Calendar: names[o.Calendar], Status: strings.ToLower(o.Status), Busy: calendar.Busy(o, me)}
	if o.AllDay {
		e.Start, e.End = o.Start.Format("Mon 2006-01-02"), o.End.Format("Mon 2006-01-02")
	}
	if o.Organizer != nil {
		e.Organizer = o.Organizer.Display()
	}
	for _, p := range o.Attendees {
		e.Attendees = append(e.Attendees, Attendee{Name: p.Name, Email: p.Email, Answer: strings.ToLower(p.PartStat)})
	}
	return e
}

// FindFreeSlots is calendar_find_free_slots: the stretches of the
// lawyer's working hours that no busy event of any calendar takes.
type FindFreeSlots struct{ Calendars }

// Name is FindFreeSlotsName.
func (FindFreeSlots) Name() string { return FindFreeSlotsName }

// Tool defines calendar_find_free_slots for the model.
func (FindFreeSlots) Tool() llm.Tool {
	return llm.Tool{Name: FindFreeSlotsName,
		Description: "Find free time in the lawyer's working hours, across all their calendars, long enough for a meeting. " +
			"Only the lawyer's own calendars are known, not other people's. Read-only.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"duration_minutes":{"type":"integer","minimum":5,"maximum":720,"description":"how long the meeting is"},` +
			`"from":{"type":"string","description":"local date or date and time, YYYY-MM-DD or YYYY-MM-DD HH:MM; default now"},` +
			`"to":{"type":"string","description":"local date (through the end of that day) or date and time; default 7 days after from"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":30,"description":"at most this many free stretches, default 10"}},` +
			`"required":["duration_minutes"]}`)}
}

// Run finds the free stretches.
func (t FindFreeSlots) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Duration int    `json:"duration_minutes"`
		From     string `json:"from"`
		To       string `json:"to"`
		Limit    int    `json:"limit"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("bad %s input: %w", FindFreeSlotsName, err)
	}
	if a.Duration < minDuration || a.Duration > maxDuration {
		return "", fmt.Errorf("duration_minutes must be %d to %d, not %d", minDuration, maxDuration, a.Duration)
	}
	now := t.now()
	loc := now.Location()
	from, to, err := span(now, a.From, a.To)
	if err != nil {
		return "", err
	}
	if from.Before(now) {
		from = now // the past has no free time
	}
	from = CeilQuarter(from)
	h, err := t.hours(ctx)
	if err != nil {
		return "", fmt.Errorf("working hours unreadable: %w", err)
	}
	occs, err := calendar.Upcoming(ctx, t.Store, from, to, loc)
	if err != nil {
		return "", fmt.Errorf("calendars unreadable: %w", err)
	}
	me := t.me(ctx)
	var busy []Span
	for _, o := range occs {
		if calendar.Busy(o, me) {
			busy = append(busy, Span{o.Start, o.End})
		}
	}
	free := Free(Windows(h.ActiveHours, from, to, loc), busy, time.Duration(a.Duration)*time.Minute)
	limit := a.Limit
	if limit <= 0 {
		limit = defaultSlots
	}
	limit = min(limit, maxSlots)
	clock := t.clock()
	type slot struct {
		Start string `json:"start"`
		End   string `json:"end"`
	}
	out := struct {
		TimeZone     string `json:"time_zone"`
		WorkingHours string `json:"working_hours"`
		From         string `json:"from"`
		To           string `json:"to"`
		Free         []slot `json:"free"`
		More         int    `json:"more,omitempty"`
		Note         string `json:"note"`
	}{TimeZone: loc.String(), WorkingHours: h.Text, From: clock.Date(from), To: clock.Date(to), Free: []slot{},
		Note: "Each free stretch is at least duration_minutes long; a meeting may start anywhere in it. Other people's calendars are not known: propose times to them."}
	for _, s := range free {
		if len(out.Free) == limit {
			out.More++
			continue
		}
		out.Free = append(out.Free, slot{clock.Date(s.Start), clock.Date(s.End)})
	}
	return mailtools.JSON(out)
}

// span reads a from/to pair: from defaults to now, to to seven days
// later; a date for to means through the end of that day.
func span(now time.Time, fromS, toS string) (time.Time, time.Time, error) {
	loc := now.Location()
	from := now
	if strings.TrimSpace(fromS) != "" {
		var err error
		if from, _, err = ParseLocal(fromS, loc); err != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("from: %w", err)
		}
	}
	to := from.AddDate(0, 0, defaultDays)
	if strings.TrimSpace(toS) != "" {
		t, dateOnly, err := ParseLocal(toS, loc)
		if err != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("to: %w", err)
		}
		if dateOnly {
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		}
		to = t
	}
	switch {
	case !to.After(from):
		return time.Time{}, time.Time{}, errors.New("to must be after from")
	case to.Sub(from) > maxSpanDays*24*time.Hour:
		return time.Time{}, time.Time{}, fmt.Errorf("look at most %d days at a time", maxSpanDays)
	}
	return from, to, nil
}
