package intent

import (
	"regexp"
	"strings"
	"unicode"
)

// This file reads reminders tied to a moment rather than a time (issue 15
// §4): "next time I'm in Marcy's email", "when I open the Brookline NDA",
// "next time I talk to Grant". A trigger clause is an opener ("next time",
// "when", "once", "as soon as"), a subject (the lawyer, or the person who
// writes or calls) and a verb whose kind says what to watch for: mail
// verbs and an email named as the object watch for a thread, meeting and
// call verbs for a person, and opening or being in something for an app or
// a document. A clause the grammar cannot read whole is not a trigger, and
// the words stay what they were before: the task of an untimed reminder.

// TriggerKind says what a trigger watches for.
type TriggerKind string

const (
	// OnThread fires when the glance matches a window to a mail thread
	// whose people or subject fit.
	OnThread TriggerKind = "thread"
	// OnApp fires when an app or a window whose name or title fits comes
	// to the front.
	OnApp TriggerKind = "app"
	// OnPerson fires 15 minutes before a meeting with the person.
	OnPerson TriggerKind = "person"
)

// Trigger is the moment a reminder waits for, in the lawyer's words.
type Trigger struct {
	Kind TriggerKind `json:"kind"`
	// Person is whose mail (thread) or whom the lawyer meets (person).
	Person string `json:"person,omitempty"`
	// Subject is words of the thread's subject (thread).
	Subject string `json:"subject,omitempty"`
	// Name is the app, document or window named (app).
	Name string `json:"name,omitempty"`
}

// openers start a trigger clause; each is followed by its subject.
var openers = [][]string{
	{"the", "next", "time"}, {"next", "time"}, {"as", "soon", "as"},
	{"the", "moment"}, {"the", "minute"}, {"the", "second"}, {"when"}, {"once"},
}

// openerLen is the length of the trigger opener at ts[i], or 0.
func openerLen(ts []token, i int) int {
	for _, o := range openers {
		if words(ts, i, o...) {
			n := len(o)
			if words(ts, i+n, "that") {
				n++ // "next time that I open ..."
			}
			return n
		}
	}
	return 0
}

// verbKind is what a verb phrase after the lawyer ("I ...") watches for.
type verbKind int

const (
	verbOpen    verbKind = iota + 1 // open, be in, look at: an app, a document or an email
	verbPerson                      // talk to, meet with: a person
	verbMail                        // email, hear from: that person's thread
	verbSeeWhom                     // see: a person, or an email or document when one is named
	verbHave                        // have ... open: an app or a document
)

// verbPhrase is a verb phrase, each element listing alternatives.
type verbPhrase struct {
	words []string
	kind  verbKind
}

// lawyerVerbs follow "I" in a trigger clause; "I'm" / "I am" forms follow
// with their participle or preposition. Longer phrases first.
var lawyerVerbs = []verbPhrase{
	{[]string{"got", "a|the|my", "call|meeting|chat|catch-up|zoom", "with"}, verbPerson},
	{[]string{"have|got"}, verbHave},
	{[]string{"have|get|hop|jump", "on", "a|the|my", "call|zoom|teams", "with"}, verbPerson},
	{[]string{"have|get|set", "a|the|my", "call|meeting|chat|catch-up|word", "with"}, verbPerson},
	{[]string{"on", "a|the", "call|phone|zoom", "with"}, verbPerson},
	{[]string{"in", "a|the|my", "meeting|call", "with"}, verbPerson},
	{[]string{"get|receive", "an|a|the", "email|e-mail|message|mail|note|reply", "from"}, verbMail},
	{[]string{"meet", "up", "with"}, verbPerson},
	{[]string{"catch", "up", "with"}, verbPerson},
	{[]string{"talk|speak|chat|meet|talking|speaking|chatting|meeting", "to|with"}, verbPerson},
	{[]string{"meet|meeting|see|call|phone|ring|seeing|calling"}, verbSeeWhom},
	{[]string{"hear", "back", "from"}, verbMail},
	{[]string{"hear|heard", "from"}, verbMail},
	{[]string{"write|reply|respond|writing|replying|responding", "to"}, verbMail},
	{[]string{"email|e-mail|emailing|answer"}, verbMail},
	{[]string{"look|looking", "at|through"}, verbOpen},
	{[]string{"go|going|switch|switching|get|getting", "into|to"}, verbOpen},
	{[]string{"pull|pulling|bring|bringing", "up"}, verbOpen},
	{[]string{"work|working", "on|in"}, verbOpen},
	{[]string{"open|opening|read|reading|check|checking|view|viewing|use|using|launch|review|reviewing|start"}, verbOpen},
	{[]string{"in|into|on"}, verbOpen},
}

