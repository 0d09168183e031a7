// Package calendar reads the lawyer's calendars (iCalendar files,
// subscriptions and CalDAV), expands their recurring events into
// occurrences, and decides which meeting is worth a brief nudge before it
// starts: one with other people whose mail waits on the lawyer.
package calendar

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"
)

// Event statuses (STATUS) and participation statuses (PARTSTAT).
const (
	StatusTentative = "TENTATIVE"
	StatusConfirmed = "CONFIRMED"
	StatusCancelled = "CANCELLED"

	PartStatAccepted    = "ACCEPTED"
	PartStatDeclined    = "DECLINED"
	PartStatTentative   = "TENTATIVE"
	PartStatNeedsAction = "NEEDS-ACTION"
)

// Person is an organizer or an attendee.
type Person struct {
	// Email is lower-cased, without "mailto:".
	Email string `json:"email"`
	Name  string `json:"name,omitempty"`
	// PartStat is the attendee's answer (NEEDS-ACTION when not given);
	// empty for an organizer.
	PartStat string `json:"partstat,omitempty"`
	Role     string `json:"role,omitempty"`
}

// Display is the person's name, or the address without one.
func (p Person) Display() string {
	if n := strings.TrimSpace(p.Name); n != "" {
		return n
	}
	return p.Email
}

