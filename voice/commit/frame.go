package commit

import (
	"strings"
	"time"

	"github.com/spirit-app/spirit/voice/intent"
)

// kind is how the lawyer put the commitment, which decides how much else
// it needs to be one.
type kind int

const (
	// will: "I'll", "I will", "I'm going to", "we'll", "why don't I". A
	// promise even without a time (then an open commitment).
	will kind = iota
	// can: "I can get you … by …". An offer, a commitment only with a time.
	can
	// letMe: "let me fix the prorations by three thirty". Also said of
	// the next few seconds ("let me check"), so only with a time.
	letMe
	// youHave: "you'll have it by Monday". Only with a time; the task is
	// sending what they will have.
	youHave
	// present: "I'm sending it over tonight". Only with a time and a verb
	// of delivery: "I'm seeing the kids tonight" is no promise.
	present
)

// frame is where a commitment is said.
type frame struct {
	kind  kind
	start int  // the subject's word
	body  int  // the first word after the frame: the verb
	we    bool // said for the firm ("we'll"): not of meeting verbs
}

// adverbs may sit inside a frame ("I'll definitely send", "I really will").
var adverbs = set("just", "definitely", "certainly", "absolutely", "also", "then", "first",
	"quickly", "personally", "gladly", "happily", "still", "now", "actually", "really", "totally",
	"surely", "immediately", "simply", "both", "all", "absolutely", "def", "100", "promptly",
	"myself", "ourselves", "instead", "again", "separately", "finally")

// openers are said between the frame and the verb without changing the
// promise: "I'll go ahead and file it", "I'll make sure to send it".
var openers = phrases("go ahead and", "go and", "make sure to", "make sure that i|we", "make sure i|we",
	"be sure to", "be able to", "make a point of", "get around to")

func skipAdverbs(ws []tok, j int) int {
	for {
		switch {
		case adverbs[norm(ws, j)]:
			j++
		case phraseAt(ws, j, openers) > 0:
			j += phraseAt(ws, j, openers)
		default:
			return j
		}
	}
}

// goingTo is the length of "going to" or "gonna" at j, else 0.
func goingTo(ws []tok, j int) int {
	switch {
	case at(ws, j, "going", "to"):
		return 2
	case at(ws, j, "gonna"):
		return 1
	}
	return 0
}

// frameAt reads a commitment frame starting at ws[i].
func frameAt(ws []tok, i int) (frame, bool) {
	f := frame{start: i, kind: will}
	w := norm(ws, i)
	j := -1
	switch w {
	case "i'll", "we'll":
		j = i + 1
	case "i", "we":
		k := skipAdverbs(ws, i+1)
		switch {
		case at(ws, k, "will|shall"):
			j = k + 1
		case at(ws, k, "can"):
			f.kind, j = can, k+1
		case at(ws, k, "promise", "to"):
			j = k + 2
		case w == "i" && at(ws, k, "am"), w == "we" && at(ws, k, "are"):
			j = progressive(ws, skipAdverbs(ws, k+1), &f)
		}
	case "i'm", "im", "we're":
		j = progressive(ws, skipAdverbs(ws, i+1), &f)
	case "let":
		if at(ws, i+1, "me") && !modalBefore(ws, i) {
			f.kind, j = letMe, i+2
		}
	case "you'll":
		f.kind, j = youHave, haveAt(ws, skipAdverbs(ws, i+1))
	case "you":
		switch {
		case at(ws, i+1, "will"):
			f.kind, j = youHave, haveAt(ws, skipAdverbs(ws, i+2))
		case at(ws, i+1, "can", "expect"):
			f.kind, j = youHave, haveAt(ws, i+2)
		}
	case "will", "gonna":
		// Said without a subject at the start of a sentence, "will send it
		// tomorrow" is the speaker's; "will you…" asks.
		if clauseStart(ws, i) && !subjects[norm(ws, i+1)] && !thirdParty[norm(ws, i+1)] && !at(ws, i+1, "do|be") {
			j = i + 1
		}
	case "expect":
		// "expect the draft from me by Thursday", said as a sentence.
		if clauseStart(ws, i) {
			f.kind, j = youHave, haveAt(ws, i)
		}
	case "why":
		if at(ws, i, "why", "don't|dont", "i|we") {
			w, j = norm(ws, i+2), i+3
		}
	case "what":
		if whatIllDo(ws, i) {
			for j = i + 1; norm(ws, j) != "is"; j++ {
			}
			w, j = norm(ws, i+1), j+1
		}
	}
	if j < 0 {
		return frame{}, false
	}
	f.we = strings.HasPrefix(w, "we")
	f.body = j
	if f.kind != youHave {
		f.body = skipAdverbs(ws, j)
	}
	return f, f.body < len(ws)
}

