package intent

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// matcher tries to read one time piece at ts[i]. It returns how many tokens
// it used and fills w only when it used some. A piece whose slot in w is
// already taken is refused, so a second date stays in the task's words.
type matcher func(w *when, ts []token, i int) int

// whenGrammar lists the pieces most specific first, so "every monday" is not
// read as "monday" nor "in the morning" as a duration.
var whenGrammar = []matcher{
	matchEvery, matchRelative, matchEndOf, matchDayWord, matchWeekday,
	matchDate, matchClockPhrase, matchPart, matchVague,
}

// extractWhen lifts the time pieces out of ts and returns the other words.
func extractWhen(ts []token) (when, []token) {
	var w when
	var rest []token
	for i := 0; i < len(ts); {
		n := 0
		for _, m := range whenGrammar {
			if n = m(&w, ts, i); n > 0 {
				break
			}
		}
		if n == 0 {
			rest = append(rest, ts[i])
			n = 1
		}
		i += n
	}
	return w, rest
}

// prep reads a preposition that introduces a time ("at 5", "by friday",
// "at around 5"). "for" counts only first thing after the trigger ("set a
// reminder for 3"): later it belongs to the task ("book a table for 4").
func prep(ts []token, i int, allowed ...string) int {
	w := word(ts, i)
	if !oneOf(w, allowed...) || (w == "for" && i != 0) {
		return 0
	}
	if w != "around" && words(ts, i+1, "around|about") {
		return 2
	}
	return 1
}

// determined reports whether the word before i makes a bare time word part
// of a noun phrase ("the Friday deadline", "Marcy's 3pm call", "ready for
// tomorrow") rather than the time of the reminder.
func determined(ts []token, i int) bool {
	p := word(ts, i-1)
	// Not "her", "that", "those": "call her tomorrow" and "do that friday"
	// are objects followed by the time far more often than possessives.
	return oneOf(p, "the", "a", "an", "my", "his", "our", "their", "your", "its",
		"last", "for", "whose", "which", "of", "since") ||
		strings.HasSuffix(p, "'s")
}

var weekdayNames = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "tues": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "thurs": time.Thursday,
	"friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
}

var pluralParts = map[string]dayPart{
	"mornings": morning, "afternoons": afternoon, "evenings": evening, "nights": night,
}

var weekdayPlurals = map[string]time.Weekday{
	"mondays": time.Monday, "tuesdays": time.Tuesday, "wednesdays": time.Wednesday,
	"thursdays": time.Thursday, "fridays": time.Friday, "saturdays": time.Saturday,
	"sundays": time.Sunday,
}

// weekdayAt reads a weekday name at ts[j].
func weekdayAt(ts []token, j int) (time.Weekday, bool) {
	wd, ok := weekdayNames[word(ts, j)]
	return wd, ok
}

// partAt reads "morning", "afternoon", "evening" or "night" at ts[j].
func partAt(ts []token, j int) (dayPart, int) {
	if p, ok := partWords[word(ts, j)]; ok {
		return p, 1
	}
	return anyPart, 0
}

// recurrence reads what follows "every": a weekday, "day", "weekday",
// "week" or a part of the day, then maybe a part of the day ("every monday
// morning").
func recurrence(ts []token, j int) (every string, day *daySpec, part dayPart, n int) {
	start := j
	if word(ts, j) == "single" {
		j++ // "every single day"
	}
	if wd, ok := weekdayAt(ts, j); ok {
		every, day = "week", &daySpec{weekday: wd, hasWeekday: true}
		j++
	} else {
		switch {
		case words(ts, j, "day"):
			every, j = "day", j+1
		case words(ts, j, "weekday|workday"):
			every, j = "weekday", j+1
		case words(ts, j, "business|work|working", "day"):
			every, j = "weekday", j+2
		case words(ts, j, "week"):
			every, j = "week", j+1
		default:
			if p, k := partAt(ts, j); k > 0 {
				return "day", nil, p, j + k - start // "every morning"
			}
			return "", nil, anyPart, 0
		}
	}
	part, k := partAt(ts, j)
	return every, day, part, j + k - start
}

