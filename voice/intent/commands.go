package intent

import (
	"regexp"
	"strings"
	"time"
)

// The short commands are phrase patterns over the normalised words (lower
// case, single spaces, no punctuation). They match at the start only: an
// order to Spirit starts with the order, while "I keep telling him to stop
// watching" is ambient speech.

// alt joins phrase alternatives into one anchored regexp that ends on a word
// boundary.
func alt(phrases ...string) *regexp.Regexp {
	return regexp.MustCompile(`^(?:` + strings.Join(phrases, "|") + `)\b`)
}

var (
	stopVerbs = `stop|pause|quit|halt|disable|suspend|turn off|switch off`
	stopVerb  = `(?:` + stopVerbs + `)`

	// The privacy patterns name what to pause right after the verb, so
	// "stop watching and listening" is read by the first thing named.
	pauseWatching = alt(
		stopVerb+` (?:the |my )?screen ?(?:watching|watcher|capture|capturing|recording|reading|monitoring|sharing)`,
		stopVerb+` watching(?: (?:my|the) screen| me)?`,
		stopVerb+` (?:looking at|reading|recording|capturing|monitoring) (?:my|the) screen`,
		stopVerb+` (?:the |my )?screen$`,
		`(?:don't|dont|do not) (?:watch|look at|read|record|capture) (?:my|the) screen`,
		`look away`,
	)
	pauseListening = alt(
		stopVerb+` (?:listening|transcribing|dictation)`,
		`(?:`+stopVerbs+`|mute|cut) (?:the |my |your )?(?:mic|microphone|audio|ears)`,
		`stop recording`,
		`mute(?: yourself)?$`,
		`(?:don't|dont|do not) listen`,
		`go deaf`,
	)
	resume = alt(
		`(?:resume|unpause|unmute)(?: (?:listening|watching|the screen|my screen|screen watching|everything|both|all|and|again|now))*$`,
		`(?:start|begin|continue|restart|go back to|get back to) (?:listening|watching)`,
		`(?:you can )?(?:start )?(?:listen|listening|watch|watching) again`,
		`(?:turn|switch) (?:the mic|the microphone|listening|watching|screen watching|it|everything) back on`,
		`(?:turn|switch) (?:back )?on (?:the mic|the microphone|listening|watching|screen watching)`,
	)
)

// cancelPhrase is a whole utterance taking back the last thing Spirit did.
// It must be the whole utterance: "cancel my 3 o'clock with Marcy" is a
// request for work, not "cancel that".
var cancelPhrase = regexp.MustCompile(`^(?:never ?mind(?: that| it)?|nevermind(?: that)?|` +
	`cancel(?: that| it| this| that one| the last one| the last thing| last| (?:that|this|the|the last|my last) reminder)?|` +
	`scratch that|strike that|forget (?:that|it|about it|i said that|what i said)|` +
	`undo(?: that| it| the last one| the last thing| last)?|take (?:that|it) back|` +
	`disregard(?: that| it)?|ignore (?:that|what i just said|what i said)|` +
	`(?:delete|remove) (?:that|it|that reminder|the last reminder)|(?:don't|dont|do not) do that)$`)

// listPhrase asks what reminders are pending. Each pattern needs the user
// as owner ("my reminders", "do I have"), so "what reminders did the client
// get" is not one.
var listPhrase = alt(
	`(?:what|which)(?:'s| is| are|'re)? (?:all )?(?:of )?(?:my|the) (?:\w+ )?reminders`,
	`(?:what|which|any) (?:\w+ )?reminders (?:do|have|did) i`,
	`(?:what|which) reminders (?:are|is) (?:there|pending|set|coming up|open|due|left)`,
	`(?:do|have|did) i (?:have|got|set) any (?:\w+ )?reminders`,
	`(?:are|is) there any (?:\w+ )?reminders`,
	`any (?:\w+ )?reminders(?: for me| today| pending)?$`,
	`(?:show|list|read|tell|give|bring up|pull up|check|review|go over|run through|recite)(?: me)?(?: all)?(?: of)?(?: my| the| all| any)? (?:\w+ )?reminders`,
	`(?:my |list )?reminders$`,
	`what(?:'s| is) (?:pending|coming up|on my list|scheduled|outstanding|queued)`,
	`what (?:have i got|do i have) (?:pending|coming up|scheduled|outstanding|queued)`,
	`what (?:did i ask you|have i asked you|am i supposed|are you supposed|are you going) to remind me`,
	`what (?:are you|will you be) reminding me`,
	`remind me (?:of )?(?:what|which) (?:my )?reminders`,
	`how many reminders`,
)