// clauseStart reports whether ws[i] opens a clause: first, or after
// discourse words only, or after a pause.
func clauseStart(ws []tok, i int) bool {
	k := i - 1
	for k >= 0 && discourse[norm(ws, k)] && !strings.HasSuffix(ws[k].Raw, ",") {
		k--
	}
	return k < 0 || strings.HasSuffix(ws[k].Raw, ",")
}

// progressive reads what follows "I'm": "going to", or a verb of
// delivery in -ing said for the future ("I'm filing it Thursday").
func progressive(ws []tok, k int, f *frame) int {
	if n := goingTo(ws, k); n > 0 {
		return k + n
	}
	if g := norm(ws, k); strings.HasSuffix(g, "ing") && deliveryVerbs[base(g)] {
		f.kind = present
		return k
	}
	return -1
}

// haveAt is the position of the verb of "you'll have/get/receive it", or
// -1: "you'll have to…" and "you'll get me…" are theirs to do.
func haveAt(ws []tok, k int) int {
	if at(ws, k, "see") && !at(ws, k+1, "it|them|the|an|a|our|my|this|those|these|some|everything") {
		return -1 // "you'll see what I mean"
	}
	if at(ws, k, "have|get|receive|see|expect") && !at(ws, k+1, "to|me|us|i|got|been|a|an|that|it's") {
		return k
	}
	if at(ws, k, "have|get|receive|see|expect", "a|an") && !at(ws, k+2, "chance|look|problem|question|call") {
		return k
	}
	return -1
}

// modalBefore: "they won't let me file", "you'll let me know" put the
// lawyer in someone else's sentence.
func modalBefore(ws []tok, i int) bool {
	p := norm(ws, i-1)
	return auxiliaries[p] || subjects[p] || thirdParty[p] ||
		oneOf(p, "won't", "you'll", "they'll", "she'll", "he'll", "to", "please")
}

func oneOf(w string, ws ...string) bool {
	for _, x := range ws {
		if w == x {
			return true
		}
	}
	return false
}

// Words that end a commitment's clause: what follows is another thought.
var (
	conditionals = phrases("if", "unless", "once", "when", "whenever", "assuming", "provided",
		"providing", "suppose", "supposing", "depending", "as soon as", "as long as", "so long as",
		"in case", "in the event", "only if", "even if", "pending")
	subordinators = set("because", "since", "cause", "'cause", "although", "though", "while",
		"whilst", "whereas", "but", "except", "until", "till")
	coordinators = set("and", "but", "so", "or", "then")
)

// courtesies are conditions that ask for agreement, not ones the promise
// hangs on: "I'll send it Friday if that works".
var courtesies = phrases("if that works", "if that's okay|ok|alright|fine|good|convenient",
	"if that is okay|ok|alright|fine|good|convenient", "if that's all right", "if that helps",
	"if that suits", "if it helps", "if you don't|dont mind", "if that works for you")

