package app

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
)

// Settings → Calendars and the tray's calendar note (issue 15 §1): the
// page lists, adds, removes and syncs calendars through the core, which
// calls what `spirit calendar` calls (calendar.Add, calendar.Sync,
// calendar.Remove).

// CalendarInfo is one calendar as Settings shows it.
type CalendarInfo struct {
	store.Calendar
	Events int // stored events (series and their changed occurrences)
	// Problem is the last sync's error in the lawyer's words ("" when it
	// synced).
	Problem string
}

// CalendarAdded is one calendar the page added, with its first sync.
type CalendarAdded struct {
	Calendar store.Calendar
	Events   int
	Err      error // the first sync failed; the calendar was not kept
}

// Calendars lists the calendars with their event counts and problems.
func (c *Core) Calendars(ctx context.Context) ([]CalendarInfo, error) {
	cals, err := c.store.Calendars(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]CalendarInfo, 0, len(cals))
	for _, cal := range cals {
		n, err := c.store.CountCalendarEvents(ctx, cal.ID)
		if err != nil {
			return nil, err
		}
		info := CalendarInfo{Calendar: cal, Events: n}
		if cal.LastError != "" {
			info.Problem = calendar.Plain(cal.LastError)
		}
		out = append(out, info)
	}
	return out, nil
}

// AddCalendar adds nc's calendars (a *calendar.FieldError names the field
// at fault, and nothing is added) and reads each once, so the page can
// say how many events came; progress goes to progress, in the lawyer's
// words.
func (c *Core) AddCalendar(ctx context.Context, nc calendar.NewCalendar, progress func(string)) ([]CalendarAdded, error) {
	if progress == nil {
		progress = func(string) {}
	}
	hc := &http.Client{Timeout: calendarHTTPWait}
	var keys calendar.SecretSetter
	if nc.Kind == store.CalendarCalDAV {
		sec, err := c.keys.secrets()
		if err != nil {
			return nil, fmt.Errorf("keychain: %w", err)
		}
		keys = sec
		progress("Connecting to the server…")
	}
	added, err := calendar.AddAndSync(ctx, c.store, keys, hc, nc, calendar.SyncOptions{HTTP: hc, Secrets: coreSecrets{c.keys}, Now: c.now()},
		func(cal store.Calendar, i, n int) {
			progress(fmt.Sprintf("Reading %s… (%d of %d)", quoteTitle(cal.Name), i, n))
		})
	if err != nil {
		return nil, err
	}
	out := make([]CalendarAdded, 0, len(added))
	for _, a := range added {
		out = append(out, CalendarAdded{Calendar: a.Calendar, Events: a.Events, Err: a.Err})
		if a.Err == nil {
			c.event(ctx, calendarEventSource, fmt.Sprintf("calendar-%d", a.Calendar.ID), "calendar added: "+a.Calendar.Name)
		}
	}
	if c.calendar != nil {
		c.calendar.refreshNote(ctx)
	}
	return out, nil
}

// RemoveCalendar removes calendar id, its events and its password; the
// tray stops naming it at once, even while a sync runs.
func (c *Core) RemoveCalendar(ctx context.Context, id int64) error {
	cal, err := c.store.Calendar(ctx, id)
	if err != nil {
		return err
	}
	var keys calendar.SecretSetter
	if cal.Kind == store.CalendarCalDAV {
		if sec, err := c.keys.secrets(); err == nil {
			keys = sec
		}
	}
	if err := calendar.Remove(ctx, c.store, keys, cal); err != nil {
		return err
	}
	c.event(ctx, calendarEventSource, fmt.Sprintf("calendar-%d", id), "calendar removed: "+cal.Name)
	if c.calendar != nil {
		c.calendar.refreshNote(ctx)
	}
	return nil
}

// note is the tray's calendar note now.
func (p *calendarPart) note() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return calendarNote(p.syncing, p.failing)
}

// setSyncing marks a sync round started or ended, for the tray.
func (p *calendarPart) setSyncing(on bool) {
	p.mu.Lock()
	changed := p.syncing != on
	p.syncing = on
	p.mu.Unlock()
	if changed {
		p.c.bus.Log(events.StatusChanged, nil)
	}
}

// refreshNote reads which calendars failed their last sync from the store.
// The read and the change are one step under p.mu, so a calendar removed
// while a sync ran is not put back by that sync: whichever refresh comes
// last read the store after the removal.
func (p *calendarPart) refreshNote(ctx context.Context) {
	p.mu.Lock()
	cals, err := p.c.store.Calendars(ctx)
	if err != nil {
		p.mu.Unlock()
		if ctx.Err() == nil {
			p.log.Warn("calendar: calendars unreadable", "err", err)
		}
		return
	}
	failing := failingCalendars(cals)
	changed := strings.Join(failing, "\x00") != strings.Join(p.failing, "\x00")
	p.failing = failing
	p.mu.Unlock()
	if changed {
		p.c.bus.Log(events.StatusChanged, nil)
	}
}

// failingCalendars names the calendars whose last sync failed.
func failingCalendars(cals []store.Calendar) []string {
	var out []string
	for _, c := range cals {
		if c.LastError != "" {
			out = append(out, calendarLabel(c))
		}
	}
	return out
}

func calendarLabel(c store.Calendar) string {
	if n := strings.TrimSpace(c.Name); n != "" {
		return n
	}
	return c.Source
}

// CalendarsSyncing is the tray's calendar note while a round runs.
const CalendarsSyncing = "Syncing calendars…"

// calendarNote is the tray line's part about calendars: "Syncing
// calendars…" while a round runs, then nothing, or the calendars whose
// sync failed.
func calendarNote(syncing bool, failing []string) string {
	switch {
	case syncing:
		return CalendarsSyncing
	case len(failing) == 1:
		return "Calendar ‘" + failing[0] + "’ not syncing"
	case len(failing) == 2:
		return "Calendars ‘" + failing[0] + "’ and ‘" + failing[1] + "’ not syncing"
	case len(failing) > 2:
		return fmt.Sprintf("%d calendars not syncing", len(failing))
	}
	return ""
}

// calendarHealthState is /health's calendars state: "syncing" while a
// round runs and none failed, else what calendarsState says.
func calendarHealthState(cals []store.Calendar, syncing bool, state, detail string) (string, string) {
	if syncing && state != "error" && len(cals) > 0 {
		return "syncing", "syncing now; " + detail
	}
	return state, detail
}

// SyncCalendarsNow reads every calendar now and returns when done (the
// page's Sync now); the tray says "Syncing calendars…" meanwhile.
func (c *Core) SyncCalendarsNow(ctx context.Context) error {
	if c.calendar == nil {
		return errNoCalendars
	}
	c.calendar.sync(ctx, true)
	return ctx.Err()
}

// documentIdentifier is the world log's identifier of a kept document.
func documentIdentifier(id int64) string { return fmt.Sprintf("document-%d", id) }

// DocumentOf reads a kept document's id from a world-log identifier.
func DocumentOf(identifier string) (int64, bool) {
	rest, ok := strings.CutPrefix(identifier, "document-")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}

// Document reads a kept document (Activity opens one from the log).
func (c *Core) Document(ctx context.Context, id int64) (store.Document, error) {
	return c.store.Document(ctx, id)
}
