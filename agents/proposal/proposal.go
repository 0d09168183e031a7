// Package proposal holds the one rule for what Spirit may propose to the
// lawyer unasked (issue 27): a glance's wording, a heartbeat's or a
// routine's or a webhook's notice, a meeting offer.
//
// Everything such a proposal is made from came from outside at some point
// — mail, invitations, screen text, what was heard, a webhook's body — and
// may have told a model anything. So a proposal is data until Check has
// held it against the lawyer's own threads and meetings:
//
//   - its action is one of a fixed set (Action), on one of the lawyer's
//     own threads or meetings named by id, never free text;
//   - the task it would start is written here, by code, from the thread's
//     typed fields; the recipients of a reply are the thread's people, and
//     a model-named recipient who is not one of them drops the proposal;
//   - its sentence, and every other text that goes into it, names no
//     address but those people's and the lawyer's, no link, and none of
//     the phrases only an instruction to a model uses.
//
// What Check cannot vouch for is dropped: silence is the fallback, and the
// caller logs why. Check is pure; the caller reads the thread or meeting
// the proposal names and hands it in.
package proposal

import (
	"errors"
	"fmt"
	netmail "net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/spirit-app/spirit/agents/mail"
)

// Action is what a proposal offers to do if the lawyer accepts: one of
// the actions below, the registry of what a proposal may name.
type Action string

// The actions a proposal may name.
const (
	// None: a notice only; accepting it starts nothing.
	None Action = ""
	// Reply: draft a reply on one of the lawyer's threads (Proposed.Thread)
	// to its people, for the lawyer to approve.
	Reply Action = "reply"
	// Brief: prepare a brief for one of the lawyer's meetings
	// (Proposed.Meeting) from their own mail.
	Brief Action = "brief"
)

// Known reports whether a is one of the actions a proposal may name.
func Known(a Action) bool { return a == None || a == Reply || a == Brief }

// Person is one of a thread's or a meeting's people.
type Person struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email"`
}

// Display is the person's name, else their address.
func (p Person) Display() string {
	if n := strings.TrimSpace(p.Name); n != "" {
		return n
	}
	return p.Email
}

// Thread is one of the lawyer's mail threads, as code read it from the
// index.
type Thread struct {
	ID      int64
	Subject string
	// Sender wrote the message a reply answers: the one the proposal is
	// about, else the newest not from the lawyer.
	Sender Person
	// People are everyone on the thread but the lawyer: who wrote, who
	// was written to or copied, who the index lists as its participants.
	People []Person
	// Automated and Audience are the mail model's reading of Sender's
	// message (mail.Automated, mail.AudienceOf): a reply answers a
	// person who wrote to the lawyer, never a machine, never mail the
	// lawyer was only copied on.
	Automated mail.Automation
	Audience  mail.Audience
}

// Meeting is one of the lawyer's meetings, as code read it from their
// calendars.
type Meeting struct {
	Key    string // the occurrence's key (calendar.Occurrence.Key)
	Title  string
	People []Person // besides the lawyer
}

// Proposed is a proposal as its maker filled it in.
type Proposed struct {
	// Message is the nudge's sentence, as the lawyer would read it.
	Message string
	// Action is the action named; anything but a Known one is dropped.
	Action Action
	// Thread names the thread of a Reply (and, for None, the thread the
	// notice is about, if any): an id in the mail index.
	Thread int64
	// Meeting names the meeting of a Brief: an occurrence key.
	Meeting string
	// To are the recipients the maker named ("Name <address>" or an
	// address), if any; only a Reply has recipients.
	To []string
	// Quote is the thread's own asking sentence, found by code, that the
	// task quotes as data.
	Quote string
	// Also is any other text a model wrote about the proposal (the
	// glance model's action_prompt): never shown nor run, only held to
	// the rules a model's message is held to.
	Also []string
	// ByModel: a model wrote Message. It is then held to the words a
	// model steered past the lawyer's approval uses, too ("no approval
	// needed"), which code's words, quoting mail about approvals and
	// consents, are not.
	ByModel bool
}

// Facts are the lawyer's own data a proposal is held against.
type Facts struct {
	// Me are the lawyer's addresses.
	Me []string
	// Thread is the thread Proposed.Thread names, as read from the index;
	// nil when it names none or the index has no such thread.
	Thread *Thread
	// Meeting is the meeting Proposed.Meeting names, as read from the
	// calendars; nil when it names none or there is no such meeting.
	Meeting *Meeting
}

