package calendar

import (
	"errors"
	"fmt"
	"time"

	"github.com/teambition/rrule-go"
)

// Bounds on expanding recurrence rules, which come from outside like the
// rest of a calendar. rrule-go walks every occurrence from DTSTART on, keeps
// every candidate of a period in memory, and loops without end on some
// rules (FREQ=HOURLY;INTERVAL=2;BYHOUR=1 from midnight never reaches hour
// 1); so a rule is checked before it is walked, walked from the window
// rather than from DTSTART wherever that changes nothing, and its walk is
// counted.
const (
	// maxInterval bounds INTERVAL: every 1,000 days (or weeks, months)
	// is as rare as a meeting gets, and rrule-go steps a day at a time
	// through a large one.
	maxInterval = 1000
	// maxTimes bounds the times of day one period makes (BYHOUR ×
	// BYMINUTE × BYSECOND): a meeting three times a day is rare, sixty
	// is no meeting.
	maxTimes = 60
	// maxWalk bounds the occurrences walked for one series before its
	// window when the rule cannot be started at the window (one with
	// COUNT): thirty years of working days.
	maxWalk = 10_000
	// maxPerSeries and maxPerWindow bound the occurrences one expansion
	// returns, for one series and in all: an hourly series over a year is
	// 8,760.
	maxPerSeries = 10_000
	maxPerWindow = 100_000
)

// errRuleRefused is a rule that is not expanded at all: the series keeps
// its DTSTART and RDATEs.
var errRuleRefused = errors.New("recurrence rule not expanded")

