package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ReminderState is where a reminder stands.
type ReminderState string

const (
	// ReminderPending has a due time and waits for it. A recurring reminder
	// stays pending for its whole life, its due moving on at each firing.
	ReminderPending ReminderState = "pending"
	// ReminderAwaitingTime was asked for without a time; Spirit has to ask when.
	ReminderAwaitingTime ReminderState = "awaiting_time"
	// ReminderWaiting is tied to a moment, not a time (Trigger): it waits,
	// without a due time, until that moment comes, then fires once.
	ReminderWaiting ReminderState = "waiting"
	// ReminderFired is a one-shot reminder whose nudge has been raised and
	// not yet marked done.
	ReminderFired ReminderState = "fired"
	// ReminderDone was marked done by the lawyer.
	ReminderDone ReminderState = "done"
	// ReminderCancelled was taken back.
	ReminderCancelled ReminderState = "cancelled"
)

// Valid reports whether s is a known reminder state.
func (s ReminderState) Valid() bool {
	switch s {
	case ReminderPending, ReminderAwaitingTime, ReminderWaiting, ReminderFired, ReminderDone, ReminderCancelled:
		return true
	}
	return false
}

// Open reports whether a reminder in state s can still change: it is
// neither done nor cancelled.
func (s ReminderState) Open() bool {
	return s == ReminderPending || s == ReminderAwaitingTime || s == ReminderWaiting || s == ReminderFired
}

// TriggerKind says what moment a reminder waits for.
type TriggerKind string

const (
	// TriggerThread: a mail thread with the person and/or subject words
	// comes on screen.
	TriggerThread TriggerKind = "thread"
	// TriggerApp: an app or window whose name or title has the words
	// comes to the front.
	TriggerApp TriggerKind = "app"
	// TriggerPerson: a meeting with the person is about to start.
	TriggerPerson TriggerKind = "person"
)

// Trigger is the moment a reminder waits for, in the lawyer's words.
type Trigger struct {
	Kind    TriggerKind
	Person  string // thread: whose mail; person: whom the lawyer meets
	Subject string // thread: words of its subject
	Name    string // app: the app, document or window named
}