// theirVerbs follow a person's name: "Marcy emails me", "Grant calls".
var theirVerbs = []verbPhrase{
	{[]string{"sends|forwards", "me", "an|a|the|another", "email|e-mail|message|note|reply|mail"}, verbMail},
	{[]string{"writes|replies|responds|gets", "back", "to", "me"}, verbMail},
	{[]string{"writes|replies|responds", "to", "me"}, verbMail},
	{[]string{"emails|e-mails|messages|texts|writes", "me", "back"}, verbMail},
	{[]string{"emails|e-mails|messages|writes|mails|replies|responds|texts", "me|back|to"}, verbMail},
	{[]string{"emails|e-mails|writes|replies|responds"}, verbMail},
	{[]string{"calls|phones|rings", "me"}, verbPerson},
	{[]string{"calls|phones|rings"}, verbPerson},
}

// mailNouns name an email or a thread.
var mailNouns = map[string]bool{
	"email": true, "emails": true, "e-mail": true, "e-mails": true, "mail": true,
	"message": true, "messages": true, "thread": true, "threads": true, "reply": true,
	"replies": true, "note": true,
}

// inboxWords said alone ("my email", "my inbox") name the mail app.
var inboxWords = map[string]bool{"email": true, "e-mail": true, "mail": true, "inbox": true, "emails": true}

// notNames are words that end a name or cannot be one.
var notNames = map[string]bool{
	"to": true, "that": true, "about": true, "re": true, "regarding": true, "and": true,
	"then": true, "so": true, "the": true, "a": true, "an": true, "my": true, "his": true,
	"her": true, "their": true, "our": true, "your": true, "him": true, "them": true,
	"me": true, "us": true, "you": true, "it": true, "this": true, "in": true, "on": true,
	"at": true, "for": true, "from": true, "with": true, "next": true, "time": true,
	"when": true, "please": true, "again": true, "remind": true, "is": true, "are": true,
	"was": true, "today": true, "tomorrow": true, "tonight": true, "later": true,
	"someone": true, "somebody": true, "anyone": true, "everyone": true, "people": true,
	"client": true, "clients": true, "he": true, "she": true, "they": true, "we": true,
	"i": true, "of": true, "by": true, "or": true, "if": true, "back": true, "up": true,
	"before": true, "after": true, "during": true, "week": true, "again.": true,
}

// places are where the lawyer may be that no window shows: "when I'm in
// court" is not an app.
var places = map[string]bool{
	"office": true, "court": true, "courthouse": true, "courtroom": true, "car": true,
	"city": true, "town": true, "building": true, "lobby": true, "kitchen": true,
	"gym": true, "house": true, "home": true, "room": true, "elevator": true, "train": true,
	"plane": true, "airport": true, "hospital": true, "store": true, "shop": true,
	"bank": true, "station": true, "meeting": true, "call": true, "line": true,
	"shower": true, "bed": true, "mood": true, "hurry": true, "chambers": true,
	"hearing": true, "deposition": true, "conference": true, "zone": true, "way": true,
	"phone": true, "road": true, "break": true, "lunch": true, "firm": true, "area": true,
	"neighborhood": true, "neighbourhood": true, "country": true,
	"middle": true, "process": true, "bathroom": true, "cab": true, "uber": true,
	"taxi": true, "subway": true, "bus": true, "morning": true, "afternoon": true,
	"evening": true, "weekend": true,
}

// knownApps are applications a lawyer names, as recognisers write them
// (lower case, no capital to tell a name).
var knownApps = map[string]bool{
	"outlook": true, "word": true, "excel": true, "powerpoint": true, "gmail": true,
	"thunderbird": true, "chrome": true, "safari": true, "firefox": true, "edge": true,
	"teams": true, "zoom": true, "slack": true, "westlaw": true, "lexis": true,
	"lexisnexis": true, "clio": true, "acrobat": true, "docusign": true, "imanage": true,
	"netdocuments": true, "finder": true, "notes": true, "pages": true, "numbers": true,
	"keynote": true, "sharepoint": true, "onedrive": true, "dropbox": true, "calendar": true,
	"quickbooks": true, "relativity": true, "ilovepdf": true, "libreoffice": true, "evernote": true,
	"notion": true, "whatsapp": true, "signal": true, "skype": true, "webex": true, "pacer": true,
}

