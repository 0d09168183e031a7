package glance

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// maxCandidates bounds the threads read for one subject: more than a few
// is ambiguous anyway.
const maxCandidates = 20

// analyse finds the thread of cand in the index and decides on it.
func analyse(ctx context.Context, ix *index.Index, in Input, cand candidate) (Decision, error) {
	d := Decision{Stage: StageAnalyst, Reason: ReasonNoMatch}
	hits, err := ix.SearchEmail(ctx, index.SearchQuery{Subject: cand.Subject, Limit: maxCandidates})
	if err != nil {
		return d, fmt.Errorf("search %w", err)
	}
	// Threads whose sender is the one read, exactly or (read off the
	// screen) with a few letters misread.
	var exact, near []index.Thread
	subjects := 0 // threads of the subject, whoever wrote them
	for _, h := range hits {
		// Reading a thread is a query per hit: stop when time is up.
		if err := ctx.Err(); err != nil {
			return d, fmt.Errorf("read threads: %w", err)
		}
		switch h.Match {
		case index.MatchSubject, index.MatchSubjectPrefix:
		case index.MatchSubjectSimilar:
			// A misspelt subject is expected from OCR only; a title is
			// exact, and a near miss there is another thread.
			if !cand.FromScreen {
				continue
			}
		default:
			continue
		}
		t, err := ix.ReadEmailThread(ctx, h.ThreadID)
		if err != nil {
			return d, fmt.Errorf("read thread %d: %w", h.ThreadID, err)
		}
		t.Messages = seen(t.Messages, in)
		if len(t.Messages) == 0 {
			continue
		}
		subjects++
		switch matchSender(t, cand) {
		case senderExact:
			exact = append(exact, t)
		case senderNear:
			near = append(near, t)
		}
	}
	threads := pickThreads(exact, near)
	switch len(threads) {
	case 0:
		if cand.FromScreen && cand.SenderFromScreen && subjects > 1 {
			// A sender read off the screen that names no one of
			// several threads of the subject is as likely unreadable
			// as someone else: any of them could be the one shown.
			d.Reason = ReasonAmbiguous
		}
		return d, nil
	case 1:
	default:
		d.Reason = ReasonAmbiguous
		return d, nil
	}
	d, err = judge(ctx, threads[0], in)
	if err != nil {
		return silent(StageAnalyst, ReasonNoMatch), err
	}
	return d, nil
}

// JudgeThread gives the glance's verdict on a thread the caller already
// knows (a meeting brief looks up the threads of the people coming), as
// the glance gives it once a window matched that thread: about its newest
// message the lawyer could have seen at in.Now (needs_reply,
// already_replied, newsletter, fyi…). in.Me and in.MeName say who the
// lawyer is; the window fields are not used.
func JudgeThread(ctx context.Context, t index.Thread, in Input) (Decision, error) {
	t.Messages = seen(slices.Clone(t.Messages), in)
	if len(t.Messages) == 0 {
		return silent(StageAnalyst, ReasonNoMatch), nil
	}
	return judge(ctx, t, in)
}

// seen keeps the messages the user could have seen at in.Now: sent
// before it, and not drafts.
func seen(msgs []index.ThreadMessage, in Input) []index.ThreadMessage {
	return slices.DeleteFunc(msgs, func(m index.ThreadMessage) bool {
		return m.Draft || (!in.Now.IsZero() && m.Date.After(in.Now))
	})
}

// senderMatch is how a thread's senders match the sender the triage read.
type senderMatch int

const (
	senderNone  senderMatch = iota
	senderNear              // a name or address read off the screen, a few letters off
	senderExact             // the same name or address, or no sender read
)

// matchSender says how well someone who wrote in t matches cand's sender:
// the same address or name, or, for a sender read off the screen, one
// within misread's tolerance. The mailbox index is the ground truth: OCR
// loses a letter beside a contact's round picture ("natarajan@" for
// "pnatarajan@") or changes one ("Priva", "Ose!"), and such a read still
// names the thread's sender.
func matchSender(t index.Thread, cand candidate) senderMatch {
	if cand.SenderEmail == "" && cand.SenderName == "" {
		return senderExact
	}
	best := senderNone
	for _, m := range t.Messages {
		name := strings.Join(strings.Fields(m.From.Name), " ")
		switch {
		case cand.SenderEmail != "" && strings.EqualFold(m.From.Email, cand.SenderEmail),
			cand.SenderName != "" && name != "" && strings.EqualFold(name, strings.Join(strings.Fields(cand.SenderName), " ")):
			return senderExact
		case cand.SenderFromScreen && (misread(cand.SenderEmail, m.From.Email) || misread(cand.SenderName, name) ||
			nameWithin(cand.SenderName, name) || garbledAddress(cand, m.From.Email)):
			best = senderNear
		}
	}
	return best
}

// pickThreads chooses the threads a subject's search found for the
// sender read: those where the sender matched exactly, else those where a
// misread sender is near one of the thread's. Tolerance never picks among
// threads: when it admits two, the caller stays silent (ambiguous).
func pickThreads(exact, near []index.Thread) []index.Thread {
	if len(exact) > 0 {
		return exact
	}
	return near
}

// misread reports whether got, a name or an address read off the screen,
// is want with a few letters dropped, added or changed: one edit in eight
// runes of want, three at most, and none for fewer than eight runes (a
// short name one letter off is as likely someone else). Case and runs of
// spaces do not count.
func misread(got, want string) bool {
	g := []rune(strings.ToLower(strings.Join(strings.Fields(got), " ")))
	w := []rune(strings.ToLower(strings.Join(strings.Fields(want), " ")))
	return withinMisread(g, w)
}

