// Package intent turns a transcript into what the lawyer asked Spirit to do.
//
// The grammar is in layers. text.go tokenises what the recogniser wrote and
// takes off what is said around a command: wake words, fillers, Spirit's
// name, request and permission frames, courtesies (the framing, which
// decides how much overheard words may do). intent.go moves a time said
// before the command after it. commands.go reads the short fixed commands
// (privacy controls, cancel, list, snooze) from tables of synonyms, and
// requests for work. remind.go reads reminders, using the time-expression
// grammar in grammar.go, which when.go resolves against the clock following
// the time rules of shared/cases/README.md. Anything else is None: doing
// nothing is the safe answer to speech Spirit does not understand. For words
// plainly addressed to Spirit, fallback.go can ask a model which command
// they are, checked as strictly as the grammar's own output.
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
	// When is, for a reminder tied to a moment rather than a time ("next
	// time I'm in Marcy's email"), that moment; Due is then nil.
	When *Trigger `json:"when,omitempty"`

	Kind    Kind       `json:"intent"`
	Task    string     `json:"task,omitempty"`    // Remind: what to be reminded of; Task: the request
	Due     *time.Time `json:"due,omitempty"`     // Remind: when, in now's location; nil when not said
	Every   string     `json:"every,omitempty"`   // Remind: "day", "weekday" or "week" when recurring
	Minutes int        `json:"minutes,omitempty"` // Snooze: how long
	// NoLength: a Snooze that said no length ("snooze that"); Minutes is
	// then the default, 10, and a caller with the lawyer's own snooze
	// length uses that instead. Not part of the parse's JSON.
	NoLength bool `json:"-"`
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
// the result are in now's location. Three steps come before the grammar:
// the wake phrase is found wherever it was said (findWake), speech
// repairs are applied (repair), and words that call on someone else or
// take the command back are no command (address.go).
func ParseWith(text string, now time.Time, opts ParseOptions) Intent {
	ts, woke := findWake(tokenize(text), tokenize(opts.wakePhrase()))
	if opts.RequireWake && !woke {
		return Intent{Kind: None}
	}
	ts, withdrawn := repair(ts)
	if withdrawn || callsOnSomeoneElse(ts) {
		return Intent{Kind: None}
	}
	in, f := read(ts, now, framing{named: woke}, 0)
	if !f.allows(in.Kind) {
		return Intent{Kind: None}
	}
	return in
}

func (o ParseOptions) wakePhrase() string {
	if o.WakePhrase == "" {
		return DefaultWakePhrase
	}
	return o.WakePhrase
}

// WakeLed reports whether text starts with the wake phrase of opts (the
// default one when opts names none) or, when no wake phrase is required,
// with Spirit's name ("spirit, ...", "okay spirit ..."): speech plainly
// addressed to Spirit, which deserves an answer even when the grammar
// cannot read it.
func WakeLed(text string, opts ParseOptions) bool {
	ts, woke := findWake(tokenize(text), tokenize(opts.wakePhrase()))
	if woke || opts.RequireWake {
		return woke
	}
	for _, t := range ts {
		switch {
		case t.word == spiritName:
			return true
		case !disfluencies[t.word] && !oneOf(t.word, "ok", "okay", "hey", "hi", "yo", "so", "alright"):
			return false
		}
	}
	return false
}

// maxTimeFirst bounds how often read moves a leading time phrase; each
// move must expose a command, so more than a couple means there is none.
const maxTimeFirst = 2

// read classifies ts and reports what was said around the command, joined
// with outer (what was said around the words before). A time said before
// the command ("tomorrow at 8, remind me to ...", "for the next hour, stop
// listening") is moved after it, where the command grammar reads times, so
// every command takes its time on either side.
func read(ts []token, now time.Time, outer framing, depth int) (Intent, framing) {
	ts, f := unwrap(ts)
	f = outer.join(f)
	// A trigger said first ("when I open the Brookline NDA, remind me to
	// check the term") moves after the request like a time does; tried
	// first, since with Spirit's name the words would otherwise be a
	// request for work.
	if n := leadingTrigger(ts); n > 0 && depth < maxTimeFirst {
		moved := append(append([]token{}, ts[n:]...), ts[:n]...)
		if t, g := read(moved, now, f, depth+1); t.Kind == Remind && t.When != nil {
			return t, g
		}
	}
	in := parseFramed(ts, now, f)
	if in.Kind != None || depth >= maxTimeFirst {
		return in, f
	}
	if k, g, ok := privacyAfterAside(ts, f); ok {
		return Intent{Kind: k}, g
	}
	n := leadingTime(ts)
	if n == 0 || n == len(ts) {
		return in, f
	}
	rest := ts[n:]
	if words(rest, 0, "then") {
		rest = rest[1:]
	}
	moved := append(append([]token{}, rest...), ts[:n]...)
	return read(moved, now, f, depth+1)
}

// spanStarts open a span or a reason said before a privacy control ("while
// I'm on this call, stop listening", "until I say so, mute yourself").
var spanStarts = map[string]bool{
	"for": true, "while": true, "whilst": true, "during": true, "until": true,
	"till": true, "til": true, "throughout": true,
}

