// Package reminders raises the reminders the lawyer asked for, at their
// time, once.
//
// The store's FireReminder transaction is the single source of truth: it
// checks the reminder is still due, creates its nudge and moves the
// reminder on, all or nothing. The Scheduler only decides when to try, so
// any number of schedulers, restarts and crashes can at worst try in vain;
// and because the firing is recorded before the app is told, a crash in
// between loses nothing: the firing's nudge stays open and OpenFirings
// hands it back after a restart.
package reminders

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// DefaultSnooze is how long Snooze puts a reminder off when given no time.
const DefaultSnooze = 10 * time.Minute

const (
	// defaultMaxSleep bounds one wait. The runtime's timers run on the
	// monotonic clock, which stands still while the machine is suspended:
	// without a bound, a reminder due during a suspend would come late by
	// the whole suspend. One indexed query a minute, and only while a
	// reminder is pending, is the price.
	defaultMaxSleep = time.Minute
	// lateAfter is how late a firing may be and still count as on time.
	lateAfter = 2 * time.Minute
	// offGrace is how long before Spirit started a reminder must have
	// fallen due to count as missed while Spirit was off. One due seconds
	// before, or fired a few milliseconds late by a restart, is simply on
	// time: Spirit was off for a moment, not for the reminder.
	offGrace = time.Minute
	// retryAfter is the wait after the store failed, e.g. locked by a backup.
	retryAfter = 30 * time.Second
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNothingToCancel means CancelLast found no reminder of this session
	// that can still be taken back.
	ErrNothingToCancel = errors.New("no reminder to cancel")
	// ErrNoTime means ParseNewTime found no time in the answer.
	ErrNoTime = errors.New("no time understood")
	// ErrPast means ParseNewTime understood a time that has already passed.
	ErrPast = errors.New("time has already passed")
	// ErrRunning means Run was called while the Scheduler was already running.
	ErrRunning = errors.New("scheduler is already running")
)

// Clock is the Scheduler's view of time; tests substitute one they control.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer as Clock makes it.
type Timer interface {
	C() <-chan time.Time
	// Stop releases the timer; it reports whether it stopped it before it fired.
	Stop() bool
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// NewTimer returns a time.Timer.
func (SystemClock) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }

type sysTimer struct{ t *time.Timer }

func (t sysTimer) C() <-chan time.Time { return t.t.C }
func (t sysTimer) Stop() bool          { return t.t.Stop() }

// Notifier is told about each firing once it is recorded: the app shows the
// bubble and a desktop notification. It must not block for long, since the
// Scheduler waits for it; a panic is logged, not propagated, and the firing
// stays recorded with its nudge open.
type Notifier interface {
	// Fired reports a firing; missed is true when it comes late, such as
	// one that fell due while Spirit was off.
	Fired(ctx context.Context, r store.Reminder, n store.Nudge, missed bool)
}

// Withdrawer may be implemented by a Notifier that also wants to hear
// that a nudge it may be showing is no longer current: answered, snoozed,
// superseded by a newer firing, or its reminder cancelled or rescheduled.
type Withdrawer interface {
	Withdrawn(ctx context.Context, nudgeID int64)
}

// Options tune a Scheduler; the zero value is the production setting.
type Options struct {
	Clock    Clock         // nil: SystemClock
	Logger   *slog.Logger  // nil: slog.Default()
	MaxSleep time.Duration // bound on one wait; 0: one minute
}

// Scheduler fires reminders and carries out the lawyer's commands about
// them. Its methods are safe for concurrent use.
type Scheduler struct {
	st       *store.Store
	notify   Notifier
	clock    Clock
	log      *slog.Logger
	maxSleep time.Duration

	changed chan struct{} // one pending wake-up is enough
	running atomic.Bool

	mu      sync.Mutex
	created []int64 // reminders created in this session, oldest first

	// onSleep, if set, is called just before each wait with the time the
	// wait ends (zero: no timer). Tests use it to know the loop is idle.
	onSleep func(wake time.Time)
}

