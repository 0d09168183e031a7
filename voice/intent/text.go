package intent

import (
	"regexp"
	"strings"
	"unicode"
)

// token is one word of a transcript. The grammar matches word; a task is read
// back from raw so the user sees their own spelling ("Dr. Reyes", "SNDA").
type token struct {
	raw  string // as heard, punctuation kept; "" for the second half of a split word
	word string // lower case, surrounding punctuation stripped
}

var (
	// Recognisers use typographic quotes and dashes; fold them before splitting.
	typography = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`, "—", " ", "–", " ", "…", " ")

	// "3pm", "3:30p.m." are two spoken words glued together by the recogniser.
	gluedMeridiem = regexp.MustCompile(`^(\d{1,2}(?:[:.]\d{2})?)([ap])\.?m\.?$`)
)

// tokenize splits a transcript into words. Hesitations are dropped
// wherever they fall: the recogniser writes them down mid-command ("remind
// me to uh call the bank at um four"), and they are never part of a task or
// a time.
func tokenize(text string) []token {
	var ts []token
	for _, f := range strings.Fields(typography.Replace(text)) {
		for _, t := range splitWord(f) {
			if !hesitations[t.word] {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

// hesitations are sounds, not words. "er" and "mm" are left out: they are
// also abbreviations ("the ER", "5 mm") and are only dropped before a
// command (see fillers).
var hesitations = map[string]bool{
	"um": true, "umm": true, "ummm": true, "uh": true, "uhh": true, "uhm": true,
	"erm": true, "hmm": true, "hmmm": true,
}

func splitWord(raw string) []token {
	if raw == "@" {
		return []token{{raw, "at"}}
	}
	w := strings.ToLower(strings.TrimFunc(raw, notWordRune))
	if w == "" {
		return nil // a lone dash or ellipsis carries no word
	}
	if m := gluedMeridiem.FindStringSubmatch(w); m != nil {
		// Keep the whole raw on the first half so a task that mentions the
		// time reads back as spoken ("at 3pm", not "at 3 pm").
		return []token{{raw, m[1]}, {"", m[2] + "m"}}
	}
	if t := strings.ReplaceAll(w, ".", ""); t == "am" || t == "pm" {
		w = t // "p.m." and "pm" are the same word
	}
	return []token{{raw, w}}
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// word is the i-th word, or "" past either end, so grammar code can look
// ahead without bounds checks.
func word(ts []token, i int) string {
	if i < 0 || i >= len(ts) {
		return ""
	}
	return ts[i].word
}

// words reports whether ts[i:] starts with ws; each element of ws may list
// alternatives separated by "|".
func words(ts []token, i int, ws ...string) bool {
	for k, alts := range ws {
		if !oneOf(word(ts, i+k), strings.Split(alts, "|")...) {
			return false
		}
	}
	return true
}

func oneOf(w string, set ...string) bool {
	for _, s := range set {
		if w == s {
			return true
		}
	}
	return false
}

// sentence is the words joined by single spaces, the form phrase regexps match.
func sentence(ts []token) string {
	ws := make([]string, len(ts))
	for i, t := range ts {
		ws[i] = t.word
	}
	return strings.Join(ws, " ")
}

// prefixLen is how many leading tokens re (anchored with ^) matches; 0 when it
// does not match or would end inside a word.
func prefixLen(re *regexp.Regexp, ts []token) int {
	s := sentence(ts)
	loc := re.FindStringIndex(s)
	if loc == nil || loc[0] != 0 || loc[1] == 0 {
		return 0
	}
	if loc[1] < len(s) && s[loc[1]] != ' ' {
		return 0
	}
	return strings.Count(s[:loc[1]], " ") + 1
}

// readBack rebuilds what the user said from tokens, trimming the punctuation
// and spaces the comparison rules ignore anyway.
func readBack(ts []token) string {
	var parts []string
	for _, t := range ts {
		if t.raw != "" {
			parts = append(parts, t.raw)
		}
	}
	return strings.TrimFunc(strings.Join(parts, " "), func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r)
	})
}

// Words a recogniser puts before the command, or that the user says while
// collecting their thoughts; none of them changes what is asked.
var fillers = map[string]bool{
	"um": true, "umm": true, "uh": true, "uhh": true, "er": true, "erm": true,
	"hmm": true, "mm": true, "ah": true, "oh": true, "so": true, "ok": true,
	"okay": true, "alright": true, "well": true, "and": true, "also": true,
	"actually": true, "now": true, "wait": true, "no": true, "yeah": true,
	"hey": true, "hi": true, "yo": true, "please": true, "kindly": true,
	"just": true, "oops": true, "whoops": true, "sorry": true, "possibly": true,
	"quickly": true, "right": true,
}

// leadIns are clauses said before a command that ask nothing themselves: a
// courtesy ("thanks, you can resume now"), a bid for attention ("excuse
// me", "quick one", "before I forget"), a correction before taking
// something back ("that's wrong, cancel it"), or the lawyer's own state
// before a privacy control ("I'm back, you can listen again"). The framing
// rules still apply to what follows, so "thanks, I'll send it" stays
// ambient. Each element lists alternatives separated by "|", as for words.
var leadIns = [][]string{
	{"thanks|cheers"},
	{"thank", "you"},
	{"thanks|thank", "you", "so|very", "much"},
	{"thanks", "so|very", "much"},
	{"thanks", "a", "lot"},
	{"excuse|pardon", "me"},
	{"while|whilst", "i", "think", "of|about", "it"},
	{"while", "i", "remember"},
	{"while", "i'm|im", "thinking", "of|about", "it"},
	{"before", "i", "forget"},
	{"before", "i", "forget", "it"},
	{"quick", "one|question|thing|favor|favour"},
	{"real", "quick"},
	{"one", "more", "thing"},
	{"one", "more"},
	{"that's|thats|that", "wrong|incorrect"},
	{"that's|thats", "not", "right|correct"},
	{"that", "is", "not", "right|correct"},
	{"that's|thats", "not", "what", "i", "said|meant|wanted"},
	{"my", "mistake|bad"},
	// A refusal before the lawyer says when instead: "not right now,
	// push it ninety minutes".
	{"not", "right", "now"},
	{"not", "now|yet"},
	{"not", "just", "yet"},
	{"not", "at", "the", "moment"},
	{"i'm|im", "back|done|finished|free"},
	{"i", "am", "back|done|finished|free"},
	{"i'm|im", "all", "done|finished"},
	{"we're|were", "done|finished"},
	{"i'm|im|we're", "off", "the", "call|phone"},
	{"the", "call|meeting", "is", "over|done|finished"},
	{"call's|meeting's", "over|done|finished"},
}

// leadIn is how many tokens at the start of ts are one lead-in clause.
func leadIn(ts []token) int {
	best := 0
	for _, l := range leadIns {
		if len(l) > best && words(ts, 0, l...) {
			best = len(l)
		}
	}
	return best
}

// spiritName is what the lawyer calls Spirit. Said around a command
// ("spirit, ...", "... thanks spirit") it shows the words are meant for
// Spirit, like the wake phrase.
const spiritName = "spirit"

// disfluencies may come before the wake phrase without hiding it.
var disfluencies = map[string]bool{
	"um": true, "umm": true, "uh": true, "uhh": true, "er": true, "erm": true,
	"hmm": true, "mm": true, "ah": true, "oh": true,
}

// politeRequest matches the ways of asking Spirit to do something; what
// follows is the request itself. They ask a listener to act, so with or
// without a wake phrase what follows is read as a command.
var politeRequest = regexp.MustCompile(`^(?:` + strings.Join([]string{
	`(?:can|could|would|will) (?:you|u)`,
	`(?:are you|would you be) able to`,
	`be able to`, // after "could you": "could you be able to..."
	`(?:would|could) you be (?:so kind as|kind enough) to`,
	`be (?:so kind as|kind enough) to`,
	`i (?:need|want|would like|'d like) you to`,
	`i'd like you to`,
	`(?:i'd|i would) (?:really )?appreciate it if you (?:could|would|can)`,
	`it (?:would|'d) be (?:great|nice|helpful|good|lovely) if you (?:could|would|can)`,
	`it'd be (?:great|nice|helpful|good|lovely) if you (?:could|would|can)`,
	`(?:i'd|i would|i'll|i will) be (?:so |very |really )?(?:grateful|thankful|obliged) if you (?:could|would|can)`,
	`(?:i'd|i would) (?:love|like) it if you (?:could|would|can)`,
	`(?:would|will) it be possible (?:for you )?to`,
	`is it possible (?:for you )?to`,
	`(?:is there )?any chance (?:you (?:could|can|would|might)|of you)`,
	`do you think you (?:could|can|would|might)`,
	`be (?:a dear|an angel|a doll|a pal) and`,
	`i (?:was|am|'m) wondering if you (?:could|would|can)`,
	`i'm wondering if you (?:could|would|can)`,
	`i wonder if you (?:could|would|can)`,
	`if you (?:could|would|can|don't mind|dont mind|do not mind|wouldn't mind|would not mind)`,
	`(?:could|can|may) i (?:ask|get) you to`,
	`do me a (?:favor|favour) and`,
	`go ahead and`,
	`when you (?:get|have) a (?:chance|moment|minute|sec|second)`,
}, "|") + `)\b`)