// checkRule refuses a rule whose cost is not bounded by the window it is
// read for.
func checkRule(opt *rrule.ROption) error {
	refuse := func(why string) error { return fmt.Errorf("%w: %s", errRuleRefused, why) }
	switch opt.Freq {
	case rrule.SECONDLY, rrule.MINUTELY:
		return refuse("it repeats more often than hourly, which is no meeting")
	}
	if opt.Interval > maxInterval {
		return refuse(fmt.Sprintf("INTERVAL over %d", maxInterval))
	}
	if opt.Count < 0 {
		return refuse("negative COUNT")
	}
	// rrule-go indexes its month and year masks with BYDAY's ordinal
	// unchecked: 10FR in a month is out of its range (and a panic).
	for _, wd := range opt.Byweekday {
		n := wd.N()
		if n < 0 {
			n = -n
		}
		if opt.Freq == rrule.MONTHLY && n > 5 || n > 53 {
			return refuse("BYDAY ordinal out of range")
		}
	}
	n := func(l []int, dflt int) int {
		if len(l) == 0 {
			return dflt
		}
		return len(l)
	}
	times := n(opt.Byminute, 1) * n(opt.Bysecond, 1)
	if opt.Freq != rrule.HOURLY {
		times *= n(opt.Byhour, 1)
	}
	if times > maxTimes {
		return refuse(fmt.Sprintf("more than %d times a day", maxTimes))
	}
	if opt.Freq == rrule.HOURLY && len(opt.Byhour) > 0 {
		// rrule-go steps INTERVAL hours until it lands on a BYHOUR; from
		// DTSTART's hour it only ever lands on hours congruent to it
		// modulo gcd(INTERVAL, 24).
		g := gcd(max(opt.Interval, 1), 24)
		h0 := opt.Dtstart.Hour()
		ok := false
		for _, h := range opt.Byhour {
			if h >= 0 && h < 24 && (h-h0)%g == 0 {
				ok = true
			}
		}
		if !ok {
			return refuse("BYHOUR never reached at this INTERVAL")
		}
	}
	return nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// perPeriod is the most occurrences one period of opt can make: days in it
// times the times of day.
func perPeriod(opt *rrule.ROption) int {
	days := map[rrule.Frequency]int{rrule.YEARLY: 366, rrule.MONTHLY: 31, rrule.WEEKLY: 7, rrule.DAILY: 1, rrule.HOURLY: 1}[opt.Freq]
	n := func(l []int) int { return max(len(l), 1) }
	times := n(opt.Byminute) * n(opt.Bysecond)
	if opt.Freq != rrule.HOURLY {
		times *= n(opt.Byhour)
	}
	return max(days, 1) * times
}

// periodIndex is which period of opt t falls in, counted on the wall clock
// of t's location from a fixed origin: hours, days, weeks (starting on
// WKST), months or years.
func periodIndex(opt *rrule.ROption, t time.Time) int64 {
	y, m, d := t.Date()
	days := int64(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	switch opt.Freq {
	case rrule.HOURLY:
		return days*24 + int64(t.Hour())
	case rrule.DAILY:
		return days
	case rrule.WEEKLY:
		// 1970-01-01 was a Thursday; rrule's weekdays count from Monday.
		wkst := int64(wkstDay(opt))
		return floorDiv(days+3-wkst, 7)
	case rrule.MONTHLY:
		return int64(y)*12 + int64(m) - 1
	}
	return int64(y)
}

// wkstDay is WKST as days after Monday.
func wkstDay(opt *rrule.ROption) int {
	for i, wd := range []rrule.Weekday{rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA, rrule.SU} {
		if opt.Wkst == wd {
			return i
		}
	}
	return 0
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// periodStart is the first instant of period p of opt, in loc's wall clock.
func periodStart(opt *rrule.ROption, p int64, loc *time.Location) time.Time {
	switch opt.Freq {
	case rrule.HOURLY:
		d, h := floorDiv(p, 24), p-floorDiv(p, 24)*24
		u := time.Unix(d*86400, 0).UTC()
		return time.Date(u.Year(), u.Month(), u.Day(), int(h), 0, 0, 0, loc)
	case rrule.DAILY:
		u := time.Unix(p*86400, 0).UTC()
		return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, loc)
	case rrule.WEEKLY:
		u := time.Unix((p*7-3+int64(wkstDay(opt)))*86400, 0).UTC()
		return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, loc)
	case rrule.MONTHLY:
		return time.Date(int(floorDiv(p, 12)), time.Month(p-floorDiv(p, 12)*12+1), 1, 0, 0, 0, 0, loc)
	}
	return time.Date(int(p), 1, 1, 0, 0, 0, 0, loc)
}

// fillDefaults makes explicit what rrule-go would take from DTSTART, so that
// the rule means the same when its DTSTART moves.
func fillDefaults(opt *rrule.ROption) {
	s := opt.Dtstart
	if len(opt.Byweekno) == 0 && len(opt.Byyearday) == 0 && len(opt.Bymonthday) == 0 &&
		len(opt.Byweekday) == 0 && len(opt.Byeaster) == 0 {
		switch opt.Freq {
		case rrule.YEARLY:
			if len(opt.Bymonth) == 0 {
				opt.Bymonth = []int{int(s.Month())}
			}
			opt.Bymonthday = []int{s.Day()}
		case rrule.MONTHLY:
			opt.Bymonthday = []int{s.Day()}
		case rrule.WEEKLY:
			opt.Byweekday = []rrule.Weekday{[]rrule.Weekday{rrule.SU, rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA}[s.Weekday()]}
		}
	}
	if len(opt.Byhour) == 0 && opt.Freq != rrule.HOURLY {
		opt.Byhour = []int{s.Hour()}
	}
	if len(opt.Byminute) == 0 {
		opt.Byminute = []int{s.Minute()}
	}
	if len(opt.Bysecond) == 0 {
		opt.Bysecond = []int{s.Second()}
	}
}

// windowRule is the rule of text for a series starting at start, made to be
// walked from before `after`: a rule without COUNT (or with one too large
// to end before the window) starts at the last period boundary on its
// INTERVAL grid before `after`, so the walk costs the window, not the years
// since DTSTART. walkCap is how many occurrences may be walked before the
// window (0: no need to count).
func windowRule(text string, start value, after, to time.Time) (r *rrule.RRule, walkCap int, err error) {
	opt, err := rrule.StrToROptionInLocation(text, start.t.Location())
	if err != nil {
		return nil, 0, err
	}
	opt.Dtstart = start.t
	if u := ruleUntil(text); len(u) == 8 && !start.date {
		// UNTIL as a date on a timed series: that whole day counts.
		opt.Until = opt.Until.AddDate(0, 0, 1).Add(-time.Second)
	}
	if err := checkRule(opt); err != nil {
		return nil, 0, err
	}
	// Periods are counted on the series' own wall clock.
	after, to = after.In(start.t.Location()), to.In(start.t.Location())
	interval := int64(max(opt.Interval, 1))
	first := periodIndex(opt, opt.Dtstart)
	target := periodIndex(opt, after)
	if opt.Count > 0 {
		// The COUNT-th occurrence is after the window's end when even full
		// periods up to it could not use COUNT up: then COUNT changes
		// nothing here.
		periods := (periodIndex(opt, to)-first)/interval + 1
		if periods < 0 || float64(opt.Count) < float64(periods)*float64(perPeriod(opt)) {
			r, err := rrule.NewRRule(*opt)
			return r, maxWalk, err
		}
		opt.Count = 0
	}
	if k := (target - first) / interval; k > 0 {
		fillDefaults(opt)
		opt.Dtstart = periodStart(opt, first+k*interval, start.t.Location())
	}
	r, err = rrule.NewRRule(*opt)
	return r, 0, err
}
