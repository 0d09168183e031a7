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

// The privacy controls are a table: the verbs that switch a sense off, the
// names of each sense, and the ways of naming both together ("mic off",
// "turn your ears back on"). A new synonym goes in one list and works in
// every form.
var (
	// offVerbs switch something off.
	offVerbs = `stop|pause|quit|halt|disable|deactivate|suspend|kill|cut|end|cease|freeze|mute|silence|` +
		`turn off|switch off|shut off|shut down|knock off|hold off on|hold off|` +
		`pause on|put a (?:pause|hold|stop) (?:on|to)|` +
		`take a break from|give (?:it )?a rest with|no more|no|enough|enough with the|lay off(?: the)?|` +
		`(?:that's|thats|that is) enough(?: of the| of| with the)?`
	offVerb = `(?:` + offVerbs + `)`

	// listenNames and watchNames name each sense as a noun or gerund.
	listenNames = `(?:the |your |my )?(?:listening|mic|mike|microphone|audio|ears|dictation|transcribing|transcription|eavesdropping|voice commands|voice input)`
	watchNames  = `(?:the |your |my )?(?:(?:taking|grabbing|making|capturing|snapping) )?(?:screen ?(?:watching|watcher|capture|capturing|captures|recording|reading|monitoring|sharing|scanning|grabs|grabbing|shots?)|screen|watching|watcher|screenshots|screen shots|screengrabs|screen grabs|screenshotting|eyes)`
	// lookVerbs are ways of looking at a screen.
	lookVerbs = `(?:watching|looking at|peeking at|peeking|reading|recording|capturing|monitoring|snooping on|snooping|spying on|glancing at|scanning|viewing|checking)`
	screens   = `(?:my|the) (?:screen|screens|monitor|monitors|display|desktop|windows)`

	// switchOff names a sense first and then switches it off: "turn the
	// mic off", "mic off", "put listening on hold".
	switchOff = func(names string) string {
		return `(?:(?:turn|switch|shut|flip|put|click) )?` + names + ` (?:off|down)|put ` + names + ` on (?:hold|pause|mute)`
	}
	// backOn names a sense and switches it back on.
	backOn = func(names string) string {
		return `(?:turn|switch|flip|put|click) ` + names + ` back on|(?:turn|switch) (?:back )?on ` + names + `|` +
			names + ` back on|(?:re-?enable|re-?activate|enable|activate|reactivate) ` + names
	}
	resumeNames = `(?:the |your |my )?(?:mic|mike|microphone|listening|watching|screen watching|screen capture|ears|eyes|it|everything|both|audio)`

	// The privacy patterns name what to pause right after the verb, so
	// "stop watching and listening" is read by the first thing named.
	pauseWatching = alt(
		offVerb+` `+lookVerbs+` `+screens,
		offVerb+` `+watchNames+`(?: (?:me|us|`+screens+`))?`,
		offVerb+` (?:looking|peeking|snooping|spying)(?: (?:at|on) (?:me|us))?`,
		switchOff(watchNames),
		// "not" after a request frame: "could you not watch my screen".
		`(?:don't|dont|do not|not|no) (?:watch|watching|look at|looking at|peek at|peeking at|read|reading|record|capture|snoop on) `+screens,
		`(?:look|turn|avert your eyes) away(?: from `+screens+`)?`,
		`eyes off `+screens,
		`(?:close|cover|shut) your eyes`,
	)
	pauseListening = alt(
		offVerb+` `+listenNames+`(?: (?:to|on) (?:me|us))?`,
		switchOff(listenNames),
		`stop recording`,
		`mute(?: yourself)?$`,
		`(?:don't|dont|do not|not) listen`,
		`go deaf`,
		`(?:cover|plug|close|shut) your ears`,
	)
	// barePause is a pause without an object. Said to Spirit it means the
	// microphone (Spirit's first privacy control); said in a room it is as
	// likely about a video or a witness, so it needs nothing after it, or
	// the wake phrase or Spirit's name before it.
	barePause = alt(`pause`)
	// bareResume names no sense. It is a command on its own, but after a
	// permission ("let's resume", "you can resume now") it is what a lawyer
	// says to a witness, and turning the microphone back on is not a
	// mistake to make on overheard words.
	bareResume = alt(`(?:resume|unpause|un-pause|unmute|un-mute|unfreeze|restart)(?: (?:again|now|everything|both|all))*$`)
	resume     = alt(
		`(?:resume|unpause|un-pause|unmute|un-mute|unfreeze|restart)(?: (?:listening|watching|the screen|my screen|screen watching|everything|both|all|and|again|now))*$`,
		`(?:start|begin|continue|restart|go back to|get back to|back to|carry on|keep on|resume) (?:listening|watching)`,
		`(?:you can )?(?:start )?(?:listen|listening)(?: to me)? again`,
		`(?:you can )?(?:start )?(?:watch|watching)(?: `+screens+`)? again`,
		// "look again" alone is said of documents; looking needs the screen.
		`(?:you can )?(?:start )?(?:look|looking|peek|peeking) at `+screens+` again`,
		backOn(resumeNames),
	)
)