// docNouns name documents a lawyer opens.
var docNouns = map[string]bool{
	"nda": true, "lease": true, "agreement": true, "contract": true, "memo": true,
	"brief": true, "draft": true, "redline": true, "document": true, "doc": true,
	"file": true, "spreadsheet": true, "deck": true, "presentation": true, "pdf": true,
	"motion": true, "complaint": true, "letter": true, "amendment": true, "snda": true,
	"estoppel": true, "folder": true, "docket": true, "template": true, "workbook": true,
	"sheet": true, "invoice": true, "pleading": true, "exhibit": true, "binder": true,
	"term": true, "deed": true, "will": true, "trust": true, "policy": true, "report": true,
	"schedule": true, "disclosure": true, "order": true, "judgment": true, "matter": true,
	"filing": true, "markup": true, "proposal": true, "closing": true, "checklist": true,
	"website": true, "site": true, "portal": true, "page": true, "tab": true, "app": true,
}

// determiners open an object phrase and are not part of its name.
var determiners = map[string]bool{"the": true, "a": true, "an": true, "my": true, "that": true, "this": true, "our": true}

// clauseEnds end an object said in the middle of a request ("remind me
// when I open Outlook to send the invoice").
func clauseEnds(ts []token, i int) bool {
	return words(ts, i, "to|that|about|re|regarding|and|then|so|please")
}

// extractTrigger finds a trigger clause in what follows a reminder request
// and returns it with the other words: the clause is either first
// ("remind me next time I talk to Grant about the estoppel") or last
// ("remind me to ask about the cure period next time I'm in Marcy's
// email").
func extractTrigger(ts []token) (Trigger, []token, bool) {
	if tr, n, ok := triggerClause(ts, 0, true); ok && n < len(ts) {
		return tr, ts[n:], true
	}
	for j := 1; j < len(ts); j++ {
		if openerLen(ts, j) == 0 {
			continue
		}
		if tr, n, ok := triggerClause(ts, j, false); ok && n == len(ts) {
			return tr, ts[:j], true
		}
	}
	return Trigger{}, nil, false
}

// leadingTrigger is how many tokens at the start of ts are a trigger
// clause followed by a request ("when I open the Brookline NDA remind me
// to check the term"); 0 when ts does not start so.
func leadingTrigger(ts []token) int {
	if openerLen(ts, 0) == 0 {
		return 0
	}
	for k := 3; k < len(ts); k++ {
		if _, n, ok := triggerClause(ts[:k], 0, false); !ok || n != k {
			continue
		}
		rest, _ := unwrap(ts[k:])
		if words(rest, 0, "then") {
			rest = rest[1:]
		}
		if prefixLen(remindTrigger, rest) > 0 || prefixLen(messageMe, rest) > 0 || prefixLen(rememberFor, rest) > 0 {
			return k
		}
	}
	return 0
}

// triggerClause reads a trigger clause at ts[i] and returns it with where
// it ends. mid says more words follow the clause (the task): an object
// then ends at a linking word or a pause; otherwise it runs to the end.
func triggerClause(ts []token, i int, mid bool) (Trigger, int, bool) {
	n := openerLen(ts, i)
	if n == 0 {
		return Trigger{}, 0, false
	}
	j := i + n
	switch {
	case words(ts, j, "i'm|im"), words(ts, j, "i", "am"):
		if words(ts, j, "i", "am") {
			j++
		}
		j++
		if words(ts, j, "next|back|again") {
			j++
		}
		return lawyerClause(ts, j, mid, true)
	case words(ts, j, "i've|ive"):
		return lawyerClause(ts, j+1, mid, false) // "I've got a call with", "I've got the lease open"
	case words(ts, j, "i"):
		j++
		if words(ts, j, "next|again") {
			j++
		}
		return lawyerClause(ts, j, mid, false)
	}
	// "Marcy emails me", "Grant Howard calls": the name is as long as
	// leaves a verb after it.
	_, most := nameAt(ts, j)
	for k := 1; k <= most; k++ {
		if strings.HasSuffix(ts[j+k-1].word, "'s") {
			break
		}
		name, _ := nameAt(ts[:j+k], j)
		for _, v := range theirVerbs {
			if !words(ts, j+k, v.words...) {
				continue
			}
			end := j + k + len(v.words)
			if v.kind == verbPerson {
				return Trigger{Kind: OnPerson, Person: name}, end, true
			}
			tr := Trigger{Kind: OnThread, Person: name}
			if words(ts, end, "about|re|regarding|on") {
				subj, e, ok := objectWords(ts, end+1, mid)
				if !ok {
					return Trigger{}, 0, false
				}
				tr.Subject, end = subj, e
			}
			return tr, end, true
		}
	}
	return Trigger{}, 0, false
}

