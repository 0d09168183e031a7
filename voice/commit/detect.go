package commit

import (
	"strings"
	"time"

	"github.com/spirit-app/spirit/voice/intent"
)

// tok is one word as the command grammar reads it (intent.Words).
type tok = intent.Word

// norm is the i-th word in lower case, or "" past either end, so the
// phrase tests below can look around without bounds checks.
func norm(ws []tok, i int) string {
	if i < 0 || i >= len(ws) {
		return ""
	}
	return ws[i].Norm
}

// at reports whether ws[i:] starts with the words given; each may list
// alternatives separated by "|".
func at(ws []tok, i int, words ...string) bool {
	for k, alts := range words {
		w := norm(ws, i+k)
		if w == "" {
			return false
		}
		if !alternative(w, alts) {
			return false
		}
	}
	return true
}

// alternative reports whether w is one of alts ("a|b|c"), without
// splitting alts: this runs for every word of every utterance heard.
func alternative(w, alts string) bool {
	for alts != "" {
		var a string
		a, alts, _ = strings.Cut(alts, "|")
		if a == w {
			return true
		}
	}
	return false
}

// phraseAt returns the length of the longest of phrases (words separated
// by spaces, alternatives by "|") that ws[i:] starts with, or 0.
func phraseAt(ws []tok, i int, phrases [][]string) int {
	n := 0
	for _, p := range phrases {
		if len(p) > n && at(ws, i, p...) {
			n = len(p)
		}
	}
	return n
}

func phrases(ps ...string) [][]string {
	out := make([][]string, len(ps))
	for i, p := range ps {
		out[i] = strings.Fields(p)
	}
	return out
}