// mindRequest asks with a gerund ("would you mind pausing listening"); the
// gerund is then read as the command's verb.
var mindRequest = regexp.MustCompile(`^(?:(?:would|do) you mind|mind|` +
	`if you (?:wouldn't|would not|don't|dont|do not) mind)\b`)

// permission matches frames that give leave or state a wish rather than
// ask ("you can stop watching now", "I want to see my reminders"). People
// say them to each other all the time ("you can send it tomorrow", "let's
// push that back"), so unless the words are meant for Spirit they only
// frame the commands that are safe to act on (see framing.allows).
var permission = regexp.MustCompile(`^(?:you (?:can|may|could)|feel free to|i (?:want|need) to|` +
	`(?:i'd|i would) like to|let's|let us)\b`)

// framing is what was said around a command.
type framing struct {
	named  bool // the wake phrase or Spirit's name was said: the words are meant for Spirit
	weak   bool // a permission frame was taken off
	gerund bool // a "would you mind" frame was taken off: the first word is a gerund
}

func (f framing) join(g framing) framing {
	return framing{named: f.named || g.named, weak: f.weak || g.weak, gerund: g.gerund}
}

// allows reports whether a command read inside f may be acted on. Only
// requests that are harmless to act on wrongly (privacy controls, a
// reminder Spirit asks to confirm, reading the list) pass a permission
// frame that was not addressed to Spirit; undoing, snoozing or starting
// work on overheard words would cost the lawyer's trust.
func (f framing) allows(k Kind) bool {
	if !f.weak || f.named {
		return true
	}
	switch k {
	case PauseListening, PauseWatching, Resume, Remind, ListReminders:
		return true
	}
	return false
}