// withinMisread is misread's tolerance on two runs of runes: one edit in
// eight runes of w, maxMisread at most, none for fewer than eight.
func withinMisread(g, w []rune) bool {
	limit := min(len(w)/8, maxMisread)
	if len(g) == 0 || limit == 0 || abs(len(g)-len(w)) > limit {
		return false
	}
	return index.EditDistance(g, w) <= limit
}

// nameWithin reports whether want, a name of two words or more, is read
// whole, word for word, inside got: OCR ran an unreadable address into
// the name's row ("Marcy Howard marcyhowardlawcom"), or a title or badge
// beside it. One word alone ("Marcy") names too many people to count.
func nameWithin(got, want string) bool {
	g, w := nameWords(got), nameWords(want)
	if len(w) < 2 || len(g) <= len(w) {
		return false
	}
	for i := 0; i+len(w) <= len(g); i++ {
		if slices.Equal(g[i:i+len(w)], w) {
			return true
		}
	}
	return false
}

// nameWords is a name's words in lower case, without the punctuation
// around them ("<", "(", ",").
func nameWords(s string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(s)) {
		if f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// garbledAddress reports whether the sender read off the screen holds
// address, its "@" and dots lost and its letters run together
// ("marcyhowardlawcom" for marcy@howardlaw.com), as a word of the name or
// as the address: the letters alone are compared, with misread's
// tolerance and OCR's usual confusions ("rn" for "m") undone. Fewer than
// eight letters say too little to count.
func garbledAddress(cand candidate, address string) bool {
	want := ocrLetters(address)
	if len([]rune(want)) < 8 {
		return false
	}
	for _, w := range append(strings.Fields(cand.SenderName), cand.SenderEmail) {
		if got := ocrLetters(w); len([]rune(got)) >= 8 && withinMisread([]rune(got), []rune(want)) {
			return true
		}
	}
	return false
}

// ocrLetters is s's letters and digits in lower case, with the shapes OCR
// confuses folded together: "rn" and "m", "vv" and "w", "0" and "o", "1"
// and "l".
func ocrLetters(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return strings.NewReplacer("rn", "m", "vv", "w", "0", "o", "1", "l").Replace(b.String())
}

// maxMisread is the most letters misread in a sender's name or address
// that misread tolerates, however long it is.
const maxMisread = 3

// judge decides on the newest message of a matched thread; an error
// means ctx ended before it did.
func judge(ctx context.Context, t index.Thread, in Input) (Decision, error) {
	last := t.Messages[len(t.Messages)-1]
	d := Decision{
		Stage:     StageAnalyst,
		MessageID: last.MessageID,
		ThreadID:  t.ID,
		Subject:   displaySubject(t, last),
		Sender:    senderName(last),
	}
	me := mail.Me{Name: in.MeName, Addresses: in.Me}
	switch {
	case last.FromMe || isMe(last.From.Email, in.Me):
		d.Reason = ReasonAlreadyReplied
	case mail.Automated(last.From, last.Subject, last.Headers, last.Body) != mail.None:
		// A machine's mail asks nothing of the lawyer, whatever its words.
		d.Reason = ReasonNewsletter
	case !mail.AudienceOf(last.To, last.Cc, last.Body, me).ToMe():
		// Copied, blind-copied or on a list: someone else was written to.
		d.Reason = ReasonFYI
	default:
		var others []string
		for _, a := range append(append([]mail.Address(nil), last.To...), last.Cc...) {
			if !isMe(a.Email, in.Me) {
				if f := firstName(a.Name); f != "" {
					others = append(others, f)
				}
			}
		}
		ask, needs, err := findAsk(ctx, last.Body, in.MeName, others)
		if err != nil {
			return silent(StageAnalyst, ReasonNoMatch), err
		}
		if !needs {
			d.Reason = ReasonFYI
			break
		}
		d.Surface, d.Reason = true, ReasonNeedsReply
		d.Message = waitingMessage(d.Sender, d.Subject)
		d.ActionPrompt = fmt.Sprintf("Draft a reply to %s about %s", d.Sender, d.Subject)
		if ask != "" {
			d.ActionPrompt += ": " + ask
		}
		d.ask = ask
	}
	return d, nil
}

func isMe(addr string, me []string) bool {
	for _, m := range me {
		if strings.EqualFold(strings.TrimSpace(m), strings.TrimSpace(addr)) {
			return true
		}
	}
	return false
}

func senderName(m index.ThreadMessage) string {
	if n := strings.TrimSpace(m.From.Name); n != "" {
		return n
	}
	return m.From.Email
}

// displaySubject is the thread's subject without reply prefixes, as the
// nudge names it.
func displaySubject(t index.Thread, last index.ThreadMessage) string {
	s := t.Subject
	if s == "" {
		s = last.Subject
	}
	for {
		trimmed := replyPrefixRe.ReplaceAllString(s, "")
		if trimmed == s {
			return strings.TrimSpace(s)
		}
		s = trimmed
	}
}

var replyPrefixRe = regexp.MustCompile(`^(?i:re|fwd?|aw|wg|sv|tr)\s*(?:\[\d+\])?\s*:\s*`)

// maxMessage is the most runes a nudge may have.
const maxMessage = 120

func waitingMessage(sender, subject string) string {
	const tail = ". Draft a reply?"
	head := sender + " is waiting on your reply about "
	room := maxMessage - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	if utf8.RuneCountInString(subject) > room {
		r := []rune(subject)
		subject = strings.TrimSpace(string(r[:max(0, room-1)])) + "…"
	}
	if strings.HasSuffix(subject, "…") {
		return head + subject + tail[1:]
	}
	return head + subject + tail
}