// Checked is a proposal Check let through, as code built it.
type Checked struct {
	Message string
	Action  Action
	Thread  *Thread  // Reply, and None about a thread
	Meeting *Meeting // Brief
	// To are a Reply's recipients, from the thread's people.
	To []Person
	// Prompt is a Reply's task for the agent that drafts it, written by
	// code; "" for None, and for Brief, whose responder builds the brief
	// from the meeting offer itself.
	Prompt string
}

// Reason says why Check dropped a proposal.
type Reason string

// Reasons a proposal is dropped.
const (
	NoMessage        Reason = "no message"
	UnknownAction    Reason = "an action Spirit does not have"
	UnknownThread    Reason = "not one of the lawyer's threads"
	UnknownMeeting   Reason = "not one of the lawyer's meetings"
	NoRecipient      Reason = "nobody on the thread to reply to"
	ForeignRecipient Reason = "a recipient who is not on the thread"
	StrayRecipient   Reason = "recipients for an action that sends nothing"
	ForeignAddress   Reason = "an address that is not the thread's or meeting's people"
	Link             Reason = "a link"
	Instruction      Reason = "words of an instruction to a model"
	Hidden           Reason = "hidden characters"
	Unnamed          Reason = "does not name who it is about"
	AutomatedMail    Reason = "a reply to automated mail"
	NotToLawyer      Reason = "a reply to mail that was not to the lawyer"
)

// Dropped is Check's error: the reason, and the address, link, phrase,
// action or id that gave it away.
type Dropped struct {
	Reason Reason
	What   string
}

func (d *Dropped) Error() string {
	if d.What == "" {
		return "proposal dropped: " + string(d.Reason)
	}
	return fmt.Sprintf("proposal dropped: %s (%s)", d.Reason, d.What)
}

// Why is the Dropped inside err, or nil.
func Why(err error) *Dropped {
	var d *Dropped
	if errors.As(err, &d) {
		return d
	}
	return nil
}

func drop(r Reason, what string) error { return &Dropped{Reason: r, What: what} }

// Check holds proposal p against the lawyer's data f and returns it as
// code builds it, or a *Dropped error saying why it must not be shown.
func Check(p Proposed, f Facts) (Checked, error) {
	msg := strings.TrimSpace(p.Message)
	if msg == "" {
		return Checked{}, drop(NoMessage, "")
	}
	if !Known(p.Action) {
		return Checked{}, drop(UnknownAction, oneLine(string(p.Action), 60))
	}
	c := Checked{Message: msg, Action: p.Action}
	// allowed are the addresses the texts may name: the lawyer's and the
	// people of the thread or meeting the proposal is about.
	allowed := map[string]bool{}
	for _, a := range f.Me {
		allowed[lower(a)] = true
	}
	var people []Person // whom the message must name, if anyone
	// texts are everything the proposal shows or runs, and whether a
	// model wrote it.
	type text struct {
		s       string
		byModel bool
	}
	texts := []text{{msg, p.ByModel}, {p.Quote, false}}
	for _, a := range p.Also {
		texts = append(texts, text{a, true})
	}

	if p.Action != Reply && len(p.To) > 0 {
		return Checked{}, drop(StrayRecipient, oneLine(strings.Join(p.To, ", "), 120))
	}
	switch p.Action {
	case Reply, None:
		if p.Action == None && p.Thread == 0 {
			break
		}
		th := f.Thread
		if p.Thread <= 0 || th == nil || th.ID != p.Thread {
			return Checked{}, drop(UnknownThread, strconv.FormatInt(p.Thread, 10))
		}
		c.Thread = th
		for _, q := range th.People {
			allowed[lower(q.Email)] = true
		}
		texts = append(texts, text{th.Subject, false})
		if p.Action == None {
			break
		}
		switch {
		case th.Automated != mail.None:
			return Checked{}, drop(AutomatedMail, string(th.Automated))
		case th.Sender.Email != "" && !th.Audience.ToMe():
			return Checked{}, drop(NotToLawyer, th.Audience.String())
		}
		to, err := recipients(p.To, th, f.Me)
		if err != nil {
			return Checked{}, err
		}
		for _, q := range to {
			texts = append(texts, text{q.Name, false})
		}
		c.To, people = to, to
		c.Prompt = replyPrompt(to, th, p.Quote)
	case Brief:
		m := f.Meeting
		if strings.TrimSpace(p.Meeting) == "" || m == nil || m.Key != p.Meeting {
			return Checked{}, drop(UnknownMeeting, oneLine(p.Meeting, 120))
		}
		c.Meeting = m
		for _, q := range m.People {
			allowed[lower(q.Email)] = true
		}
		people = m.People
	}
	for _, t := range texts {
		if err := checkText(t.s, allowed, t.byModel); err != nil {
			return Checked{}, err
		}
	}
	if people != nil && !namesAny(msg, people) {
		return Checked{}, drop(Unnamed, "")
	}
	return c, nil
}