// matchEvery reads a recurrence: "every day", "each weekday", "every monday
// morning", "daily", "weekly", "on weekdays", "mondays".
func matchEvery(w *when, ts []token, i int) int {
	if w.every != "" {
		return 0
	}
	var (
		every string
		day   *daySpec
		part  dayPart
		j     = i
	)
	switch first := word(ts, i); {
	case oneOf(first, "every", "each"):
		var n int
		if every, day, part, n = recurrence(ts, i+1); n == 0 {
			return 0
		}
		j += 1 + n
	case oneOf(first, "daily", "everyday"):
		every, j = "day", j+1
	case first == "nightly":
		every, part, j = "day", night, j+1
	case first == "weekly":
		every, j = "week", j+1
	default:
		if words(ts, j, "on") {
			j++
		} else if determined(ts, i) {
			return 0
		}
		var n int
		if every, day, part, n = pluralRecurrence(ts, j); n == 0 {
			return 0
		}
		j += n
	}
	if (day != nil && w.day != nil) || !w.canSetPart(part) {
		return 0
	}
	w.every = every
	if day != nil {
		w.day = day
	}
	w.setPart(part)
	return j - i
}

// pluralRecurrence reads a recurrence said in the plural: "mondays",
// "weekdays", "monday mornings", "weekday mornings".
func pluralRecurrence(ts []token, j int) (every string, day *daySpec, part dayPart, n int) {
	w := word(ts, j)
	part, partPlural := pluralParts[word(ts, j+1)]
	n = 1
	if partPlural {
		n = 2
	}
	if wd, ok := weekdayPlurals[w]; ok {
		return "week", &daySpec{weekday: wd, hasWeekday: true}, part, n
	}
	if oneOf(w, "weekdays", "workdays") {
		return "weekday", nil, part, n
	}
	if !partPlural {
		return "", nil, anyPart, 0
	}
	if wd, ok := weekdayNames[w]; ok {
		return "week", &daySpec{weekday: wd, hasWeekday: true}, part, n
	}
	if oneOf(w, "weekday", "workday") {
		return "weekday", nil, part, n
	}
	return "", nil, anyPart, 0
}

// matchRelative reads "in 15 minutes", "in an hour and a half", "20 minutes
// from now", "in 2 days", "in a week".
func matchRelative(w *when, ts []token, i int) int {
	j := i
	in := words(ts, j, "in|within")
	if in {
		j++
		if words(ts, j, "about|around|roughly|approximately|approx|like|maybe|say") {
			j++ // "in about ten minutes": Spirit can only take the number said
		}
	}
	d, n := matchDuration(ts, j)
	if n == 0 {
		return 0
	}
	j += n
	fromNow := words(ts, j, "from", "now")
	if fromNow {
		j += 2
	}
	if !(in || fromNow) || words(ts, j, "of") {
		return 0 // "2 hours of billing" is an amount, not a time
	}
	if d.minutes > 0 {
		if w.hasOffset || w.day != nil || w.clock != nil {
			return 0
		}
		w.offset, w.hasOffset = time.Duration(d.minutes)*time.Minute, true
		return j - i
	}
	if w.day != nil || w.hasOffset {
		return 0
	}
	w.day = &daySpec{from: d.days, months: d.months}
	return j - i
}

// span is a length of time. Days and months are calendar lengths, so "in 2
// days" lands on a date (at 09:00 unless a time is said) rather than exactly
// 48 hours from now.
type span struct {
	minutes, days, months int
}

func (s span) totalMinutes() int { return s.minutes + s.days*24*60 + s.months*30*24*60 }

