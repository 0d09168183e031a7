package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Calendar kinds.
const (
	CalendarFile   = "file"   // an .ics file on disk
	CalendarURL    = "url"    // a subscription (webcal:// read as https://)
	CalendarCalDAV = "caldav" // a CalDAV calendar collection
	// Cloud calendars, read with the sign-in of a mail account.
	CalendarMicrosoft = "microsoft" // a Microsoft 365 / Outlook calendar (Graph)
	CalendarGoogle    = "google"    // a Google calendar
)

// CloudCalendar reports whether kind is read with a mail account's
// sign-in.
func CloudCalendar(kind string) bool { return kind == CalendarMicrosoft || kind == CalendarGoogle }

// Calendar is a calendar source the lawyer added.
type Calendar struct {
	ID   int64
	Kind string
	// Source is a file's absolute path, a subscription's URL, a CalDAV
	// collection's URL, or a cloud calendar's id at its service.
	Source   string
	Name     string
	Username string // CalDAV; the password is in the keychain
	// Account is the mail account a cloud calendar signs in with (0 for
	// the other kinds).
	Account int64
	// ETag and Modified are the validators of the last successful fetch
	// (Last-Modified as the server sent it); SyncToken a CalDAV sync
	// token, a Graph delta link or a Google sync token.
	ETag, Modified, SyncToken string
	// FullSync is when the whole window was last read (zero: never).
	FullSync  time.Time
	LastSync  time.Time // zero: never synced
	LastError string    // "" after a successful sync
	ErrorAt   time.Time
	Created   time.Time
	// Held marks a calendar whose last sync never ended (Spirit died in
	// it): the five-minute round leaves it alone until the lawyer asks.
	Held bool
}

// CalendarAttendee is an attendee as stored.
type CalendarAttendee struct {
	Email    string `json:"email"`
	Name     string `json:"name,omitempty"`
	PartStat string `json:"partstat,omitempty"`
	Role     string `json:"role,omitempty"`
}

// CalendarEvent is one VEVENT of a calendar: a series or one override.
type CalendarEvent struct {
	ID         int64
	CalendarID int64
	UID        string
	// RecurrenceID is the original start of an override; zero for the
	// series (or a one-off event).
	RecurrenceID time.Time
	Href, ETag   string // CalDAV object
	Start, End   time.Time
	// Zone is the TZID, "" for UTC, "floating" for floating times.
	Zone string
	// Until is when the last occurrence starts at the latest; zero for a
	// series without end. For a one-off event it is its start.
	Until             time.Time
	AllDay, Recurring bool
	Summary, Location string
	Organizer         string
	Attendees         []CalendarAttendee
	Status            string
	Transparent       bool
	Sequence          int
	Raw               string // a VCALENDAR with this VEVENT and its VTIMEZONEs
}

// CalendarSync is what a successful sync leaves on its calendar.
type CalendarSync struct {
	ETag, Modified, SyncToken string
	// At is the sync's own clock, kept as a whole read's FullSync (zero:
	// the store's clock).
	At time.Time
}

// CalendarChanges is an incremental sync's result: events added or
// changed, and those gone, by href (a CalDAV object, a cloud event) or by
// UID (a whole series).
type CalendarChanges struct {
	Events      []CalendarEvent
	RemovedHref []string
	RemovedUID  []string
}

var calendarKinds = map[string]bool{CalendarFile: true, CalendarURL: true, CalendarCalDAV: true,
	CalendarMicrosoft: true, CalendarGoogle: true}

// AddCalendar keeps a new calendar source; the same kind and source (for
// the same account) again is ErrInvalid. A cloud calendar needs its
// account, the others have none.
func (s *Store) AddCalendar(ctx context.Context, c Calendar) (Calendar, error) {
	if !calendarKinds[c.Kind] || strings.TrimSpace(c.Source) == "" || CloudCalendar(c.Kind) != (c.Account != 0) {
		return Calendar{}, fmt.Errorf("add calendar: %w: kind %q, source %q, account %d", ErrInvalid, c.Kind, c.Source, c.Account)
	}
	now, ms := s.now()
	c.Created = now
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM calendars WHERE kind = ? AND source = ? AND coalesce(account, 0) = ?`,
			c.Kind, c.Source, c.Account).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%w: %s is already a calendar", ErrInvalid, c.Source)
		}
		var account sql.NullInt64
		if c.Account != 0 {
			account = sql.NullInt64{Int64: c.Account, Valid: true}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO calendars (kind, source, name, username, account, created) VALUES (?, ?, ?, ?, ?, ?)`,
			c.Kind, c.Source, c.Name, c.Username, account, ms)
		if err != nil {
			return err
		}
		c.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return Calendar{}, fmt.Errorf("add calendar: %w", err)
	}
	return c, nil
}

