package commit

import (
	"strings"
	"time"

	"github.com/spirit-app/spirit/voice/intent"
)

// A call is more than its sentences one by one. What was said before an
// utterance changes what it commits to:
//   - a promise may get its time a few utterances later, after a question
//     from the other side ("I'll send those over." … "What day suits
//     you?" … "Thursday's fine.");
//   - a promise with a time may be corrected afterwards ("actually, make
//     that Monday"): the later time wins, and the commitment says which
//     one it replaces;
//   - a condition said on its own ("if the client signs off on the term
//     sheet") hangs the next utterance's promise on it;
//   - a reading announced ("her email says", "let me read you what he
//     wrote") makes the next utterance someone else's words.
// talk carries that state from one utterance to the next.

// Limits of how far the state reaches: a time answers a promise made at
// most answerReach utterances before it; a correction must come in the
// next correctReach.
const (
	answerReach  = 3
	correctReach = 2
)

// talk is what the utterances heard so far leave for the next one.
type talk struct {
	pending   *Commitment // the latest commitment, which a later time may complete or correct
	age       int         // utterances heard since pending was made
	condition bool        // the last utterance was a condition left open
	quoting   bool        // the last utterance announced someone else's words
}

// hear reads one utterance heard at now, with the earlier ones (oldest
// first) for pronouns to point back to, and returns what it commits to:
// new commitments, an earlier open one now given its time, or an earlier
// timed one with its time corrected (Replaces names it).
func (t *talk) hear(text string, now time.Time, earlier []string) []Commitment {
	guarded := t.condition || t.quoting
	cs := inUtterance(text, now, earlier)
	if guarded {
		cs = nil
	}
	if len(cs) == 0 && t.pending != nil && !guarded {
		p := *t.pending
		switch {
		case p.HasTime && t.age < correctReach:
			if due, ok := correction(text, now); ok && !due.Equal(p.Deadline) {
				c := withTime(p, due)
				c.Replaces = p.Key
				cs = []Commitment{c}
			}
		case !p.HasTime && t.age < answerReach:
			if due, ok := answer(text, now); ok {
				cs = []Commitment{withTime(p, due)}
			}
		}
	}
	if n := len(cs); n > 0 {
		c := cs[n-1]
		t.pending, t.age = &c, 0
	} else {
		t.age++
	}
	ws := bounded(text)
	t.condition = opensCondition(ws)
	t.quoting = opensReading(ws)
	return cs
}

// bounded is the words of the first maxUtterance bytes of text.
func bounded(text string) []tok {
	if len(text) > maxUtterance {
		text = text[:maxUtterance]
	}
	return intent.Words(text)
}

// agreement words may surround a time given as an answer: "Thursday's
// fine", "yes, tomorrow works for me", "Friday at the latest".
var agreement = set("fine", "works", "work", "good", "great", "suits", "suit", "okay", "ok",
	"perfect", "is", "it's", "that's", "that", "then", "at", "the", "latest", "sure", "yes",
	"yeah", "for", "me", "us", "you", "let's", "say", "it", "be", "would", "will", "could",
	"sounds", "alright", "all", "right", "do", "does", "can", "no", "problem", "deal")

// answer reads an utterance that only gives a day or time, with words of
// agreement around it: the time of a promise made a little before.
// Questions ("is Thursday okay?") propose; only the statement that
// follows settles it.
func answer(text string, now time.Time) (time.Time, bool) {
	ss := sentences(bounded(text))
	for k := len(ss) - 1; k >= 0; k-- {
		s := ss[k]
		if s.question || asks(s.ws) {
			continue
		}
		ws := possessiveDays(s.ws)
		due, ok, _, rest := intent.LiftTime(aliasTimes(ws), now)
		if !ok {
			return time.Time{}, false
		}
		for _, w := range rest {
			if !agreement[w.Norm] && !discourse[w.Norm] {
				return time.Time{}, false
			}
		}
		return due, true
	}
	return time.Time{}, false
}

// possessiveDays splits "Thursday's" ("Thursday's fine") into the day and
// "is", so the time grammar reads the day.
func possessiveDays(ws []tok) []tok {
	out := make([]tok, 0, len(ws))
	for _, w := range ws {
		if base, ok := strings.CutSuffix(w.Norm, "'s"); ok && dayWords[base] {
			out = append(out, tok{Raw: base, Norm: base}, tok{Raw: "is", Norm: "is"})
			continue
		}
		out = append(out, w)
	}
	return out
}