// lawyerClause reads what follows "I" (or "I'm", with being) in a trigger
// clause: the verb, then its object.
func lawyerClause(ts []token, j int, mid, being bool) (Trigger, int, bool) {
	for _, v := range lawyerVerbs {
		vw := v.words
		if !words(ts, j, vw...) {
			continue
		}
		// "I in Outlook" is not said; "I'm in Outlook" is.
		if !being && words(ts, j, "in|into|on") && len(vw) == 1 {
			continue
		}
		if !being && oneOf(word(ts, j), "on", "in") && len(vw) > 1 {
			continue
		}
		k := j + len(vw)
		switch v.kind {
		case verbPerson:
			return personObject(ts, k)
		case verbMail:
			if tr, e, ok := mailObject(ts, k, mid); ok {
				return tr, e, true
			}
			return personThread(ts, k, mid)
		case verbSeeWhom:
			if tr, e, ok := mailObject(ts, k, mid); ok {
				return tr, e, true
			}
			return personObject(ts, k)
		case verbOpen:
			if tr, e, ok := mailObject(ts, k, mid); ok {
				return tr, e, true
			}
			return appObject(ts, k, mid, words(ts, j, "in|into|on"))
		case verbHave:
			// "I have the Henderson agreement open": the object runs to "open".
			for e := k + 1; e < len(ts); e++ {
				if words(ts, e, "open|up") {
					if tr, n, ok := mailObject(ts[:e], k, false); ok && n == e {
						return tr, e + 1, true
					}
					if tr, n, ok := appObject(ts[:e], k, false, false); ok && n == e {
						return tr, e + 1, true
					}
					break
				}
			}
		}
	}
	return Trigger{}, 0, false
}

// personObject reads the person met or talked to: a name, not a pronoun
// or a role ("him", "the client"), which no calendar names.
func personObject(ts []token, k int) (Trigger, int, bool) {
	name, n := nameAt(ts, k)
	if n == 0 || strings.HasSuffix(ts[k+n-1].word, "'s") {
		return Trigger{}, 0, false
	}
	end := k + n
	return Trigger{Kind: OnPerson, Person: name}, end, true
}

// personThread reads "hear from Marcy (about the SNDA)": her thread.
func personThread(ts []token, k int, mid bool) (Trigger, int, bool) {
	name, n := nameAt(ts, k)
	if n == 0 || strings.HasSuffix(ts[k+n-1].word, "'s") {
		return Trigger{}, 0, false
	}
	tr, end := Trigger{Kind: OnThread, Person: name}, k+n
	if words(ts, end, "about|re|regarding") && !mid {
		subj, e, ok := objectWords(ts, end+1, mid)
		if !ok {
			return Trigger{}, 0, false
		}
		tr.Subject, end = subj, e
	}
	return tr, end, true
}

// mailObject reads an email named as the object: "Marcy's email", "the
// email from Marcy Howard about the SNDA", "the SNDA thread", "my
// inbox" (the mail app).
func mailObject(ts []token, k int, mid bool) (Trigger, int, bool) {
	j := k
	det := determiners[word(ts, j)]
	if det {
		j++
	}
	// "my email", "my inbox": the mail app, not a thread.
	if words(ts, k, "my") && inboxWords[word(ts, j)] && (j+1 == len(ts) || mid && clauseEnds(ts, j+1) || endsClause(ts[j])) {
		return Trigger{Kind: OnApp, Name: "email"}, j + 1, true
	}
	// "Marcy's email", "Marcy Howard's emails".
	for n := 1; n <= 3 && j+n < len(ts); n++ {
		last := ts[j+n-1].word
		if !strings.HasSuffix(last, "'s") || !mailNouns[word(ts, j+n)] {
			continue
		}
		name, m := nameAt(ts, j)
		if m != n {
			break
		}
		tr := Trigger{Kind: OnThread, Person: name}
		return mailRest(ts, j+n+1, mid, tr)
	}
	// "the email from Marcy about the SNDA", "an email about the term".
	if mailNouns[word(ts, j)] && (det || words(ts, j+1, "from|about|re|regarding")) {
		j++
		if words(ts, j, "thread") {
			j++
		}
		return mailRest(ts, j, mid, Trigger{Kind: OnThread})
	}
	// "the SNDA thread", "the Brookline email".
	if det {
		for e := j + 1; e < len(ts) && e-j <= 6; e++ {
			if !mailNouns[word(ts, e)] {
				if mid && clauseEnds(ts, e) {
					break
				}
				continue
			}
			if words(ts, e+1, "from|about") || e+1 == len(ts) || mid && clauseEnds(ts, e+1) || endsClause(ts[e]) {
				subj := objectName(ts[j:e])
				if subj == "" {
					break
				}
				return mailRest(ts, e+1, mid, Trigger{Kind: OnThread, Subject: subj})
			}
		}
	}
	return Trigger{}, 0, false
}