const calendarCols = `id, kind, source, name, username, coalesce(account, 0), etag, modified, sync_token, full_sync,
	last_sync, last_error, error_at, created, held`

func scanCalendar(sc interface{ Scan(...any) error }) (Calendar, error) {
	var c Calendar
	var fullSync, lastSync, errorAt sql.NullInt64
	var created int64
	if err := sc.Scan(&c.ID, &c.Kind, &c.Source, &c.Name, &c.Username, &c.Account, &c.ETag, &c.Modified, &c.SyncToken,
		&fullSync, &lastSync, &c.LastError, &errorAt, &created, &c.Held); err != nil {
		return Calendar{}, err
	}
	if fullSync.Valid {
		c.FullSync = time.UnixMilli(fullSync.Int64)
	}
	if lastSync.Valid {
		c.LastSync = time.UnixMilli(lastSync.Int64)
	}
	if errorAt.Valid {
		c.ErrorAt = time.UnixMilli(errorAt.Int64)
	}
	c.Created = time.UnixMilli(created)
	return c, nil
}

// Calendars lists the calendar sources, oldest first.
func (s *Store) Calendars(ctx context.Context) ([]Calendar, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+calendarCols+` FROM calendars ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("calendars: %w", classify(ctx, err))
	}
	defer rows.Close()
	var out []Calendar
	for rows.Next() {
		c, err := scanCalendar(rows)
		if err != nil {
			return nil, fmt.Errorf("calendars: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("calendars: %w", classify(ctx, err))
	}
	return out, nil
}

// Calendar reads one calendar source; ErrNotFound when there is none.
func (s *Store) Calendar(ctx context.Context, id int64) (Calendar, error) {
	c, err := scanCalendar(s.r.QueryRowContext(ctx, `SELECT `+calendarCols+` FROM calendars WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Calendar{}, fmt.Errorf("calendar %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Calendar{}, fmt.Errorf("calendar %d: %w", id, classify(ctx, err))
	}
	return c, nil
}

// RemoveCalendar deletes a calendar source and all its events.
func (s *Store) RemoveCalendar(ctx context.Context, id int64) error {
	err := s.execCalendar(ctx, `DELETE FROM calendars WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("remove calendar %d: %w", id, err)
	}
	return nil
}

// ReplaceCalendarEvents makes events the calendar's whole content and
// records the successful sync, in one transaction: a reader never sees a
// half-synced calendar.
func (s *Store) ReplaceCalendarEvents(ctx context.Context, calendarID int64, events []CalendarEvent, sync CalendarSync) error {
	_, ms := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := calendarExists(ctx, tx, calendarID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM calendar_events WHERE calendar_id = ?`, calendarID); err != nil {
			return err
		}
		if err := insertEvents(ctx, tx, calendarID, events); err != nil {
			return err
		}
		full := ms
		if !sync.At.IsZero() {
			full = sync.At.UnixMilli()
		}
		if _, err := tx.ExecContext(ctx, `UPDATE calendars SET full_sync = ? WHERE id = ?`, full, calendarID); err != nil {
			return err
		}
		return markSynced(ctx, tx, calendarID, sync, ms)
	})
	if err != nil {
		return fmt.Errorf("replace events of calendar %d: %w", calendarID, err)
	}
	return nil
}

// UpdateCalendarEvents applies an incremental sync: the events of the
// hrefs and the series of the UIDs removed go, the changed events replace
// the ones with the same href (a CalDAV object's new version replaces all
// its old VEVENTs: an override may have been dropped from it) or the same
// (uid, recurrence id), and the sync is recorded, in one transaction.
func (s *Store) UpdateCalendarEvents(ctx context.Context, calendarID int64, ch CalendarChanges, sync CalendarSync) error {
	_, ms := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := calendarExists(ctx, tx, calendarID); err != nil {
			return err
		}
		hrefs := slices.Clone(ch.RemovedHref)
		for _, e := range ch.Events {
			if e.Href != "" && !slices.Contains(hrefs, e.Href) {
				hrefs = append(hrefs, e.Href)
			}
		}
		for _, href := range hrefs {
			if _, err := tx.ExecContext(ctx, `DELETE FROM calendar_events WHERE calendar_id = ? AND href = ?`, calendarID, href); err != nil {
				return err
			}
		}
		for _, uid := range ch.RemovedUID {
			if _, err := tx.ExecContext(ctx, `DELETE FROM calendar_events WHERE calendar_id = ? AND uid = ?`, calendarID, uid); err != nil {
				return err
			}
		}
		if err := insertEvents(ctx, tx, calendarID, ch.Events); err != nil {
			return err
		}
		return markSynced(ctx, tx, calendarID, sync, ms)
	})
	if err != nil {
		return fmt.Errorf("update events of calendar %d: %w", calendarID, err)
	}
	return nil
}

