package mail

import (
	"regexp"
	"strings"
)

// Automation says why a message was sent by a machine rather than by a
// person; None for a person's. Automated mail is never a question for
// the lawyer to answer, whatever its words ask ("Can you review it?").
type Automation string

// The kinds of automated mail, by what gave them away.
const (
	None Automation = ""
	// List: a mailing list (RFC 2369 List-*, Precedence: list).
	List Automation = "list"
	// Bulk: a newsletter or marketing mail (Precedence: bulk or junk, an
	// ESP's Feedback-ID, unsubscribe wording).
	Bulk Automation = "bulk"
	// AutoReply: an answer a machine gave for a person: out of office,
	// vacation (RFC 3834 Auto-Submitted: auto-replied, the X-Autoreply
	// family, the subject prefix auto-responders add).
	AutoReply Automation = "auto-reply"
	// Notice: a system's notification (Auto-Submitted: auto-generated, a
	// no-reply or robot sender, a court's e-filing system, a "do not
	// reply" footer, a delivery failure).
	Notice Automation = "notice"
)

// Automated tells whether a message is a machine's, from what the
// standards and the senders themselves say: its headers (as
// Message.Headers keeps them, lower-case keys), its sender's address, its
// subject and the sender's own text of the body. Wording forwarded or
// quoted from another message does not count: a colleague forwarding a
// court's notice is a person writing.
func Automated(from Address, subject string, headers map[string]string, body string) Automation {
	if a := byHeaders(headers); a != None {
		return a
	}
	if a := bySender(from.Email); a != None {
		return a
	}
	if autoSubjectRe.MatchString(subject) {
		return AutoReply
	}
	if failureSubjectRe.MatchString(subject) {
		return Notice
	}
	own := ownText(body)
	switch {
	case noticeWordsRe.MatchString(own):
		return Notice
	case bulkWordsRe.MatchString(own):
		return Bulk
	}
	return None
}

// byHeaders reads the header fields that say a machine sent the message.
func byHeaders(h map[string]string) Automation {
	if len(h) == 0 {
		return None
	}
	word := func(k string) string {
		v, _, _ := strings.Cut(h[k], ";")
		return strings.ToLower(strings.TrimSpace(v))
	}
	// RFC 3834 §5: "no" is a person's message; any other value a machine's.
	switch a := word("auto-submitted"); {
	case a == "" || a == "no":
	case a == "auto-replied":
		return AutoReply
	default:
		return Notice
	}
	switch word("precedence") {
	case "bulk", "junk":
		return Bulk
	case "list":
		return List
	case "auto_reply", "auto-reply":
		return AutoReply
	}
	for _, k := range []string{"x-autoreply", "x-autorespond"} {
		if v := word(k); v != "" && v != "no" && v != "false" {
			return AutoReply
		}
	}
	// Exchange marks its own automatic answers so that other robots do
	// not answer them; "All" is what an out-of-office reply carries.
	if word("x-auto-response-suppress") == "all" {
		return AutoReply
	}
	// RFC 2369 and 2919: only lists carry List-Id and the List-*
	// commands; List-Unsubscribe alone is the newsletters' (RFC 8058). A
	// list's own List-Unsubscribe beside them keeps it a list, whatever
	// order the map gives.
	unsubscribe := false
	for k := range h {
		switch {
		case k == "list-unsubscribe" || k == "list-unsubscribe-post":
			unsubscribe = true
		case strings.HasPrefix(k, "list-"):
			return List
		}
	}
	if unsubscribe {
		return Bulk
	}
	// Feedback-ID is set by bulk senders for the big mailbox providers.
	if word("feedback-id") != "" {
		return Bulk
	}
	return None
}

// robotWords are the words of an address's local part, or of its host's
// first labels, that name a machine: no-reply mailboxes, bounce handlers,
// notification senders, and the courts' electronic filing systems
// (CM/ECF and the state e-filing services). A person's address never
// consists of these.
var robotWords = map[string]Automation{
	"noreply": Notice, "donotreply": Notice, "dontreply": Notice, "mailerdaemon": Notice,
	"postmaster": Notice, "bounce": Notice, "bounces": Notice, "daemon": Notice,
	"notification": Notice, "notifications": Notice, "notify": Notice, "notifier": Notice,
	"notices": Notice, "alert": Notice, "alerts": Notice, "autoreply": AutoReply,
	"autoresponder": AutoReply, "automailer": Notice, "robot": Notice,
	"ecf": Notice, "cmecf": Notice, "nef": Notice, "efile": Notice, "efiling": Notice,
	"newsletter": Bulk, "newsletters": Bulk, "news": Bulk, "digest": Bulk, "marketing": Bulk,
	"updates": Bulk,
}