// snoozeTrigger pushes back the nudge on screen; what follows is only how
// long. againTrigger ("remind me again in 5") is a snooze only when nothing
// but a length of time follows, else "remind me later to call" is a reminder.
var (
	snoozeTrigger = alt(
		`snooze`,
		`(?:push|bump|move|put) (?:it|that|this|(?:the|that|this) (?:reminder|nudge)) (?:back|out|off)`,
		`(?:delay|postpone|hold) (?:it|that|this|(?:the|that|this) (?:reminder|nudge))`,
	)
	againTrigger = alt(`(?:remind|ask|bug|ping|nudge|tell) me (?:again|later)`)
)

const defaultSnooze = 10 // README: snooze without a length is 10 minutes

// snoozeNoise are the words around a snooze length that add nothing.
var snoozeNoise = map[string]bool{
	"it": true, "that": true, "this": true, "the": true, "reminder": true, "nudge": true,
	"one": true, "me": true, "again": true, "later": true, "for": true, "by": true,
	"another": true, "more": true, "longer": true, "extra": true, "in": true,
	"until": true, "till": true, "til": true, "a": true, "an": true, "bit": true,
	"little": true, "while": true, "please": true, "then": true, "just": true,
	"back": true, "minutes": true, "ok": true, "okay": true, "about": true,
}

func allNoise(ts []token) bool {
	for _, t := range ts {
		if !snoozeNoise[t.word] {
			return false
		}
	}
	return true
}

// snoozeMinutes reads how long to snooze from the words after the trigger:
// a length ("for 20 minutes", "an hour"), a time to wait for ("until 3",
// "till tomorrow"), or a bare number of minutes ("snooze 5"). understood is
// false when other words are left over.
func snoozeMinutes(ts []token, now time.Time) (minutes int, understood bool) {
	for i := range ts {
		if d, n := matchDuration(ts, i); n > 0 && d.totalMinutes() > 0 {
			return d.totalMinutes(), allNoise(ts[:i]) && allNoise(ts[i+n:])
		}
	}
	if w, rest := extractWhen(ts); !w.hasOffset {
		if due := w.due(now); due != nil {
			if m := minutesUntil(now, *due); m > 0 {
				return m, allNoise(rest)
			}
		}
	}
	for i := range ts {
		if v, n := cardinal(ts, i); n > 0 && v > 0 && v <= 24*60 {
			return v, allNoise(ts[:i]) && allNoise(ts[i+n:])
		}
	}
	return defaultSnooze, allNoise(ts)
}

func parseSnooze(ts []token, now time.Time) (Intent, bool) {
	if n := prefixLen(snoozeTrigger, ts); n > 0 {
		m, _ := snoozeMinutes(ts[n:], now)
		return Intent{Kind: Snooze, Minutes: m}, true
	}
	if n := prefixLen(againTrigger, ts); n > 0 {
		if m, ok := snoozeMinutes(ts[n:], now); ok {
			return Intent{Kind: Snooze, Minutes: m}, true
		}
	}
	return Intent{}, false
}