// check reports what is missing from t, as ErrInvalid.
func (t Trigger) check() error {
	switch t.Kind {
	case TriggerThread:
		if strings.TrimSpace(t.Person) == "" && strings.TrimSpace(t.Subject) == "" {
			return fmt.Errorf("%w: a thread trigger needs a person or subject words", ErrInvalid)
		}
	case TriggerApp:
		if strings.TrimSpace(t.Name) == "" {
			return fmt.Errorf("%w: an app trigger needs the app's or document's name", ErrInvalid)
		}
	case TriggerPerson:
		if strings.TrimSpace(t.Person) == "" {
			return fmt.Errorf("%w: a person trigger needs the person's name", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: trigger kind %q", ErrInvalid, t.Kind)
	}
	return nil
}

// Recurrence is how often a reminder repeats.
type Recurrence string

const (
	Once         Recurrence = ""        // a one-shot reminder
	EveryDay     Recurrence = "day"     // every day at the anchor's wall-clock time
	EveryWeekday Recurrence = "weekday" // Monday to Friday at the anchor's wall-clock time
	EveryWeek    Recurrence = "week"    // on the anchor's weekday, at its wall-clock time
)

// Valid reports whether r is a known recurrence, Once included.
func (r Recurrence) Valid() bool {
	switch r {
	case Once, EveryDay, EveryWeekday, EveryWeek:
		return true
	}
	return false
}

// ReminderEventSource is the world log source of every reminder event; the
// identifier is ReminderIdentifier(id).
const ReminderEventSource = "reminders"

// ReminderIdentifier is the world log identifier for reminder id.
func ReminderIdentifier(id int64) string { return "reminder-" + strconv.FormatInt(id, 10) }

// Reminder errors; test with errors.Is.
var (
	// ErrNotDue means FireReminder found the reminder not pending or not yet
	// due: typically another scheduler fired it first. The caller does nothing.
	ErrNotDue = errors.New("reminder is not due")
	// ErrReminderClosed means the reminder is done or cancelled.
	ErrReminderClosed = errors.New("reminder is closed")
)

// Reminder is one reminder as stored. Times the schedule depends on (Due,
// Anchor) are in the reminder's own location; see Location.
type Reminder struct {
	ID      int64
	Created time.Time
	Task    string
	// Due is the next firing; nil while the reminder awaits its time. For a
	// recurring reminder that was snoozed it is the snoozed time, which may
	// fall between two occurrences.
	Due   *time.Time
	Every Recurrence
	// Anchor is, for recurring reminders, the occurrence whose wall-clock
	// time (and weekday, for weekly ones) the series keeps; nil otherwise.
	Anchor *time.Time
	// Zone is the IANA name of the reminder's location, or "" if unknown;
	// Offset is its UTC offset in minutes at the anchor, due or creation.
	Zone      string
	Offset    int
	State     ReminderState
	FiredAt   *time.Time // the latest firing; nil if it never fired
	FireCount int
	NudgeID   int64 // the latest firing's nudge; 0 if it never fired
	Updated   time.Time
	// Trigger is the moment a reminder tied to one waits for (state
	// waiting) or fired at; nil for a reminder with a time.
	Trigger *Trigger

	loc *time.Location
}

// Location is where the reminder's wall-clock times are kept: its zone if
// that still gives the stored offset, else the stored offset itself.
func (r Reminder) Location() *time.Location {
	if r.loc != nil {
		return r.loc
	}
	ref := r.Created
	if r.Anchor != nil {
		ref = *r.Anchor
	} else if r.Due != nil {
		ref = *r.Due
	}
	return resolveLocation(r.Zone, r.Offset, ref)
}

// NewReminder is what CreateReminder needs.
type NewReminder struct {
	Task  string
	Due   *time.Time // nil: Spirit still has to ask when
	Every Recurrence
	// Heard is when the lawyer asked; its location is the reminder's when
	// Due is nil. Zero means the store's clock.
	Heard time.Time
	// Trigger ties the reminder to a moment instead of a time: Due must
	// then be nil and Every Once.
	Trigger *Trigger
}

// ReminderUpdate is an edit from the Reminders window; nil fields stay.
type ReminderUpdate struct {
	Task  *string
	Due   *time.Time
	Every *Recurrence
}

// ReminderFiring is a firing whose nudge is still shown: the lawyer has not
// answered it, and may never have seen it if Spirit stopped right after
// recording it.
type ReminderFiring struct {
	Reminder Reminder
	Nudge    Nudge
}

const reminderCols = `id, created, task, due, anchor, every, utc_offset, zone, state, fired_at, fire_count, nudge_id, updated,
	trigger_kind, trigger_person, trigger_subject, trigger_name`

// CreateReminder stores a new reminder: pending if it has a due time,
// awaiting_time if not.
func (s *Store) CreateReminder(ctx context.Context, nr NewReminder) (Reminder, error) {
	task := strings.TrimSpace(nr.Task)
	if task == "" {
		return Reminder{}, fmt.Errorf("create reminder: %w: empty task", ErrInvalid)
	}
	if !nr.Every.Valid() {
		return Reminder{}, fmt.Errorf("create reminder: %w: every %q", ErrInvalid, nr.Every)
	}
	if nr.Due != nil && nr.Due.IsZero() {
		return Reminder{}, fmt.Errorf("create reminder: %w: zero due time", ErrInvalid)
	}
	var trig Trigger
	if nr.Trigger != nil {
		if nr.Due != nil || nr.Every != Once {
			return Reminder{}, fmt.Errorf("create reminder: %w: a reminder tied to a moment has no time and does not repeat", ErrInvalid)
		}
		if err := nr.Trigger.check(); err != nil {
			return Reminder{}, fmt.Errorf("create reminder: %w", err)
		}
		trig = *nr.Trigger
	}
	ts, ms := s.now()
	ref := nr.Heard
	if nr.Due != nil {
		ref = *nr.Due
	}
	if ref.IsZero() {
		ref = ts
	}
	zone, offset := placement(ref)
	if err := checkOffset(offset); err != nil {
		return Reminder{}, fmt.Errorf("create reminder: %w", err)
	}
	state := ReminderAwaitingTime
	if nr.Trigger != nil {
		state = ReminderWaiting
	}
	var due, anchor sql.NullInt64
	if nr.Due != nil {
		state = ReminderPending
		due = sql.NullInt64{Int64: nr.Due.UnixMilli(), Valid: true}
		if nr.Every != Once {
			anchor = due
		}
	}
	var out Reminder
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO reminders
			(created, task, due, anchor, every, utc_offset, zone, state, fire_count, updated,
			 trigger_kind, trigger_person, trigger_subject, trigger_name)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
			ms, task, due, anchor, nr.Every, offset, zone, state, ms,
			trig.Kind, strings.TrimSpace(trig.Person), strings.TrimSpace(trig.Subject), strings.TrimSpace(trig.Name))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if out, err = reminderTx(ctx, tx, id); err != nil {
			return err
		}
		heard := ""
		if !nr.Heard.IsZero() {
			heard = " (heard " + nr.Heard.Format(time.RFC3339) + ")"
		}
		return logReminder(ctx, tx, ms, id, "created: "+task+" — "+schedule(out)+heard)
	})
	if err != nil {
		return Reminder{}, fmt.Errorf("create reminder: %w", err)
	}
	return out, nil
}