// Occurrence is one instance of an event: a one-off event, or one
// occurrence of a recurring one with any override applied.
type Occurrence struct {
	UID string `json:"uid"`
	// RecurrenceID is the occurrence's original start, as RECURRENCE-ID
	// names it (also when an override moved it); zero for a one-off event.
	RecurrenceID time.Time `json:"recurrence_id,omitzero"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	// AllDay marks date-valued events; Start and End are then midnights in
	// the location Occurrences was given.
	AllDay bool `json:"all_day,omitempty"`
	// Floating marks times without a zone, read in the given location.
	Floating    bool     `json:"floating,omitempty"`
	Summary     string   `json:"summary,omitempty"`
	Location    string   `json:"location,omitempty"`
	Description string   `json:"description,omitempty"`
	Organizer   *Person  `json:"organizer,omitempty"`
	Attendees   []Person `json:"attendees,omitempty"`
	// Status is STATUS upper-cased ("" when absent).
	Status string `json:"status,omitempty"`
	// Transparent is TRANSP:TRANSPARENT: the time shows as free.
	Transparent bool `json:"transparent,omitempty"`
	Sequence    int  `json:"sequence,omitempty"`
	// Calendar is the store's calendar id, set by callers that read
	// events from the store; 0 otherwise.
	Calendar int64 `json:"calendar,omitempty"`
}

// Recurring reports whether the occurrence belongs to a series.
func (o Occurrence) Recurring() bool { return !o.RecurrenceID.IsZero() }

// Key names the occurrence for "once per occurrence": its UID and
// original start, stable when an override moves it.
func (o Occurrence) Key() string {
	if o.RecurrenceID.IsZero() {
		return o.UID
	}
	return o.UID + "/" + o.RecurrenceID.UTC().Format("20060102T150405Z")
}

// People is the organizer and the attendees, each address once (the
// organizer first).
func (o Occurrence) People() []Person {
	var out []Person
	seen := map[string]int{}
	add := func(p Person) {
		if p.Email == "" {
			return
		}
		if i, ok := seen[p.Email]; ok {
			if out[i].PartStat == "" {
				out[i].PartStat = p.PartStat
			}
			if out[i].Name == "" {
				out[i].Name = p.Name
			}
			return
		}
		seen[p.Email] = len(out)
		out = append(out, p)
	}
	if o.Organizer != nil {
		add(*o.Organizer)
	}
	for _, a := range o.Attendees {
		add(a)
	}
	return out
}

// Parse reads every VCALENDAR object in r (a subscription may serve
// several one after the other) into one calendar, with decode.go's bounds:
// lines that cannot be read are skipped with a warning, never a panic.
func Parse(r io.Reader) (*ical.Calendar, error) {
	cal, stats, err := parseStats(r)
	if err == nil && (stats.Skipped > 0 || stats.Dropped > 0) {
		slog.Warn("calendar: parts of the calendar could not be read and were left out", "stats", stats.String())
	}
	return cal, err
}

func parseStats(r io.Reader) (*ical.Calendar, DecodeStats, error) {
	out := ical.NewCalendar()
	stats, err := decodeCalendars(r, nil, func(p ical.Prop) {
		// The first VCALENDAR's own properties stand for all of them.
		out.Props[p.Name] = append(out.Props[p.Name], p)
	}, func(c *ical.Component) error {
		out.Children = append(out.Children, c)
		return nil
	})
	if err != nil {
		return nil, stats, fmt.Errorf("parse calendar: %w", err)
	}
	return out, stats, nil
}

// ParseBytes is Parse on b.
func ParseBytes(b []byte) (*ical.Calendar, error) { return Parse(bytes.NewReader(b)) }

// Occurrences expands the events of cal that overlap [from, to): every
// occurrence of RRULE and RDATE not removed by EXDATE, each overridden by
// its RECURRENCE-ID component when it has one (also one moved into the
// span from outside it, and not one moved out of it). TZIDs are read with
// the calendar's VTIMEZONEs; floating times and dates are read in loc (UTC
// when nil). An event that cannot be read is skipped with a warning, so
// one bad event never hides a calendar. Occurrences come sorted by start.
func Occurrences(cal *ical.Calendar, from, to time.Time, loc *time.Location) ([]Occurrence, error) {
	if cal == nil {
		return nil, fmt.Errorf("occurrences: no calendar")
	}
	if loc == nil {
		loc = time.UTC
	}
	x := &expander{z: newZones(cal), loc: loc, from: from, to: to}
	masters := map[string]*ical.Component{}
	var order []string
	overrides := map[string][]*ical.Component{}
	for _, c := range cal.Children {
		if c.Name != ical.CompEvent {
			continue
		}
		uid := propText(c, ical.PropUID)
		if uid == "" {
			slog.Warn("calendar: event without UID skipped", "summary", propText(c, ical.PropSummary))
			continue
		}
		if c.Props.Get(ical.PropRecurrenceID) != nil {
			overrides[uid] = append(overrides[uid], c)
			continue
		}
		if _, dup := masters[uid]; !dup {
			order = append(order, uid)
		}
		masters[uid] = c
	}
	var out []Occurrence
	deadline := time.Now().Add(maxExpandTime)
	for i, uid := range order {
		if time.Now().After(deadline) {
			slog.Warn("calendar: expansion took too long; the rest of the calendar is left out", "series_left", len(order)-i)
			break
		}
		occ, err := x.series(uid, masters[uid], overrides[uid])
		if err != nil {
			slog.Warn("calendar: event skipped", "uid", uid, "err", err)
		}
		out = append(out, occ...)
	}
	// Overrides whose series is not here (an invitation to one occurrence).
	for uid, ovs := range overrides {
		if masters[uid] != nil {
			continue
		}
		for _, ov := range ovs {
			o, err := x.override(uid, ov, nil)
			if err != nil {
				slog.Warn("calendar: event skipped", "uid", uid, "err", err)
				continue
			}
			if x.overlaps(o) {
				out = append(out, o)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Occurrence) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return strings.Compare(a.UID, b.UID)
	})
	return out, nil
}

// maxExpandTime bounds one expansion of a calendar: a rule's walk is
// bounded by the checks in rulebound.go, but rrule-go may step through
// empty periods up to the year 9999 for a rule whose filters never match
// (a tenth of a second or so each), and a calendar can hold many.
const maxExpandTime = 3 * time.Second

type expander struct {
	z        *zones
	loc      *time.Location
	from, to time.Time
	// total counts the occurrences made so far, against maxPerWindow.
	total int
}

// clip shortens outside text put in a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (x *expander) overlaps(o Occurrence) bool {
	end := o.End
	if !end.After(o.Start) {
		end = o.Start.Add(time.Nanosecond) // an instant event is in [from, to) by its start
	}
	return o.Start.Before(x.to) && end.After(x.from)
}

// value is a DATE or DATE-TIME read from a property.
type value struct {
	t        time.Time
	date     bool
	floating bool
}

// times reads a property's value list (RDATE and EXDATE may hold several).
func (x *expander) times(p *ical.Prop) ([]value, error) {
	if p == nil {
		return nil, nil
	}
	var out []value
	for _, v := range strings.Split(p.Value, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if i := strings.IndexByte(v, '/'); i >= 0 {
			v = v[:i] // an RDATE PERIOD: its start
		}
		tv, err := x.time(v, p.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		out = append(out, tv)
	}
	return out, nil
}

func (x *expander) time(v string, params ical.Params) (value, error) {
	switch {
	case len(v) == 8 || strings.EqualFold(params.Get(ical.ParamValue), "DATE"):
		t, err := time.ParseInLocation("20060102", v[:min(8, len(v))], x.loc)
		return value{t: t, date: true, floating: true}, err
	case strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z"):
		t, err := time.ParseInLocation("20060102T150405", v[:len(v)-1], time.UTC)
		return value{t: t}, err
	}
	loc, floating := x.loc, true
	if tzid := params.Get(ical.PropTimezoneID); tzid != "" {
		if l, ok := x.z.location(tzid); ok {
			loc, floating = l, false
		} else {
			slog.Warn("calendar: unknown time zone read as local time", "tzid", tzid)
		}
	}
	t, err := time.ParseInLocation("20060102T150405", v, loc)
	return value{t: t, floating: floating}, err
}

func (x *expander) one(c *ical.Component, name string) (value, bool, error) {
	p := c.Props.Get(name)
	if p == nil {
		return value{}, false, nil
	}
	vs, err := x.times(p)
	if err != nil {
		return value{}, false, err
	}
	if len(vs) != 1 {
		return value{}, false, fmt.Errorf("%s: want one value, got %d", name, len(vs))
	}
	return vs[0], true, nil
}

// span reads DTSTART and the event's length (DTEND, DURATION, or the RFC's
// default: a day for a date, nothing for a date-time).
func (x *expander) span(c *ical.Component) (value, time.Duration, error) {
	start, ok, err := x.one(c, ical.PropDateTimeStart)
	if err != nil {
		return value{}, 0, err
	}
	if !ok {
		return value{}, 0, fmt.Errorf("no DTSTART")
	}
	if end, ok, err := x.one(c, ical.PropDateTimeEnd); err != nil {
		return value{}, 0, err
	} else if ok && !end.t.Before(start.t) {
		if start.date {
			// Whole days, so that a day across a DST change stays a day.
			return start, time.Duration(daysBetween(start.t, end.t)) * 24 * time.Hour, nil
		}
		return start, end.t.Sub(start.t), nil
	}
	if p := c.Props.Get(ical.PropDuration); p != nil {
		if d, err := p.Duration(); err == nil && d >= 0 {
			return start, d, nil
		}
	}
	if start.date {
		return start, 24 * time.Hour, nil
	}
	return start, 0, nil
}

func daysBetween(a, b time.Time) int {
	da := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
	db := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
	return int(db.Sub(da) / (24 * time.Hour))
}

// endOf is the end of an occurrence starting at s and lasting d; whole
// days are counted on the calendar, not in hours.
func endOf(s time.Time, d time.Duration, date bool) time.Time {
	if date && d%(24*time.Hour) == 0 {
		return s.AddDate(0, 0, int(d/(24*time.Hour)))
	}
	return s.Add(d)
}

// series expands one event (master) with its overrides. A panic in the
// recurrence library on a rule no check foresaw costs the event, not
// Spirit.
func (x *expander) series(uid string, master *ical.Component, ovs []*ical.Component) (occs []Occurrence, err error) {
	defer func() {
		if r := recover(); r != nil {
			occs, err = nil, fmt.Errorf("recurrence could not be expanded: %v", r)
		}
	}()
	return x.seriesUnsafe(uid, master, ovs)
}

func (x *expander) seriesUnsafe(uid string, master *ical.Component, ovs []*ical.Component) ([]Occurrence, error) {
	start, dur, err := x.span(master)
	if err != nil {
		return nil, err
	}
	base := x.fields(uid, master)
	base.AllDay, base.Floating = start.date, start.floating
	rr := master.Props.Get(ical.PropRecurrenceRule)
	rdates := master.Props.Values(ical.PropRecurrenceDates)
	if rr == nil && len(rdates) == 0 {
		o := base
		o.Start, o.End = start.t, endOf(start.t, dur, start.date)
		if !x.overlaps(o) {
			return nil, nil
		}
		return []Occurrence{o}, nil
	}

	// Overrides by the instant they replace.
	byRID := map[int64]*ical.Component{}
	for _, ov := range ovs {
		rid, ok, err := x.one(ov, ical.PropRecurrenceID)
		if err != nil || !ok {
			continue
		}
		byRID[x.ridInstant(rid, start).Unix()] = ov
	}

	// Occurrences that start before the span can still overlap it.
	after := x.from.Add(-dur).Add(-time.Second)
	set := &rrule.Set{}
	set.RDate(start.t) // DTSTART is always the first occurrence
	walkCap := 0
	if rr != nil {
		// A rule this expander cannot read, or will not walk, leaves the
		// event's other occurrences (DTSTART, RDATEs) standing.
		if r, wc, err := windowRule(rr.Value, start, after, x.to); err != nil {
			slog.Warn("calendar: recurrence rule ignored", "uid", uid, "rrule", clip(rr.Value, 200), "err", err)
		} else {
			set.RRule(r)
			walkCap = wc
		}
	}
	for _, p := range rdates {
		vs, err := x.times(&p)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if v.date && !start.date {
				// A date among a timed series' RDATEs: at DTSTART's time.
				v.t = time.Date(v.t.Year(), v.t.Month(), v.t.Day(), start.t.Hour(), start.t.Minute(), start.t.Second(), 0, start.t.Location())
			}
			set.RDate(v.t)
		}
	}
	ex := map[int64]bool{}
	exDays := map[string]bool{}
	for _, p := range master.Props.Values(ical.PropExceptionDates) {
		vs, err := x.times(&p)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if v.date && !start.date {
				exDays[v.t.Format("20060102")] = true
				continue
			}
			ex[v.t.Unix()] = true
		}
	}

	var out []Occurrence
	next, walked := set.Iterator(), 0
	for {
		s, ok := next()
		if !ok || !s.Before(x.to) {
			break
		}
		if s.Before(after) {
			if walked++; walkCap > 0 && walked > walkCap {
				slog.Warn("calendar: series not expanded: too many occurrences before the window", "uid", uid, "walked", walked)
				break
			}
			continue
		}
		if len(out) >= maxPerSeries || x.total >= maxPerWindow {
			slog.Warn("calendar: series cut short: too many occurrences", "uid", uid, "kept", len(out))
			break
		}
		if ex[s.Unix()] || exDays[s.In(start.t.Location()).Format("20060102")] {
			continue
		}
		if ov, ok := byRID[s.Unix()]; ok {
			delete(byRID, s.Unix())
			o, err := x.override(uid, ov, &base)
			if err != nil {
				slog.Warn("calendar: override skipped", "uid", uid, "err", err)
				continue
			}
			o.RecurrenceID = s
			if x.overlaps(o) {
				out = append(out, o)
				x.total++
			}
			continue
		}
		o := base
		o.RecurrenceID = s
		o.Start, o.End = s, endOf(s, dur, start.date)
		if x.overlaps(o) {
			out = append(out, o)
			x.total++
		}
	}
	// Overrides whose original start is outside the span may have been
	// moved into it.
	for rid, ov := range byRID {
		if ex[rid] {
			continue
		}
		o, err := x.override(uid, ov, &base)
		if err != nil {
			slog.Warn("calendar: override skipped", "uid", uid, "err", err)
			continue
		}
		if x.overlaps(o) {
			out = append(out, o)
		}
	}
	return out, nil
}

// ridInstant is a RECURRENCE-ID as an instant; a date one names the
// occurrence on that day at DTSTART's time.
func (x *expander) ridInstant(rid, start value) time.Time {
	if rid.date && !start.date {
		return time.Date(rid.t.Year(), rid.t.Month(), rid.t.Day(), start.t.Hour(), start.t.Minute(), start.t.Second(), 0, start.t.Location())
	}
	return rid.t
}

// ruleUntil is the UNTIL value of an RRULE, "" without one.
func ruleUntil(rule string) string {
	for _, part := range strings.Split(rule, ";") {
		if k, v, ok := strings.Cut(part, "="); ok && strings.EqualFold(k, "UNTIL") {
			return v
		}
	}
	return ""
}

// override reads a RECURRENCE-ID component. It replaces the occurrence
// whole (RFC 5545): its people, status and transparency are its own; only
// a missing summary, location or length is taken from the master, for
// display.
func (x *expander) override(uid string, ov *ical.Component, master *Occurrence) (Occurrence, error) {
	start, dur, err := x.span(ov)
	if err != nil {
		return Occurrence{}, err
	}
	if ov.Props.Get(ical.PropDateTimeEnd) == nil && ov.Props.Get(ical.PropDuration) == nil && master != nil && !start.date {
		dur = master.End.Sub(master.Start)
	}
	o := x.fields(uid, ov)
	if master != nil {
		if o.Summary == "" {
			o.Summary = master.Summary
		}
		if o.Location == "" {
			o.Location = master.Location
		}
	}
	o.AllDay, o.Floating = start.date, start.floating
	o.Start, o.End = start.t, endOf(start.t, dur, start.date)
	if rid, ok, err := x.one(ov, ical.PropRecurrenceID); err == nil && ok {
		o.RecurrenceID = rid.t
		if master != nil && rid.date && !master.AllDay {
			o.RecurrenceID = time.Date(rid.t.Year(), rid.t.Month(), rid.t.Day(), master.Start.Hour(), master.Start.Minute(), master.Start.Second(), 0, master.Start.Location())
		}
	}
	return o, nil
}

// fields reads what an occurrence shows besides its times.
func (x *expander) fields(uid string, c *ical.Component) Occurrence {
	o := Occurrence{
		UID:         uid,
		Summary:     propText(c, ical.PropSummary),
		Location:    propText(c, ical.PropLocation),
		Description: propText(c, ical.PropDescription),
		Status:      strings.ToUpper(strings.TrimSpace(propRaw(c, ical.PropStatus))),
		Transparent: strings.EqualFold(strings.TrimSpace(propRaw(c, ical.PropTransparency)), "TRANSPARENT"),
	}
	if p := c.Props.Get(ical.PropSequence); p != nil {
		if n, err := p.Int(); err == nil {
			o.Sequence = n
		}
	}
	if p := c.Props.Get(ical.PropOrganizer); p != nil {
		if pe := person(p); pe.Email != "" {
			pe.PartStat = ""
			o.Organizer = &pe
		}
	}
	for _, p := range c.Props.Values(ical.PropAttendee) {
		if pe := person(&p); pe.Email != "" {
			o.Attendees = append(o.Attendees, pe)
		}
	}
	return o
}

// person reads an ORGANIZER or ATTENDEE: its address from the value
// ("mailto:…", any case) or, failing that, the EMAIL parameter.
func person(p *ical.Prop) Person {
	v := strings.TrimSpace(p.Value)
	if len(v) >= 7 && strings.EqualFold(v[:7], "mailto:") {
		v = v[7:]
	}
	if !strings.Contains(v, "@") {
		v = p.Params.Get("EMAIL")
	}
	pe := Person{
		Email:    strings.ToLower(strings.TrimSpace(v)),
		Name:     strings.Trim(p.Params.Get(ical.ParamCommonName), `" `),
		PartStat: strings.ToUpper(strings.TrimSpace(p.Params.Get(ical.ParamParticipationStatus))),
		Role:     strings.ToUpper(strings.TrimSpace(p.Params.Get(ical.ParamRole))),
	}
	if pe.PartStat == "" {
		pe.PartStat = PartStatNeedsAction
	}
	return pe
}

// propText is a TEXT property's value unescaped, "" when absent. A
// comma is text here, escaped or not (exporters differ), never a list.
func propText(c *ical.Component, name string) string {
	p := c.Props.Get(name)
	if p == nil {
		return ""
	}
	return strings.TrimSpace(textUnescaper.Replace(p.Value))
}

var textUnescaper = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\N`, "\n", `\,`, ",", `\;`, ";")

func propRaw(c *ical.Component, name string) string {
	if p := c.Props.Get(name); p != nil {
		return p.Value
	}
	return ""
}