// taskVerbs start a request for work. Verbs said mostly to people in the
// room ("call me", "take five", "come back", "sign here", "count me in")
// are left out: without a wake phrase they are far more often ambient.
var taskVerbs = map[string]bool{
	"draft": true, "redraft": true, "write": true, "rewrite": true, "compose": true,
	"summarize": true, "summarise": true, "find": true, "search": true, "locate": true,
	"open": true, "fetch": true, "retrieve": true, "send": true, "email": true,
	"e-mail": true, "reply": true, "respond": true, "forward": true, "prepare": true,
	"create": true, "make": true, "schedule": true, "reschedule": true, "book": true,
	"calendar": true, "add": true, "block": true, "review": true, "check": true,
	"proofread": true, "edit": true, "revise": true, "redline": true, "compare": true,
	"translate": true, "read": true, "explain": true, "list": true, "calculate": true,
	"compute": true, "convert": true, "print": true, "save": true, "download": true,
	"upload": true, "attach": true, "research": true, "outline": true, "analyze": true,
	"analyse": true, "extract": true, "highlight": true, "flag": true, "organize": true,
	"organise": true, "sort": true, "update": true, "complete": true, "finish": true,
	"format": true, "share": true, "invite": true, "archive": true, "file": true,
	"note": true, "log": true, "bill": true, "track": true, "cancel": true,
	"delete": true, "clear": true, "mark": true, "cc": true, "accept": true,
	"decline": true, "generate": true, "produce": true, "assemble": true,
	"collect": true, "gather": true, "compile": true, "identify": true, "verify": true,
	"confirm": true, "cite": true, "shepardize": true, "docket": true,
	"transcribe": true, "tag": true, "label": true, "rename": true, "put": true,
	"move": true, "scan": true, "answer": true, "request": true, "reserve": true,
}

// particleVerbs are requests only with the word that follows: "look up the
// statute" but not "look who's here", "tell me about" but not "tell him".
var particleVerbs = map[string][]string{
	"look":  {"up", "for", "into", "through", "over"},
	"pull":  {"up", "together", "out"},
	"dig":   {"up", "into", "out"},
	"fill":  {"out", "in"},
	"set":   {"up"},
	"jot":   {"down"},
	"get":   {"me"},
	"show":  {"me"},
	"tell":  {"me"},
	"help":  {"me"},
	"walk":  {"me"},
	"give":  {"me"},
	"start": {"a", "an", "the", "drafting", "writing", "on"},
}

// notAnObject after a would-be verb shows it was a noun starting a
// statement: "email came in", "draft is ready", "check is in the mail".
var notAnObject = map[string]bool{
	"is": true, "was": true, "are": true, "were": true, "has": true, "had": true,
	"have": true, "will": true, "would": true, "can": true, "could": true,
	"should": true, "did": true, "does": true, "do": true, "came": true, "went": true,
	"says": true, "said": true, "looks": true, "seems": true, "got": true, "you": true,
	"might": true, "must": true, "may": true, "goes": true, "comes": true, "needs": true, "sure": true,
}

// workQuestion is a question about the user's own calendar or mail, which
// Spirit answers as a task.
var workQuestion = alt(`(?:what|what's|when|where|who|which|how many|is there|are there|do i have|did i get|have i got)\b.*\b(?:my|i|me)\b.*\b(?:calendar|schedule|inbox|email|emails|mail|meeting|meetings|appointment|appointments|messages|voicemail|voicemails|deadline|deadlines|docket|hearing|hearings|call|calls)`,
	`(?:what|what's|when|where|who|which|how many|is there|are there|do i have|did i get|have i got)\b.*\b(?:calendar|schedule|inbox|email|emails|mail|meeting|meetings|appointment|appointments|messages|voicemail|voicemails|deadline|deadlines|docket|hearing|hearings|calls)\b.*\b(?:my|i|me)\b`)

// parseTask reads an imperative request for work.
func parseTask(ts []token) (Intent, bool) {
	first := ts[0].word
	if prefixLen(workQuestion, ts) > 0 {
		return Intent{Kind: Task, Task: readBack(ts)}, true
	}
	if len(ts) < 2 || notAnObject[ts[1].word] {
		return Intent{}, false
	}
	if !taskVerbs[first] && !oneOf(ts[1].word, particleVerbs[first]...) {
		return Intent{}, false
	}
	return Intent{Kind: Task, Task: readBack(ts)}, true
}

// matches reports whether re matches at the start of ts.
func matches(re *regexp.Regexp, ts []token) bool { return prefixLen(re, ts) > 0 }