// Reminder returns one reminder, or ErrNotFound.
func (s *Store) Reminder(ctx context.Context, id int64) (Reminder, error) {
	r, err := scanReminder(s.r.QueryRowContext(ctx, `SELECT `+reminderCols+` FROM reminders WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Reminder{}, fmt.Errorf("reminder %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Reminder{}, fmt.Errorf("reminder %d: %w", id, classify(ctx, err))
	}
	return r, nil
}

// Reminders returns the reminders in any of states, soonest due first and
// those without a time last; all reminders when no state is given.
func (s *Store) Reminders(ctx context.Context, states ...ReminderState) ([]Reminder, error) {
	q := `SELECT ` + reminderCols + ` FROM reminders`
	args := make([]any, 0, len(states))
	if len(states) > 0 {
		for _, st := range states {
			if !st.Valid() {
				return nil, fmt.Errorf("reminders: %w: state %q", ErrInvalid, st)
			}
			args = append(args, st)
		}
		q += ` WHERE state IN (` + placeholders(len(states)) + `)`
	}
	q += ` ORDER BY due IS NULL, due, id`
	rs, err := s.queryReminders(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reminders: %w", err)
	}
	return rs, nil
}

// DueReminders returns the pending reminders due at or before now, oldest
// due first.
func (s *Store) DueReminders(ctx context.Context, now time.Time) ([]Reminder, error) {
	rs, err := s.queryReminders(ctx, `SELECT `+reminderCols+` FROM reminders
		WHERE state = 'pending' AND due <= ? ORDER BY due, id`, now.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("due reminders: %w", err)
	}
	return rs, nil
}

// NextReminderDue is the earliest due time among pending reminders; ok is
// false when nothing is pending.
func (s *Store) NextReminderDue(ctx context.Context) (next time.Time, ok bool, err error) {
	var ms sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT min(due) FROM reminders WHERE state = 'pending'`).Scan(&ms); err != nil {
		return time.Time{}, false, fmt.Errorf("next reminder due: %w", classify(ctx, err))
	}
	if !ms.Valid {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(ms.Int64), true, nil
}

// ReminderForNudge returns the reminder whose latest firing raised nudge
// nudgeID, or ErrNotFound (also for a nudge an earlier firing raised).
func (s *Store) ReminderForNudge(ctx context.Context, nudgeID int64) (Reminder, error) {
	r, err := scanReminder(s.r.QueryRowContext(ctx, `SELECT `+reminderCols+` FROM reminders WHERE nudge_id = ?`, nudgeID))
	if errors.Is(err, sql.ErrNoRows) {
		return Reminder{}, fmt.Errorf("reminder for nudge %d: %w", nudgeID, ErrNotFound)
	}
	if err != nil {
		return Reminder{}, fmt.Errorf("reminder for nudge %d: %w", nudgeID, classify(ctx, err))
	}
	return r, nil
}

// OpenReminderFirings returns the firings whose nudge is still shown,
// oldest first, so that after a restart the app can put back in front of
// the lawyer what was recorded as fired but never answered.
func (s *Store) OpenReminderFirings(ctx context.Context) ([]ReminderFiring, error) {
	const q = `SELECT r.id, r.created, r.task, r.due, r.anchor, r.every, r.utc_offset, r.zone, r.state,
			r.fired_at, r.fire_count, r.nudge_id, r.updated,
			r.trigger_kind, r.trigger_person, r.trigger_subject, r.trigger_name,
			n.id, n.created, n.kind, n.message, n.action_prompt, n.state, n.answer, n.updated, n.subject
		FROM reminders r JOIN nudges n ON n.id = r.nudge_id
		WHERE n.state = 'shown' AND r.state IN ('pending', 'fired')
		ORDER BY n.id`
	rows, err := s.r.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("open reminder firings: %w", classify(ctx, err))
	}
	defer rows.Close()
	var fs []ReminderFiring
	for rows.Next() {
		var (
			f                  ReminderFiring
			nCreated, nUpdated int64
		)
		rr := rowScanner{rows: rows, extra: []any{&f.Nudge.ID, &nCreated, &f.Nudge.Kind, &f.Nudge.Message,
			&f.Nudge.ActionPrompt, &f.Nudge.State, &f.Nudge.Answer, &nUpdated, &f.Nudge.Subject}}
		if f.Reminder, err = scanReminder(rr); err != nil {
			return nil, fmt.Errorf("open reminder firings: %w", err)
		}
		f.Nudge.Created, f.Nudge.Updated = time.UnixMilli(nCreated), time.UnixMilli(nUpdated)
		fs = append(fs, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("open reminder firings: %w", classify(ctx, err))
	}
	return fs, nil
}

// UpdateReminder applies an edit from the Reminders window. A new due time
// schedules a reminder that awaited its time, and re-arms a fired one (its
// unanswered nudge expires: it is about something that is now later). Done
// and cancelled reminders give ErrReminderClosed.
func (s *Store) UpdateReminder(ctx context.Context, id int64, u ReminderUpdate) (Reminder, error) {
	if u.Task != nil && strings.TrimSpace(*u.Task) == "" {
		return Reminder{}, fmt.Errorf("update reminder %d: %w: empty task", id, ErrInvalid)
	}
	if u.Every != nil && !u.Every.Valid() {
		return Reminder{}, fmt.Errorf("update reminder %d: %w: every %q", id, ErrInvalid, *u.Every)
	}
	if u.Due != nil && u.Due.IsZero() {
		return Reminder{}, fmt.Errorf("update reminder %d: %w: zero due time", id, ErrInvalid)
	}
	now, ms := s.now()
	var out Reminder
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := reminderTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if !r.State.Open() {
			return fmt.Errorf("%w: it is %s", ErrReminderClosed, r.State)
		}
		next := r
		var changes []string
		if u.Task != nil && strings.TrimSpace(*u.Task) != r.Task {
			next.Task = strings.TrimSpace(*u.Task)
			changes = append(changes, "task")
		}
		dueChanged := u.Due != nil && (r.Due == nil || !u.Due.Equal(*r.Due))
		everyChanged := u.Every != nil && *u.Every != r.Every
		if everyChanged {
			next.Every = *u.Every
			changes = append(changes, "every")
		}
		loc := r.Location()
		if dueChanged {
			d := time.UnixMilli(u.Due.UnixMilli()).In(u.Due.Location())
			next.Due, loc = &d, u.Due.Location()
			next.Trigger = nil // a time given instead of the moment
			changes = append(changes, "due")
			if r.State == ReminderFired {
				if err := closeNudge(ctx, tx, r.NudgeID, NudgeExpired, ms); err != nil {
					return err
				}
			}
			next.State = ReminderPending
		}
		switch {
		case next.Every == Once:
			next.Anchor = nil
		case next.Due == nil:
			next.Anchor = nil // anchored when it gets a time
		case dueChanged || r.Every == Once || r.Anchor == nil:
			a := *next.Due
			next.Anchor = &a
			if r.State == ReminderFired && !dueChanged {
				// A fired one-shot turned recurring: this firing counts as the
				// first occurrence, and its nudge stays the open one.
				d := NextOccurrence(a, next.Every, now)
				next.Due, next.State = &d, ReminderPending
			}
		case everyChanged:
			// The old rule's next occurrence may not be one of the new rule's.
			d := NextOccurrence(r.Anchor.In(loc), next.Every, now)
			next.Due = &d
		}
		if len(changes) == 0 {
			out = r
			return nil
		}
		if next.Due != nil && next.Due.IsZero() {
			return fmt.Errorf("%w: no next occurrence of every %q", ErrInvalid, next.Every)
		}
		ref := r.Created.In(loc)
		if next.Anchor != nil {
			ref = next.Anchor.In(loc)
		} else if next.Due != nil {
			ref = next.Due.In(loc)
		}
		next.Zone, next.Offset = placement(ref)
		if err := checkOffset(next.Offset); err != nil {
			return err
		}
		if next.Trigger != nil && next.Every != Once {
			return fmt.Errorf("%w: a reminder tied to a moment does not repeat", ErrInvalid)
		}
		var trig Trigger
		if next.Trigger != nil {
			trig = *next.Trigger
		}
		_, err = tx.ExecContext(ctx, `UPDATE reminders SET task = ?, due = ?, anchor = ?, every = ?,
			utc_offset = ?, zone = ?, state = ?, updated = ?,
			trigger_kind = ?, trigger_person = ?, trigger_subject = ?, trigger_name = ? WHERE id = ?`,
			next.Task, nullMillis(next.Due), nullMillis(next.Anchor), next.Every,
			next.Offset, next.Zone, next.State, ms, trig.Kind, trig.Person, trig.Subject, trig.Name, id)
		if err != nil {
			return err
		}
		if out, err = reminderTx(ctx, tx, id); err != nil {
			return err
		}
		return logReminder(ctx, tx, ms, id, fmt.Sprintf("edited (%s): %s — %s", strings.Join(changes, ", "), out.Task, schedule(out)))
	})
	if err != nil {
		return Reminder{}, fmt.Errorf("update reminder %d: %w", id, err)
	}
	return out, nil
}