// clauseEnd is where the clause of a commitment whose verb is at body ends.
func clauseEnd(ws []tok, body int) int {
	for k := body + 1; k < len(ws); k++ {
		w := norm(ws, k)
		switch {
		case phraseAt(ws, k, conditionals) > 0, subordinators[w], at(ws, k, "so", "that"):
			return k
		case coordinators[w] && (thirdParty[norm(ws, k+1)] || subjects[norm(ws, k+1)]):
			return k
		case coordinators[w]:
			if _, ok := frameAt(ws, k+1); ok {
				return k
			}
		case strings.HasSuffix(ws[k-1].Raw, ",") && (thirdParty[w] || subjects[w]):
			return k
		}
		if _, ok := frameAt(ws, k); ok && !embedding[norm(ws, k-1)] {
			return k
		}
	}
	return len(ws)
}

// hedges say the promise may not be kept; said around a commitment they
// make it none.
var (
	hedgeWords = set("maybe", "perhaps", "probably", "possibly", "hopefully", "ideally",
		"theoretically", "hoping", "might", "doubt", "wondering", "unsure", "likely", "potentially",
		"tentatively", "conceivably", "presumably",
		// Habits are not promises: "usually I'll send it on Friday".
		"usually", "normally", "typically", "generally", "sometimes", "often", "occasionally",
		"rarely", "seldom")
	hedgePhrases = phrases("i think", "i thought", "i guess", "i suppose", "i hope", "i believe",
		"i expect", "i imagine", "i reckon", "i figure", "i'd say", "not sure", "no way", "in theory",
		"worst case", "best case", "with any luck", "with luck", "fingers crossed", "i wonder",
		"chances are", "i don't|dont know", "i dunno", "i don't|dont think", "not certain",
		"if possible", "if i can", "if i get a chance", "if i have time", "if i get time",
		"if we can", "at best", "or not", "all being well", "god willing", "touch wood",
		"knock on wood", "i'm not sure", "i am not sure", "not promising", "no promises",
		"can't promise", "cannot promise", "i'd like to think", "i'd hope", "we'll see",
		// A lower bound is not a deadline: "Friday at the earliest".
		"at the earliest", "no earlier than", "not before", "not until")
	// tryVerbs put a hedge where the verb should be: "I'll try to send it".
	tryVerbs = set("try", "attempt", "aim", "endeavor", "endeavour", "hope", "want", "plan",
		"intend", "consider", "think", "wish", "mean", "expect", "need", "like", "love",
		"prefer", "hate", "struggle", "probably", "maybe", "likely", "possibly", "hopefully")
	reporting = set("said", "says", "told", "tells", "thinks", "thought", "expects", "assumes",
		"claims", "promised", "mentioned", "reckons", "figures", "hopes", "suggested", "wrote",
		"writes", "reads", "goes", "asks", "asked", "states", "stated", "replied", "replies",
		"responded", "emailed", "texted")
	embedding = set("that", "which", "what", "whether", "how", "where", "who", "than", "as", "if",
		"when", "once", "whatever", "whenever", "unless", "because", "since", "why")
	resets = set("but", "otherwise", "anyway", "anyways", "regardless")
)

func hedged(ws []tok, from, to int) bool {
	for k := from; k < to && k < len(ws); k++ {
		if hedgeWords[norm(ws, k)] || phraseAt(ws, k, hedgePhrases) > 0 {
			return true
		}
	}
	return false
}