var dayWords = set("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"tomorrow", "today", "tonight", "noon")

// editOpeners begin a correction of what was just promised.
var editOpeners = phrases("actually", "sorry", "no", "wait", "oops", "correction", "or rather",
	"scratch that", "hang on", "on second thought", "on second thoughts", "come to think of it")

// correctionFrames introduce the new time: "make that Monday", "let's
// say Friday".
var correctionFrames = phrases("make that", "make it", "change that to", "change it to",
	"move that to", "move it to", "let's say", "lets say", "say", "rather", "i mean", "i meant")

// correction reads an utterance that corrects the time of the promise
// just made: it opens with an edit term ("actually", "sorry", "no"), may
// set the old time aside ("not tomorrow,"), and gives the new time in the
// clause that follows ("make that Monday, I'm in court on Friday" is
// Monday).
func correction(text string, now time.Time) (time.Time, bool) {
	ws := bounded(text)
	i, edited := 0, false
	for i < len(ws) {
		if n := phraseAt(ws, i, editOpeners); n > 0 {
			i, edited = i+n, true
			continue
		}
		if discourse[norm(ws, i)] {
			i++
			continue
		}
		break
	}
	if at(ws, i, "not") {
		// "not tomorrow, Thursday": the old time is set aside first.
		edited = true
		for i < len(ws) && !clauseMark(ws[i].Raw) {
			i++
		}
		i++
	}
	if n := phraseAt(ws, i, correctionFrames); n > 0 {
		i, edited = i+n, true
	}
	if !edited || i >= len(ws) {
		return time.Time{}, false
	}
	end := i
	for end < len(ws) {
		end++
		if clauseMark(ws[end-1].Raw) {
			break
		}
	}
	return onlyTime(possessiveDays(ws[i:end]), now)
}

// opensCondition reports an utterance that is only a condition ("if the
// client signs off on the term sheet", "once we have the survey"): the
// promise said next hangs on it.
func opensCondition(ws []tok) bool {
	i := 0
	for i < len(ws) && discourse[norm(ws, i)] {
		i++
	}
	if phraseAt(ws, i, conditionals) == 0 || phraseAt(ws, i, courtesies) > 0 {
		return false
	}
	ss := sentences(ws)
	if len(ss) != 1 || ss[0].question || asks(ss[0].ws) {
		return false
	}
	for k := i; k < len(ws); k++ {
		if _, ok := frameAt(ws, k); ok {
			return false // "if they agree, I'll send it": the sentence's own rule
		}
	}
	return true
}

// readingVerbs end an utterance that announces someone else's words.
var readingVerbs = set("says", "said", "writes", "wrote", "reads", "read", "goes", "asks",
	"asked", "states", "stated", "replied", "replies", "responded", "put", "saying", "this")

// opensReading reports an utterance that announces someone else's words
// ("okay so her email says", "let me read you what he wrote", "listen to
// this"): what comes next is a reading, not the lawyer's promise.
func opensReading(ws []tok) bool {
	if len(ws) == 0 {
		return false
	}
	last := ws[len(ws)-1]
	if strings.HasSuffix(strings.TrimSpace(last.Raw), "?") {
		return false
	}
	if oneOf(last.Norm, "quote") {
		return true // "…, quote" with the words in the next stretch
	}
	if !readingVerbs[last.Norm] {
		return false
	}
	if last.Norm == "this" {
		return at(ws, len(ws)-3, "listen", "to") || at(ws, len(ws)-3, "hear", "this")
	}
	// Someone else's words: "I said" or "I wrote" reports the lawyer's own.
	return !oneOf(norm(ws, len(ws)-2), "i", "we")
}

// unquoted drops the words inside quotation marks and between a spoken
// "quote" and "end quote" (or "unquote"): someone else's words, read or
// repeated by the lawyer, promise nothing of theirs.
func unquoted(ws []tok) []tok {
	out := make([]tok, 0, len(ws))
	inMarks, inSpoken := false, false
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		raw := strings.TrimSpace(w.Raw)
		switch {
		case inSpoken:
			if at(ws, i, "end|close", "quote") {
				inSpoken = false
				i++
			} else if at(ws, i, "unquote|endquote") {
				inSpoken = false
			}
			continue
		case !inMarks && strings.HasPrefix(raw, `"`):
			inMarks = !strings.HasSuffix(raw[1:], `"`) && !strings.Contains(strings.TrimRight(raw[1:], `.,;:!?`), `"`)
			continue
		case inMarks:
			if strings.Contains(raw, `"`) {
				inMarks = false
			}
			continue
		case w.Norm == "quote" && spokenQuote(ws, i):
			inSpoken = true
			continue
		}
		out = append(out, w)
	}
	return out
}

// spokenQuote reports whether "quote" at ws[i] opens a quotation said
// aloud ("her email says, quote, I'll…"), not the noun ("the quote for
// the survey").
func spokenQuote(ws []tok, i int) bool {
	if oneOf(norm(ws, i-1), "a", "the", "this", "that", "their", "his", "her", "our", "my", "your") {
		return false
	}
	return i == 0 || clauseMark(ws[i-1].Raw) || readingVerbs[norm(ws, i-1)] || clauseMark(ws[i].Raw)
}