// FireReminder records one firing of a due reminder, all in one
// transaction: it checks that the reminder is still pending and due at now
// (ErrNotDue if not, so that of two schedulers racing only one fires),
// creates the nudge from n (kind "reminder" unless set; only Kind, Message
// and ActionPrompt are used), expires the previous firing's nudge if still
// open, marks a one-shot fired or moves a recurring one to its next
// occurrence strictly after now, and appends the world log event. Either
// all of it is committed or none of it.
func (s *Store) FireReminder(ctx context.Context, id int64, now time.Time, n Nudge) (Reminder, Nudge, error) {
	nowMs := now.UnixMilli()
	return s.fire(ctx, id, n, func(tx *sql.Tx, r Reminder, ms int64, raise func() (Nudge, error)) (sql.Result, string, error) {
		// The check that makes firing happen once: it runs under the write
		// lock, so a second caller sees the first one's committed result.
		if r.State != ReminderPending || r.Due == nil || r.Due.UnixMilli() > nowMs {
			return nil, "", fmt.Errorf("%w: it is %s, due %s", ErrNotDue, r.State, schedule(r))
		}
		if r.NudgeID != 0 {
			// One open nudge per reminder: a newer firing supersedes it.
			if err := closeNudge(ctx, tx, r.NudgeID, NudgeExpired, ms); err != nil {
				return nil, "", err
			}
		}
		nudge, err := raise()
		if err != nil {
			return nil, "", err
		}
		state, due, what := ReminderFired, *r.Due, "fired"
		if r.Every != Once {
			anchor := due
			if r.Anchor != nil {
				anchor = *r.Anchor
			}
			// One firing however many occurrences were missed: the series
			// continues from the first occurrence after now.
			state, due = ReminderPending, NextOccurrence(anchor, r.Every, now)
			if due.IsZero() {
				return nil, "", fmt.Errorf("%w: no next occurrence of every %q", ErrInvalid, r.Every)
			}
			what = "fired, next " + due.Format(time.RFC3339)
		}
		res, err := tx.ExecContext(ctx, `UPDATE reminders SET state = ?, due = ?, fired_at = ?,
				fire_count = fire_count + 1, nudge_id = ?, updated = ?
			WHERE id = ? AND state = 'pending' AND due = ?`,
			state, due.UnixMilli(), nowMs, nudge.ID, ms, id, r.Due.UnixMilli())
		return res, fmt.Sprintf("%s as nudge %d: %s", what, nudge.ID, n.Message), err
	})
}