// notImperative are words after which a verb is not an order: an
// infinitive ("I had to stop listening"), a subject ("he'll stop
// listening") or an auxiliary ("we should stop watching").
var notImperative = map[string]bool{
	"to": true, "i": true, "we": true, "he": true, "she": true, "they": true, "you": true,
	"it": true, "can": true, "could": true, "would": true, "should": true, "will": true,
	"might": true, "must": true, "may": true, "had": true, "have": true, "has": true,
	"did": true, "do": true, "does": true, "was": true, "were": true, "is": true,
	"are": true, "not": true, "never": true, "i'll": true, "we'll": true, "he'll": true,
	"she'll": true, "they'll": true, "you'll": true, "didn't": true, "don't": true,
	"let": true, "just": true, "always": true, "then": true,
}

// privacyAfterAside reads a privacy control said after its span or reason
// by moving that clause after the command, where isAside takes it. Only
// privacy controls take such a clause; the clause must start with a span
// word and the command must be an order, not a verb inside the clause.
func privacyAfterAside(ts []token, f framing) (Kind, framing, bool) {
	if !spanStarts[word(ts, 0)] {
		return "", f, false
	}
	for k := 2; k < len(ts); k++ {
		if notImperative[word(ts, k-1)] {
			continue
		}
		rest, g := unwrap(ts[k:])
		g = f.join(g)
		if g.gerund || len(rest) == 0 {
			continue
		}
		moved := append(append([]token{}, rest...), ts[:k]...)
		if kind, ok := parsePrivacy(moved, g); ok && g.allows(kind) {
			return kind, g, true
		}
	}
	return "", f, false
}

// parseFramed classifies a command with its frame taken off; after "would
// you mind" the first word is a gerund, tried as each verb it may come from.
func parseFramed(ts []token, now time.Time, f framing) Intent {
	if !f.gerund || len(ts) == 0 {
		return parseTokens(ts, now, f)
	}
	for _, verb := range baseForms(ts[0].word) {
		if in := parseTokens(withVerb(ts, verb), now, f); in.Kind != None {
			return in
		}
	}
	return Intent{Kind: None}
}

// leadingTime is how many tokens at the start of ts are time pieces, read
// with the same grammar as times after a command, or a stretch of time
// ("for the next hour").
func leadingTime(ts []token) int {
	var w when
	i := 0
	for i < len(ts) {
		n := matchSpan(ts, i)
		for _, m := range whenGrammar {
			if n > 0 {
				break
			}
			n = m(&w, ts, i)
		}
		if n == 0 {
			break
		}
		i += n
	}
	return i
}

// matchSpan reads how long something should last: "for an hour", "for the
// next twenty minutes", "for a while", "for now", "for the rest of the day".
func matchSpan(ts []token, i int) int {
	if !words(ts, i, "for") {
		return 0
	}
	j := i + 1
	switch {
	case words(ts, j, "now"):
		return 2
	case words(ts, j, "a", "while|bit|moment|minute|sec|second"):
		return 3
	case words(ts, j, "the", "rest", "of", "the|this|my", "day|morning|afternoon|evening|call|meeting|week"):
		return 6
	case words(ts, j, "the", "next|coming"):
		j += 2
	}
	if _, n := matchDuration(ts, j); n > 0 {
		return j + n - i
	}
	if j > i+1 && words(ts, j, "hour|minute|day|week|while|bit") {
		return j + 1 - i // "for the next hour"
	}
	return 0
}

// parseTokens classifies a command with its lead-in already stripped. The
// order matters: fixed commands first, so "remind me what my reminders are"
// lists and "remind me again in 5" snoozes before the reminder grammar sees
// them, and requests for work last, as the widest net.
func parseTokens(ts []token, now time.Time, f framing) Intent {
	if len(ts) == 0 {
		return Intent{Kind: None}
	}
	ts, pressed := pressButton(ts)
	if k, ok := parsePrivacy(ts, f); ok {
		return Intent{Kind: k}
	}
	for _, c := range []struct {
		phrase *regexp.Regexp
		kind   Kind
	}{
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
	if pressed {
		// A button pressed is one of the short commands or nothing: "hit
		// cancel on the order form" is a form, not a request for work.
		return Intent{Kind: None}
	}
	if in, ok := parseRemind(ts, now, f); ok {
		return in
	}
	if in, ok := parseTask(ts); ok && (f.named || !delegated(ts)) {
		return in
	}
	return Intent{Kind: None}
}

// delegated reports whether a request for work sets a deadline ("send me
// the redline by tomorrow morning", "before Friday"). Spirit does work when
// asked, so a deadline is what the lawyer gives a colleague; unless the
// words were meant for Spirit, they are not a request to it.
func delegated(ts []token) bool {
	for i := range ts {
		if !words(ts, i, "by|before") {
			continue
		}
		for _, m := range whenGrammar {
			var w when
			if m(&w, ts, i) > 0 {
				return true
			}
		}
	}
	return false
}
