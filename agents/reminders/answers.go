package reminders

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/voice/intent"
)

// ErrNotAboutReminder is returned for an answer to a nudge that names no
// reminder; the local API maps it to a bad request.
var ErrNotAboutReminder = errors.New("the nudge is not about a reminder")

// Answers acts on the lawyer's answers to the reminder nudges: a reminder
// that fired (done, snooze), "Remind you to … — tomorrow 3:00 PM?" (set,
// change, cancel) and "When should I remind you …?" (a time).
type Answers struct {
	Store     *store.Store
	Scheduler *Scheduler
	// Propose records and shows a nudge.
	Propose func(ctx context.Context, n store.Nudge) error
	// Record appends a line to the world log.
	Record func(ctx context.Context, source, id, text string)
	Now    func() time.Time
	// SnoozeLength is how long, in minutes, Snooze puts a reminder off when
	// the lawyer gives no time (Settings → Nudges); nil: DefaultSnooze.
	SnoozeLength func(ctx context.Context) int
}

// Register makes a act on the reminder kinds in rs.
func (a Answers) Register(rs *nudge.Responders) {
	rs.Register(nudge.KindReminder, a.fired)
	rs.Register(nudge.KindReminderConfirm, a.when)
	rs.Register(nudge.KindReminderWhen, a.when)
	rs.Register(nudge.KindReminderTrigger, a.when)
}

// Confirm asks the lawyer to confirm reminder r's time; the reply is the
// short sentence a spoken or typed command answers with.
func (a Answers) Confirm(ctx context.Context, r store.Reminder, now time.Time) (string, error) {
	desc := Describe(r, now)
	err := a.Propose(ctx, store.Nudge{Kind: nudge.KindReminderConfirm, Subject: nudge.ReminderSubject(r.ID),
		Message: "Remind you to " + desc + "?"})
	return "I'll remind you to " + desc + ".", err
}

// ConfirmOn shows that reminder r waits for its moment: "I'll remind you
// to ask about the cure period next time you open Marcy Howard's email."
// (Set / Dismiss; a time typed instead makes it an ordinary reminder).
// The reply is the same sentence.
func (a Answers) ConfirmOn(ctx context.Context, r store.Reminder) (string, error) {
	if r.Trigger == nil {
		return "", fmt.Errorf("reminder %d waits for no moment", r.ID)
	}
	msg := "I'll remind you " + aboutOrTo(r.Task) + " next time you " + Moment(*r.Trigger) + "."
	err := a.Propose(ctx, store.Nudge{Kind: nudge.KindReminderTrigger, Subject: nudge.ReminderSubject(r.ID), Message: msg})
	return msg, err
}

// AskWhen asks the lawyer when to remind them of r.
func (a Answers) AskWhen(ctx context.Context, r store.Reminder) (string, error) {
	err := a.Propose(ctx, store.Nudge{Kind: nudge.KindReminderWhen, Subject: nudge.ReminderSubject(r.ID),
		Message: "When should I remind you to " + r.Task + "?"})
	return "When should I remind you to " + r.Task + "?", err
}

// reminderOf finds the reminder a nudge is about.
func (a Answers) reminderOf(ctx context.Context, n store.Nudge) (store.Reminder, error) {
	if n.Kind == nudge.KindReminder {
		if r, err := a.Store.ReminderForNudge(ctx, n.ID); err == nil {
			return r, nil
		}
	}
	id, ok := nudge.ReminderID(n.Subject)
	if !ok {
		return store.Reminder{}, fmt.Errorf("nudge %d (subject %q): %w", n.ID, n.Subject, ErrNotAboutReminder)
	}
	return a.Store.Reminder(ctx, id)
}

// fired: Done completes the reminder; Snooze puts it off by the minutes
// typed ("20", "20 min", "half an hour"), else by the lawyer's snooze
// length.
func (a Answers) fired(ctx context.Context, n store.Nudge, choice, text string) error {
	r, err := a.reminderOf(ctx, n)
	if err != nil {
		return err
	}
	if choice == nudge.Snooze {
		def := int(DefaultSnooze / time.Minute)
		if a.SnoozeLength != nil {
			def = a.SnoozeLength(ctx)
		}
		_, err = a.Scheduler.Snooze(ctx, r.ID, SnoozeMinutes(text, a.Now(), def))
		return err
	}
	_, err = a.Scheduler.Complete(ctx, r.ID)
	return err
}

// SnoozeMinutes reads a snooze length typed into a reminder's bubble; def
// when it says none.
func SnoozeMinutes(text string, now time.Time, def int) int {
	if m, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(text, "min"))); err == nil && m > 0 {
		return m
	}
	if text != "" {
		if in := intent.Parse("snooze "+text, now); in.Kind == intent.Snooze && in.Minutes > 0 {
			return in.Minutes
		}
	}
	return def
}

// when answers a confirmation or a "when?" question.
func (a Answers) when(ctx context.Context, n store.Nudge, choice, text string) error {
	now := a.Now()
	r, err := a.reminderOf(ctx, n)
	if err != nil {
		return err
	}
	switch {
	case choice == nudge.Dismiss:
		_, err = a.Scheduler.Cancel(ctx, r.ID)
		return err
	case choice == nudge.Change:
		_, err = a.AskWhen(ctx, r)
		return err
	case choice == nudge.Snooze:
		// Snoozing the question puts the bubble off; its text is the
		// snooze length ("20"), never a new time for the reminder.
		return nil
	case strings.HasPrefix(choice, nudge.AtPrefix):
		at, ok := nudge.AtTime(choice)
		if !ok {
			return fmt.Errorf("quick time %q is not a time", choice)
		}
		_, err = a.Scheduler.SetTime(ctx, r.ID, at)
		return err
	case text != "":
		at, perr := ParseNewTime(text, now, r.Due)
		if perr != nil {
			// Ask again rather than guess: a wrong time is worse than a question.
			a.Record(ctx, "reminders", store.ReminderIdentifier(r.ID), "no time understood in "+strconv.Quote(text))
			return a.Propose(ctx, store.Nudge{Kind: nudge.KindReminderWhen, Subject: n.Subject,
				Message: "I didn't catch a time in “" + text + "”. When should I remind you to " + r.Task + "?"})
		}
		if r, err = a.Scheduler.SetTime(ctx, r.ID, at); err != nil {
			return err
		}
		_, err = a.Confirm(ctx, r, now)
		return err
	case n.Kind == nudge.KindReminderWhen && choice == nudge.Accept:
		// "OK" without a time: ask again, the reminder waits.
		_, err = a.AskWhen(ctx, r)
		return err
	}
	return nil // Set, or Not now: the reminder stands as it is.
}

// QuickTime is a ready answer to "when?" in a reminder_when bubble.
type QuickTime struct {
	Label string
	At    time.Time
}

// QuickTimes are the bubble's ready answers to "when?", relative to now:
// in an hour, this evening while it is more than 90 minutes away, and
// tomorrow morning.
func QuickTimes(now time.Time) []QuickTime {
	day := func(d time.Time, h int) time.Time {
		return time.Date(d.Year(), d.Month(), d.Day(), h, 0, 0, 0, d.Location())
	}
	out := []QuickTime{{"In 1 hour", now.Truncate(time.Minute).Add(time.Hour)}}
	if evening := day(now, 17); evening.Sub(now) > 90*time.Minute {
		out = append(out, QuickTime{"Today 5 PM", evening})
	}
	return append(out, QuickTime{"Tomorrow 9 AM", day(now.AddDate(0, 0, 1), 9)})
}
