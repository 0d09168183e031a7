package calendar

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"

	"github.com/spirit-app/spirit/agents/store"
)

// PasswordKey names a CalDAV calendar's password in the keychain.
func PasswordKey(id int64) string { return "calendar/" + strconv.FormatInt(id, 10) + "/password" }

// Secrets is the part of the keychain a sync reads (platform/secrets.Store).
type Secrets interface {
	Get(ctx context.Context, key string) (string, error)
}

// SyncOptions are what Sync needs besides the calendar.
type SyncOptions struct {
	// HTTP is the client for subscriptions and CalDAV; nil is
	// http.DefaultClient.
	HTTP *http.Client
	// Secrets holds CalDAV passwords (PasswordKey); unused otherwise.
	Secrets Secrets
	// Cloud opens the mail account of a Microsoft or Google calendar
	// (MailAccounts); unused otherwise.
	Cloud CloudAuth
	// Now is the sync's wall clock (time.Now when zero); CalDAV asks for
	// the events of [Now-Past, Now+Future) (30 days back, a year ahead
	// when zero).
	Now          time.Time
	Past, Future time.Duration
	// Retry has SyncAll read held calendars too: the lawyer asked.
	Retry bool
	// Deadline bounds one calendar's sync (SyncDeadline when zero).
	Deadline time.Duration
}

// SyncResult says what a sync did.
type SyncResult struct {
	Events    int  // VEVENTs stored (series and overrides), or changed by an incremental sync
	Removed   int  // events (objects, instances, series) an incremental sync removed
	Unchanged bool // the source said nothing changed
	Objects   int  // CalDAV objects read
	// Incremental marks a sync that read only the changes since the last
	// (a sync token or delta link); otherwise the whole window was read.
	Incremental bool
}

// fullSyncEvery is how often a calendar read by its changes is read whole
// again: a sync token reports changes, not the events that come into the
// rolling window as days pass.
const fullSyncEvery = 24 * time.Hour

// window is the span a sync reads: [now-Past, now+Future), 30 days back
// and a year ahead by default.
func (opt SyncOptions) window(now time.Time) (time.Time, time.Time) {
	past, future := opt.Past, opt.Future
	if past == 0 {
		past = 30 * 24 * time.Hour
	}
	if future == 0 {
		future = 365 * 24 * time.Hour
	}
	return now.Add(-past), now.Add(future)
}

// incremental reports whether c may be synced by its changes at now.
func incremental(c store.Calendar, now time.Time) bool {
	return c.SyncToken != "" && !c.FullSync.IsZero() && now.Sub(c.FullSync) < fullSyncEvery && !now.Before(c.FullSync)
}

// syncCalDAV reads a CalDAV collection: by its changes since the stored
// sync token (RFC 6578), then one multiget of the changed objects; or
// whole, the token first and then the window's objects, when there is no
// token, the server refuses it, or a day has passed.
func syncCalDAV(ctx context.Context, st *store.Store, c store.Calendar, d *CalDAV, path string, now time.Time, opt SyncOptions) (SyncResult, error) {
	if incremental(c, now) {
		changed, removed, next, err := d.Changes(ctx, path, c.SyncToken)
		switch {
		case errors.Is(err, ErrSyncTokenRefused):
			slog.InfoContext(ctx, "calendar: sync token refused, reading the calendar whole", "calendar", c.ID, "err", err)
		case err != nil:
			return SyncResult{}, err
		case len(changed) == 0 && len(removed) == 0:
			return SyncResult{Unchanged: true, Incremental: true}, st.MarkCalendarSynced(ctx, c.ID, store.CalendarSync{SyncToken: next})
		default:
			var objs []Object
			if len(changed) > 0 {
				objs, err = d.Get(ctx, path, changed)
			}
			if err == nil {
				ch := store.CalendarChanges{RemovedHref: append(removed, changed...)}
				for _, o := range objs {
					ch.Events = append(ch.Events, EventsOf(o.Calendar, o.Path, o.ETag)...)
				}
				res := SyncResult{Events: len(ch.Events), Removed: len(removed), Objects: len(objs), Incremental: true}
				return res, st.UpdateCalendarEvents(ctx, c.ID, ch, store.CalendarSync{SyncToken: next})
			}
			// An object gone between the two requests fails the multiget;
			// the token would fail again the same way: read it all now.
			slog.InfoContext(ctx, "calendar: changed objects unreadable, reading the calendar whole", "calendar", c.ID, "err", err)
		}
	}
	// The token comes before the query: a change in between is seen again
	// next time rather than lost.
	token, err := d.SyncToken(ctx, path)
	if err != nil {
		slog.InfoContext(ctx, "calendar: no sync token, every sync reads the calendar whole", "calendar", c.ID, "err", err)
		token = ""
	}
	from, to := opt.window(now)
	objs, err := d.Query(ctx, path, from, to)
	if err != nil {
		return SyncResult{}, err
	}
	var evs []store.CalendarEvent
	for _, o := range objs {
		evs = append(evs, EventsOf(o.Calendar, o.Path, o.ETag)...)
	}
	res := SyncResult{Events: len(evs), Objects: len(objs)}
	return res, st.ReplaceCalendarEvents(ctx, c.ID, evs, store.CalendarSync{SyncToken: token, At: now})
}