// buttons are Spirit's commands that people also name as a button to
// press: "hit resume", "press the snooze button", "tap mute".
var buttons = map[string]bool{
	"pause": true, "resume": true, "unpause": true, "mute": true, "unmute": true,
	"snooze": true, "cancel": true,
}

// pressVerbs press a button.
var pressVerbs = map[string]bool{
	"hit": true, "press": true, "push": true, "tap": true, "click": true, "smash": true,
	"select": true, "choose": true,
}

// pressButton reads "hit resume", "press the pause button", "click on
// snooze" as the button's own word, so every command named by a button
// takes every way of pressing it, and what follows ("hit pause on the
// video") is judged as after the bare word. pressed reports a change.
func pressButton(ts []token) (out []token, pressed bool) {
	if !pressVerbs[word(ts, 0)] {
		return ts, false
	}
	j := 1
	if words(ts, j, "on") {
		j++ // "click on snooze"
	}
	if words(ts, j, "the") {
		j++
	}
	if !buttons[word(ts, j)] {
		return ts, false
	}
	out = append(out, ts[j])
	if words(ts, j+1, "button") {
		j++
	}
	return append(out, ts[j+1:]...), true
}

// asideWords may follow a privacy command without changing what it asks:
// "stop listening for now", "pause watching and listening too".
var asideWords = map[string]bool{
	"now": true, "please": true, "thanks": true, "thank": true, "you": true, "spirit": true,
	"again": true, "a": true, "an": true, "bit": true, "while": true, "moment": true,
	"minute": true, "minutes": true, "sec": true, "second": true, "seconds": true,
	"hour": true, "hours": true, "few": true, "couple": true, "of": true, "the": true,
	"time": true, "being": true, "rest": true, "day": true, "today": true, "tonight": true,
	"right": true, "away": true, "immediately": true, "already": true, "completely": true,
	"entirely": true, "altogether": true, "fully": true, "too": true, "as": true, "well": true,
	"ok": true, "okay": true, "then": true, "and": true, "both": true, "everything": true,
	"all": true, "listening": true, "watching": true, "me": true, "us": true, "to": true,
	"my": true, "screen": true, "mic": true, "microphone": true, "ears": true, "eyes": true,
	"off": true, "down": true, "temporarily": true, "yourself": true, "your": true,
	"awhile": true, "long": true, "so": true, "next": true, "morning": true,
	"afternoon": true, "evening": true, "call": true, "meeting": true, "also": true,
}

