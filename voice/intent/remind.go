package intent

import (
	"regexp"
	"time"
)

// remindTrigger matches the ways of asking for a reminder. It only matches
// at the start of what was said to Spirit, so speech that merely contains
// "remind" ("I need to remind the client", "did you remind him") is not one.
var remindTrigger = regexp.MustCompile(`^(?:remind me|` +
	`(?:set|create|add|make|schedule|put in) (?:me |up )?(?:a |an |another )?(?:new )?(?:repeating |recurring |regular |standing )?reminder|` +
	`(?:can|could|may) i (?:get|have|set) (?:a |an |another )?(?:new )?reminder|` +
	`new reminder|reminder|` +
	`(?:don't|dont|do not) let me forget|` +
	`(?:don't|dont|do not) forget to remind me|` +
	`(?:i need|i want|i would like|i'd like) (?:a )?reminder|` +
	`(?:i need|i want|i would like|i'd like) to be reminded)\b`)

// messageMe, tellMe and rememberFor are other ways of asking for a
// reminder. People say them to each other as well ("ping me when you're
// done", "set an alarm for six"), so what follows must be the thing to be
// reminded of, introduced by a linking word or a time, and never a question
// or a condition. messageMe and tellMe are what colleagues say to each
// other most ("ping me about the draft"), so they also need a time, unless
// the words were meant for Spirit.
var (
	messageMe = regexp.MustCompile(`^(?:(?:ping|nudge|bug|poke|buzz|prompt|alert|text|message) me|` +
		`(?:give|send) me an? (?:reminder|nudge|ping|heads up|heads-up|shout|buzz|poke|alert|text|message))\b`)
	// tellMe is a reminder only when an order for the lawyer follows ("tell
	// me at 3 to call Ruth"): "tell me about the lease" asks for work.
	tellMe      = regexp.MustCompile(`^(?:tell|warn) me\b`)
	rememberFor = regexp.MustCompile(`^(?:` +
		`(?:set|create|add|make|schedule|put in|put) (?:me |up )?(?:an? |another )?(?:new )?(?:alert|alarm)|` +
		`(?:make sure|ensure) i (?:remember|don't forget|dont forget|do not forget)|` +
		`help me (?:to )?remember|(?:jog|refresh) my memory|` +
		`(?:i need|i want|i would like|i'd like) (?:a |an )?(?:nudge|ping|alert|alarm|heads up|heads-up))\b`)
)

// noteToSelf dictates the reminder's words straight after it.
var noteToSelf = regexp.MustCompile(`^(?:(?:make |take )?a )?note to (?:self|myself)\b`)

// notAReminder after a reminder verb makes it a question or a condition
// ("ping me when you're done", "alert me if she calls"): something to watch
// for, which the grammar does not do.
var notAReminder = append([]string{"if", "once", "whenever", "as", "unless"}, questionWords...)

// reminderCompounds after "reminder" make it a kind of document or
// message ("can I get a reminder letter sent", "set a reminder email to
// go out"), not a request to be reminded.
var reminderCompounds = map[string]bool{
	"letter": true, "letters": true, "email": true, "emails": true, "notice": true,
	"notices": true, "text": true, "texts": true, "message": true, "messages": true,
	"call": true, "calls": true, "card": true, "cards": true, "memo": true, "memos": true,
	"note": true, "notes": true, "invoice": true, "invoices": true, "service": true,
}

// questionWords after "remind me" make it a question for Spirit to answer
// ("remind me what the retainer was"), which is a task, not a reminder.
var questionWords = []string{"what", "what's", "who", "where", "which", "how", "why", "when", "whether"}

// parseRemind reads a reminder request. The time pieces come out of the
// words anywhere (before or after the task); what is left, less the
// linking words, is the task as the user would read it back: it stays in the
// user's own first person ("send her my notes"), only the request around it
// ("remind me to", "remind me that") is turned away.
func parseRemind(ts []token, now time.Time, f framing) (Intent, bool) {
	if n := prefixLen(remindTrigger, ts); n > 0 && !reminderCompounds[word(ts, n)] {
		after := ts[n:]
		if _, _, trig := triggerClause(after, 0, true); oneOf(word(after, 0), questionWords...) && !trig {
			// "remind me what the cap was": a question. Said to Spirit
			// it is work (look it up); said in a room it is asked of a
			// person, and Spirit does nothing.
			if !f.named {
				return Intent{Kind: None}, true
			}
			return Intent{Kind: Task, Task: readBack(ts)}, true
		}
		return remindOf(after, now, true), true
	}
	if n := prefixLen(noteToSelf, ts); n > 0 {
		if in := remindOf(ts[n:], now, false); in.Kind == Remind {
			return in, true
		}
		return Intent{}, false
	}
	for _, re := range []*regexp.Regexp{messageMe, tellMe, rememberFor} {
		n := prefixLen(re, ts)
		if n == 0 {
			continue
		}
		after := ts[n:]
		linked := words(after, 0, "to|that|about|of|re|regarding") || leadingTime(after) > 0 || openerLen(after, 0) > 0
		if re == tellMe {
			t := leadingTime(after)
			linked = words(after, t, "to")
		}
		if !linked || oneOf(word(after, 0), notAReminder...) || words(after, 0, "in", "case") {
			return Intent{}, false
		}
		in := remindOf(after, now, false)
		if in.Kind == Remind && (in.Due != nil || in.When != nil || re == rememberFor || f.named) {
			return in, true
		}
		return Intent{}, false
	}
	return Intent{}, false
}

// remindOf reads the reminder's task and time from what follows the
// request. Without a task, "remind me" may still be a snooze (when
// snoozes is set, see remindWithoutTask); other requests then ask nothing.
// A task that only points at the screen ("about it") is a snooze.
func remindOf(after []token, now time.Time, snoozes bool) Intent {
	if in, ok := remindOnTrigger(after, now); ok {
		return in
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
	switch {
	case pointsAtNudge(rest):
		// "remind me about it tomorrow": "it" can only be the nudge on
		// screen, so this pushes it back.
		if in := remindWithoutTask(w, due, now); in.Kind == Snooze {
			return in
		}
		return snoozeIntent(0)
	case task == "" && snoozes:
		return remindWithoutTask(w, due, now)
	case task == "":
		return Intent{Kind: None}
	}
	return Intent{Kind: Remind, Task: task, Due: due, Every: w.every}
}

// pointsAtNudge reports whether a reminder's task is only a word pointing
// at what is on screen.
func pointsAtNudge(ts []token) bool {
	return len(ts) == 1 && words(ts, 0, "it|that|this") ||
		len(ts) == 2 && words(ts, 0, "this|that", "one")
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
		return snoozeIntent(0)
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
			ts, _ = trimTail(ts)
			return ts
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

// remindOnTrigger reads a reminder tied to a moment ("next time I talk to
// Grant"): its task is every other word, times included ("send the
// invoice by Friday" is what to do, not when). A trigger with a time of
// its own beside it ("tomorrow when I open Outlook") or with no task is
// not read as one: the request then stays what the time grammar makes of it.
func remindOnTrigger(after []token, now time.Time) (Intent, bool) {
	tr, rest, ok := extractTrigger(after)
	if !ok {
		return Intent{}, false
	}
	rest = trimConnectors(rest)
	if w, _ := extractWhen(rest); w.due(now) != nil || w.every != "" {
		return Intent{}, false
	}
	task := readBack(rest)
	if task == "" || pointsAtNudge(rest) {
		return Intent{}, false
	}
	return Intent{Kind: Remind, Task: task, When: &tr}, true
}
