package intent

import (
	"regexp"
	"time"
)

// remindTrigger matches the ways of asking for a reminder. It only matches
// at the start of what was said to Spirit, so speech that merely contains
// "remind" ("I need to remind the client", "did you remind him") is not one.
var remindTrigger = regexp.MustCompile(`^(?:remind me|` +
	`(?:set|create|add|make|schedule|put in) (?:me |up )?(?:a |an |another )?(?:new )?reminder|` +
	`new reminder|reminder|` +
	`(?:don't|dont|do not) let me forget|` +
	`(?:don't|dont|do not) forget to remind me|` +
	`(?:i need|i want|i would like|i'd like) (?:a )?reminder|` +
	`(?:i need|i want|i would like|i'd like) to be reminded)\b`)

// questionWords after "remind me" make it a question for Spirit to answer
// ("remind me what the retainer was"), which is a task, not a reminder.
var questionWords = []string{"what", "what's", "who", "where", "which", "how", "why", "when", "whether"}

// parseRemind reads a reminder request. The time pieces come out of the
// words anywhere (before or after the task); what is left, less the
// linking words, is the task as the user would read it back: it stays in the
// user's own first person ("send her my notes"), only the request around it
// ("remind me to", "remind me that") is turned away.
func parseRemind(ts []token, now time.Time) (Intent, bool) {
	n := prefixLen(remindTrigger, ts)
	if n == 0 {
		return Intent{}, false
	}
	after := ts[n:]
	if oneOf(word(after, 0), questionWords...) {
		return Intent{Kind: Task, Task: readBack(ts)}, true
	}
	w, rest := extractWhen(after)
	rest = trimConnectors(rest)
	if dangling(rest) {
		// "remind me that the hearing is on friday": lifting the time out
		// would leave "the hearing is", so the task keeps the whole clause.
		rest = trimConnectors(after)
	}
	task := readBack(rest)
	due := w.due(now)
	if task == "" {
		return remindWithoutTask(w, due, now), true
	}
	return Intent{Kind: Remind, Task: task, Due: due, Every: w.every}, true
}

// remindWithoutTask: "remind me in 10 minutes" or "remind me later" names no
// task; the only thing it can be about is the nudge on screen, so it is a
// snooze. "remind me" alone asks nothing.
func remindWithoutTask(w when, due *time.Time, now time.Time) Intent {
	if due != nil {
		if m := minutesUntil(now, *due); m > 0 {
			return Intent{Kind: Snooze, Minutes: m}
		}
	}
	if w.vague {
		return Intent{Kind: Snooze, Minutes: defaultSnooze}
	}
	return Intent{Kind: None}
}

// trimConnectors drops the words that link the request to the task:
// "remind me [to] call", "[that] the filing is due", "set a reminder [for
// me to] call".
func trimConnectors(ts []token) []token {
	for len(ts) > 0 {
		switch {
		case words(ts, 0, "for", "me"):
			ts = ts[2:]
		case words(ts, 0, "to|that|about|of|for|re|regarding|please|and|then|so"):
			ts = ts[1:]
		default:
			return trimTail(ts)
		}
	}
	return ts
}

// dangling reports whether a task ends in a word that needs the time words
// that were lifted out after it.
func dangling(ts []token) bool {
	return len(ts) > 0 && oneOf(ts[len(ts)-1].word, "is", "are", "was", "were", "be",
		"on", "at", "by", "until", "till", "before", "after", "around", "the", "a", "an",
		"of", "from", "in", "it's", "that's")
}

// minutesUntil counts whole minutes from now, truncated to the minute, to t.
func minutesUntil(now, t time.Time) int {
	start := now.Add(-time.Duration(now.Second())*time.Second - time.Duration(now.Nanosecond()))
	return int(t.Sub(start) / time.Minute)
}