var unitMinutes = map[string]int{
	"minute": 1, "minutes": 1, "min": 1, "mins": 1,
	"hour": 60, "hours": 60, "hr": 60, "hrs": 60,
}

var unitDays = map[string]int{"day": 1, "days": 1, "week": 7, "weeks": 7}

var unitMonths = map[string]bool{"month": true, "months": true}

// fixedDurations are spoken lengths with no number in them.
var fixedDurations = []struct {
	words   []string
	minutes int
}{
	{[]string{"half", "an", "hour"}, 30},
	{[]string{"a", "half", "an", "hour"}, 30},
	{[]string{"a", "half", "hour"}, 30},
	{[]string{"half", "hour"}, 30},
	{[]string{"a", "quarter", "of", "an", "hour"}, 15},
	{[]string{"quarter", "of", "an", "hour"}, 15},
	{[]string{"a", "quarter", "hour"}, 15},
	{[]string{"quarter", "hour"}, 15},
	{[]string{"three", "quarters", "of", "an", "hour"}, 45},
}

// matchDuration reads a length of time at ts[i]: "15 minutes", "an hour and
// a half", "half an hour", "2 and a half hours", "1 hour 30 minutes",
// "another five minutes", "2 days".
func matchDuration(ts []token, i int) (span, int) {
	j := i
	if words(ts, j, "another") {
		j++
	} else if words(ts, j, "an|a", "extra|further") {
		j += 2
	}
	for _, f := range fixedDurations {
		if words(ts, j, f.words...) {
			return span{minutes: f.minutes}, j + len(f.words) - i
		}
	}
	v, n := amount(ts, j)
	if n == 0 {
		return span{}, 0
	}
	j += n
	half := words(ts, j, "and", "a", "half")
	if half {
		j += 3 // "two and a half hours"
	}
	if words(ts, j, "more|extra") {
		j++ // "five more minutes"
	}
	unit := word(ts, j)
	j++
	if !half && words(ts, j, "and", "a", "half") {
		half, j = true, j+3 // "an hour and a half"
	}
	if half {
		v += 0.5
	}
	switch {
	case unitMinutes[unit] > 0:
		m := int(v*float64(unitMinutes[unit]) + 0.5)
		if unitMinutes[unit] == 60 && !half {
			if extra, k := trailingMinutes(ts, j); k > 0 {
				m, j = m+extra, j+k // "an hour and 15 minutes"
			}
		}
		if m <= 0 {
			return span{}, 0
		}
		return span{minutes: m}, j - i
	case unitDays[unit] > 0 && v == float64(int(v)) && v > 0:
		return span{days: int(v) * unitDays[unit]}, j - i
	case unitMonths[unit] && v == float64(int(v)) && v > 0:
		return span{months: int(v)}, j - i
	}
	return span{}, 0
}

// trailingMinutes reads the "and 15 minutes" of "an hour and 15 minutes".
func trailingMinutes(ts []token, j int) (int, int) {
	k := j
	if words(ts, k, "and") {
		k++
	}
	v, n := cardinal(ts, k)
	if n == 0 || v <= 0 || v >= 60 {
		return 0, 0
	}
	k += n
	if words(ts, k, "minute|minutes|min|mins") {
		k++
	} else if k-j == n {
		return 0, 0 // "an hour 15" without "and" or "minutes" is too loose
	}
	return v, k - j
}

// matchEndOf reads "end of day", "by EOD", "close of business" (17:00) and
// "end of the week" (Friday, 17:00).
func matchEndOf(w *when, ts []token, i int) int {
	j := i + prep(ts, i, "at", "by", "before", "until", "till", "around", "for")
	if words(ts, j, "the") {
		j++
	}
	week := false
	switch {
	case words(ts, j, "eod|cob|eob"):
		j++
	case words(ts, j, "end|close", "of"):
		j += 2
		if words(ts, j, "the") {
			j++
		}
		switch {
		case words(ts, j, "business|work|working", "day"):
			j += 2
		case words(ts, j, "day|business|workday|play"):
			j++
		case words(ts, j, "week|workweek"):
			week, j = true, j+1
		default:
			return 0
		}
	default:
		return 0
	}
	if w.endOfDay || (week && w.day != nil) {
		return 0
	}
	w.endOfDay = true
	if week {
		w.day = &daySpec{weekday: time.Friday, hasWeekday: true}
	}
	return j - i
}