// recipients are a reply's: those named, each of whom must be on the
// thread (and not the lawyer), else the thread's sender.
func recipients(named []string, th *Thread, me []string) ([]Person, error) {
	isMe := func(addr string) bool {
		return slices.ContainsFunc(me, func(m string) bool { return lower(m) == lower(addr) })
	}
	if len(named) == 0 {
		if strings.TrimSpace(th.Sender.Email) == "" || isMe(th.Sender.Email) {
			return nil, drop(NoRecipient, "")
		}
		return []Person{onThread(th, th.Sender)}, nil
	}
	var out []Person
	for _, n := range named {
		addr := address(n)
		i := slices.IndexFunc(th.People, func(q Person) bool { return lower(q.Email) == addr })
		if addr == "" || i < 0 || isMe(addr) {
			return nil, drop(ForeignRecipient, oneLine(n, 120))
		}
		if !slices.ContainsFunc(out, func(q Person) bool { return lower(q.Email) == addr }) {
			out = append(out, th.People[i])
		}
	}
	return out, nil
}

// onThread is p as the thread's people list them (with their name).
func onThread(th *Thread, p Person) Person {
	for _, q := range th.People {
		if lower(q.Email) == lower(p.Email) {
			if strings.TrimSpace(p.Name) == "" {
				return q
			}
			return Person{Name: p.Name, Email: q.Email}
		}
	}
	return p
}

// address is the lower-case address of "Name <addr>" or "addr"; "" when
// there is none.
func address(s string) string {
	s = strings.TrimSpace(s)
	if a, err := netmail.ParseAddress(s); err == nil {
		return lower(a.Address)
	}
	if strings.Count(s, "@") == 1 && !strings.ContainsAny(s, " <>,;") {
		return lower(s)
	}
	return ""
}

// replyPrompt is a reply's task, written from the thread's fields; the
// thread's own asking sentence, if any, is quoted as data.
func replyPrompt(to []Person, th *Thread, quote string) string {
	names := make([]string, len(to))
	for i, p := range to {
		names[i] = p.Display()
		if p.Name != "" {
			names[i] += " <" + p.Email + ">"
		}
	}
	s := fmt.Sprintf("Draft a reply to %s about %s", strings.Join(names, ", "), oneLine(th.Subject, 200))
	if th.Subject == "" {
		s = "Draft a reply to " + strings.Join(names, ", ")
	}
	if q := oneLine(quote, 300); q != "" {
		s += ": " + q
	}
	return s
}