// unwrap removes what is said around a command: wake words, fillers,
// Spirit's name and request frames at the start, in any order ("hey spirit,
// um, could you please draft ..." starts at "draft"), and courtesies at
// the end ("..., thanks spirit").
func unwrap(ts []token) ([]token, framing) {
	var f framing
	ts, f.named = trimTail(ts)
	for len(ts) > 0 {
		switch {
		case ts[0].word == spiritName:
			f.named = true
			ts = ts[1:]
		case words(ts, 0, "no") && (words(ts, 1, "more") || isGerund(word(ts, 1))) && !endsClause(ts[0]):
			// "no more screenshots", "no peeking": a command, not a filler.
			return ts, f
		case fillers[ts[0].word]:
			ts = ts[1:]
		case words(ts, 0, "all", "right"), words(ts, 0, "right", "now"):
			ts = ts[2:]
		case prefixLen(mindRequest, ts) > 0 && gerundAfter(ts[prefixLen(mindRequest, ts):]) != nil:
			f.gerund = true
			return gerundAfter(ts[prefixLen(mindRequest, ts):]), f
		case prefixLen(mindRequest, ts) > 0 && prefixLen(politeRequest, ts) == 0:
			// "do you mind if I step out" asks nothing of Spirit; "if you
			// don't mind, stop watching" is a courtesy (politeRequest).
			return ts, f
		case leadIn(ts) > 0:
			ts = ts[leadIn(ts):]
		case prefixLen(remindTrigger, ts) > 0:
			// "I want to be reminded ..." is the request itself, not a
			// permission frame around one.
			return ts, f
		default:
			if n := prefixLen(politeRequest, ts); n > 0 {
				ts = ts[n:]
				continue
			}
			if n := prefixLen(permission, ts); n > 0 {
				f.weak = true
				ts = ts[n:]
				continue
			}
			return ts, f
		}
	}
	return ts, f
}

// gerundAfter is what follows a "would you mind" frame when it starts
// with a gerund (fillers skipped), else nil.
func gerundAfter(ts []token) []token {
	for len(ts) > 0 && fillers[ts[0].word] {
		ts = ts[1:]
	}
	if !isGerund(word(ts, 0)) {
		return nil
	}
	return ts
}