// asideStarts begin a clause that gives the reason or the span ("while I
// take this call", "I'm with a client", "until I say so", "for the
// meeting"); whatever follows it is the lawyer's business.
var asideStarts = map[string]bool{
	"for": true, "while": true, "during": true, "until": true, "till": true, "til": true,
	"because": true, "cause": true, "since": true, "when": true, "whilst": true,
	"i": true, "i'm": true, "im": true, "i've": true, "i'll": true, "i'd": true,
	"we": true, "we're": true, "we've": true, "we'll": true, "it's": true, "there's": true,
}

// isAside reports whether the words after a privacy command only qualify
// it. Anything else makes it ordinary speech that happens to start with
// the same words: "stop watching the clock", "stop listening to him".
func isAside(ts []token) bool {
	for i := 0; i < len(ts); i++ {
		w := ts[i].word
		switch {
		case asideStarts[w]:
			return true
		case asideWords[w]:
		default:
			if _, n := cardinal(ts, i); n == 0 {
				return false
			}
		}
	}
	return true
}

// parsePrivacy reads the privacy controls.
func parsePrivacy(ts []token, f framing) (Kind, bool) {
	if matches(bareResume, ts) && f.weak && !f.named {
		return "", false
	}
	for _, c := range []struct {
		phrase *regexp.Regexp
		kind   Kind
	}{
		{pauseWatching, PauseWatching},
		{pauseListening, PauseListening},
		{resume, Resume},
	} {
		if n := prefixLen(c.phrase, ts); n > 0 && isAside(ts[n:]) {
			return c.kind, true
		}
	}
	if n := prefixLen(barePause, ts); n > 0 && (n == len(ts) || f.named && isAside(ts[n:])) {
		return PauseListening, true
	}
	return "", false
}

// cancelPhrase is a whole utterance taking back the last thing Spirit did.
// It must be the whole utterance: "cancel my 3 o'clock with Marcy" is a
// request for work, not "cancel that". The verbs that mean only "take back"
// may take "it"; the ones people also say of other things ("drop it",
// "skip it", "kill it") need "that" or a name for what Spirit did.
var cancelPhrase = func() *regexp.Regexp {
	const (
		what = `(?:that|this|last|that one|this one|the last one|the last thing|last one|that last one|` +
			`(?:that|this|the|the last|my last|the previous|that last) (?:reminder|one|request|command|thing|nudge)|` +
			`what i (?:just )?said|the reminder i just (?:set|made|asked for))`
		undoVerbs = `cancel|scratch|strike|scrap|nix|ditch|delete|remove|erase|undo|revoke|retract|withdraw|` +
			`disregard|forget|forget about|take back|scrub|belay|cross out|cross off|discard`
		otherVerbs = `drop|kill|skip|lose|dump|toss|trash|bin|axe|wipe|clear|void|reverse|throw out|throw away|get rid of|ignore`
	)
	return regexp.MustCompile(`^(?:never ?mind(?: that| it| about (?:it|that))?|nevermind(?: that| it)?|` +
		`(?:cancel|undo|abort|disregard)|` +
		`(?:` + undoVerbs + `) (?:` + what + `|it|about it)|` +
		`(?:` + otherVerbs + `) ` + what + `|` +
		`take (?:it|` + what + `) back|call (?:it|that|this) off|` +
		`forget i (?:ever )?said (?:that|it)|` +
		`(?:don't|dont|do not) (?:do that|bother|remind me(?: about (?:that|it|this))?|set (?:that|it|this)(?: reminder)?))$`)
}()