// mailRest reads "from Marcy" and "about the SNDA" after an email noun.
func mailRest(ts []token, j int, mid bool, tr Trigger) (Trigger, int, bool) {
	if words(ts, j, "from") && tr.Person == "" {
		name, n := nameAt(ts, j+1)
		if n == 0 {
			return Trigger{}, 0, false
		}
		tr.Person, j = name, j+1+n
	}
	if words(ts, j, "about|re|regarding|on") && tr.Subject == "" {
		subj, e, ok := objectWords(ts, j+1, mid)
		if !ok {
			return Trigger{}, 0, false
		}
		tr.Subject, j = subj, e
	}
	if tr.Person == "" && tr.Subject == "" {
		return Trigger{}, 0, false // "the email": which one?
	}
	return tr, j, true
}

// appObject reads the app or document the lawyer opens or is in. After
// "in" or "on" the object must look like an app or a document (a known
// app, a document noun): "in court", "on the train" and "in a good mood"
// are places and states, not windows.
func appObject(ts []token, k int, mid, inOn bool) (Trigger, int, bool) {
	name, e, ok := objectWords(ts, k, mid)
	if !ok {
		return Trigger{}, 0, false
	}
	obj := ts[k:e]
	for _, t := range obj {
		if places[t.word] {
			return Trigger{}, 0, false
		}
	}
	if unicode.IsDigit([]rune(obj[0].word)[0]) {
		return Trigger{}, 0, false // "in 5 minutes"
	}
	if inOn && !looksLikeWindow(obj) {
		return Trigger{}, 0, false
	}
	if inboxWords[name] || strings.EqualFold(name, "my inbox") {
		name = "email"
	}
	return Trigger{Kind: OnApp, Name: name}, e, true
}

// looksLikeWindow reports whether words name something a window shows:
// an app or a kind of document. Capitals are no sign: recognisers write
// them at will.
func looksLikeWindow(obj []token) bool {
	for _, t := range obj {
		if knownApps[t.word] || docNouns[t.word] || inboxWords[t.word] {
			return true
		}
	}
	return false
}

// objectWords reads an object phrase at ts[k]: to the end, or when mid to
// a linking word or a pause. It returns the phrase without its
// determiner, as the lawyer would read it back.
func objectWords(ts []token, k int, mid bool) (string, int, bool) {
	e := k
	for e < len(ts) {
		if mid && e > k && clauseEnds(ts, e) {
			break
		}
		e++
		if mid && endsClause(ts[e-1]) {
			break
		}
	}
	if e == k {
		return "", 0, false
	}
	obj, _ := trimTail(ts[k:e])
	name := objectName(obj)
	if name == "" {
		return "", 0, false
	}
	return name, e, true
}

// objectName is the phrase's words read back without a leading determiner.
func objectName(ts []token) string {
	for len(ts) > 0 && determiners[ts[0].word] {
		ts = ts[1:]
	}
	return cleanName(readBack(ts))
}

// nameAt reads a person's name at ts[j]: one to three words that are not
// function words, roles or pronouns; a possessive ends it.
func nameAt(ts []token, j int) (string, int) {
	n := 0
	for n < 3 && j+n < len(ts) {
		w := ts[j+n].word
		base := strings.TrimSuffix(w, "'s")
		if base == "" || notNames[base] || mailNouns[base] || unicode.IsDigit([]rune(base)[0]) {
			break
		}
		if _, wd := weekdayNames[base]; wd {
			break
		}
		n++
		if base != w || endsClause(ts[j+n-1]) && !titles[base] {
			break
		}
	}
	if n == 0 {
		return "", 0
	}
	return cleanName(possessiveS.ReplaceAllString(cleanName(readBack(ts[j:j+n])), "")), n
}

// possessiveS is the "'s" that ends a name said as an owner, in any case.
var possessiveS = regexp.MustCompile(`(?i)['’]s$`)

// cleanName trims the punctuation a recogniser leaves around a name.
func cleanName(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}
