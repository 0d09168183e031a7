package intent

// Who the words are for. Before any grammar runs, ParseWith decides
// whether the words were said to Spirit at all: the wake phrase may come
// after small talk in the same stretch of speech ("… so that's settled.
// Hey Spirit, remind me …"), and a name set off by a pause ("Jenny, draft
// a reply", "…, Priya, when you get a chance") calls on someone else, so
// nothing in those words is Spirit's to do. Requests for work need the
// clearest address of all (see parseTask's callers): a question or a
// deadline is what people ask of each other.

// discourse words open or close a sentence without naming anyone, so
// they are never taken for a name said to someone.
var discourse = map[string]bool{
	"look": true, "listen": true, "so": true, "now": true, "right": true, "alright": true,
	"sure": true, "yes": true, "yep": true, "yeah": true, "fine": true, "great": true,
	"perfect": true, "good": true, "cool": true, "honestly": true, "seriously": true,
	"first": true, "next": true, "then": true, "also": true, "actually": true,
	"anyway": true, "anyways": true, "thanks": true, "thank": true, "cheers": true,
	"please": true, "hello": true, "bye": true, "goodbye": true, "quick": true,
	"nope": true, "nah": true, "again": true, "lovely": true, "brilliant": true,
	"excellent": true, "wonderful": true, "awesome": true, "done": true, "thats": true,
	"that's": true, "ok": true, "okay": true, "hi": true, "hey": true, "well": true,
	"sorry": true, "oops": true, "wait": true, "and": true, "but": true, "or": true,
	"oh": true, "ah": true, "hmm": true, "no": true, "not": true, "exactly": true,
	"absolutely": true, "definitely": true, "indeed": true, "agreed": true, "true": true,
	"understood": true, "noted": true, "later": true, "otherwise": true,
}

// callOpeners may come between a pause and a name called on: "…,
// actually Tom, could you take that one".
var callOpeners = map[string]bool{
	"actually": true, "so": true, "and": true, "oh": true, "okay": true, "ok": true,
	"well": true, "hey": true, "hi": true, "right": true, "now": true, "but": true,
	"thanks": true, "cheers": true, "please": true, "sorry": true,
}

// afterOpener reports whether ts[i] follows a call opener said at the
// start or after a pause ("…, actually Tom", "…, thanks Rob", "thank you
// Priya").
func afterOpener(ts []token, i int) bool {
	for _, n := range []int{1, 2} {
		j := i - n
		if j < 0 || j > 0 && !endsClause(ts[j-1]) {
			continue
		}
		if n == 1 && callOpeners[ts[j].word] || n == 2 && words(ts, j, "thank", "you") {
			return true
		}
	}
	return false
}

// vocativeWords call on the people in a room without a name.
var vocativeWords = map[string]bool{
	"guys": true, "folks": true, "everyone": true, "everybody": true, "team": true,
	"y'all": true, "mate": true, "buddy": true,
}

// vocativeAt reports whether ts[i] calls on someone: a name (or "guys",
// "everyone") set off from the words around it by pauses, or followed by
// a request to them ("Tom, could you…", "Priya when you get a chance").
// Spirit's own name is the one name that does not count.
func vocativeAt(ts []token, i int) bool {
	if i < 0 || i >= len(ts) {
		return false
	}
	t := ts[i]
	if !vocativeWords[t.word] && kindOf(ts, i) != kindContent {
		return false
	}
	if i > 0 && !endsClause(ts[i-1]) && !afterOpener(ts, i) {
		return false // "call Dana Whitfield", "send it to Priya"
	}
	switch {
	case i == len(ts)-1:
		return i > 0 // "…, Tom." at the end; a lone name is no request
	case endsClause(t):
		// "Marcy, Tom, and Priya" is a list of people, not a call on Tom.
		return !words(ts, i+1, "and|or|&")
	case words(ts, i+1, "can|could|would|will|when|if", "you"):
		return true
	}
	return false
}

// callsOnSomeoneElse reports whether any word of ts calls on a person
// other than Spirit.
func callsOnSomeoneElse(ts []token) bool {
	for i := range ts {
		if vocativeAt(ts, i) {
			return true
		}
	}
	return false
}

// findWake removes the wake phrase and everything said before it in the
// same stretch of speech (small talk, a goodbye, a few disfluencies), and
// reports whether it was there.
func findWake(ts, wake []token) ([]token, bool) {
	if len(wake) == 0 {
		return ts, false
	}
	for i := 0; i+len(wake) <= len(ts); i++ {
		// After other words the wake phrase starts a new stretch of speech
		// only after a pause: "I told him hey spirit stop listening" is
		// reported speech, "… that's settled. Hey Spirit, …" an order.
		if i > 0 && !endsClause(ts[i-1]) && !onlyDisfluencies(ts[:i]) {
			continue
		}
		match := true
		for k, w := range wake {
			if ts[i+k].word != w.word {
				match = false
				break
			}
		}
		if match {
			return ts[i+len(wake):], true
		}
	}
	return ts, false
}

func onlyDisfluencies(ts []token) bool {
	for _, t := range ts {
		if !disfluencies[t.word] {
			return false
		}
	}
	return true
}
