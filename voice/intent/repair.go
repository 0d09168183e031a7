package intent

import (
	"strings"
	"unicode"
)

// Speech repairs. People correct themselves mid-sentence: "at two, no
// wait, three", "email Marc, sorry, Marcy", "tomorrow at nine, or rather
// ten". A repair has three parts: what was said wrong (the reparandum),
// an edit term ("no", "sorry", "I mean", "or rather", "make that"), and
// what replaces it. The pass below runs before any grammar, so a
// corrected time, name or verb reaches every command the same way, and no
// piece of the repair lands in the task text.
//
// The reparandum is found by what the replacement looks like, never by
// its exact words: the nearest earlier word that the replacement repeats
// ("at two, no, at three"), or else the nearest earlier word of the same
// kind (a number or clock word, a day, a verb, a word naming a person or
// a thing). When nothing
// matches, the words are left as heard: a wrong guess would move a
// reminder or change a task, and an unexplained "no" costs less.
//
// Edit terms that are also ordinary words ("no", "sorry", "wait",
// "actually", "I mean") count only after a pause the recogniser marked
// (a comma, a full stop, a question mark): "tell counsel no to the
// extension" and "say sorry to Marcy" are not repairs. A few phrases are
// edit terms wherever they fall ("no wait", "or rather", "scratch that").
//
// When what follows the edit term is not a replacement but a retraction
// ("snooze the alarm? no, leave it on") or hands the work to someone else
// ("actually no, Jenny will handle it"; "actually Tom, could you take
// that one"), the command is withdrawn: repair reports it, and the words
// are no command at all.

// editWords may make up an edit term after a pause.
var editWords = map[string]bool{
	"no": true, "sorry": true, "wait": true, "actually": true, "oops": true,
	"rather": true, "correction": true, "nope": true,
}

// strongEdits are edit terms wherever they fall, pause or not.
var strongEdits = [][]string{
	{"no", "wait"}, {"wait", "no"}, {"no", "no"}, {"no", "sorry"}, {"sorry", "no"},
	{"or", "rather"}, {"scratch", "that"}, {"i", "meant"}, {"sorry", "i", "meant"},
	{"let", "me", "rephrase"}, {"let", "me", "rephrase", "that"}, {"i", "should", "say"},
}

// pausedEdits are edit phrases of more than one word that count after a
// pause, like editWords.
var pausedEdits = [][]string{
	{"i", "mean"}, {"make", "that"}, {"make", "it"}, {"hang", "on"},
}

// retractions open what a lawyer says when they take a command back
// rather than correct it.
var retractions = [][]string{
	{"leave", "it"}, {"keep", "it"}, {"let's|lets", "keep|leave", "it"}, {"let's|lets", "not"},
	{"don't|dont"}, {"do", "not"}, {"not", "that"}, {"forget", "it|that"},
	{"never", "mind"}, {"nevermind"}, {"don't|dont", "bother"}, {"ignore", "that|me"},
	{"leave", "that"}, {"keep", "that"}, {"it's|its", "fine"}, {"that's|thats", "fine"},
}

// modals after a subject make a clause of its own ("Jenny will handle
// it", "I'll do it myself"), which a replacement never is.
var modals = map[string]bool{
	"will": true, "can": true, "could": true, "should": true, "would": true, "might": true,
	"is": true, "was": true, "has": true, "had": true, "does": true, "did": true,
	"must": true, "may": true, "shall": true, "wants": true, "needs": true,
}

// subjects open such a clause.
var subjects = map[string]bool{
	"i": true, "we": true, "he": true, "she": true, "they": true, "you": true,
	"i'll": true, "we'll": true, "he'll": true, "she'll": true, "they'll": true, "you'll": true,
	"i'd": true, "we'd": true, "he'd": true, "she'd": true, "they'd": true, "i'm": true,
	"she's": true, "he's": true, "they're": true, "we're": true, "let": true,
}

// spokenVerbs are verbs a repair may swap ("call Hollis, scratch that,
// email Hollis"): the request verbs and the everyday verbs reminders
// start with.
var spokenVerbs = func() map[string]bool {
	m := map[string]bool{}
	for v := range taskVerbs {
		m[v] = true
	}
	for _, v := range []string{"call", "ring", "phone", "text", "ping", "tell", "ask", "pay",
		"sign", "meet", "visit", "leave", "pick", "bring", "buy", "order", "submit", "serve",
		"chase", "follow", "pull", "look", "get", "give", "take", "go", "join", "start",
		"remind", "snooze", "pause", "stop", "resume", "mute", "write"} {
		m[v] = true
	}
	return m
}()

