package reminders

import (
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// Describe words a reminder for the lawyer: "call Marcy Howard — tomorrow
// 3:00 PM", "… — today 5:00 PM", "… — Fri Nov 27 9:00 AM", "… — every
// weekday 9:00 AM", "… — no time yet". Times are on the reminder's own
// clock, which is the lawyer's unless they have since moved time zones.
func Describe(r store.Reminder, now time.Time) string {
	return r.Task + " — " + When(r, now)
}

// When is the schedule part of Describe.
func When(r store.Reminder, now time.Time) string {
	if r.Trigger != nil && r.State == store.ReminderWaiting {
		return "next time you " + Moment(*r.Trigger)
	}
	loc := r.Location()
	if r.Every != store.Once {
		if r.Anchor == nil {
			return "every " + everyNoun(r.Every, time.Monday) + ", no time yet"
		}
		a := r.Anchor.In(loc)
		return "every " + everyNoun(r.Every, a.Weekday()) + " " + clock(a)
	}
	if r.Due == nil {
		return "no time yet"
	}
	return dayAndClock(r.Due.In(loc), now)
}

func everyNoun(every store.Recurrence, wd time.Weekday) string {
	switch every {
	case store.EveryWeek:
		return wd.String()
	default:
		return string(every) // "day", "weekday"
	}
}

// dayAndClock is "today 5:00 PM", "tomorrow 3:00 PM", "yesterday 3:00 PM",
// "Fri Nov 27 9:00 AM", or with the year when it is not this year's.
func dayAndClock(t, now time.Time) string {
	switch civilDays(now.In(t.Location()), t) {
	case 0:
		return "today " + clock(t)
	case 1:
		return "tomorrow " + clock(t)
	case -1:
		return "yesterday " + clock(t)
	}
	if t.Year() != now.In(t.Location()).Year() {
		return t.Format("Mon Jan 2 2006 3:04 PM")
	}
	return t.Format("Mon Jan 2 3:04 PM")
}

// wasDue is dayAndClock for a time already past, without "today".
func wasDue(t, now time.Time) string {
	if civilDays(now.In(t.Location()), t) == 0 {
		return clock(t)
	}
	return dayAndClock(t, now)
}

func clock(t time.Time) string { return t.Format("3:04 PM") }

// civilDays is the number of calendar days from a's date to b's, each
// read on its own wall clock.
func civilDays(a, b time.Time) int {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	da := time.Date(ay, am, ad, 0, 0, 0, 0, time.UTC)
	db := time.Date(by, bm, bd, 0, 0, 0, 0, time.UTC)
	return int(db.Sub(da).Hours() / 24)
}

// timing says how a firing relates to the reminder's due time.
type timing int

const (
	onTime    timing = iota
	late             // late while Spirit ran: the machine slept, or its clock jumped
	missedOff        // fell due while Spirit was not running
)

// timeliness is how a firing at now of a reminder due at due relates to
// it, for a Spirit started at started. Only a reminder that fell due more
// than offGrace before Spirit started was missed while Spirit was off.
func timeliness(due, now, started time.Time) timing {
	switch {
	case due.Before(started.Add(-offGrace)):
		return missedOff
	case now.Sub(due) > lateAfter:
		return late
	}
	return onTime
}

// firingMessage is the nudge's text for a firing at now.
func firingMessage(r store.Reminder, now time.Time, when timing) string {
	if when == onTime || r.Due == nil {
		return "Reminder: " + r.Task
	}
	due := r.Due.In(r.Location())
	if when == missedOff {
		return "Missed while Spirit was off: " + r.Task + " (was due " + wasDue(due, now) + ")"
	}
	// Late for another reason: the machine was asleep, or its clock jumped.
	return "Late reminder: " + r.Task + " (was due " + wasDue(due, now) + ")"
}