// SyncDeadline bounds one calendar's sync, every request and all reading
// included: a server that answers a byte at a time is given up on, not
// waited for.
const SyncDeadline = 2 * time.Minute

// HeldMessage is the error a held calendar shows (store.Calendar.Held).
const HeldMessage = "spirit stopped while reading this calendar, and does not read it by itself any more"

// ErrHeld is SyncAll's error for a held calendar it left alone.
var ErrHeld = errors.New(HeldMessage)

// Sync reads one calendar source and makes the store hold its events; a
// failure is recorded on the calendar (its events stay as they were) and
// returned. Sync is the lawyer asking: a held calendar is released and
// read.
func Sync(ctx context.Context, st *store.Store, c store.Calendar, opt SyncOptions) (SyncResult, error) {
	if c.Held {
		if err := st.ReleaseCalendar(ctx, c.ID); err != nil {
			return SyncResult{}, fmt.Errorf("sync calendar %d: %w", c.ID, err)
		}
	}
	// The mark is in the store before any byte is read: if this sync ends
	// Spirit (a crash, the out-of-memory killer), the next start sees it
	// unended and holds the calendar instead of dying in it again.
	if err := st.BeginCalendarSync(ctx, c.ID); err != nil {
		return SyncResult{}, fmt.Errorf("sync calendar %d: %w", c.ID, err)
	}
	defer func() { _ = st.EndCalendarSync(context.WithoutCancel(ctx), c.ID) }()
	deadline := cmp.Or(opt.Deadline, SyncDeadline)
	sctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	res, err := syncOnce(sctx, st, c, opt)
	if err != nil {
		if sctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("gave up after %v: %w", deadline, err)
		}
		if serr := st.SetCalendarError(context.WithoutCancel(ctx), c.ID, err.Error()); serr != nil && !errors.Is(serr, store.ErrNotFound) {
			err = errors.Join(err, serr)
		}
		return res, fmt.Errorf("sync calendar %d: %w", c.ID, err)
	}
	return res, nil
}

// SyncAll syncs every calendar in the store, one after the other, and
// returns each one's result and error by calendar id: one failing source
// never stops the others. It is what the app's five-minute round runs,
// which leaves held calendars alone (their error is ErrHeld) unless
// opt.Retry says the lawyer asked.
func SyncAll(ctx context.Context, st *store.Store, opt SyncOptions) (map[int64]SyncResult, map[int64]error, error) {
	cs, err := st.Calendars(ctx)
	if err != nil {
		return nil, nil, err
	}
	results, errs := map[int64]SyncResult{}, map[int64]error{}
	for _, c := range cs {
		if err := ctx.Err(); err != nil {
			return results, errs, err
		}
		if c.Held && !opt.Retry {
			errs[c.ID] = fmt.Errorf("calendar %d: %w", c.ID, ErrHeld)
			continue
		}
		res, err := Sync(ctx, st, c, opt)
		results[c.ID] = res
		if err != nil {
			errs[c.ID] = err
		}
	}
	return results, errs, nil
}

// HoldInterrupted holds every calendar whose last sync never ended, which
// the caller (Spirit, at start) says once in its log and world log.
func HoldInterrupted(ctx context.Context, st *store.Store) ([]store.Calendar, error) {
	return st.HoldInterruptedCalendars(ctx, HeldMessage)
}

