package intent

import "time"

// This file resolves what the time grammar (grammar.go) heard against the
// clock. Keeping the two apart means the grammar never depends on now, and
// every README time rule lives in one place: clock.resolve for am/pm,
// dayPart.hour for the named parts of the day, daySpec.first for which date.

// dayPart is a stretch of the day named without a clock time.
type dayPart int

const (
	anyPart dayPart = iota
	morning
	afternoon
	evening
	night
)

var partWords = map[string]dayPart{
	"morning": morning, "afternoon": afternoon, "evening": evening, "night": night,
}

// hour is the README's time for a day part said without a clock time.
func (p dayPart) hour() int {
	switch p {
	case afternoon:
		return 14
	case evening:
		return 18
	case night:
		return 20
	}
	return 9
}

type meridiem int

const (
	noMeridiem meridiem = iota
	am
	pm
)

// clock is a time of day as spoken, before the README's rules pick morning
// or afternoon for it.
type clock struct {
	hour, min int
	mer       meridiem
	fixed     bool // noon, midnight or a 24-hour time: nothing to interpret
}

// resolve applies the README's rules: an explicit am/pm or day part decides;
// otherwise 1-6 is the afternoon, 7-11 the morning and 12 noon.
func (c clock) resolve(p dayPart) (h, m int) {
	h = c.hour
	switch {
	case c.fixed:
	case c.mer == pm && h < 12:
		h += 12
	case c.mer == am && h == 12:
		h = 0
	case c.mer != noMeridiem, p == morning:
	case p == night && h == 12:
		h = 0 // "tonight at 12" is midnight
	case p == night && h <= 4:
		// "tonight at 2" is the small hours; the search rolls it to tomorrow's date.
	case p == afternoon || p == evening || p == night:
		if h < 12 {
			h += 12
		}
	case h >= 1 && h <= 6:
		h += 12
	}
	return h, c.min
}

// daySpec says which dates a time may fall on. The due date is the first
// date from the start of the search whose time is still ahead of now.
type daySpec struct {
	from       int  // the search starts this many days after today...
	months     int  // ...plus this many months ("in 2 months")
	nextWeek   bool // ...or at Monday of the following week ("next friday")
	today      bool // the user said "today": no later day will do
	weekday    time.Weekday
	hasWeekday bool
	workdays   bool // Monday to Friday ("every weekday")
	month      time.Month
	mday, year int
}

func (s daySpec) matches(t time.Time) bool {
	switch {
	case s.hasWeekday && t.Weekday() != s.weekday,
		s.workdays && (t.Weekday() == time.Saturday || t.Weekday() == time.Sunday),
		s.month != 0 && t.Month() != s.month,
		s.mday != 0 && t.Day() != s.mday,
		s.year != 0 && t.Year() != s.year:
		return false
	}
	return true
}

// searchDays is long enough to reach the next February 29th.
const searchDays = 8*366 + 7

// first is the first matching date at h:m that is after now, in now's
// location. ok is false for a date that will not come again ("March 3rd 2020").
func (s daySpec) first(now time.Time, h, m int) (t time.Time, ok bool) {
	y, mo, d := now.Date()
	mo += time.Month(s.months)
	d += s.from
	if s.nextWeek {
		d += 7 - daysSinceMonday(now.Weekday())
	}
	for i := range searchDays {
		t := time.Date(y, mo, d+i, h, m, 0, 0, now.Location())
		if s.year != 0 && t.Year() > s.year {
			break
		}
		if s.matches(t) && t.After(now) {
			return t, true
		}
	}
	return time.Time{}, false
}

func daysSinceMonday(wd time.Weekday) int { return (int(wd) + 6) % 7 }

// when is everything a phrase said about time.
type when struct {
	offset    time.Duration // "in 15 minutes", with hasOffset
	hasOffset bool
	day       *daySpec
	clock     *clock
	part      dayPart
	endOfDay  bool
	every     string // "day", "weekday" or "week"
	vague     bool   // "later", "sometime": a time was meant but not given
}

func (w *when) canSetPart(p dayPart) bool { return p == anyPart || w.part == anyPart || w.part == p }

func (w *when) setPart(p dayPart) {
	if p != anyPart {
		w.part = p
	}
}

// due resolves w at now; nil when no time was given or it cannot be met.
func (w when) due(now time.Time) *time.Time {
	if w.hasOffset {
		// Counted from now truncated to the minute, as the README says.
		t := now.Add(-time.Duration(now.Second())*time.Second - time.Duration(now.Nanosecond())).Add(w.offset)
		return &t
	}
	if w.day == nil && w.clock == nil && w.part == anyPart && !w.endOfDay && w.every == "" {
		return nil
	}
	spec := daySpec{}
	if w.day != nil {
		spec = *w.day
	}
	if w.every == "weekday" {
		spec.workdays = true
	}
	h, m := w.timeOfDay()
	t, ok := spec.first(now, h, m)
	if ok && spec.today && !sameDate(t, now) {
		// "today" with its 09:00 already gone: the end of the working day is
		// the latest time that still honours "today"; tomorrow would not.
		if w.clock == nil && w.part == anyPart && !w.endOfDay {
			t, ok = spec.first(now, 17, 0)
		}
	}
	if !ok {
		return nil
	}
	return &t
}

func sameDate(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// timeOfDay: a clock time beats a day part, which beats "end of day";
// a day with no time at all is 09:00.
func (w when) timeOfDay() (h, m int) {
	switch {
	case w.clock != nil:
		return w.clock.resolve(w.part)
	case w.part != anyPart:
		return w.part.hour(), 0
	case w.endOfDay:
		return 17, 0
	}
	return 9, 0
}