// matchDayWord reads the days named relative to today: "today", "tonight",
// "this afternoon", "tomorrow (morning)", "the day after tomorrow", "next
// week".
func matchDayWord(w *when, ts []token, i int) int {
	p := prep(ts, i, "by", "before", "until", "till", "for")
	j := i + p
	if p == 0 && determined(ts, i) {
		return 0
	}
	var spec daySpec
	part := anyPart
	switch {
	case words(ts, j, "today"):
		spec.today, j = true, j+1
		if words(ts, j, "at", "some", "point") {
			j += 3
		}
	case words(ts, j, "tonight|tonite"):
		part, j = night, j+1
	case words(ts, j, "this", "morning|afternoon|evening"):
		part, j = partWords[word(ts, j+1)], j+2
	case words(ts, j, "later", "today|tonight"):
		if word(ts, j+1) == "tonight" {
			part = night
		} else {
			spec.today = true
		}
		j += 2
	case words(ts, j, "the", "day", "after", "tomorrow"):
		spec.from, j = 2, j+4
	case words(ts, j, "day", "after", "tomorrow"):
		spec.from, j = 2, j+3
	case words(ts, j, "tomorrow|tmrw|tomorow"):
		spec.from, j = 1, j+1
		var k int
		part, k = partAt(ts, j) // "tomorrow morning", "tomorrow night"
		j += k
	case words(ts, j, "next", "week"):
		spec, j = daySpec{nextWeek: true, weekday: time.Monday, hasWeekday: true}, j+2
	default:
		return 0
	}
	if w.day != nil || !w.canSetPart(part) {
		return 0
	}
	w.day = &spec
	w.setPart(part)
	return j - i
}

// matchWeekday reads "friday", "on friday", "this friday", "next friday",
// "friday morning". README: "next <weekday>" is that day of the following
// Monday-based week; "on <weekday>" or a bare weekday the next one after
// today. "this friday" also allows today.
func matchWeekday(w *when, ts []token, i int) int {
	p := prep(ts, i, "on", "by", "before", "until", "till", "for")
	j := i + p
	spec := daySpec{from: 1}
	switch {
	case words(ts, j, "next"):
		spec, j = daySpec{nextWeek: true}, j+1
	case words(ts, j, "this", "coming"):
		j += 2
	case words(ts, j, "coming"):
		j++
	case words(ts, j, "this"):
		spec.from, j = 0, j+1
	}
	wd, ok := weekdayAt(ts, j)
	if !ok || (j == i && determined(ts, i)) || w.day != nil {
		return 0
	}
	spec.weekday, spec.hasWeekday = wd, true
	j++
	if date, n := readDate(ts, j, true); n > 0 {
		// "Monday the 9th", "Friday March 6th": the date is the more exact,
		// and a misremembered weekday must not push it weeks away.
		spec, j = date, j+n
	}
	part, k := partAt(ts, j)
	if !w.canSetPart(part) {
		return 0
	}
	w.day = &spec
	w.setPart(part)
	return j + k - i
}

var monthNames = map[string]time.Month{
	"january": time.January, "jan": time.January, "february": time.February, "feb": time.February,
	"march": time.March, "april": time.April, "apr": time.April, "may": time.May,
	"june": time.June, "jun": time.June, "july": time.July, "jul": time.July,
	"august": time.August, "aug": time.August, "september": time.September,
	"sep": time.September, "sept": time.September, "october": time.October,
	"oct": time.October, "november": time.November, "nov": time.November,
	"december": time.December, "dec": time.December,
}