func syncOnce(ctx context.Context, st *store.Store, c store.Calendar, opt SyncOptions) (SyncResult, error) {
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	switch c.Kind {
	case store.CalendarFile:
		evs, err := fileEvents(c.Source)
		if err != nil {
			return SyncResult{}, err
		}
		return SyncResult{Events: len(evs)}, st.ReplaceCalendarEvents(ctx, c.ID, evs, store.CalendarSync{})
	case store.CalendarURL:
		f, err := FetchURL(ctx, opt.HTTP, c.Source, Validators{ETag: c.ETag, LastModified: c.Modified})
		if errors.Is(err, ErrNotModified) {
			return SyncResult{Unchanged: true}, st.MarkCalendarSynced(ctx, c.ID, store.CalendarSync{ETag: c.ETag, Modified: c.Modified})
		}
		if err != nil {
			return SyncResult{}, err
		}
		evs := f.Events
		return SyncResult{Events: len(evs)}, st.ReplaceCalendarEvents(ctx, c.ID, evs,
			store.CalendarSync{ETag: f.Valid.ETag, Modified: f.Valid.LastModified})
	case store.CalendarCalDAV:
		password := ""
		if c.Username != "" {
			if opt.Secrets == nil {
				return SyncResult{}, fmt.Errorf("caldav: no keychain for the password")
			}
			var err error
			if password, err = opt.Secrets.Get(ctx, PasswordKey(c.ID)); err != nil {
				return SyncResult{}, fmt.Errorf("caldav: password: %w", err)
			}
		}
		d, err := NewCalDAV(opt.HTTP, c.Source, c.Username, password)
		if err != nil {
			return SyncResult{}, err
		}
		u, err := url.Parse(c.Source)
		if err != nil {
			return SyncResult{}, fmt.Errorf("caldav: %w", err)
		}
		return syncCalDAV(ctx, st, c, d, u.Path, now, opt)
	case store.CalendarMicrosoft, store.CalendarGoogle:
		return syncCloud(ctx, st, c, now, opt)
	}
	return SyncResult{}, fmt.Errorf("unknown calendar kind %q", c.Kind)
}

// EventsOf turns a calendar's VEVENTs into store rows, each with a
// VCALENDAR of its own holding it and the VTIMEZONEs it names. href and
// etag name the CalDAV object they came from ("" otherwise). An event that
// cannot be read is left out with a warning.
func EventsOf(cal *ical.Calendar, href, etag string) []store.CalendarEvent {
	if cal == nil {
		return nil
	}
	x := &expander{z: newZones(cal), loc: time.UTC}
	var out []store.CalendarEvent
	for _, c := range cal.Children {
		if c.Name != ical.CompEvent {
			continue
		}
		e, err := x.row(c, href, etag)
		if err != nil {
			slog.Warn("calendar: event not stored", "uid", propText(c, ical.PropUID), "err", err)
			continue
		}
		out = append(out, e)
	}
	return out
}

func (x *expander) row(c *ical.Component, href, etag string) (e store.CalendarEvent, err error) {
	// A panic in the recurrence library (lastStart, zones) costs the
	// event, not Spirit.
	defer func() {
		if r := recover(); r != nil {
			e, err = store.CalendarEvent{}, fmt.Errorf("event could not be read: %v", r)
		}
	}()
	return x.rowUnsafe(c, href, etag)
}

func (x *expander) rowUnsafe(c *ical.Component, href, etag string) (store.CalendarEvent, error) {
	uid := propText(c, ical.PropUID)
	if uid == "" {
		return store.CalendarEvent{}, fmt.Errorf("no UID")
	}
	start, dur, err := x.span(c)
	if err != nil {
		return store.CalendarEvent{}, err
	}
	o := x.fields(uid, c)
	e := store.CalendarEvent{
		UID: uid, Href: href, ETag: etag,
		Start: start.t, End: endOf(start.t, dur, start.date),
		AllDay: start.date, Summary: o.Summary, Location: o.Location,
		Status: o.Status, Transparent: o.Transparent, Sequence: o.Sequence,
	}
	switch ds := c.Props.Get(ical.PropDateTimeStart); {
	case start.floating:
		e.Zone = "floating"
	case ds.Params.Get(ical.PropTimezoneID) != "":
		e.Zone = strings.Trim(ds.Params.Get(ical.PropTimezoneID), `"`)
	}
	if o.Organizer != nil {
		e.Organizer = o.Organizer.Email
	}
	for _, a := range o.Attendees {
		e.Attendees = append(e.Attendees, store.CalendarAttendee{Email: a.Email, Name: a.Name, PartStat: a.PartStat, Role: a.Role})
	}
	if rid, ok, err := x.one(c, ical.PropRecurrenceID); err != nil {
		return store.CalendarEvent{}, err
	} else if ok {
		e.RecurrenceID = rid.t
	}
	e.Recurring = c.Props.Get(ical.PropRecurrenceRule) != nil || c.Props.Get(ical.PropRecurrenceDates) != nil
	// Until: floating and date times move with the reader's zone, so the
	// bound is widened by a day either way.
	slack := time.Duration(0)
	if start.floating {
		slack = 26 * time.Hour
	}
	switch {
	case !e.Recurring:
		e.Until = e.Start.Add(slack)
	default:
		if last, ok := x.lastStart(c, start); ok {
			e.Until = last.Add(slack)
		}
	}
	raw, err := standalone(c, x.z)
	if err != nil {
		return store.CalendarEvent{}, err
	}
	e.Raw = raw
	return e, nil
}

