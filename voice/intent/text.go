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
	gluedMeridiem = regexp.MustCompile(`^(\d{1,2}(?::\d{2})?)([ap])\.?m\.?$`)
)

// tokenize splits a transcript into words.
func tokenize(text string) []token {
	var ts []token
	for _, f := range strings.Fields(typography.Replace(text)) {
		ts = append(ts, splitWord(f)...)
	}
	return ts
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
	"hey": true, "hi": true, "please": true, "kindly": true, "spirit": true,
}

// disfluencies may come before the wake phrase without hiding it.
var disfluencies = map[string]bool{
	"um": true, "umm": true, "uh": true, "uhh": true, "er": true, "erm": true,
	"hmm": true, "mm": true, "ah": true, "oh": true,
}

// politeRequest matches the ways of asking Spirit to do something; what
// follows is the request itself.
var politeRequest = regexp.MustCompile(`^(?:(?:can|could|would|will) (?:you|u)|i (?:need|want|would like|'d like) you to|i'd like you to|go ahead and)\b`)

// stripLead removes wake words, fillers and request prefixes in any order:
// "hey spirit, um, can you please draft ..." starts at "draft".
func stripLead(ts []token) []token {
	for len(ts) > 0 {
		switch {
		case fillers[ts[0].word]:
			ts = ts[1:]
		case words(ts, 0, "all", "right"):
			ts = ts[2:]
		default:
			n := prefixLen(politeRequest, ts)
			if n == 0 {
				return ts
			}
			ts = ts[n:]
		}
	}
	return ts
}

// trimTail drops courtesies at the end ("..., please", "thanks, Spirit").
func trimTail(ts []token) []token {
	for len(ts) > 0 {
		n := len(ts)
		switch {
		case oneOf(ts[n-1].word, "please", "thanks", "spirit"):
			ts = ts[:n-1]
		case n >= 3 && words(ts, n-2, "thank", "you") && endsClause(ts[n-3]):
			// Only after a pause: "draft a thank you" keeps its words.
			ts = ts[:n-2]
		default:
			return ts
		}
	}
	return ts
}

// endsClause reports whether the recogniser put a pause mark after t.
func endsClause(t token) bool {
	return strings.ContainsAny(t.raw[max(0, len(t.raw)-1):], ",.;:!?")
}

// stripWake removes a leading wake phrase (after at most some disfluencies)
// and reports whether it was there.
func stripWake(ts, wake []token) ([]token, bool) {
	if len(wake) == 0 {
		return ts, false
	}
	i := 0
	for i < len(ts) && disfluencies[ts[i].word] {
		i++
	}
	if len(ts)-i < len(wake) {
		return ts, false
	}
	for k, w := range wake {
		if ts[i+k].word != w.word {
			return ts, false
		}
	}
	return ts[i+len(wake):], true
}