// fire is the transaction every firing shares: the nudge's words checked,
// the reminder read under the write lock, step's checks and update (step
// calls raise to record the nudge once its checks pass, and returns the
// update's result and the world log's text), then firedTx. Either all of
// it is committed or none of it.
func (s *Store) fire(ctx context.Context, id int64, n Nudge,
	step func(tx *sql.Tx, r Reminder, ms int64, raise func() (Nudge, error)) (sql.Result, string, error)) (Reminder, Nudge, error) {
	n, err := firingInput(id, n)
	if err != nil {
		return Reminder{}, Nudge{}, err
	}
	ts, ms := s.now()
	var (
		out   Reminder
		nudge Nudge
	)
	err = s.write(ctx, func(tx *sql.Tx) error {
		r, err := reminderTx(ctx, tx, id)
		if err != nil {
			return err
		}
		raise := func() (Nudge, error) {
			var err error
			nudge, err = firingNudge(ctx, tx, id, n, ts, ms)
			return nudge, err
		}
		res, text, err := step(tx, r, ms, raise)
		if err != nil {
			return err
		}
		out, err = firedTx(ctx, tx, res, id, ms, text)
		return err
	})
	if err != nil {
		return Reminder{}, Nudge{}, fmt.Errorf("fire reminder %d: %w", id, err)
	}
	return out, nudge, nil
}

// firingInput checks the nudge a firing is to raise: it needs words, and
// is of kind "reminder" unless set.
func firingInput(id int64, n Nudge) (Nudge, error) {
	if strings.TrimSpace(n.Message) == "" {
		return Nudge{}, fmt.Errorf("fire reminder %d: %w: empty nudge message", id, ErrInvalid)
	}
	if strings.TrimSpace(n.Kind) == "" {
		n.Kind = "reminder"
	}
	return n, nil
}