// listPhrase asks what reminders are pending. Each pattern needs the user
// as owner ("my reminders", "do I have"), so "what reminders did the client
// get" is not one.
var listPhrase = alt(
	`(?:what|which)(?:'s| is| are|'re)? (?:all )?(?:of )?(?:my|the) (?:\w+ )?reminders`,
	`(?:what|which|any) (?:\w+ )?reminders (?:do|have|did) i`,
	`(?:what|which) reminders (?:are|is) (?:still |currently |now )?(?:there|pending|set|coming up|open|due|left|outstanding|active)`,
	`(?:do|have|did) i (?:have|got|set) any (?:\w+ )?reminders`,
	`(?:are|is) there any (?:\w+ )?reminders`,
	`any (?:\w+ )?reminders(?: for me| today| pending)?$`,
	`(?:show|list|read|tell|give|bring up|pull up|check|review|go over|go through|look over|look through|look at|read through|scroll through|run through|recite)(?: me)?(?: all)?(?: of)?(?: my| the| all| any)? (?:\w+ )?reminders`,
	// A summary of them: "give me a rundown of my reminders".
	`(?:(?:give|get|read|show|send) me |(?:can|could|may) i (?:get|have|see|hear) )?(?:a|the) (?:quick |short |full )?(?:rundown|run-down|run down|list|summary|recap|readout|overview|roundup|rundown) of (?:all )?my (?:\w+ )?reminders`,
	`(?:my |list )?reminders$`,
	`what(?:'s| is) (?:pending|coming up|on my list|scheduled|outstanding|queued)`,
	`what (?:have i got|do i have) (?:pending|coming up|scheduled|outstanding|queued)`,
	// What is left for the lawyer to do: "what's still on my plate today",
	// "what have I got left for today".
	`what(?:'s| is) (?:still |left |else )?on my (?:plate|list|agenda|to-do list|to do list|todo list)(?: for)?(?: today| tonight| tomorrow| this afternoon| this morning)?$`,
	`what (?:have i got|do i have|have i|is there|'s there) (?:still |yet )?(?:left|remaining|outstanding|still to do|to do)(?: to do)?(?: for| on)?(?: today| tonight| tomorrow| this afternoon| this morning)?$`,
	`what (?:do|else do|am) i (?:still |yet )?(?:have|need|got|supposed) to do(?: for)?(?: today| tonight| tomorrow| this afternoon| this morning)?$`,
	`what (?:did i ask you|have i asked you|am i supposed|are you supposed|are you going) to remind me`,
	`what (?:are you|will you be) reminding me`,
	`remind me (?:of )?(?:what|which) (?:my )?reminders`,
	`how many reminders`,
	`(?:open|display|view|see|recap|repeat|read back|read out|play back|run down|walk me through|run me through)(?: all)?(?: of)?(?: my| the| all| any)? (?:\w+ )?reminders`,
	`(?:let me|lemme) (?:see|hear|have|look at|know)(?: all)?(?: of)?(?: my| the| all| any)? (?:\w+ )?reminders`,
	`what (?:did|have) i (?:ask|asked|tell|told|get|got) you to (?:remember|remind me|keep track of)`,
	`what (?:do|did|should|must) i (?:need to |have to )?remember`,
	`what am i (?:forgetting|supposed to remember)`,
	`what(?:'s| is)? on (?:my|the) (?:reminder|reminders|to-do|to do|todo) list`,
	`(?:my |the )?(?:reminder|to-do|to do|todo) list$`,
	`(?:do|have) i (?:have|got) (?:anything|something) (?:pending|coming up|scheduled|outstanding|queued)`,
	`anything (?:pending|coming up|outstanding)(?: for me)?$`,
)

