package commit

import (
	"strings"
	"unicode"

	"github.com/spirit-app/spirit/voice/intent"
)

// notTasks are verbs after "I'll" that promise nothing to do: states,
// wishes and turns of phrase ("I'll be in court", "I'll bet", "I'll pass").
var notTasks = set("be", "need", "want", "expect", "require", "wait", "await", "hear", "guess",
	"suppose", "bet", "assume", "know", "miss", "pass", "admit", "grant", "mean", "forget", "die",
	"stay", "hold", "sleep", "eat", "believe", "remember", "regret", "owe", "accept", "agree",
	"say", "do", "manage", "survive", "live", "feel", "look", "get", "leave", "have", "take", "let")

// taskStarts are the verbs notTasks lists that do name a task when
// something follows: they are checked one by one in taskOf.
var taskStarts = set("do", "get", "leave", "have", "take", "let", "look", "say")

// functionWords cannot be the verb of a task.
var functionWords = set("the", "a", "an", "it", "that", "this", "to", "at", "by", "on", "in", "for",
	"with", "from", "of", "and", "or", "but", "so", "you", "me", "him", "her", "them", "us", "there",
	"here", "not", "never", "no", "too", "yes", "yeah", "okay", "ok", "i", "we", "if", "as", "is",
	"are", "was", "were", "am", "been", "being", "would", "should", "could", "might", "may",
	"must", "can", "will", "shall", "won't", "can't", "don't", "tomorrow", "today", "tonight",
	"later", "soon", "then", "now", "again", "sure", "right", "well", "nothing", "anything",
	"something", "everything", "always", "ever", "one", "what", "which", "when", "where", "how")

// mutualVerbs with "we" are a plan both sides share ("we'll talk Monday"),
// not something the lawyer owes.
var mutualVerbs = set("talk", "speak", "chat", "catch", "meet", "discuss", "see", "regroup",
	"reconvene", "circle", "connect", "touch", "sync", "reconnect", "figure", "play", "cross",
	"go", "hop", "jump", "need", "find", "cover", "work", "revisit")

// giveVerbs take the other side of the call as their receiver, which the
// reminder leaves out: "send you the redline" is "send the redline".
var giveVerbs = set("send", "email", "e-mail", "forward", "mail", "fax", "circulate", "courier",
	"deliver", "return", "bring", "messenger", "resend", "re-send", "get", "have")

// deliveryVerbs are the ones said in the present for the future: "I'm
// filing it Thursday".
var deliveryVerbs = set("send", "file", "serve", "circulate", "email", "call", "draft", "finish",
	"prepare", "submit", "deliver", "forward", "mail", "courier", "return", "get", "turn", "finalize",
	"finalise", "sign", "execute", "lodge", "record", "issue", "produce", "post", "upload", "share",
	"redline", "review", "mark", "messenger", "fax", "wire", "pay", "close", "fund")

// eVerbs are the verbs whose -ing form drops an "e": "filing" is "file".
var eVerbs = set("file", "serve", "circulate", "prepare", "write", "make", "take", "have", "give",
	"schedule", "revise", "finalize", "finalise", "update", "complete", "negotiate", "execute",
	"notarize", "notarise", "issue", "close", "move", "argue", "produce", "analyze", "analyse",
	"summarize", "summarise", "organize", "organise", "raise", "propose", "provide", "arrange",
	"continue", "resolve", "release", "receive", "state", "note", "quote", "compile", "compose",
	"save", "share", "change", "charge", "leave", "come", "use", "type", "merge", "combine",
	"replace", "reconcile", "calculate", "escalate", "coordinate", "generate", "initiate",
	"investigate", "approve", "examine", "manage", "assemble", "advise", "handle", "chase", "phone",
	"lodge", "prepare", "wire", "scan", "circle", "tackle", "dispute", "finalize", "double-check",
	"re-file", "refile", "upload", "license", "amend", "respond", "prepare", "collate", "redline")

// base turns a gerund back into its verb: "sending" send, "filing" file,
// "getting" get.
func base(g string) string {
	stem, ok := strings.CutSuffix(g, "ing")
	if !ok || len(stem) < 2 {
		return g
	}
	if eVerbs[stem+"e"] {
		return stem + "e"
	}
	if n := len(stem); n >= 3 && stem[n-1] == stem[n-2] && !strings.ContainsRune("lsfz", rune(stem[n-1])) {
		return stem[:n-1]
	}
	return stem
}