// firingNudge records, inside tx, the nudge a firing of reminder id
// raises: shown, about the reminder.
func firingNudge(ctx context.Context, tx *sql.Tx, id int64, n Nudge, ts time.Time, ms int64) (Nudge, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO nudges (created, kind, message, action_prompt, state, answer, updated, subject)
		VALUES (?, ?, ?, ?, 'shown', '', ?, ?)`, ms, n.Kind, n.Message, n.ActionPrompt, ms, ReminderIdentifier(id))
	if err != nil {
		return Nudge{}, err
	}
	nid, err := res.LastInsertId()
	if err != nil {
		return Nudge{}, err
	}
	return Nudge{ID: nid, Created: ts, Kind: n.Kind, Message: n.Message, ActionPrompt: n.ActionPrompt,
		Subject: ReminderIdentifier(id), State: NudgeShown, Updated: ts}, nil
}

// firedTx ends a firing inside tx: res, the reminder's update, must have
// changed it; it is read back and the world log told text.
func firedTx(ctx context.Context, tx *sql.Tx, res sql.Result, id, ms int64, text string) (Reminder, error) {
	if k, err := res.RowsAffected(); err != nil {
		return Reminder{}, err
	} else if k != 1 {
		return Reminder{}, fmt.Errorf("%w: changed while firing", ErrNotDue) // cannot happen under the write lock
	}
	out, err := reminderTx(ctx, tx, id)
	if err != nil {
		return Reminder{}, err
	}
	return out, logReminder(ctx, tx, ms, id, text)
}

// SnoozeReminder puts the reminder's current firing off until until: a
// one-shot is due again then; a recurring one fires then as an extra, or
// not at all if its next occurrence comes first. An open nudge is marked
// snoozed. A reminder without a time gives ErrInvalid, a closed one
// ErrReminderClosed.
func (s *Store) SnoozeReminder(ctx context.Context, id int64, until time.Time) (Reminder, error) {
	if until.IsZero() {
		return Reminder{}, fmt.Errorf("snooze reminder %d: %w: zero time", id, ErrInvalid)
	}
	_, ms := s.now()
	var out Reminder
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := reminderTx(ctx, tx, id)
		if err != nil {
			return err
		}
		switch {
		case !r.State.Open():
			return fmt.Errorf("%w: it is %s", ErrReminderClosed, r.State)
		case r.Due == nil:
			return fmt.Errorf("%w: it has no time yet", ErrInvalid)
		}
		loc := r.Location()
		due := until.In(loc)
		zone, offset := r.Zone, r.Offset
		if r.Every == Once {
			zone, offset = placement(due)
		} else if r.Due.Before(due) {
			due = *r.Due
		}
		if r.NudgeID != 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE nudges SET state = 'snoozed', updated = ?
				WHERE id = ? AND state = 'shown'`, ms, r.NudgeID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE reminders SET state = 'pending', due = ?, utc_offset = ?, zone = ?, updated = ?
			WHERE id = ?`, due.UnixMilli(), offset, zone, ms, id); err != nil {
			return err
		}
		if out, err = reminderTx(ctx, tx, id); err != nil {
			return err
		}
		text := "snoozed until " + until.In(loc).Format(time.RFC3339) + ": " + r.Task
		if !due.Equal(until.In(loc)) {
			text += " (its next occurrence, " + due.Format(time.RFC3339) + ", comes first)"
		}
		return logReminder(ctx, tx, ms, id, text)
	})
	if err != nil {
		return Reminder{}, fmt.Errorf("snooze reminder %d: %w", id, err)
	}
	return out, nil
}

// CompleteReminder records that the lawyer did it: a one-shot becomes
// done; a recurring one is done for this time and goes on. Its open nudge,
// if any, is marked accepted (the app may have done that already).
func (s *Store) CompleteReminder(ctx context.Context, id int64) (Reminder, error) {
	return s.closeReminder(ctx, id, "complete", NudgeAccepted, func(tx *sql.Tx, r Reminder, ms int64) (string, error) {
		if r.Every == Once {
			_, err := tx.ExecContext(ctx, `UPDATE reminders SET state = 'done', updated = ? WHERE id = ?`, ms, id)
			return "done: " + r.Task, err
		}
		_, err := tx.ExecContext(ctx, `UPDATE reminders SET updated = ? WHERE id = ?`, ms, id)
		return "done for this time: " + r.Task + " — next " + schedule(r), err
	})
}

// CancelReminder takes a reminder back, a whole series for a recurring
// one; its open nudge, if any, is dismissed. A done or cancelled reminder
// gives ErrReminderClosed.
func (s *Store) CancelReminder(ctx context.Context, id int64) (Reminder, error) {
	return s.closeReminder(ctx, id, "cancel", NudgeDismissed, func(tx *sql.Tx, r Reminder, ms int64) (string, error) {
		_, err := tx.ExecContext(ctx, `UPDATE reminders SET state = 'cancelled', updated = ? WHERE id = ?`, ms, id)
		return "cancelled: " + r.Task, err
	})
}

// closeReminder is Complete's and Cancel's shared transaction: check the
// reminder is open, close its nudge as nudgeState, apply the change (which
// returns the world-log text) and log it, all or nothing.
func (s *Store) closeReminder(ctx context.Context, id int64, op string, nudgeState NudgeState,
	apply func(tx *sql.Tx, r Reminder, ms int64) (string, error)) (Reminder, error) {
	_, ms := s.now()
	var out Reminder
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := reminderTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if !r.State.Open() {
			return fmt.Errorf("%w: it is %s", ErrReminderClosed, r.State)
		}
		if err := closeNudge(ctx, tx, r.NudgeID, nudgeState, ms); err != nil {
			return err
		}
		text, err := apply(tx, r, ms)
		if err != nil {
			return err
		}
		if out, err = reminderTx(ctx, tx, id); err != nil {
			return err
		}
		return logReminder(ctx, tx, ms, id, text)
	})
	if err != nil {
		return Reminder{}, fmt.Errorf("%s reminder %d: %w", op, id, err)
	}
	return out, nil
}

// DeleteReminder removes a reminder for good, for the Reminders window's
// delete; everything else cancels instead. Its open nudge is dismissed, and
// the world log keeps the fact and the task.
func (s *Store) DeleteReminder(ctx context.Context, id int64) error {
	_, ms := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := reminderTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := closeNudge(ctx, tx, r.NudgeID, NudgeDismissed, ms); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM reminders WHERE id = ?`, id); err != nil {
			return err
		}
		return logReminder(ctx, tx, ms, id, fmt.Sprintf("deleted (was %s): %s — %s", r.State, r.Task, schedule(r)))
	})
	if err != nil {
		return fmt.Errorf("delete reminder %d: %w", id, err)
	}
	return nil
}