// maxRepairs bounds the passes over one utterance; each pass removes an
// edit term, so this is only a guard against pathological input.
const maxRepairs = 8

// repairWindow is how far back a reparandum may start: repairs replace
// the last few words, not a sentence said long before.
const repairWindow = 8

// repair applies the speech repairs in ts. withdrawn reports that the
// speaker took the command back instead of correcting it.
func repair(ts []token) (out []token, withdrawn bool) {
	for pass := 0; pass < maxRepairs; pass++ {
		i, n := findEdit(ts)
		if n == 0 {
			return ts, false
		}
		rest := ts[i+n:]
		if takesBack(rest) {
			return nil, true
		}
		next, ok := replace(ts[:i], rest)
		if !ok {
			// Not a repair after all: keep the words, drop nothing. The
			// next pass looks only past this edit term.
			tail, w := repair(rest)
			return append(append([]token{}, ts[:i+n]...), tail...), w
		}
		ts = next
	}
	return ts, false
}

// findEdit finds the first edit term that has words before it, or, with
// n 0, none.
func findEdit(ts []token) (i, n int) {
	for i = 1; i < len(ts); i++ {
		if n := editAt(ts, i); n > 0 && i+n < len(ts) {
			return i, n
		}
	}
	return 0, 0
}

// editAt is how many tokens at ts[i] are an edit term.
func editAt(ts []token, i int) int {
	for _, e := range strongEdits {
		if words(ts, i, e...) {
			n := len(e)
			return n + pausedRun(ts, i+n)
		}
	}
	if sameKindAround(ts, i) {
		return 1 // "at three no four", "tuesday no wednesday": unpunctuated
	}
	if !endsClause(ts[i-1]) {
		return 0
	}
	return pausedRun(ts, i)
}

// pausedRun is how many tokens from ts[i] are edit words and phrases, as
// said after a pause ("no", "actually no", "sorry, I mean").
func pausedRun(ts []token, i int) int {
	j := i
	for j < len(ts) {
		if words(ts, j, "hang", "on") {
			j += 2
			continue
		}
		matched := false
		for _, e := range pausedEdits {
			if words(ts, j, e...) {
				j, matched = j+len(e), true
				break
			}
		}
		if !matched && editWords[word(ts, j)] {
			j, matched = j+1, true
		}
		if !matched {
			break
		}
	}
	return j - i
}

// sameKindAround reports a bare "no" between two words of the same kind
// that is a number or a day: only those read unambiguously as a
// correction without a pause.
func sameKindAround(ts []token, i int) bool {
	if word(ts, i) != "no" || i+1 >= len(ts) {
		return false
	}
	a, b := kindOf(ts, i-1), kindOf(ts, i+1)
	return a == b && (a == kindNumber || a == kindDay)
}

// takesBack reports whether the words after an edit term withdraw the
// command instead of correcting it: a retraction, or a clause of its own
// that gives the work to someone (or keeps it for the speaker).
func takesBack(rest []token) bool {
	for _, r := range retractions {
		if words(rest, 0, r...) {
			return true
		}
	}
	return opensClause(rest) || vocativeAt(rest, 0)
}

// opensClause reports whether ts starts with a subject and its verb
// ("Jenny will handle it", "I'll do it", "Tom can take it", "let Priya do
// it").
func opensClause(ts []token) bool {
	first := word(ts, 0)
	switch {
	case first == "let" && len(ts) > 1 && !oneOf(word(ts, 1), "me", "us"):
		return true // "let Priya do it"; "let me rephrase" is an edit term
	case strings.HasSuffix(first, "'ll") || strings.HasSuffix(first, "'d"):
		return true
	case subjects[first] && first != "let":
		return true
	case strings.HasSuffix(first, "'s") && (isGerund(word(ts, 1)) || oneOf(word(ts, 1), "got", "on", "going")):
		return true // "Rob's doing it", "Jenny's got it"
	case modals[word(ts, 1)] && kindOf(ts, 0) == kindContent:
		return true
	}
	return false
}