func isGerund(w string) bool { return len(w) > 4 && strings.HasSuffix(w, "ing") }

// baseForms are the verbs a gerund may come from, most likely first:
// "reminding" remind, "pausing" pause, "stopping" stop.
func baseForms(gerund string) []string {
	stem := strings.TrimSuffix(gerund, "ing")
	forms := []string{stem, stem + "e"}
	if n := len(stem); n >= 2 && stem[n-1] == stem[n-2] {
		forms = append(forms, stem[:n-1])
	}
	return forms
}

// withVerb returns ts with its first word replaced by verb, as said.
func withVerb(ts []token, verb string) []token {
	return append([]token{{raw: verb, word: verb}}, ts[1:]...)
}

// courtesies are said after a command; the ones marked afterPause only
// when the recogniser heard a pause before them, so "draft a thank you"
// keeps its words.
var courtesies = []struct {
	words      []string
	afterPause bool
}{
	{[]string{"please"}, false},
	{[]string{"thanks"}, false},
	{[]string{"cheers"}, false},
	{[]string{"sorry"}, true},
	{[]string{"thank", "you"}, true},
	{[]string{"thanks", "a", "lot"}, false},
	{[]string{"thanks", "so", "much"}, false},
	{[]string{"thanks", "very", "much"}, false},
	{[]string{"thank", "you", "so", "much"}, false},
	{[]string{"thank", "you", "very", "much"}, false},
	{[]string{"much", "appreciated"}, false},
	{[]string{"if", "you", "could|would|can|please"}, false},
	{[]string{"if", "you", "don't|dont", "mind"}, false},
	{[]string{"if", "you", "do", "not", "mind"}, false},
	// A tag question ends a command even without a pause: "stop listening
	// would you".
	{[]string{"would|could|will|can", "you"}, false},
	{[]string{"that'd|that'll|thatd", "be", "great|nice|helpful|lovely|perfect|ideal|brilliant|wonderful|fantastic|awesome|appreciated"}, false},
	{[]string{"that", "would|will", "be", "great|nice|helpful|lovely|perfect|ideal|brilliant|wonderful|fantastic|awesome|appreciated"}, false},
	{[]string{"that'd|that'll|that", "be", "much|greatly|really", "appreciated"}, false},
	{[]string{"that", "would|will", "be", "much|greatly|really", "appreciated"}, false},
	{[]string{"if", "possible"}, false},
	{[]string{"if", "that's|thats", "ok|okay|alright|possible|fine"}, false},
	{[]string{"if", "you", "wouldn't|would", "mind"}, false},
	{[]string{"if", "you", "would", "not", "mind"}, false},
	{[]string{"when", "you", "get|have", "a", "chance|moment|minute|sec|second"}, false},
	{[]string{"ok|okay|alright"}, true},
}

// trimTail drops courtesies and Spirit's name at the end ("..., please",
// "thanks, Spirit"); named reports whether the name was among them.
func trimTail(ts []token) (rest []token, named bool) {
	afterName := false
	for {
		n := len(ts)
		if n > 0 && ts[n-1].word == spiritName {
			ts, named, afterName = ts[:n-1], true, true
			continue
		}
		cut := 0
		for _, c := range courtesies {
			k := len(c.words)
			if n <= k || !words(ts, n-k, c.words...) {
				continue
			}
			// "..., thank you" after a pause, or "thank you, Spirit".
			if !c.afterPause || endsClause(ts[n-k-1]) || afterName {
				cut = k
				break
			}
		}
		if cut == 0 {
			return ts, named
		}
		ts, afterName = ts[:n-cut], false
	}
}

// endsClause reports whether the recogniser put a pause mark after t. The
// full stop of a title ("Dr. Reyes") is no pause.
func endsClause(t token) bool {
	if strings.HasSuffix(t.raw, ".") && titles[t.word] {
		return false
	}
	return strings.ContainsAny(t.raw[max(0, len(t.raw)-1):], ",.;:!?")
}

// titles come before a name, with a full stop the recogniser may write.
var titles = map[string]bool{"judge": true,
	"dr": true, "mr": true, "mrs": true, "ms": true, "mx": true, "prof": true, "st": true,
	"sgt": true, "capt": true, "hon": true, "rev": true, "jr": true, "sr": true, "fr": true,
	"gen": true, "col": true, "lt": true, "messrs": true, "mme": true, "mlle": true,
}