// refusedBefore reports whether what was said before the frame at start,
// in the same sentence, takes the promise back: a condition ("if they
// agree, I'll…"), a hedge ("I think I'll…"), someone else's report ("she
// said I'll…"), or a clause the frame is part of ("the draft that I'll…").
func refusedBefore(ws []tok, start int) bool {
	from := 0
	for k := start - 1; k >= 0; k-- {
		if resets[norm(ws, k)] {
			from = k + 1
			break
		}
	}
	for k := from; k < start; k++ {
		if phraseAt(ws, k, conditionals) > 0 && phraseAt(ws, k, courtesies) == 0 {
			return true
		}
	}
	// A hedge anywhere before counts, even across "but": "no promises,
	// but I'll send it tomorrow".
	if hedged(ws, 0, start) {
		return true
	}
	if relative(ws, from, start) {
		return true
	}
	if p := norm(ws, start-1); embedding[p] && !whatIllDo(ws, start) {
		return true
	}
	for _, r := range []int{start - 1, start - 2} {
		if !reporting[norm(ws, r)] {
			continue
		}
		if r == start-2 && !oneOf(norm(ws, start-1), "him", "her", "them", "me", "us", "you", "everyone") {
			continue
		}
		if !oneOf(norm(ws, r-1), "i", "we") {
			return true
		}
	}
	return false
}

// determiners open a noun phrase.
var determiners = set("the", "a", "an", "this", "that", "these", "those", "our", "my", "his",
	"her", "their", "your", "any", "every", "each")

// finiteVerbs are what a sentence's own verb often is after a relative
// clause: "the draft I'll send you tomorrow has the changes".
var finiteVerbs = set("has", "have", "is", "are", "was", "were", "looks", "needs", "includes",
	"contains", "should", "will", "won't", "must", "covers", "goes", "shows", "says")

// relative reports whether the frame at start opens a relative clause
// without "that": a noun phrase before it, and the sentence's own verb
// after it.
func relative(ws []tok, from, start int) bool {
	k := from
	for k < start && discourse[norm(ws, k)] {
		k++
	}
	if k >= start || !determiners[norm(ws, k)] {
		return false
	}
	for _, w := range ws[k:start] {
		if subjects[w.Norm] || thirdParty[w.Norm] || finiteVerbs[w.Norm] {
			return false
		}
	}
	for j := start + 1; j < len(ws); j++ {
		if finiteVerbs[norm(ws, j)] && !embedding[norm(ws, j-1)] && !oneOf(norm(ws, j-1), "who") {
			return true
		}
	}
	return false
}

// conditionalAfter reports whether the clause is followed by a condition
// the promise hangs on ("I'll file it tomorrow if they agree").
func conditionalAfter(ws []tok, end int) bool {
	return phraseAt(ws, end, conditionals) > 0 && phraseAt(ws, end, courtesies) == 0
}

// leisure words mark small talk: "I'm going to take the kids skiing next
// week" is a plan, not something the lawyer owes anyone.
var leisure = set("kids", "kid", "vacation", "holiday", "holidays", "lake", "beach", "golf",
	"tennis", "gym", "skiing", "ski", "hike", "hiking", "dinner", "lunch", "breakfast", "brunch",
	"coffee", "drinks", "beer", "wine", "movie", "movies", "concert", "game", "birthday", "wedding",
	"barbecue", "bbq", "swim", "swimming", "jog", "workout", "yoga", "nap", "sleep", "relax",
	"cabin", "cottage", "camping", "fishing", "shopping", "groceries", "haircut", "massage",
	"pizza", "sushi", "cocktails", "marathon", "playoffs", "spa")

// timePreps before a meal or outing make it a time ("after lunch").
var timePreps = set("after", "before", "by", "at", "over", "during", "around", "until", "till", "past")

func smallTalk(ws []tok) bool {
	for k, w := range ws {
		if leisure[w.Norm] && !timePreps[norm(ws, k-1)] && !oneOf(norm(ws, k-2), "after", "before", "by", "at", "over", "during") {
			return true
		}
	}
	return false
}