// replace puts rest in place of the reparandum at the end of pre; ok is
// false when nothing in pre is like the start of rest.
func replace(pre, rest []token) ([]token, bool) {
	if len(rest) == 0 {
		return nil, false
	}
	k := reparandum(pre, rest)
	if k < 0 {
		return nil, false
	}
	// The replacement runs to the recogniser's next pause. When it is
	// shorter than what it replaces and a pause ends it, it stands in for
	// the same number of words, and the rest of the phrase said first
	// stays ("in twenty minutes, I mean thirty" is thirty minutes).
	clause := 0
	for clause < len(rest) {
		clause++
		if endsClause(rest[clause-1]) {
			break
		}
	}
	out := append([]token{}, pre[:k]...)
	if bounded := clause < len(rest); bounded && clause < len(pre)-k {
		for _, t := range rest[:clause] {
			out = append(out, unpaused(t))
		}
		out = append(out, pre[k+clause:]...)
		return append(out, rest[clause:]...), true
	}
	return append(out, rest...), true
}

// unpaused is t without the pause mark the recogniser wrote after it.
func unpaused(t token) token {
	t.raw = strings.TrimRightFunc(t.raw, func(r rune) bool { return strings.ContainsRune(",.;:!?", r) })
	return t
}

// reparandum is where in pre the words replaced by rest start, or -1:
// the nearest word rest repeats, else the nearest word of its kind,
// within repairWindow words and not before an earlier pause.
func reparandum(pre, rest []token) int {
	lo := max(0, len(pre)-repairWindow)
	for j := len(pre) - 2; j >= lo; j-- {
		if endsClause(pre[j]) {
			lo = j + 1
			break
		}
	}
	for j := len(pre) - 1; j >= lo; j-- {
		if pre[j].word == rest[0].word {
			return j
		}
	}
	kind := kindOf(rest, 0)
	if kind == kindOther {
		return -1
	}
	for j := len(pre) - 1; j >= lo; j-- {
		if kindOf(pre, j) == kind {
			return j
		}
	}
	return -1
}

type wordKind int

const (
	kindOther wordKind = iota
	kindNumber
	kindDay
	kindVerb
	kindContent
)

// kindOf sorts ts[i] into the kinds a repair swaps one for another.
func kindOf(ts []token, i int) wordKind {
	if i < 0 || i >= len(ts) {
		return kindOther
	}
	w := ts[i].word
	if oneOf(w, "a", "an") && timeWords[word(ts, i+1)] {
		return kindNumber // "in an hour, no, two hours"
	}
	if _, n := cardinal(ts, i); n > 0 || digits.MatchString(w) || hourMinute.MatchString(w) ||
		oneOf(w, "half", "quarter", "noon", "midday", "midnight") {
		return kindNumber
	}
	if _, ok := weekdayNames[w]; ok || oneOf(w, "today", "tomorrow", "tonight", "tmrw") {
		return kindDay
	}
	if spokenVerbs[w] {
		return kindVerb
	}
	if isContent(w) {
		return kindContent
	}
	return kindOther
}

// isContent reports a word that names something: a person, a thing, a
// place ("Marcy", "lease", "Harborview"), as opposed to the small words
// of the language and the grammar's own words. It does not look at
// capitals: recognisers capitalise at will, and a name in a lower-case
// transcript is still a name.
func isContent(w string) bool {
	if w == "" || w == spiritName || closedWords[w] || fillers[w] || discourse[w] ||
		subjects[w] || modals[w] || spokenVerbs[w] || asideWords[w] || snoozeNoise[w] ||
		editWords[w] || timeWords[w] {
		return false
	}
	if _, ok := weekdayNames[w]; ok {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '\'' && r != '-' {
			return false
		}
	}
	return true
}

// closedWords are the function words of English a content word is
// told apart from: articles, pronouns, prepositions, conjunctions and the
// commonest adverbs.
var closedWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the this that these those it its it's me my mine
		myself you your yours yourself him his her hers herself them their theirs us our ours
		who whom whose what which where when why how whether if than as at by for from in
		into of off on onto out over to up with without about after before under until
		between through during against among upon via per and or but nor so yet not no
		yes all any some each every both either neither none one other another such more
		most much many few less least very too also just only even still again ever never
		always often soon later today tonight tomorrow yesterday now then here there
		quickly urgently immediately promptly asap please thanks instead first last next
		same own else there's here's what's who's where's that's it'll that'll be been
		being am are were do don't did didn't done have having got get gets going gonna
		wanna let's okay ok`) {
		m[w] = true
	}
	return m
}()

// timeWords name times and lengths of time.
var timeWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`morning afternoon evening night noon midday midnight
		lunch lunchtime week weeks weekend month months year years day days hour hours
		minute minutes second seconds o'clock oclock am pm weekday weekdays workday
		workdays daily weekly monthly tmrw eod cob`) {
		m[w] = true
	}
	return m
}()
