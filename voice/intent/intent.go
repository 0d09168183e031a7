// Package intent turns a transcript into what the lawyer asked Spirit to do.
//
// The grammar is in layers. text.go tokenises what the recogniser wrote and
// strips wake words, fillers and polite request forms. commands.go reads
// the short fixed commands (privacy controls, cancel, list, snooze) and
// requests for work. remind.go reads reminders, using the time-expression
// grammar in grammar.go, which when.go resolves against the clock following
// the time rules of shared/cases/README.md. Anything else is None: doing
// nothing is the safe answer to speech Spirit does not understand.
package intent

import (
	"regexp"
	"time"
)

// Kind names an intent, as in shared/cases/README.md.
type Kind string

const (
	Remind         Kind = "remind"
	Cancel         Kind = "cancel"
	Snooze         Kind = "snooze"
	ListReminders  Kind = "list_reminders"
	PauseListening Kind = "pause_listening"
	PauseWatching  Kind = "pause_watching"
	Resume         Kind = "resume"
	Task           Kind = "task"
	None           Kind = "none"
)

// Intent is one parsed command.
type Intent struct {
	Kind    Kind       `json:"intent"`
	Task    string     `json:"task,omitempty"`    // Remind: what to be reminded of; Task: the request
	Due     *time.Time `json:"due,omitempty"`     // Remind: when, in now's location; nil when not said
	Every   string     `json:"every,omitempty"`   // Remind: "day", "weekday" or "week" when recurring
	Minutes int        `json:"minutes,omitempty"` // Snooze: how long
}

// DefaultWakePhrase is the wake phrase when ParseOptions names none.
const DefaultWakePhrase = "hey spirit"

// ParseOptions tunes ParseWith.
type ParseOptions struct {
	// RequireWake makes speech that does not start with the wake phrase None,
	// for an always-on microphone in a room where people talk.
	RequireWake bool
	// WakePhrase is the phrase to require; DefaultWakePhrase when empty.
	WakePhrase string
}

// Parse reads a transcript heard at now; no wake phrase is required, though
// a leading one is ignored.
func Parse(text string, now time.Time) Intent {
	return ParseWith(text, now, ParseOptions{})
}

// ParseWith reads a transcript heard at now with the given options. Times in
// the result are in now's location.
func ParseWith(text string, now time.Time, opts ParseOptions) Intent {
	phrase := opts.WakePhrase
	if phrase == "" {
		phrase = DefaultWakePhrase
	}
	ts, woke := stripWake(tokenize(text), tokenize(phrase))
	if opts.RequireWake && !woke {
		return Intent{Kind: None}
	}
	return parseTokens(trimTail(stripLead(ts)), now)
}

// parseTokens classifies a command with its lead-in already stripped. The
// order matters: fixed commands first, so "remind me what my reminders are"
// lists and "remind me again in 5" snoozes before the reminder grammar sees
// them, and requests for work last, as the widest net.
func parseTokens(ts []token, now time.Time) Intent {
	if len(ts) == 0 {
		return Intent{Kind: None}
	}
	for _, c := range []struct {
		phrase *regexp.Regexp
		kind   Kind
	}{
		{pauseListening, PauseListening},
		{pauseWatching, PauseWatching},
		{resume, Resume},
		{cancelPhrase, Cancel},
		{listPhrase, ListReminders},
	} {
		if matches(c.phrase, ts) {
			return Intent{Kind: c.kind}
		}
	}
	if in, ok := parseSnooze(ts, now); ok {
		return in
	}
	if in, ok := parseRemind(ts, now); ok {
		return in
	}
	if in, ok := parseTask(ts); ok {
		return in
	}
	return Intent{Kind: None}
}