// snoozeTrigger pushes back the nudge on screen; what follows is only how
// long. againTrigger ("remind me again in 5") is a snooze only when nothing
// but a length of time follows, else "remind me later to call" is a reminder.
var (
	snoozeTarget  = `(?:it|that|this|(?:the|that|this) (?:reminder|nudge|one|notification|alert))`
	snoozeTrigger = alt(
		`snooze`,
		// "off" only with "put": "knock it off" and "kick it off" mean stop and start.
		`(?:push|bump|move|put|kick|shift|set|knock) `+snoozeTarget+` (?:back|out|later|down the road)`,
		`put `+snoozeTarget+` off`,
		`(?:delay|postpone|hold|defer|bump|push|punt|put off|push back|bump back|kick back) `+snoozeTarget,
	)
	againTrigger = alt(
		`(?:remind|ask|bug|ping|nudge|tell) me (?:(?:about|of) (?:it|that|this) )?(?:again|later)`,
		`(?:bring|show) (?:it|that|this) (?:back|again)(?: up)?`,
		`come back to (?:it|that|this|me)`,
	)
	// waitTrigger asks for time without naming the nudge ("give me five
	// more minutes"), or pushes the nudge without saying which way ("push
	// it ninety minutes"); it is a snooze only with a length of time.
	waitTrigger = alt(`give me`, `(?:push|bump|move|shift|kick|delay) `+snoozeTarget)
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
// "till tomorrow"), or a bare number of minutes ("snooze 5"); 0 when none
// is said. understood is false when other words are left over.
func snoozeMinutes(ts []token, now time.Time) (minutes int, understood bool) {
	if words(ts, 0, "to") {
		// "push it to 3": to a time, as "until 3".
		ts = append([]token{{raw: "until", word: "until"}}, ts[1:]...)
	}
	if v, n := cardinal(ts, 1); words(ts, 0, "by|for") && n > 0 && 1+n == len(ts) && v > 0 && v <= 24*60 {
		return v, true // "delay it by 15": a length, not the clock
	}
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
	return 0, allNoise(ts) // no length: snoozeIntent gives the default
}

// snoozeIntent is a Snooze of minutes, or of the default length, marked
// NoLength, when minutes is 0 (none was said).
func snoozeIntent(minutes int) Intent {
	if minutes == 0 {
		return Intent{Kind: Snooze, Minutes: defaultSnooze, NoLength: true}
	}
	return Intent{Kind: Snooze, Minutes: minutes}
}

// nudgeWords name Spirit's nudge; after "snooze" any other thing that is
// not a length or a time ("snooze the meeting") is not Spirit's, nor is
// anything someone else owns ("snooze your alarm").
var (
	nudgeWords = map[string]bool{
		"reminder": true, "reminders": true, "nudge": true, "notification": true,
		"alert": true, "alarm": true, "one": true, "ping": true,
	}
	otherOwners = map[string]bool{"your": true, "his": true, "her": true, "their": true, "our": true}
)

func parseSnooze(ts []token, now time.Time) (Intent, bool) {
	if n := prefixLen(snoozeTrigger, ts); n > 0 {
		m, ok := snoozeMinutes(ts[n:], now)
		if !ok && (!mentions(ts[n:], nudgeWords) || mentions(ts[n:], otherOwners)) {
			return Intent{}, false
		}
		return snoozeIntent(m), true
	}
	if n := prefixLen(againTrigger, ts); n > 0 {
		if m, ok := snoozeMinutes(ts[n:], now); ok {
			return snoozeIntent(m), true
		}
	}
	if n := prefixLen(waitTrigger, ts); n > 0 && n < len(ts) {
		if m, ok := snoozeMinutes(ts[n:], now); ok && !allNoise(ts[n:]) {
			return snoozeIntent(m), true
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
	"knock": {"out"},
	"type":  {"up", "out"},
	"mock":  {"up"},
	"bang":  {"out"},
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
	if correctsTime(ts) {
		return Intent{}, false
	}
	return Intent{Kind: Task, Task: readBack(ts)}, true
}

// correctsTime reports a correction of a time said before ("make that
// Monday", "make it half past four, I'm in court till four"): no work is
// asked, only a time changed, and what it changes was said to someone
// (a promise on a call) or is read elsewhere.
func correctsTime(ts []token) bool {
	if !words(ts, 0, "make|change|move", "that|it") {
		return false
	}
	j := 2
	if words(ts, j, "to|for") {
		j++
	}
	return leadingTime(ts[j:]) > 0
}

// mentions reports whether any word of ts is in set.
func mentions(ts []token, set map[string]bool) bool {
	for _, t := range ts {
		if set[t.word] {
			return true
		}
	}
	return false
}

// matches reports whether re matches at the start of ts.
func matches(re *regexp.Regexp, ts []token) bool { return prefixLen(re, ts) > 0 }