func calendarExists(ctx context.Context, tx *sql.Tx, id int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM calendars WHERE id = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func insertEvents(ctx context.Context, tx *sql.Tx, calendarID int64, events []CalendarEvent) error {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO calendar_events
		(calendar_id, uid, recurrence_id, href, etag, starts, ends, zone, until, all_day, recurring,
		 summary, location, organizer, attendees, status, transparent, sequence, raw)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (calendar_id, uid, recurrence_id) DO UPDATE SET
		 href = excluded.href, etag = excluded.etag, starts = excluded.starts, ends = excluded.ends,
		 zone = excluded.zone, until = excluded.until, all_day = excluded.all_day, recurring = excluded.recurring,
		 summary = excluded.summary, location = excluded.location, organizer = excluded.organizer,
		 attendees = excluded.attendees, status = excluded.status, transparent = excluded.transparent,
		 sequence = excluded.sequence, raw = excluded.raw`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, e := range events {
		if strings.TrimSpace(e.UID) == "" || e.Raw == "" {
			return fmt.Errorf("%w: an event needs a UID and its iCalendar text", ErrInvalid)
		}
		att := e.Attendees
		if att == nil {
			att = []CalendarAttendee{}
		}
		aj, err := json.Marshal(att)
		if err != nil {
			return err
		}
		rid := ""
		if !e.RecurrenceID.IsZero() {
			rid = e.RecurrenceID.Format(time.RFC3339)
		}
		var until sql.NullInt64
		if !e.Until.IsZero() {
			until = sql.NullInt64{Int64: e.Until.UnixMilli(), Valid: true}
		}
		if _, err := stmt.ExecContext(ctx, calendarID, e.UID, rid, e.Href, e.ETag, e.Start.UnixMilli(), e.End.UnixMilli(),
			e.Zone, until, e.AllDay, e.Recurring, e.Summary, e.Location, strings.ToLower(e.Organizer), string(aj),
			e.Status, e.Transparent, e.Sequence, e.Raw); err != nil {
			return err
		}
	}
	return nil
}

func markSynced(ctx context.Context, tx *sql.Tx, id int64, sync CalendarSync, ms int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE calendars SET etag = ?, modified = ?, sync_token = ?, last_sync = ?,
		last_error = '', error_at = NULL WHERE id = ?`, sync.ETag, sync.Modified, sync.SyncToken, ms, id)
	return err
}

// MarkCalendarSynced records a sync that found the source unchanged.
func (s *Store) MarkCalendarSynced(ctx context.Context, id int64, sync CalendarSync) error {
	_, ms := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := calendarExists(ctx, tx, id); err != nil {
			return err
		}
		return markSynced(ctx, tx, id, sync, ms)
	})
	if err != nil {
		return fmt.Errorf("mark calendar %d synced: %w", id, err)
	}
	return nil
}

// execCalendar runs one statement on one calendar row in a write
// transaction; ErrNotFound when no row was touched.
func (s *Store) execCalendar(ctx context.Context, query string, args ...any) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// BeginCalendarSync notes that a sync of calendar id starts; EndCalendarSync
// that it ended, however it ended. A sync begun and never ended is one
// Spirit died in (HoldInterruptedCalendars).
func (s *Store) BeginCalendarSync(ctx context.Context, id int64) error {
	_, ms := s.now()
	return s.setSyncStarted(ctx, id, sql.NullInt64{Int64: ms, Valid: true})
}

// EndCalendarSync: see BeginCalendarSync.
func (s *Store) EndCalendarSync(ctx context.Context, id int64) error {
	return s.setSyncStarted(ctx, id, sql.NullInt64{})
}

func (s *Store) setSyncStarted(ctx context.Context, id int64, at sql.NullInt64) error {
	err := s.execCalendar(ctx, `UPDATE calendars SET sync_started = ? WHERE id = ?`, at, id)
	if err != nil {
		return fmt.Errorf("calendar %d sync mark: %w", id, err)
	}
	return nil
}