// taskOf turns the words of a commitment's clause, its time already lifted
// out, into the task the lawyer must do; false when they promise no task.
func taskOf(f frame, ws []tok) ([]tok, bool) {
	if len(ws) == 0 {
		return nil, false
	}
	if f.kind == youHave {
		// "you'll have the revised schedules (from me)": send them.
		np := receiver(dropRecipient(dropFromMe(ws[1:])))
		if len(np) == 0 {
			np = []tok{word("it")}
		}
		if oneOf(norm(np, len(np)-1), "call", "ring", "buzz") {
			return []tok{word("call"), word("them")}, true
		}
		return append([]tok{word("send")}, np...), true
	}
	if f.kind == present || (norm(ws, 0) == "be" && strings.HasSuffix(norm(ws, 1), "ing")) {
		// "I'm sending it", "I'll be sending it": send it.
		if norm(ws, 0) == "be" {
			ws = ws[1:]
		}
		ws = append([]tok{word(base(norm(ws, 0)))}, ws[1:]...)
	}
	if at(ws, 0, "make", "sure", "you|they|he|she", "have|get|receive") {
		// "I'll make sure you have it by Friday": send it.
		f.kind = youHave
		return taskOf(f, ws[3:])
	}
	v := norm(ws, 0)
	if functionWords[v] || tryVerbs[v] || strings.Contains(v, "'") || subjects[v] {
		// A verb has no apostrophe: "I'll I'll" is a stammer.
		return nil, false
	}
	if f.we && mutualVerbs[v] {
		return nil, false
	}
	if notTasks[v] && !(taskStarts[v] && taskAfter(v, ws)) {
		return nil, false
	}
	if f.kind == letMe && oneOf(v, "know", "see", "think", "guess", "ask", "say", "be", "explain",
		"tell", "rephrase", "clarify", "understand", "introduce", "repeat", "interrupt", "stop",
		"just", "play") {
		return nil, false
	}
	switch {
	case v == "make" && len(ws) == 2 && at(ws, 1, "it|that"):
		// "I can make it at 2": attendance, not a task.
		return nil, false
	case v == "see" && at(ws, 1, "you|if|whether|what|how|about|when|where|who|why|y'all"),
		oneOf(v, "talk", "speak", "chat", "catch", "meet") && mentionsYou(ws[1:min(len(ws), 4)]),
		v == "tell" && (at(ws, 1, "you", "what|this|something") || at(ws, 1, "you", "the", "truth")),
		v == "catch" && at(ws, 1, "up"):
		return nil, false
	}
	out := receiver(ws)
	out = trimEnd(out)
	return out, len(out) > 0
}

// taskAfter decides, for the verbs that are also turns of phrase, whether
// what follows makes a task of them.
func taskAfter(v string, ws []tok) bool {
	switch v {
	case "do":
		// "I'll do the markup tonight" is a task; "I'll do Friday" and
		// "I'll do my best" are not.
		return len(ws) > 1 && !at(ws, 1, "my|our", "best") && !at(ws, 1, "what|that|it|this|so|too|fine|well|whatever")
	case "get":
		return len(ws) > 1 && !at(ws, 1, "to", "work") && !at(ws, 1, "there|going|lucky|why|what")
	case "have":
		return len(ws) > 1 && !at(ws, 1, "to|got|no|nothing|been") && !at(ws, 1, "a", "feeling|problem|think|chance")
	case "leave":
		return len(ws) > 1 && !at(ws, 1, "it|that|this|you|them") && !at(ws, 1, "at|now|early|soon|work|the", "office")
	case "take":
		return len(ws) > 1 && !at(ws, 1, "that|it|this", "as|from|back") && !at(ws, 1, "your|their", "word") &&
			!at(ws, 1, "it", "easy") && !at(ws, 1, "off|a", "break|day|nap|minute|second")
	case "let":
		// "let them know", not "let it go" nor "let you go".
		return at(ws, 2, "know") || at(ws, 3, "know")
	case "look":
		// "look into" with a time is a promise ("I'll look over the lease
		// tonight"); without one it is the README's vague "I'll look into it".
		return at(ws, 1, "into|over|through|at")
	case "say":
		return false
	}
	return false
}

// mentionsVerb: "have my assistant send it to you" is the assistant's
// sending, not the lawyer's having.
func mentionsVerb(ws []tok, verbs map[string]bool) bool {
	for _, w := range ws {
		if verbs[w.Norm] {
			return true
		}
	}
	return false
}

func mentionsYou(ws []tok) bool {
	for _, w := range ws {
		if oneOf(w.Norm, "you", "y'all", "ya") {
			return true
		}
	}
	return false
}

// word makes a token of Spirit's own words.
func word(w string) tok { return tok{Raw: w, Norm: w} }