// commitment reads the commitment of frame f whose clause ends at end.
func commitment(ws []tok, f frame, end int, now time.Time, before func() []tok) (Commitment, bool) {
	if refusedBefore(ws, f.start) || hedged(ws, f.body, end) || hedged(ws, end, end+1) || conditionalAfter(ws, end) {
		return Commitment{}, false
	}
	body := ws[f.body:end]
	if len(body) == 0 || smallTalk(body) {
		return Commitment{}, false
	}
	due, hasTime, _, rest := intent.LiftTime(aliasTimes(body), now)
	if !hasTime {
		due, hasTime = timeBefore(ws, f.start, now)
	}
	if !hasTime && f.kind != will {
		return Commitment{}, false
	}
	task, ok := taskOf(f, rest)
	if !ok {
		return Commitment{}, false
	}
	text := readBack(resolve(task, before))
	if text == "" {
		return Commitment{}, false
	}
	if !hasTime {
		due = time.Time{}
	}
	return Commitment{Task: text, Deadline: due, HasTime: hasTime, Key: key(text, due, hasTime)}, true
}

// timeBefore reads a time said before the frame, in the same stretch of
// the sentence: "tomorrow morning I'll file it", "okay so the redline by
// noon, I'll send it over". A stretch with its own subject ("she filed it
// Monday and I'll…") is another clause, whose time is not the promise's.
func timeBefore(ws []tok, start int, now time.Time) (time.Time, bool) {
	from := 0
	for k := start - 1; k >= 0; k-- {
		if coordinators[norm(ws, k)] || subordinators[norm(ws, k)] {
			from = k + 1
			break
		}
	}
	if due, ok := timeOfSegment(ws[from:start], now); ok {
		return due, true
	}
	// "give me till Friday and I'll have the memo done": the time the
	// lawyer asked for is the one promised.
	if from > 0 && norm(ws, from-1) == "and" {
		k := from - 2
		for k > 0 && !coordinators[norm(ws, k-1)] && !strings.HasSuffix(ws[k-1].Raw, ".") {
			k--
		}
		for k < from-1 && discourse[norm(ws, k)] {
			k++
		}
		if at(ws, k, "give|allow", "me|us") {
			due, ok, _, _ := intent.LiftTime(aliasTimes(ws[k+2:from-1]), now)
			return due, ok
		}
	}
	return time.Time{}, false
}

// timeOfSegment reads the time of a stretch before a frame, unless the
// stretch has a subject of its own.
func timeOfSegment(seg []tok, now time.Time) (time.Time, bool) {
	for _, w := range seg {
		if subjects[w.Norm] || thirdParty[w.Norm] || strings.Contains(w.Norm, "'") && !strings.HasSuffix(w.Norm, "'s") {
			return time.Time{}, false
		}
	}
	due, ok, _, _ := intent.LiftTime(aliasTimes(seg), now)
	return due, ok
}

// onlyTime reads words that are nothing but a time ("By Friday.", "end
// of day, okay?"): said right after an open promise, they are its time.
func onlyTime(ws []tok, now time.Time) (time.Time, bool) {
	for len(ws) > 0 && discourse[ws[0].Norm] {
		ws = ws[1:]
	}
	if len(ws) == 0 {
		return time.Time{}, false
	}
	due, ok, _, rest := intent.LiftTime(aliasTimes(ws), now)
	if !ok {
		return time.Time{}, false
	}
	for _, w := range trimEnd(append([]tok{word("x")}, rest...))[1:] {
		if !discourse[w.Norm] {
			return time.Time{}, false
		}
	}
	return due, true
}

// aliasTimes rewrites the few ways of saying a time that the command
// grammar does not read into ones it does: "within the hour" is "in an
// hour", "in the next 20 minutes" is "in 20 minutes".
func aliasTimes(ws []tok) []tok {
	var out []tok
	for i := 0; i < len(ws); i++ {
		switch {
		case at(ws, i, "within|in", "the", "hour"), at(ws, i, "within|in", "the", "next", "hour"):
			out = append(out, word("in"), word("an"), word("hour"))
			i += 2
			if norm(ws, i) == "next" {
				i++
			}
		case at(ws, i, "within|in", "the", "next"):
			out = append(out, word("in"))
			i += 2
		default:
			out = append(out, ws[i])
		}
	}
	return out
}