// NextOccurrence is the first occurrence of the series anchored at anchor
// that is strictly after after, computed on the wall clock of anchor's
// location: "every weekday at 9" stays at 9:00 there across DST changes
// when the location knows them. The anchor itself is the first occurrence.
// It returns the zero time for Once or an unknown rule.
func NextOccurrence(anchor time.Time, every Recurrence, after time.Time) time.Time {
	if every == Once || !every.Valid() {
		return time.Time{}
	}
	if anchor.After(after) {
		return anchor
	}
	loc := anchor.Location()
	h, m, sec := anchor.Clock()
	y, mo, d := after.In(loc).Date()
	// Eight days hold the next occurrence of every rule: a week plus the
	// day whose time has already passed.
	for i := range 9 {
		c := time.Date(y, mo, d+i, h, m, sec, anchor.Nanosecond(), loc)
		if !c.After(after) {
			continue
		}
		switch every {
		case EveryDay:
			return c
		case EveryWeekday:
			if wd := c.Weekday(); wd != time.Saturday && wd != time.Sunday {
				return c
			}
		case EveryWeek:
			if c.Weekday() == anchor.Weekday() {
				return c
			}
		}
	}
	return time.Time{} // unreachable for a valid rule; callers treat zero as an error
}

// placement is what the store keeps of t's location: the zone's name if it
// may be an IANA one, and the offset in minutes.
func placement(t time.Time) (zone string, offset int) {
	_, off := t.Zone()
	// An unnamed fixed zone gives "", and resolveLocation then uses the offset.
	return t.Location().String(), off / 60
}

// maxOffset bounds a UTC offset in minutes, as the schema does: real zones
// stay within ±14h, time.FixedZone does not.
const maxOffset = 18 * 60

func checkOffset(offset int) error {
	if offset < -maxOffset || offset > maxOffset {
		return fmt.Errorf("%w: UTC offset of %d minutes", ErrInvalid, offset)
	}
	return nil
}

// resolveLocation turns a stored zone and offset back into a location. The
// zone is trusted only while it loads and gives the stored offset at ref:
// a fixed zone named like an IANA one, or a machine whose Local zone has
// changed, falls back to the offset, which is what the reminder was made in.
func resolveLocation(zone string, offset int, ref time.Time) *time.Location {
	if zone != "" {
		if loc, err := time.LoadLocation(zone); err == nil {
			if _, off := ref.In(loc).Zone(); off == offset*60 {
				return loc
			}
		}
	}
	return time.FixedZone(fixedZoneName(offset), offset*60)
}

func fixedZoneName(offset int) string {
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("%c%02d%02d", sign, offset/60, offset%60)
}

// schedule words a reminder's schedule for the world log.
func schedule(r Reminder) string {
	if r.Trigger != nil && r.State == ReminderWaiting {
		return "waits for " + r.Trigger.String()
	}
	if r.Due == nil {
		if r.Every != Once {
			return "every " + string(r.Every) + ", no time yet"
		}
		return "no time yet"
	}
	s := r.Due.Format(time.RFC3339)
	if r.Every != Once {
		s += ", every " + string(r.Every)
	}
	return s
}

// closeNudge closes nudge id if it is still open; 0 means no nudge.
func closeNudge(ctx context.Context, tx *sql.Tx, id int64, state NudgeState, ms int64) error {
	if id == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE nudges SET state = ?, updated = ? WHERE id = ? AND state IN ('shown', 'snoozed')`,
		state, ms, id)
	return err
}

// logReminder appends a reminder event to the world log inside tx, so the
// log and the reminder never disagree.
func logReminder(ctx context.Context, tx *sql.Tx, ms, id int64, text string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO world (ts, kind, source, identifier, text) VALUES (?, 'event', ?, ?, ?)`,
		ms, ReminderEventSource, ReminderIdentifier(id), text)
	return err
}

