package reminders

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/voice/intent"
)

// ParseNewTime reads the lawyer's answer in the confirm bubble or to
// "when?": "at 4 instead", "4pm", "tomorrow at 10", "in an hour", "make it
// Friday". now is when the answer was given, and sets the location; current
// is the reminder's time so far, if it has one.
//
// The time rules are those of shared/cases/README.md, with two changes that
// only make sense for a change of time: a bare clock time keeps current's
// day ("at 4 instead" of tomorrow at 3 is tomorrow at 4) when that is still
// ahead, and a bare day keeps current's time of day ("make it Friday").
// Answers this grammar does not cover go to the intent parser's, as the
// time of a reminder.
//
// A time that is not after now ("today at 9" said at 10) gives ErrPast:
// as a reminder it would fire at once, which is not what anybody means.
func ParseNewTime(text string, now time.Time, current *time.Time) (time.Time, error) {
	t, err := parseNewTime(text, now, current)
	if err != nil {
		return time.Time{}, err
	}
	if !t.After(now) {
		return time.Time{}, fmt.Errorf("%q is %s: %w", text, t.Format(time.RFC3339), ErrPast)
	}
	return t, nil
}

func parseNewTime(text string, now time.Time, current *time.Time) (time.Time, error) {
	s := cleanAnswer(text)
	if s == "" {
		return time.Time{}, fmt.Errorf("%q: %w", text, ErrNoTime)
	}
	if t, ok := parseRelative(s, now); ok {
		return t, nil
	}
	if t, ok := parseAbsolute(s, now, current); ok {
		return t, nil
	}
	in := intent.Parse("remind me to do it "+s, now)
	if in.Kind == intent.Remind && in.Due != nil {
		return in.Due.In(now.Location()), nil
	}
	return time.Time{}, fmt.Errorf("%q: %w", text, ErrNoTime)
}

var (
	answerLead  = regexp.MustCompile(`^(?:no|nope|actually|okay|ok|um+|uh+|well|hmm+|oh|please|so|sorry|let'?s say|how about|what about|make it|make that|change it to|change that to|move it to|move that to|push it to|set it for|set it to|do it|remind me|rather|maybe|say)\b\s*`)
	answerTrail = regexp.MustCompile(`\s*\b(?:instead|please|then|rather|thanks|thank you)$`)
	nonWord     = regexp.MustCompile(`[^a-z0-9:' ]+`)
)

// cleanAnswer lowercases the answer and strips what carries no time.
func cleanAnswer(text string) string {
	s := strings.ToLower(text)
	s = strings.NewReplacer("a.m.", "am", "p.m.", "pm").Replace(s)
	s = nonWord.ReplaceAllString(s, " ")
	s = strings.Join(strings.Fields(s), " ")
	for {
		t := answerTrail.ReplaceAllString(answerLead.ReplaceAllString(s, ""), "")
		if t == s {
			return s
		}
		s = t
	}
}

const numberRe = `(\d+|a couple of|a couple|forty five|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety)`

var (
	relHalfHour = regexp.MustCompile(`^in half (?:an )?hour$`)
	relSimple   = regexp.MustCompile(`^in ` + numberRe + ` (hours?|hrs?|minutes?|mins?)( and a half)?$`)
	relCompound = regexp.MustCompile(`^in ` + numberRe + ` (?:hours?|hrs?) and ` + numberRe + ` (?:minutes?|mins?)$`)
)

