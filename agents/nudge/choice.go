package nudge

import (
	"strings"
	"time"
)

// AnswerChoice is the answer that picks option of a question.
func AnswerChoice(option string) string { return AnswerPrefix + option }

// AnswerOption is the option an AnswerPrefix answer picked, trimmed; ok is
// false for any other answer. An empty option is ok: the prefix alone.
func AnswerOption(choice string) (option string, ok bool) {
	o, ok := strings.CutPrefix(choice, AnswerPrefix)
	if !ok {
		return "", false
	}
	return strings.TrimSpace(o), true
}

// AtChoice is the reminder_when quick choice for time at.
func AtChoice(at time.Time) string { return AtPrefix + at.Format(time.RFC3339) }

// AtTime is the time an AtPrefix choice names; ok is false for any other
// choice and for a time that is not RFC 3339.
func AtTime(choice string) (at time.Time, ok bool) {
	s, ok := strings.CutPrefix(choice, AtPrefix)
	if !ok {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, false
	}
	return at, true
}