// New returns a Scheduler for the reminders in st; notify may be nil.
func New(st *store.Store, notify Notifier, opt Options) *Scheduler {
	s := &Scheduler{
		st:       st,
		notify:   notify,
		clock:    opt.Clock,
		log:      opt.Logger,
		maxSleep: opt.MaxSleep,
		changed:  make(chan struct{}, 1),
	}
	if s.clock == nil {
		s.clock = SystemClock{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.maxSleep <= 0 {
		s.maxSleep = defaultMaxSleep
	}
	return s
}

// Changed tells a running Scheduler that reminders changed, so that it
// re-reads when the next one is due. The Scheduler's own commands call it;
// the app calls it after editing reminders through the store directly, and
// may call it after the machine wakes from suspend.
func (s *Scheduler) Changed() {
	select {
	case s.changed <- struct{}{}:
	default: // a wake-up is already pending; it will see this change too
	}
}

// Run fires reminders until ctx ends, and then returns ctx's error. It
// first fires, once each, the reminders that fell due while Spirit was off;
// then it sleeps until the next due time or a Changed, fires what is due,
// and so on. With nothing pending it waits on no timer at all.
func (s *Scheduler) Run(ctx context.Context) error {
	if !s.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer s.running.Store(false)

	// What fell due well before this moment fell due while Spirit was
	// off, however long the first pass takes to get through.
	started := s.clock.Now()
	for {
		wait, err := s.pass(ctx, started)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			s.log.ErrorContext(ctx, "reminders: will retry", "err", err, "in", retryAfter)
			wait = retryAfter
		}
		if wait == 0 {
			continue // something fell due while we were firing
		}
		var (
			timer Timer
			fire  <-chan time.Time
			wake  time.Time
		)
		if wait > 0 {
			timer = s.clock.NewTimer(wait)
			fire, wake = timer.C(), s.clock.Now().Add(wait)
		}
		if s.onSleep != nil {
			s.onSleep(wake)
		}
		select {
		case <-ctx.Done():
		case <-s.changed:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// pass fires what is due and returns how long to wait for the next: 0 to
// look again at once, -1 for no timer (nothing is pending).
func (s *Scheduler) pass(ctx context.Context, started time.Time) (time.Duration, error) {
	due, err := s.st.DueReminders(ctx, s.clock.Now())
	if err != nil {
		return 0, fmt.Errorf("reminders due: %w", err)
	}
	var errs []error
	for _, r := range due {
		if err := s.fire(ctx, r, started); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		// Not looking again at once: a reminder that cannot be fired would
		// spin the loop.
		return 0, errors.Join(errs...)
	}
	next, ok, err := s.st.NextReminderDue(ctx)
	if err != nil {
		return 0, err
	}
	if !ok {
		return -1, nil
	}
	return min(max(next.Sub(s.clock.Now()), 0), s.maxSleep), nil
}

// fire records one firing and then tells the Notifier. Losing the race to
// another scheduler is not an error.
func (s *Scheduler) fire(ctx context.Context, r store.Reminder, started time.Time) error {
	now := s.clock.Now()
	when := timeliness(*r.Due, now, started)
	missed := when != onTime
	msg := firingMessage(r, now, when)
	fr, n, err := s.st.FireReminder(ctx, r.ID, now, store.Nudge{Kind: nudge.KindReminder, Message: msg})
	switch {
	case errors.Is(err, store.ErrNotDue), errors.Is(err, store.ErrNotFound):
		s.log.DebugContext(ctx, "reminders: not fired, it changed or fired elsewhere", "reminder", r.ID, "err", err)
		return nil
	case err != nil:
		return err
	}
	s.log.InfoContext(ctx, "reminders: fired", "reminder", fr.ID, "nudge", n.ID, "missed", missed, "fire_count", fr.FireCount)
	if r.NudgeID != 0 {
		s.withdraw(ctx, r.NudgeID) // superseded by this firing
	}
	s.deliver(ctx, fr, n, missed)
	return nil
}

// deliver calls the Notifier. Its panic must not stop the scheduler: the
// firing is already recorded, and its nudge is found again by OpenFirings.
func (s *Scheduler) deliver(ctx context.Context, r store.Reminder, n store.Nudge, missed bool) {
	if s.notify == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(ctx, "reminders: notifier panicked; the firing stays recorded with its nudge open",
				"reminder", r.ID, "nudge", n.ID, "panic", p)
		}
	}()
	s.notify.Fired(ctx, r, n, missed)
}

// withdraw tells a Withdrawer that nudge id is no longer current, if it is
// indeed no longer shown.
func (s *Scheduler) withdraw(ctx context.Context, id int64) {
	w, ok := s.notify.(Withdrawer)
	if !ok || id == 0 {
		return
	}
	n, err := s.st.Nudge(ctx, id)
	if err != nil {
		s.log.WarnContext(ctx, "reminders: nudge to withdraw", "nudge", id, "err", err)
		return
	}
	if n.State == store.NudgeShown {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.ErrorContext(ctx, "reminders: withdrawer panicked", "nudge", id, "panic", p)
		}
	}()
	w.Withdrawn(ctx, id)
}

// Create records a reminder the lawyer asked for at heardAt: pending if due
// is set, awaiting_time if Spirit still has to ask when. every is "",
// "day", "weekday" or "week".
func (s *Scheduler) Create(ctx context.Context, task string, due *time.Time, every string, heardAt time.Time) (store.Reminder, error) {
	if heardAt.IsZero() {
		heardAt = s.clock.Now()
	}
	r, err := s.st.CreateReminder(ctx, store.NewReminder{Task: task, Due: due, Every: store.Recurrence(every), Heard: heardAt})
	if err != nil {
		return store.Reminder{}, fmt.Errorf("create reminder: %w", err)
	}
	s.mu.Lock()
	s.created = append(s.created, r.ID)
	s.mu.Unlock()
	s.Changed()
	return r, nil
}

// CreateOn records a reminder the lawyer asked for at heardAt that waits
// for a moment (t) rather than a time.
func (s *Scheduler) CreateOn(ctx context.Context, task string, t store.Trigger, heardAt time.Time) (store.Reminder, error) {
	if heardAt.IsZero() {
		heardAt = s.clock.Now()
	}
	r, err := s.st.CreateReminder(ctx, store.NewReminder{Task: task, Trigger: &t, Heard: heardAt})
	if err != nil {
		return store.Reminder{}, fmt.Errorf("create reminder: %w", err)
	}
	s.mu.Lock()
	s.created = append(s.created, r.ID)
	s.mu.Unlock()
	return r, nil
}

// SetTime gives a reminder its time: the answer to "when?", a changed time
// from the confirm bubble, or a new time for one that already fired.
func (s *Scheduler) SetTime(ctx context.Context, id int64, due time.Time) (store.Reminder, error) {
	r, err := s.st.UpdateReminder(ctx, id, store.ReminderUpdate{Due: &due})
	if err != nil {
		return store.Reminder{}, fmt.Errorf("set time: %w", err)
	}
	s.withdraw(ctx, r.NudgeID)
	s.Changed()
	return r, nil
}

// Snooze puts the reminder's current firing off by minutes from now
// (DefaultSnooze if minutes <= 0).
func (s *Scheduler) Snooze(ctx context.Context, id int64, minutes int) (store.Reminder, error) {
	d := time.Duration(minutes) * time.Minute
	if minutes <= 0 {
		d = DefaultSnooze
	}
	r, err := s.st.SnoozeReminder(ctx, id, s.clock.Now().Add(d))
	if err != nil {
		return store.Reminder{}, fmt.Errorf("snooze: %w", err)
	}
	s.withdraw(ctx, r.NudgeID)
	s.Changed()
	return r, nil
}

// Cancel takes a reminder back (a whole series for a recurring one).
func (s *Scheduler) Cancel(ctx context.Context, id int64) (store.Reminder, error) {
	r, err := s.st.CancelReminder(ctx, id)
	if err != nil {
		return store.Reminder{}, fmt.Errorf("cancel: %w", err)
	}
	s.withdraw(ctx, r.NudgeID)
	s.Changed()
	return r, nil
}

// CancelLast is "never mind": it cancels the most recent reminder created
// in this session that was not already cancelled, if it has not fired yet
// (pending or awaiting its time), and returns it. Otherwise it returns
// ErrNothingToCancel: taking back an older reminder instead, or one the
// lawyer has already been reminded of, would surprise.
func (s *Scheduler) CancelLast(ctx context.Context) (store.Reminder, error) {
	s.mu.Lock()
	ids := append([]int64(nil), s.created...)
	s.mu.Unlock()
	for i := len(ids) - 1; i >= 0; i-- {
		r, err := s.st.Reminder(ctx, ids[i])
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted in the Reminders window
		}
		if err != nil {
			return store.Reminder{}, fmt.Errorf("cancel last: %w", err)
		}
		switch {
		case r.State == store.ReminderCancelled:
			continue // already taken back: "never mind" again means the one before
		case r.State == store.ReminderAwaitingTime, r.State == store.ReminderWaiting,
			r.State == store.ReminderPending && r.FireCount == 0:
			c, err := s.Cancel(ctx, r.ID)
			if errors.Is(err, store.ErrReminderClosed) {
				return store.Reminder{}, fmt.Errorf("cancel last: %w", ErrNothingToCancel)
			}
			return c, err
		default:
			return store.Reminder{}, fmt.Errorf("cancel last: reminder %d is %s: %w", r.ID, r.State, ErrNothingToCancel)
		}
	}
	return store.Reminder{}, fmt.Errorf("cancel last: %w", ErrNothingToCancel)
}

// Complete records that the lawyer did it ("Done" on the nudge).
func (s *Scheduler) Complete(ctx context.Context, id int64) (store.Reminder, error) {
	r, err := s.st.CompleteReminder(ctx, id)
	if err != nil {
		return store.Reminder{}, fmt.Errorf("complete: %w", err)
	}
	s.withdraw(ctx, r.NudgeID)
	s.Changed()
	return r, nil
}

// List returns the reminders still to come or unanswered: pending,
// awaiting a time, waiting for a moment, or fired and not done; soonest
// first.
func (s *Scheduler) List(ctx context.Context) ([]store.Reminder, error) {
	rs, err := s.st.Reminders(ctx, store.ReminderPending, store.ReminderAwaitingTime, store.ReminderWaiting, store.ReminderFired)
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	return rs, nil
}

// OpenFirings returns the firings whose nudge is still shown, for the app
// to put in front of the lawyer again after a restart: a firing recorded
// just before Spirit stopped may never have reached the screen.
func (s *Scheduler) OpenFirings(ctx context.Context) ([]store.ReminderFiring, error) {
	fs, err := s.st.OpenReminderFirings(ctx)
	if err != nil {
		return nil, fmt.Errorf("open firings: %w", err)
	}
	return fs, nil
}