// inUtterance returns the commitments one utterance makes, in order.
// earlier are the utterances heard before it, oldest first, which a
// pronoun in it may point back to.
func inUtterance(text string, now time.Time, earlier []string) []Commitment {
	if len(text) > maxUtterance {
		text = text[:maxUtterance]
		if i := strings.LastIndexAny(text, " \t\n"); i > 0 {
			text = text[:i]
		}
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	ws, withdrawn := intent.Repair(unquoted(intent.Words(text)))
	if withdrawn {
		return nil
	}
	var out []Commitment
	ss := sentences(ws)
	var said []tok // this utterance's sentences before the current one
	for k, s := range ss {
		cs := inSentence(s, now, func(start int) func() []tok {
			return scope(earlier, append(append([]tok{}, said...), s.ws[:start]...))
		})
		said = append(said, s.ws...)
		if n := len(cs); n > 0 && !cs[n-1].HasTime && k+1 < len(ss) && !ss[k+1].question {
			// "I'll send it over. By Friday."
			if due, ok := onlyTime(ss[k+1].ws, now); ok {
				cs[n-1] = withTime(cs[n-1], due)
			}
		}
		for _, c := range cs {
			c.Words = strings.TrimSpace(text)
			out = append(out, c)
		}
	}
	// Asked last: most of what is heard commits to nothing, and the
	// command grammar is the dearer read.
	if len(out) > 0 && addressedToSpirit(text, now) {
		return nil
	}
	return out
}

// withTime gives an open commitment the time said after it.
func withTime(c Commitment, due time.Time) Commitment {
	c.Deadline, c.HasTime = due, true
	c.Key = key(c.Task, due, true)
	c.Replaces = ""
	return c
}

// addressedToSpirit reports whether the words are a command to Spirit
// ("remind me to call the court reporter tomorrow", "hey Spirit, …"): the
// command grammar answers those, and a second reminder from this path
// would be one too many. A request for work without the wake phrase is
// left to be read here, since "check the docket, I'll file Monday" is
// still a promise.
func addressedToSpirit(text string, now time.Time) bool {
	if intent.WakeLed(text, intent.ParseOptions{}) {
		return true
	}
	k := intent.Parse(text, now).Kind
	return k != intent.None && k != intent.Task
}

// sentence is a run of words the recogniser ended with . ? ! or ;.
type sentence struct {
	ws       []tok
	question bool
}

// abbreviations end in a full stop without ending the sentence.
var abbreviations = set("dr", "mr", "mrs", "ms", "st", "jr", "sr", "inc", "co", "corp", "ltd",
	"llc", "llp", "no", "vs", "v", "pm", "am", "etc", "eg", "ie", "esq", "p", "a", "u.s", "us")

func sentences(ws []tok) []sentence {
	var out []sentence
	start := 0
	for i, w := range ws {
		raw := strings.TrimRight(w.Raw, `"')]`)
		if raw == "" {
			continue
		}
		end := raw[len(raw)-1]
		switch {
		case end == '?', end == '!', end == ';':
		case end == '.' && !abbreviations[strings.TrimSuffix(w.Norm, ".")] && !strings.Contains(w.Norm, "."):
		default:
			continue
		}
		out = append(out, makeSentence(ws[start:i+1]))
		start = i + 1
	}
	if start < len(ws) {
		out = append(out, makeSentence(ws[start:]))
	}
	return out
}

// tagQuestions at the end of a statement ask for agreement, not
// information: "I'll send it Friday, does that work?" still commits.
var tagQuestions = phrases("okay", "ok", "right", "yeah", "alright", "all right", "yes", "fair",
	"good", "cool", "deal", "sound good", "sounds good", "does that work", "does that work for you",
	"would that work", "would that work for you", "will that work", "will that work for you",
	"that work", "that work for you", "that works", "works for you", "work for you", "is that okay|ok|alright|fine|good",
	"is that all right", "that okay|ok|alright|fine", "okay|ok|alright with you", "fair enough",
	"how's that", "how does that sound", "does that sound okay|ok|alright|good|right|fair",
	"you good with that", "good with you", "sound okay|ok|fair|right")

func makeSentence(ws []tok) sentence {
	s := sentence{ws: ws}
	last := ws[len(ws)-1].Raw
	if !strings.HasSuffix(strings.TrimRight(last, `"')]`), "?") {
		return s
	}
	// A tag after a comma or at the very end ("…Friday, okay?").
	for k := len(ws) - 1; k > 0 && k >= len(ws)-6; k-- {
		if !strings.HasSuffix(ws[k-1].Raw, ",") && k != len(ws)-1 {
			continue
		}
		if n := phraseAt(ws, k, tagQuestions); n == len(ws)-k {
			s.ws = ws[:k]
			return s
		}
	}
	s.question = true
	return s
}

// discourse words open a sentence without changing what it says.
var discourse = set("okay", "ok", "so", "yeah", "yes", "yep", "yup", "sure", "right", "alright",
	"well", "and", "then", "but", "oh", "ah", "no", "look", "listen", "great", "fine", "perfect",
	"cool", "actually", "anyway", "anyways", "also", "now", "absolutely", "definitely", "honestly",
	"understood", "totally", "certainly", "good", "thanks", "um", "uh", "hmm", "mm", "sorry",
	"plus", "agreed", "noted", "true", "exactly")

// questionStarts open a question when the subject follows ("can you send
// it by Friday", "should I file Monday"), or a wh-question.
var (
	auxiliaries = set("do", "does", "did", "can", "could", "would", "will", "should", "shall",
		"is", "are", "am", "was", "were", "have", "has", "had", "may", "might", "must", "won't",
		"wouldn't", "can't", "couldn't", "shouldn't", "don't", "doesn't", "didn't", "isn't", "aren't")
	subjects   = set("i", "you", "we", "he", "she", "they", "it", "that", "this", "there", "u")
	whWords    = set("what", "when", "where", "why", "how", "who", "whom", "which", "whose")
	thirdParty = set("she", "he", "they", "it", "that's", "there's", "it's", "she'll", "he'll",
		"they'll", "she's", "he's", "they're", "you")
)

// asks reports whether a sentence without a question mark is still a
// question by its word order.
func asks(ws []tok) bool {
	i := 0
	for i < len(ws) && discourse[ws[i].Norm] {
		i++
	}
	w := norm(ws, i)
	switch {
	case auxiliaries[w] && subjects[norm(ws, i+1)]:
		return true
	case whWords[w]:
		// "why don't I…" offers, and "what I'll do is…" announces.
		return !at(ws, i, "why", "don't|dont", "i|we") && !whatIllDo(ws, i)
	}
	return false
}

func whatIllDo(ws []tok, i int) bool {
	return at(ws, i, "what", "i'll|we'll", "do", "is") || at(ws, i, "what", "i|we", "will|shall", "do", "is")
}

// inSentence reads the commitments of one sentence.
// before gives, for a frame starting at a word of the sentence, what was
// said before it (for pronouns to point back to).
func inSentence(s sentence, now time.Time, before func(start int) func() []tok) []Commitment {
	ws := s.ws
	if s.question || asks(ws) {
		return nil
	}
	var out []Commitment
	for i := 0; i < len(ws); i++ {
		f, ok := frameAt(ws, i)
		if !ok {
			continue
		}
		end := clauseEnd(ws, f.body)
		for _, part := range split(ws, f, end, now) {
			if c, ok := commitment(ws, part.f, part.end, now, before(part.f.start)); ok {
				out = append(out, c)
			}
		}
		if end > i {
			i = end - 1
		}
	}
	return out
}

// broadcastMarks are what a podcast, a video or the radio says and a
// lawyer on a call does not: while one is playing, first-person promises
// are the host's ("today I'm going to walk you through…").
var broadcastMarks = []string{"welcome back to", "welcome to the show", "welcome to the podcast",
	"welcome to another episode", "this episode", "today's episode", "this week's episode",
	"the podcast", "our podcast", "this podcast", "subscribe", "our sponsor", "brought to you by",
	"after the break", "stay tuned", "you're listening to", "you are listening to",
	"thanks for listening", "thanks for watching", "on today's show", "tune in", "our listeners",
	"dear listeners", "our viewers", "my guest", "our guest today", "this broadcast",
	"breaking news", "in today's video", "this video", "leave a comment", "hit the bell"}

// broadcast reports whether the utterances sound like media playing.
func broadcast(texts []string) bool {
	for _, t := range texts {
		if len(t) > maxUtterance {
			t = t[:maxUtterance]
		}
		l := " " + strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer("’", "'", ",", " ", ".", " ").Replace(t))), " ") + " "
		for _, m := range broadcastMarks {
			if strings.Contains(l, " "+m+" ") || strings.Contains(l, " "+m+"s ") {
				return true
			}
		}
	}
	return false
}

// part is one promise of a clause.
type part struct {
	f   frame
	end int
}

// split cuts a clause that makes two promises with their own times ("I'll
// review the abstract tonight and send you my notes in the morning") in
// two, at the "and" between them.
func split(ws []tok, f frame, end int, now time.Time) []part {
	for a := f.body + 1; a < end-1; a++ {
		if !at(ws, a, "and|then") {
			continue
		}
		_, before, _, _ := intent.LiftTime(aliasTimes(ws[f.body:a]), now)
		if !before {
			continue
		}
		_, after, _, _ := intent.LiftTime(aliasTimes(ws[a+1:end]), now)
		if !after {
			continue
		}
		g := f
		g.body = a + 1
		if at(ws, g.body, "then") {
			g.body++
		}
		return append([]part{{f, a}}, split(ws, g, end, now)...)
	}
	return []part{{f, end}}
}