// HoldInterruptedCalendars holds every calendar whose sync began and never
// ended, with msg as its error, and returns them. Spirit calls it once at
// start, before any sync of its own.
func (s *Store) HoldInterruptedCalendars(ctx context.Context, msg string) ([]Calendar, error) {
	_, ms := s.now()
	var ids []int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		ids = nil
		rows, err := tx.QueryContext(ctx, `UPDATE calendars SET held = 1, sync_started = NULL, last_error = ?, error_at = ?
			WHERE sync_started IS NOT NULL RETURNING id`, msg, ms)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("hold interrupted calendars: %w", err)
	}
	out := make([]Calendar, 0, len(ids))
	for _, id := range ids {
		c, err := s.Calendar(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ReleaseCalendar lifts a hold: the lawyer asked for the calendar again.
// Its error stays until its next sync ends.
func (s *Store) ReleaseCalendar(ctx context.Context, id int64) error {
	err := s.execCalendar(ctx, `UPDATE calendars SET held = 0 WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("release calendar %d: %w", id, err)
	}
	return nil
}

// SetCalendarError records a failed sync; the events stay as they were.
func (s *Store) SetCalendarError(ctx context.Context, id int64, msg string) error {
	_, ms := s.now()
	err := s.execCalendar(ctx, `UPDATE calendars SET last_error = ?, error_at = ? WHERE id = ?`, msg, ms, id)
	if err != nil {
		return fmt.Errorf("set calendar %d error: %w", id, err)
	}
	return nil
}

// CalendarEvents reads the events that may have an occurrence starting in
// [from, to): whose first start is before to and whose series does not end
// before from. calendarID 0 reads every calendar. Overrides of a series
// that qualifies come along whatever their own times, so that a caller can
// expand the series with them.
func (s *Store) CalendarEvents(ctx context.Context, calendarID int64, from, to time.Time) ([]CalendarEvent, error) {
	q := `SELECT id, calendar_id, uid, recurrence_id, href, etag, starts, ends, zone, until, all_day, recurring,
		summary, location, organizer, attendees, status, transparent, sequence, raw
		FROM calendar_events e
		WHERE (? = 0 OR calendar_id = ?) AND (
		  (starts < ? AND (until IS NULL OR until >= ? OR ends > ?))
		  OR EXISTS (SELECT 1 FROM calendar_events m WHERE m.calendar_id = e.calendar_id AND m.uid = e.uid
		             AND m.recurrence_id <> e.recurrence_id
		             AND m.starts < ? AND (m.until IS NULL OR m.until >= ? OR m.ends > ?)))
		ORDER BY calendar_id, uid, recurrence_id`
	f, t := from.UnixMilli(), to.UnixMilli()
	rows, err := s.r.QueryContext(ctx, q, calendarID, calendarID, t, f, f, t, f, f)
	if err != nil {
		return nil, fmt.Errorf("calendar events: %w", classify(ctx, err))
	}
	defer rows.Close()
	var out []CalendarEvent
	for rows.Next() {
		var e CalendarEvent
		var rid, aj string
		var start, end int64
		var until sql.NullInt64
		if err := rows.Scan(&e.ID, &e.CalendarID, &e.UID, &rid, &e.Href, &e.ETag, &start, &end, &e.Zone, &until,
			&e.AllDay, &e.Recurring, &e.Summary, &e.Location, &e.Organizer, &aj, &e.Status, &e.Transparent,
			&e.Sequence, &e.Raw); err != nil {
			return nil, fmt.Errorf("calendar events: %w", err)
		}
		if rid != "" {
			if e.RecurrenceID, err = time.Parse(time.RFC3339, rid); err != nil {
				return nil, fmt.Errorf("calendar events: recurrence id %q: %w", rid, err)
			}
		}
		e.Start, e.End = time.UnixMilli(start), time.UnixMilli(end)
		if until.Valid {
			e.Until = time.UnixMilli(until.Int64)
		}
		if err := json.Unmarshal([]byte(aj), &e.Attendees); err != nil {
			return nil, fmt.Errorf("calendar events: attendees: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("calendar events: %w", classify(ctx, err))
	}
	return out, nil
}

// CountCalendarEvents counts a calendar's stored events (0: all calendars).
func (s *Store) CountCalendarEvents(ctx context.Context, calendarID int64) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM calendar_events WHERE ? = 0 OR calendar_id = ?`, calendarID, calendarID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count calendar events: %w", classify(ctx, err))
	}
	return n, nil
}