// dropFromMe removes "from me" and the like after what the other side
// will have: the reminder is the lawyer's, so it goes without saying.
func dropFromMe(ws []tok) []tok {
	var out []tok
	for i := 0; i < len(ws); i++ {
		if at(ws, i, "from", "me|us|our|my") {
			i++
			if at(ws, i, "our|my", "side|end") {
				i += 2
			}
			continue
		}
		out = append(out, ws[i])
	}
	return out
}

// dropRecipient removes where what is sent arrives ("in your inbox",
// "to you"): the other side of the call.
func dropRecipient(ws []tok) []tok {
	if k, n := recipient(ws, 0); k > 0 || n > 0 {
		return append(append([]tok{}, ws[:k]...), ws[k+n:]...)
	}
	return ws
}

// receiver turns the other side of the call into the reminder's third
// person: a give-verb's "you" goes ("send you the redline" is "send the
// redline", "get it over to you" is "send it over"), any other "you" is
// "them" ("call you back" is "call them back").
func receiver(ws []tok) []tok {
	var out []tok
	for i := 0; i < len(ws); i++ {
		w := ws[i].Norm
		if giveVerbs[w] && !at(ws, i+1, "back", "to") {
			verb := ws[i]
			delivered := w != "get" && w != "have"
			if at(ws, i+1, "you") && !at(ws, i+2, "to|back|know|go|on|in|up|off|out|started|covered|through") && i+2 < len(ws) {
				// "send you the redline", "get you our comments".
				out = append(out, toSend(verb))
				i++
				continue
			}
			if k, n := recipient(ws, i+1); k > 0 && (delivered || !mentionsVerb(ws[i+1:k], giveVerbs)) {
				// "get the draft over to you", "have the answer to you".
				out = append(out, toSend(verb))
				out = append(out, ws[i+1:k]...)
				i = k + n - 1
				continue
			}
			if delivered {
				out = append(out, verb)
				continue
			}
		}
		switch w {
		case "you", "ya", "y'all":
			out = append(out, respell(ws[i], "them"))
		case "your":
			out = append(out, respell(ws[i], "their"))
		case "yours":
			out = append(out, respell(ws[i], "theirs"))
		case "yourself", "yourselves":
			out = append(out, respell(ws[i], "themselves"))
		default:
			out = append(out, ws[i])
		}
	}
	return out
}

// toSend: getting or having something to the other side is sending it.
func toSend(verb tok) tok {
	if verb.Norm == "get" || verb.Norm == "have" {
		return respell(verb, "send")
	}
	return verb
}

// recipient finds "to you", "over to you", "for you", "with you", "in your
// inbox" in the give-verb's phrase starting at i: its index and length.
func recipient(ws []tok, i int) (k, n int) {
	for k = i; k < len(ws) && k < i+12; k++ {
		if coordinators[norm(ws, k)] {
			return 0, 0
		}
		switch {
		case at(ws, k, "to|for|with", "you|ya"):
			return k, 2
		case at(ws, k, "in|into", "your", "inbox|hands"), at(ws, k, "on", "your", "desk"):
			return k, 3
		}
	}
	return 0, 0
}

// respell replaces a word, keeping the punctuation heard after it.
func respell(t tok, w string) tok {
	tail := strings.TrimLeftFunc(t.Raw, func(r rune) bool { return unicode.IsLetter(r) || r == '\'' })
	return tok{Raw: w + tail, Norm: w}
}

// endings are said after a promise without being part of it.
var endings = phrases("okay", "ok", "alright", "all right", "then", "and", "so", "yeah", "right",
	"too", "as well", "at the latest", "latest", "or so", "ish", "for sure", "no problem", "sound good",
	"sounds good", "promise", "i promise", "either way", "for you", "for them", "at least", "tops",
	"max", "no later", "no later than that", "if that works", "if that works for you", "if that's okay",
	"if that's ok", "if that helps", "if that's alright", "if that's fine", "if you don't mind",
	"guaranteed", "without fail", "come what may", "no matter what", "or earlier", "or sooner",
	"if not sooner", "if not earlier", "sharp", "on", "by", "at", "before", "the", "a", "over there")

// trimEnd drops what is said after the task.
func trimEnd(ws []tok) []tok {
	for len(ws) > 1 {
		cut := 0
		for _, p := range endings {
			if len(p) < len(ws) && at(ws, len(ws)-len(p), p...) {
				cut = len(p)
				break
			}
		}
		if cut == 0 {
			return ws
		}
		ws = ws[:len(ws)-cut]
	}
	return ws
}

// readBack is the task as the lawyer will read it: their own spelling,
// without the punctuation around it, as the command grammar reads a
// reminder back.
func readBack(ws []tok) string { return intent.ReadBack(ws) }