// bySender reads a robot sender off its address: "do_not_reply@bank",
// "no-reply@", "cmecf@txwd.uscourts.gov", "efile-notices@…". The words
// are split at the separators addresses use, and "no", "reply" or "do",
// "not", "reply" read as one word, as they are meant.
func bySender(email string) Automation {
	local, host, ok := strings.Cut(strings.ToLower(strings.TrimSpace(email)), "@")
	if !ok {
		return None
	}
	words := addressWords(local)
	if a := robotWords[strings.Join(words, "")]; a != None {
		return a
	}
	for i := range words {
		for j := i + 1; j <= len(words) && j <= i+3; j++ {
			if a := robotWords[strings.Join(words[i:j], "")]; a != None {
				return a
			}
		}
	}
	// The host's labels but the last two (the registered domain): a
	// court's filing system sends from "ecf.<court>", while the court's
	// clerks write from the court's own domain.
	labels := strings.Split(host, ".")
	for _, l := range labels[:max(0, len(labels)-2)] {
		switch l {
		case "ecf", "cmecf", "efile", "efiling":
			return Notice
		}
	}
	return None
}

// addressWords splits an address's local part into its words: at dots,
// dashes, underscores, plus signs and digits.
func addressWords(local string) []string {
	return strings.FieldsFunc(local, func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	})
}

// ownText is the sender's own part of a body: the text above the first
// forwarded or quoted message.
func ownText(body string) string {
	if loc := forwardRe.FindStringIndex(body); loc != nil {
		return body[:loc[0]]
	}
	return body
}

var (
	// The prefixes auto-responders put on their subjects (RFC 3834 §3.1.5
	// suggests "Auto:"), as the common ones write them.
	autoSubjectRe = regexp.MustCompile(`(?i)^\s*(?:auto(?:matic)?[ -]?(?:reply|response|antwort)|auto|autoreply|out of (?:the )?office(?: reply| autoreply)?|ooo|abwesenheitsnotiz|abwesend|r[ée]ponse automatique|absence|respuesta autom[áa]tica|risposta automatica|automatisch antwoord|afwezig)\s*:`)
	// Delivery reports (RFC 3464) by their subjects.
	failureSubjectRe = regexp.MustCompile(`(?i)^\s*(?:undeliverable|undelivered mail|delivery (?:status notification|failure|has failed)|mail delivery (?:failed|failure|subsystem)|returned mail|failure notice)\b`)
	// What machines say of themselves: that nobody reads replies, that the
	// message was generated, that it is a court's notice of filing.
	noticeWordsRe = regexp.MustCompile(`(?i)\bdo\s+not\s+(?:reply|respond)\s+(?:directly\s+)?to\s+(?:this|the)\s+(?:e-?mail|message|notice|notification|address|mail\s?box)\b` +
		`|\bthis\s+(?:e-?mail\s+)?(?:mail\s?box|address|inbox|e-?mail\s+address|e-?mail|message)\s+is\s+(?:not\s+monitored|unmonitored|unattended|not\s+checked)\b` +
		`|\brepl(?:y|ies)\s+to\s+this\s+(?:e-?mail|message|address|notice)\s+(?:are|is|will)\s+not\b` +
		`|\b(?:mail\s?box|address)\s+is\s+(?:not\s+monitored|unattended|unmonitored)\b` +
		`|\bthis\s+is\s+an?\s+(?:automatic|automated|auto-?generated|system[ -]generated)\s+(?:e-?mail|message|notice|notification|reply|response)\b` +
		`|\b(?:was|is|has\s+been)\s+(?:automatically|auto-?)\s*generated\b|\bautomatically\s+generated\s+(?:e-?mail|message|notice)\b` +
		`|\bnotice\s+of\s+electronic\s+(?:filing|service)\b`)
	// Newsletters' and marketers' wording.
	bulkWordsRe = regexp.MustCompile(`(?i)\bunsubscribe\b|manage (?:your )?(?:email )?(?:preferences|subscriptions?)|view (?:this email )?in (?:your )?browser|you are receiving this|you received this (?:email|message) because`)
	// Where a forwarded or quoted message begins.
	forwardRe = regexp.MustCompile(`(?im)^[ \t>]*(?:-{2,}\s*(?:forwarded message|original message|weitergeleitete nachricht|message transféré|mensaje reenviado)\s*-*|begin forwarded message:|-{2,}\s*(?:ursprüngliche nachricht|message d'origine|mensaje original)\s*-{2,})\s*$`)
)