var numericDate = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?$`)

// dayOfMonth reads "3", "3rd" or "third".
func dayOfMonth(ts []token, j int) (int, int) {
	if v, n := ordinal(ts, j); n > 0 {
		return v, n
	}
	if v, n := cardinal(ts, j); n > 0 && v >= 1 && v <= 31 {
		return v, n
	}
	return 0, 0
}

// yearAt reads a four-digit year after a date ("March 3rd, 2027").
func yearAt(ts []token, j int) (int, int) {
	if w := word(ts, j); len(w) == 4 && digits.MatchString(w) {
		if y, _ := strconv.Atoi(w); y >= 2000 && y < 2200 {
			return y, 1
		}
	}
	return 0, 0
}

// matchDate reads a calendar date: "March 3rd", "on the 15th", "the 3rd of
// March", "3/15", with an optional year. Without a year it is the next
// time that date comes round.
func matchDate(w *when, ts []token, i int) int {
	p := prep(ts, i, "on", "by", "before", "until", "till", "for")
	if w.day != nil || (p == 0 && determined(ts, i)) {
		return 0
	}
	// A day of the month alone ("the 15th") needs its "on" or the start of
	// the phrase: "file the 3rd amended complaint" names no date.
	spec, n := readDate(ts, i+p, p > 0 || i == 0)
	if n == 0 {
		return 0
	}
	w.day = &spec
	return p + n
}

// readDate reads the date itself at ts[j]; dayAlone allows "the 15th".
func readDate(ts []token, j int, dayAlone bool) (daySpec, int) {
	start := j
	the := words(ts, j, "the")
	if the {
		j++
	}
	var spec daySpec
	if mo, ok := monthNames[word(ts, j)]; ok && !the {
		k := j + 1
		if words(ts, k, "the") {
			k++ // "November the 10th"
		}
		d, n := dayOfMonth(ts, k) // "March 3rd"
		if n == 0 {
			return daySpec{}, 0
		}
		spec.month, spec.mday, j = mo, d, k+n
	} else if d, n := dayOfMonth(ts, j); n > 0 && words(ts, j+n, "of") {
		mo, ok := monthNames[word(ts, j+n+1)] // "the 3rd of March"
		if !ok {
			return daySpec{}, 0
		}
		spec.month, spec.mday, j = mo, d, j+n+2
	} else if d, n := ordinal(ts, j); n > 0 && dayAlone && timeEnds(ts, j+n) {
		// This month's or the next month's; the end check keeps "on the
		// second floor" in the task.
		spec.mday, j = d, j+n
	} else if m := numericDate.FindStringSubmatch(word(ts, j)); m != nil && !the {
		mo, _ := strconv.Atoi(m[1])
		d, _ := strconv.Atoi(m[2])
		spec.month, spec.mday, j = time.Month(mo), d, j+1
		if m[3] != "" {
			spec.year, _ = strconv.Atoi(m[3])
			if spec.year < 100 {
				spec.year += 2000
			}
		}
	} else {
		return daySpec{}, 0
	}
	if spec.year == 0 {
		var n int
		spec.year, n = yearAt(ts, j)
		j += n
	}
	if !validDate(spec) {
		return daySpec{}, 0
	}
	return spec, j - start
}

// validDate rejects dates that never come ("February 30th", "the 32nd").
func validDate(s daySpec) bool {
	if s.mday < 1 || s.mday > 31 || s.month < 0 || s.month > 12 {
		return false
	}
	if s.month == 0 {
		return true
	}
	y := s.year
	if y == 0 {
		y = 2000 // a leap year: "February 29th" comes round eventually
	}
	return time.Date(y, s.month, s.mday, 12, 0, 0, 0, time.UTC).Day() == s.mday
}

// matchClockPhrase reads a time of day: "at 5", "at 3:30pm", "by noon",
// "11:15", "at half past two". A bare number needs its "at" (or "by",
// "around"...): "call 3 clients" is no time. And a weak "at 5" must be
// followed by something that ends the time, so "look at 2 cases" is not 2pm.
func matchClockPhrase(w *when, ts []token, i int) int {
	if w.clock != nil {
		return 0
	}
	p := prep(ts, i, "at", "by", "before", "around", "until", "till", "til", "for")
	j := i + p
	c, n, strong := readClock(ts, j)
	switch {
	case n == 0:
		return 0
	case p == 0 && (!strong || determined(ts, i)):
		return 0
	case !strong && !timeEnds(ts, j+n):
		return 0
	}
	j += n
	if words(ts, j, "sharp") {
		j++
	}
	w.clock = &c
	return j - i
}

// timeEnds reports whether a bare clock number at ts[:k] is complete: the
// phrase ends, the recogniser heard a pause, or a word follows that starts
// another part of a command.
func timeEnds(ts []token, k int) bool {
	if k >= len(ts) || endsClause(ts[k-1]) {
		return true
	}
	next := word(ts, k)
	if _, ok := weekdayNames[next]; ok {
		return true
	}
	return oneOf(next, "to", "that", "about", "on", "in", "at", "tomorrow", "today",
		"tonight", "this", "next", "every", "each", "and", "then", "please", "so",
		"by", "before", "i", "remind", "tmrw", "for", "or", "ish") || startsCommand(ts[k:])
}

// startsCommand reports whether ts opens with a request to Spirit, which
// ends a time said before it ("at 11 set a reminder to ...").
func startsCommand(ts []token) bool {
	if oneOf(word(ts, 0), spiritName, "hey") {
		return true
	}
	for _, re := range []*regexp.Regexp{remindTrigger, messageMe, rememberFor, noteToSelf, politeRequest, permission, mindRequest} {
		if prefixLen(re, ts) > 0 {
			return true
		}
	}
	return false
}

var hourMinute = regexp.MustCompile(`^(\d{1,2})[:.](\d{2})$`)

// readClock reads a clock time at ts[j]. strong means the words cannot be
// anything but a time (a colon, am/pm, o'clock, noon, "half past").
func readClock(ts []token, j int) (c clock, n int, strong bool) {
	switch {
	case words(ts, j, "noon|midday"):
		return clock{hour: 12, fixed: true}, 1, true
	case words(ts, j, "lunch|lunchtime"):
		return clock{hour: 12, fixed: true}, 1, false // needs its "at": "order lunch" is no time
	case words(ts, j, "midnight"):
		return clock{hour: 0, fixed: true}, 1, true
	}
	if c, n := readPast(ts, j); n > 0 {
		return c, n, true
	}
	h, m, n, strong := readHourMinute(ts, j)
	if n == 0 {
		return clock{}, 0, false
	}
	k := j + n
	switch {
	case words(ts, k, "o'clock|oclock"):
		k, strong = k+1, true
	case words(ts, k, "o", "clock"):
		k, strong = k+2, true
	}
	c = clock{hour: h, min: m}
	switch {
	case h == 12 && m == 0 && words(ts, k, "noon"):
		c.fixed, k, strong = true, k+1, true // "12 noon"
	case words(ts, k, "am|pm"):
		c.mer, k, strong = meridiemOf(word(ts, k)), k+1, true
	case words(ts, k, "a|p", "m"):
		c.mer, k, strong = meridiemOf(word(ts, k)+"m"), k+2, true
	}
	switch {
	case m > 59, h > 23, c.mer != noMeridiem && (h < 1 || h > 12):
		return clock{}, 0, false
	case c.mer == noMeridiem && (h == 0 || h > 12):
		c.fixed = true // a 24-hour time says which half of the day it is
	}
	return c, k - j, strong
}

func meridiemOf(w string) meridiem {
	if w == "pm" {
		return pm
	}
	return am
}

// readHourMinute reads "5", "5:30", "five", "five thirty", "five oh five",
// "5 30" and the recogniser's "930" or "1530".
func readHourMinute(ts []token, j int) (h, m, n int, strong bool) {
	w := word(ts, j)
	if g := hourMinute.FindStringSubmatch(w); g != nil {
		h, _ = strconv.Atoi(g[1])
		m, _ = strconv.Atoi(g[2])
		return h, m, 1, true
	}
	if digits.MatchString(w) && len(w) >= 3 {
		v, _ := strconv.Atoi(w)
		return v / 100, v % 100, 1, false
	}
	h, n = cardinal(ts, j)
	if n == 0 || h > 23 {
		return 0, 0, 0, false
	}
	k := j + n
	switch next := word(ts, k); {
	case len(next) == 2 && digits.MatchString(next):
		m, _ = strconv.Atoi(next) // "5 30"
		return h, m, n + 1, true
	case oneOf(next, "oh", "o") && units[word(ts, k+1)] > 0 && units[word(ts, k+1)] < 10:
		return h, units[word(ts, k+1)], n + 2, true // "five oh five"
	case !digits.MatchString(next):
		if v, vn := cardinal(ts, k); vn > 0 && v >= 10 && v <= 59 {
			return h, v, n + vn, true // "five thirty", "eleven forty five"
		}
	}
	return h, 0, n, false
}

// readPast reads "half past two", "quarter to five", "ten past three",
// "twenty after four".
func readPast(ts []token, j int) (clock, int) {
	k := j
	if words(ts, k, "a") {
		k++
	}
	var mins, n int
	switch {
	case words(ts, k, "half"):
		mins, n = 30, 1
	case words(ts, k, "quarter"):
		mins, n = 15, 1
	default:
		if k != j {
			return clock{}, 0
		}
		mins, n = cardinal(ts, k)
		if n == 0 || mins < 1 || mins > 59 {
			return clock{}, 0
		}
		if words(ts, k+n, "minutes|minute") {
			n++
		}
	}
	k += n
	before := false
	switch {
	case words(ts, k, "past|after"):
	case words(ts, k, "to|till|of") && mins != 30:
		before = true
	default:
		return clock{}, 0
	}
	h, hn := cardinal(ts, k+1)
	if hn == 0 || h < 1 || h > 12 {
		return clock{}, 0
	}
	if before {
		h, mins = h-1, 60-mins
		if h == 0 {
			h = 12
		}
	}
	return clock{hour: h, min: mins}, k + 1 + hn - j
}

// matchPart reads a part of the day on its own: "in the morning", "at
// night", "first thing (in the morning)". It also says which half of the
// day a bare clock time is in ("at 7 in the evening").
func matchPart(w *when, ts []token, i int) int {
	var p dayPart
	n := 0
	switch {
	case words(ts, i, "in", "the", "morning|afternoon|evening"):
		p, n = partWords[word(ts, i+2)], 3
	case words(ts, i, "at", "night"):
		p, n = night, 2
	case words(ts, i, "first", "thing", "in", "the", "morning"):
		p, n = morning, 5
	case words(ts, i, "first", "thing"):
		p, n = morning, 2
	default:
		return 0
	}
	if !w.canSetPart(p) {
		return 0
	}
	w.setPart(p)
	return n
}

// matchVague reads time words that name no time ("later", "sometime"): they
// are not part of the task, and the reminder gets no due time.
func matchVague(w *when, ts []token, i int) int {
	n := 0
	switch {
	case words(ts, i, "at", "some", "point"):
		n = 3
	case words(ts, i, "later|sometime|soon|eventually"):
		n = 1
		if words(ts, i+1, "on") {
			n = 2
		}
	default:
		return 0
	}
	if determined(ts, i) {
		return 0
	}
	w.vague = true
	return n
}