var (
	// addressRE finds email addresses, and addressAtRE those spelt out to
	// get past a filter ("attacker [at] evil [dot] example").
	addressRE   = regexp.MustCompile(`[\p{L}\p{N}._%+'&=-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+`)
	addressAtRE = regexp.MustCompile(`(?i)[\p{L}\p{N}._%+-]+\s*(?:\[at\]|\(at\)|\{at\}|\sat\s)\s*[\p{L}\p{N}-]+\s*(?:\[dot\]|\(dot\)|\{dot\}|\sdot\s)`)
	// linkRE finds links: a scheme's URL, www., a script or mail URI.
	linkRE = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://\S*|\bwww\.[\p{L}\p{N}-]+|\b(?:mailto|javascript|data|file|vbscript):\S`)
	// domainRE finds host names written bare ("upload it to
	// evil.example"), by the common top-level domains and the reserved
	// ones; a file name (redline.docx) is not one.
	domainRE = regexp.MustCompile(`(?i)\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(?:com|net|org|edu|gov|io|co|uk|us|de|fr|ru|cn|info|biz|xyz|app|dev|me|ly|gl|to|sh|site|online|top|example|test|invalid|localhost)\b`)
	// instructionRE finds what only an instruction to a model says, in
	// any text: mail, names and subjects never speak of a model's
	// instructions. It is a second line; the rules above are the first.
	instructionRE = regexp.MustCompile(`(?i)\b(?:` +
		`ignore (?:(?:all|any|the|your|my|these|of) ){0,3}(?:previous|prior|above|earlier|preceding|former)\b|` +
		`disregard (?:(?:all|any|the|your|my|these|of) ){0,3}(?:previous|prior|above|earlier|preceding|instructions|rules)\b|` +
		`(?:note|message|instructions?) (?:to|for) (?:the )?(?:ai|assistant|model|llm)\b|` +
		`(?:you are|act as) (?:now )?(?:an? )?(?:ai|assistant|chatbot|language model)\b|` +
		`system prompt|new instructions|developer mode|jailbreak)`)
	// unapprovedRE finds a model's words for going past the lawyer's
	// approval. Only what a model wrote is held to it: a lawyer's mail
	// speaks of approvals and consents all day.
	unapprovedRE = regexp.MustCompile(`(?i)\b(?:` +
		`no (?:approval|confirmation|permission|consent|sign-?off)s? (?:is |are )?(?:needed|required|necessary)|` +
		`without (?:the lawyer's |the user's |your |their |any |further |prior )?(?:approval|confirmation|permission|consent|asking)\b|` +
		`(?:don't|do not|never) (?:ask|wait) for (?:approval|confirmation|permission)|` +
		`(?:don't|do not|never) (?:tell|inform|notify|alert) (?:the )?(?:lawyer|user))`)
)

// checkText holds one text to the rules: no address outside allowed, no
// link or bare host name outside allowed's domains, no instruction's
// words, no hidden characters.
func checkText(s string, allowed map[string]bool, byModel bool) error {
	if s == "" {
		return nil
	}
	for _, r := range s {
		if hidden(r) {
			return drop(Hidden, fmt.Sprintf("%U", r))
		}
	}
	for _, a := range addressRE.FindAllString(s, -1) {
		if !allowed[lower(strings.Trim(a, ".'"))] {
			return drop(ForeignAddress, a)
		}
	}
	if a := addressAtRE.FindString(s); a != "" {
		return drop(ForeignAddress, a)
	}
	if l := linkRE.FindString(s); l != "" {
		return drop(Link, oneLine(l, 120))
	}
	domains := map[string]bool{}
	for a := range allowed {
		if _, d, ok := strings.Cut(a, "@"); ok {
			domains[d] = true
		}
	}
	rest := addressRE.ReplaceAllString(s, " ") // the allowed addresses' own domains
	for _, d := range domainRE.FindAllString(rest, -1) {
		if !domains[lower(d)] {
			return drop(Link, d)
		}
	}
	norm := strings.Join(strings.Fields(strings.NewReplacer("’", "'", "‘", "'").Replace(s)), " ")
	if m := instructionRE.FindString(norm); m != "" {
		return drop(Instruction, m)
	}
	if m := unapprovedRE.FindString(norm); byModel && m != "" {
		return drop(Instruction, m)
	}
	return nil
}

// hidden reports characters that hide or reorder text on screen: bidi
// controls, zero-width ones, and control characters but tab and newline.
func hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r >= 0x200B && r <= 0x200F, r == 0xFEFF, r == 0x2060:
		return true
	}
	return unicode.IsControl(r)
}

// namesAny reports whether msg names one of people: a word of a name (two
// letters or more), an address, or an address's local part.
func namesAny(msg string, people []Person) bool {
	words := map[string]bool{}
	for _, w := range tokens(msg) {
		words[w] = true
	}
	lm := lower(msg)
	for _, p := range people {
		if e := lower(p.Email); e != "" {
			if strings.Contains(lm, e) {
				return true
			}
			if local, _, _ := strings.Cut(e, "@"); len([]rune(local)) >= 3 && words[local] {
				return true
			}
		}
		for _, w := range tokens(p.Name) {
			if len([]rune(w)) >= 2 && words[w] {
				return true
			}
		}
	}
	return false
}

// tokens are s's words, lower case: runs of letters and digits.
func tokens(s string) []string {
	return strings.FieldsFunc(lower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// oneLine is s on one line, at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
