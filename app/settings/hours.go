package settings

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ActiveHours are the days and times of day the heartbeat may work, in
// the lawyer's time zone. Stored as "mon-fri 08:00-19:00": days as a range
// or a comma list of three-letter names (or "daily"), then from-to on the
// 24-hour clock; To may be 24:00. A span whose From is after its To runs
// past midnight and belongs to the day it starts on. package work reads
// them as its ActiveHours (app/work.go converts).
type ActiveHours struct {
	Days     [7]bool // indexed by time.Weekday
	From, To int     // minutes after midnight; To up to 24*60
}

const activeHoursRule = `Active hours must look like "mon-fri 08:00-19:00": days (a range like mon-fri, a list like mon,wed,fri, or daily), then from-to on the 24-hour clock, with at least one day and from different from to.`

// DefaultActiveHours: weekdays 08:00–19:00.
func DefaultActiveHours() ActiveHours {
	return ActiveHours{Days: [7]bool{time.Monday: true, time.Tuesday: true, time.Wednesday: true,
		time.Thursday: true, time.Friday: true}, From: 8 * 60, To: 19 * 60}
}

var dayNames = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// ParseActiveHours reads active hours as stored or typed; anything else
// is an error matching ErrInvalid that says what a valid value looks like.
func ParseActiveHours(s string) (ActiveHours, error) {
	bad := &FieldError{Key: KeyWorkActiveHours, Value: s, Reason: activeHoursRule}
	f := strings.Fields(strings.ToLower(s))
	if len(f) != 2 {
		return ActiveHours{}, bad
	}
	var a ActiveHours
	if f[0] == "daily" {
		for i := range a.Days {
			a.Days[i] = true
		}
	} else {
		for _, part := range strings.Split(f[0], ",") {
			from, to, isRange := strings.Cut(part, "-")
			i, ok1 := dayIndex(from)
			j, ok2 := i, true
			if isRange {
				j, ok2 = dayIndex(to)
			}
			if !ok1 || !ok2 {
				return ActiveHours{}, bad
			}
			// A range may wrap the week: fri-mon is Friday to Monday.
			for d := i; ; d = (d + 1) % 7 {
				a.Days[d] = true
				if d == j {
					break
				}
			}
		}
	}
	from, to, ok := strings.Cut(f[1], "-")
	var ok1, ok2 bool
	a.From, ok1 = clockMinutes(from)
	a.To, ok2 = clockMinutes(to)
	if !ok || !ok1 || !ok2 || !a.valid() {
		return ActiveHours{}, bad
	}
	return a, nil
}

func dayIndex(s string) (int, bool) {
	for i, n := range dayNames {
		if s == n {
			return i, true
		}
	}
	return 0, false
}

// clockMinutes reads "8:00", "08:00" or "24:00" as minutes after midnight.
func clockMinutes(s string) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(m) != 2 || h == "" || len(h) > 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > 24 || hh == 24 && mm != 0 {
		return 0, false
	}
	return hh*60 + mm, true
}

// String is a as stored: "mon-fri 08:00-19:00", days as one range when
// they are consecutive (Monday first), else a list.
func (a ActiveHours) String() string {
	return a.DaysString() + " " + fmt.Sprintf("%02d:%02d-%02d:%02d", a.From/60, a.From%60, a.To/60, a.To%60)
}

// DaysString is the days part of String: "mon-fri", "daily", "mon,wed".
func (a ActiveHours) DaysString() string {
	n := 0
	for _, on := range a.Days {
		if on {
			n++
		}
	}
	switch n {
	case 7:
		return "daily"
	case 0:
		return ""
	}
	// One run of consecutive days, read from Monday round the week.
	order := []int{1, 2, 3, 4, 5, 6, 0}
	first, last, runs := -1, -1, 0
	for k, d := range order {
		if a.Days[d] && (k == 0 || !a.Days[order[k-1]]) {
			runs++
			first = d
		}
		if a.Days[d] {
			last = d
		}
	}
	if runs == 1 && n > 1 {
		return dayNames[first] + "-" + dayNames[last]
	}
	var names []string
	for _, d := range order {
		if a.Days[d] {
			names = append(names, dayNames[d])
		}
	}
	return strings.Join(names, ",")
}

// valid: at least one day, times in range, and not empty.
func (a ActiveHours) valid() bool {
	some := false
	for _, on := range a.Days {
		some = some || on
	}
	return some && a.From >= 0 && a.From < 24*60 && a.To >= 0 && a.To <= 24*60 && a.From != a.To
}