// number reads a count or an hour as digits or as the words numberRe allows.
func number(s string) (int, bool) {
	if i := slices.Index(numberNames, s); i >= 0 {
		return numberValues[i], true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// numberNames and numberValues are read-only tables for number.
var (
	numberNames = []string{"a", "an", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "fifteen", "twenty", "thirty", "forty", "forty five", "fifty", "sixty", "ninety",
		"a couple of", "a couple"}
	numberValues = []int{1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
		11, 12, 15, 20, 30, 40, 45, 50, 60, 90,
		2, 2}
)

// parseRelative reads "in N minutes/hours", counted from now truncated to
// the minute as the README says.
func parseRelative(s string, now time.Time) (time.Time, bool) {
	base := now.Truncate(time.Second).Add(-time.Duration(now.Second()) * time.Second)
	if relHalfHour.MatchString(s) {
		return base.Add(30 * time.Minute), true
	}
	if m := relCompound.FindStringSubmatch(s); m != nil {
		h, ok1 := number(m[1])
		mins, ok2 := number(m[2])
		if ok1 && ok2 {
			return base.Add(time.Duration(h)*time.Hour + time.Duration(mins)*time.Minute), true
		}
	}
	if m := relSimple.FindStringSubmatch(s); m != nil {
		n, ok := number(m[1])
		if !ok {
			return time.Time{}, false
		}
		unit := time.Minute
		if strings.HasPrefix(m[2], "h") {
			unit = time.Hour
		}
		d := time.Duration(n) * unit
		if m[3] != "" {
			d += unit / 2
		}
		return base.Add(d), true
	}
	return time.Time{}, false
}

var (
	dayRe   = regexp.MustCompile(`\b(today|tomorrow|(?:(on|this|next) )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b`)
	partRe  = regexp.MustCompile(`\b(tonight|this morning|this afternoon|this evening|(?:in the )?morning|(?:in the )?afternoon|(?:in the )?evening|at night|night|noon|midday|(?:by |at )?(?:the )?end of (?:the )?day|eod)\b`)
	clockRe = regexp.MustCompile(`\b(?:at |by |for )?(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?::(\d{2}))?(?: ?(am|pm|o'?clock))?\b`)
	glueRe  = regexp.MustCompile(`\b(?:at|on|by|for|the|in)\b`)
)

// weekday is the day a weekday's name (as dayRe matched it) names.
func weekday(name string) time.Weekday {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(d.String(), name) {
			return d
		}
	}
	return time.Sunday // unreachable: dayRe only matches the seven names
}

// parseAbsolute reads a day, a part of the day and a clock time, each
// optional but not all missing, in any order.
func parseAbsolute(s string, now time.Time, current *time.Time) (time.Time, bool) {
	loc := now.Location()
	today := dateOf(now)
	rest := s

	// The day.
	var (
		day      time.Time
		explicit bool
	)
	if m := dayRe.FindStringSubmatchIndex(rest); m != nil {
		word, which := rest[m[2]:m[3]], ""
		if m[4] >= 0 {
			which = rest[m[4]:m[5]]
		}
		explicit = true
		switch {
		case word == "today":
			day = today
		case word == "tomorrow":
			day = today.AddDate(0, 0, 1)
		case which == "next":
			// That weekday of the following week, weeks starting on Monday.
			wd := weekday(rest[m[6]:m[7]])
			monday := today.AddDate(0, 0, -mondayIndex(today.Weekday()))
			day = monday.AddDate(0, 0, 7+mondayIndex(wd))
		default:
			// The next such day after today.
			wd := weekday(rest[m[6]:m[7]])
			ahead := (int(wd) - int(today.Weekday()) + 7) % 7
			if ahead == 0 {
				ahead = 7
			}
			day = today.AddDate(0, 0, ahead)
		}
		rest = rest[:m[0]] + " " + rest[m[1]:]
	}

	// A part of the day.
	part, keepable := "", false
	if m := partRe.FindStringSubmatch(rest); m != nil {
		part = strings.TrimSpace(m[1])
		rest = strings.Replace(rest, m[0], " ", 1)
		for _, p := range []string{"in the ", "by ", "at ", "the "} {
			part = strings.TrimPrefix(part, p)
		}
		if strings.HasPrefix(part, "end of") {
			part = "end of day"
		}
		if part == "tonight" || strings.HasPrefix(part, "this ") {
			// Today's, by the words used.
			if !explicit {
				day, explicit = today, true
			}
			part = strings.TrimPrefix(part, "this ")
			if part == "tonight" {
				part = "night"
			}
		} else {
			keepable = true
		}
	}

	// A clock time.
	hour, minute, hasClock := 0, 0, false
	if m := clockRe.FindStringSubmatch(rest); m != nil {
		h, ok := number(m[1])
		if !ok || h > 23 {
			return time.Time{}, false
		}
		if m[2] != "" {
			minute, _ = strconv.Atoi(m[2])
			if minute > 59 {
				return time.Time{}, false
			}
		}
		switch suffix := m[3]; {
		case suffix == "am" && h <= 12:
			hour = h % 12
		case suffix == "pm" && h <= 12:
			hour = h%12 + 12
		case suffix == "am" || suffix == "pm":
			return time.Time{}, false // "14pm"
		default:
			hour = hourWithoutMeridiem(h, part)
		}
		hasClock = true
		rest = strings.Replace(rest, m[0], " ", 1)
	}

	// Nothing but glue words may be left over, or this is not a time.
	if strings.TrimSpace(glueRe.ReplaceAllString(rest, " ")) != "" {
		return time.Time{}, false
	}
	if !explicit && part == "" && !hasClock {
		return time.Time{}, false
	}

	if !hasClock {
		switch part {
		case "morning":
			hour = 9
		case "afternoon":
			hour = 14
		case "evening":
			hour = 18
		case "night":
			hour = 20
		case "noon", "midday":
			hour = 12
		case "end of day", "eod":
			hour = 17
		case "":
			// A day alone: the time the reminder had, else 9:00.
			hour = 9
			if current != nil {
				c := current.In(loc)
				hour, minute = c.Hour(), c.Minute()
			}
		}
	}
	at := func(d time.Time) time.Time {
		return time.Date(d.Year(), d.Month(), d.Day(), hour, minute, 0, 0, loc)
	}
	if explicit {
		return at(day), true
	}
	// A time without a day: the current day if that is still ahead...
	if current != nil && (hasClock || keepable) {
		if t := at(dateOf(current.In(loc))); t.After(now) {
			return t, true
		}
	}
	// ...else today if still ahead, else tomorrow.
	if t := at(today); t.After(now) {
		return t, true
	}
	return at(today.AddDate(0, 0, 1)), true
}

// hourWithoutMeridiem applies the README's rule: 1 to 6 are afternoon
// hours, 7 to 11 morning ones, 12 is noon; a part of the day decides when
// given ("8 tonight", "6 in the morning").
func hourWithoutMeridiem(h int, part string) int {
	if h == 0 || h > 12 {
		return h
	}
	switch part {
	case "morning":
		return h % 12
	case "afternoon", "evening", "night":
		return h%12 + 12
	}
	if h <= 6 {
		return h + 12
	}
	return h
}

// mondayIndex is the weekday's place in a Monday-based week.
func mondayIndex(wd time.Weekday) int { return (int(wd) + 6) % 7 }

// dateOf is midnight of t's day on t's wall clock.
func dateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}