// lastStart is the latest occurrence start of a series with an end
// (COUNT or UNTIL, or only RDATEs); ok false for an endless series.
func (x *expander) lastStart(c *ical.Component, start value) (time.Time, bool) {
	last := start.t
	for _, p := range c.Props.Values(ical.PropRecurrenceDates) {
		vs, err := x.times(&p)
		if err != nil {
			return time.Time{}, false
		}
		for _, v := range vs {
			t := v.t
			if v.date {
				t = t.Add(24 * time.Hour) // a date RDATE is at DTSTART's time that day
			}
			if t.After(last) {
				last = t
			}
		}
	}
	rr := c.Props.Get(ical.PropRecurrenceRule)
	if rr == nil {
		return last, true
	}
	opt, err := rrule.StrToROptionInLocation(rr.Value, start.t.Location())
	if err != nil {
		return time.Time{}, false
	}
	opt.Dtstart = start.t
	if checkRule(opt) != nil {
		return last, true // the rule is never expanded: DTSTART and RDATEs are all
	}
	century := start.t.AddDate(100, 0, 0)
	switch {
	case opt.Count == 0 && opt.Until.IsZero():
		return time.Time{}, false
	case opt.Count == 0:
		// An upper bound is enough for the window index, and walking to
		// UNTIL could take a century of hours.
		l := opt.Until.AddDate(0, 0, 1)
		if l.After(century) {
			return time.Time{}, false
		}
		if l.After(last) {
			last = l
		}
		return last, true
	}
	r, err := rrule.NewRRule(*opt)
	if err != nil {
		return time.Time{}, false
	}
	// The COUNT-th occurrence, walked at most maxWalk steps; a series
	// longer than that is as good as endless.
	next := r.Iterator()
	var l time.Time
	for i := 0; ; i++ {
		t, ok := next()
		if !ok {
			break
		}
		if i >= maxWalk || t.After(century) {
			return time.Time{}, false
		}
		l = t
	}
	if l.After(last) {
		last = l
	}
	return last, true
}

// standalone encodes one VEVENT as a VCALENDAR with the VTIMEZONEs its
// TZIDs name, so it can be expanded again on its own.
func standalone(c *ical.Component, z *zones) (string, error) {
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, "-//Spirit//calendar store//EN")
	ev := &ical.Component{Name: c.Name, Props: maps.Clone(c.Props), Children: c.Children}
	if ev.Props.Get(ical.PropDateTimeStamp) == nil {
		// The encoder insists on one; the stamp is not read back.
		ev.Props.SetDateTime(ical.PropDateTimeStamp, time.Unix(0, 0).UTC())
	}
	ev.Children = slices.DeleteFunc(slices.Clone(ev.Children), func(ch *ical.Component) bool { return ch.Name != ical.CompAlarm })
	var tzids []string
	for _, ps := range c.Props {
		for _, p := range ps {
			if id := strings.Trim(strings.TrimSpace(p.Params.Get(ical.PropTimezoneID)), `"`); id != "" && !slices.Contains(tzids, id) {
				tzids = append(tzids, id)
			}
		}
	}
	slices.Sort(tzids)
	for _, id := range tzids {
		if def, ok := z.defs[id]; ok {
			cal.Children = append(cal.Children, def)
		}
	}
	cal.Children = append(cal.Children, ev)
	var b bytes.Buffer
	if err := ical.NewEncoder(&b).Encode(cal); err != nil {
		return "", fmt.Errorf("encode event: %w", err)
	}
	return b.String(), nil
}

// Upcoming expands the stored events of every calendar into the
// occurrences that overlap [from, to), floating times in loc, sorted by
// start; each carries its calendar's id.
func Upcoming(ctx context.Context, st *store.Store, from, to time.Time, loc *time.Location) ([]Occurrence, error) {
	// Floating and all-day events are stored against UTC; a day either
	// way catches them in any zone.
	evs, err := st.CalendarEvents(ctx, 0, from.Add(-26*time.Hour), to.Add(26*time.Hour))
	if err != nil {
		return nil, err
	}
	byCal := map[int64]*ical.Calendar{}
	var ids []int64
	for _, e := range evs {
		one, err := ParseBytes([]byte(e.Raw))
		if err != nil {
			slog.WarnContext(ctx, "calendar: stored event unreadable", "calendar", e.CalendarID, "uid", e.UID, "err", err)
			continue
		}
		cal, ok := byCal[e.CalendarID]
		if !ok {
			cal = ical.NewCalendar()
			byCal[e.CalendarID] = cal
			ids = append(ids, e.CalendarID)
		}
		cal.Children = append(cal.Children, one.Children...)
	}
	var out []Occurrence
	for _, id := range ids {
		occs, err := Occurrences(byCal[id], from, to, loc)
		if err != nil {
			return nil, err
		}
		for i := range occs {
			occs[i].Calendar = id
		}
		out = append(out, occs...)
	}
	slices.SortStableFunc(out, func(a, b Occurrence) int { return a.Start.Compare(b.Start) })
	return out, nil
}