func reminderTx(ctx context.Context, tx *sql.Tx, id int64) (Reminder, error) {
	r, err := scanReminder(tx.QueryRowContext(ctx, `SELECT `+reminderCols+` FROM reminders WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Reminder{}, ErrNotFound
	}
	return r, err
}

func (s *Store) queryReminders(ctx context.Context, q string, args ...any) ([]Reminder, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, classify(ctx, err)
	}
	defer rows.Close()
	var rs []Reminder
	for rows.Next() {
		r, err := scanReminder(rows)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(ctx, err)
	}
	return rs, nil
}

// rowScanner scans a reminder's columns followed by extra ones.
type rowScanner struct {
	rows  *sql.Rows
	extra []any
}

func (r rowScanner) Scan(dest ...any) error { return r.rows.Scan(append(dest, r.extra...)...) }

func scanReminder(sc scanner) (Reminder, error) {
	var (
		r                             Reminder
		created, updated              int64
		due, anchor, firedAt, nudgeID sql.NullInt64
	)
	var trig Trigger
	err := sc.Scan(&r.ID, &created, &r.Task, &due, &anchor, &r.Every, &r.Offset, &r.Zone, &r.State,
		&firedAt, &r.FireCount, &nudgeID, &updated, &trig.Kind, &trig.Person, &trig.Subject, &trig.Name)
	if err != nil {
		return Reminder{}, err
	}
	if trig.Kind != "" {
		r.Trigger = &trig
	}
	r.Created, r.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	ref := r.Created
	if anchor.Valid {
		ref = time.UnixMilli(anchor.Int64)
	} else if due.Valid {
		ref = time.UnixMilli(due.Int64)
	}
	r.loc = resolveLocation(r.Zone, r.Offset, ref)
	r.Due, r.Anchor = inLoc(due, r.loc), inLoc(anchor, r.loc)
	r.FiredAt = inLoc(firedAt, time.Local)
	r.NudgeID = nudgeID.Int64
	return r, nil
}

func inLoc(ms sql.NullInt64, loc *time.Location) *time.Time {
	if !ms.Valid {
		return nil
	}
	t := time.UnixMilli(ms.Int64).In(loc)
	return &t
}

func nullMillis(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// String is the trigger for the world log: "thread person=Marcy subject=SNDA".
func (t Trigger) String() string {
	s := string(t.Kind)
	for _, f := range [][2]string{{"person", t.Person}, {"subject", t.Subject}, {"name", t.Name}} {
		if f[1] != "" {
			s += " " + f[0] + "=" + strconv.Quote(f[1])
		}
	}
	return s
}

// WaitingReminders returns the reminders waiting for a moment of kind,
// oldest first.
func (s *Store) WaitingReminders(ctx context.Context, kind TriggerKind) ([]Reminder, error) {
	rs, err := s.queryReminders(ctx, `SELECT `+reminderCols+` FROM reminders
		WHERE state = 'waiting' AND trigger_kind = ? ORDER BY id`, kind)
	if err != nil {
		return nil, fmt.Errorf("waiting reminders: %w", err)
	}
	return rs, nil
}

// FireTriggered records that the moment a waiting reminder waited for has
// come, all in one transaction as FireReminder does: it checks the
// reminder is still waiting (ErrNotDue if not, so that it fires once
// however many watchers see the moment), creates the nudge from n, marks
// the reminder fired with the firing as its due time, and appends the
// world log event, which says what was seen (seen: "Outlook — RE: SNDA").
func (s *Store) FireTriggered(ctx context.Context, id int64, now time.Time, seen string, n Nudge) (Reminder, Nudge, error) {
	return s.fire(ctx, id, n, func(tx *sql.Tx, r Reminder, ms int64, raise func() (Nudge, error)) (sql.Result, string, error) {
		if r.State != ReminderWaiting {
			return nil, "", fmt.Errorf("%w: it is %s", ErrNotDue, r.State)
		}
		nudge, err := raise()
		if err != nil {
			return nil, "", err
		}
		nowMs := now.UnixMilli()
		res, err := tx.ExecContext(ctx, `UPDATE reminders SET state = 'fired', due = ?, fired_at = ?,
				fire_count = fire_count + 1, nudge_id = ?, updated = ?
			WHERE id = ? AND state = 'waiting'`, nowMs, nowMs, nudge.ID, ms, id)
		return res, fmt.Sprintf("fired as nudge %d (%s, seen: %s): %s", nudge.ID, r.Trigger, seen, n.Message), err
	})
}
