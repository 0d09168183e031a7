package calendar

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/proposal"
)

// Lead is how long before a meeting its brief nudge comes: the meetings
// considered start after now and at most Lead later.
const Lead = 15 * time.Minute

// Lookback is how far back mail from a meeting's people counts.
const Lookback = 30 * 24 * time.Hour

// Me is the lawyer: a name, and every address they use; the mail model's,
// so that a brief and the glance read mail with one notion of who the
// lawyer is.
type Me = mail.Me

// Reasons an occurrence does not qualify for a brief (Skip), and reasons
// a Decision gives.
const (
	SkipAllDay    = "all_day"
	SkipCancelled = "cancelled"
	SkipFree      = "free"
	SkipDeclined  = "declined"
	SkipAlone     = "no_other_people"

	ReasonOpenThreads = "open_threads"    // nudge: the meeting's people wait on mail
	ReasonNoMeeting   = "no_meeting"      // no qualifying meeting starts within Lead
	ReasonNoThreads   = "no_open_threads" // the meeting has no open mail
	// ReasonDropped: the offer's words, made of the invitation's names and
	// the mail's subjects, broke the rule for proposals (Decision.Dropped).
	ReasonDropped = "dropped"
)

// Skip says why occ gets no brief whatever the mail ("" when it
// qualifies): it is all-day, cancelled, marked free, declined by the
// lawyer, or has nobody on it but the lawyer.
func Skip(occ Occurrence, me Me) string {
	switch {
	case occ.AllDay:
		return SkipAllDay
	case occ.Status == StatusCancelled:
		return SkipCancelled
	case occ.Transparent:
		return SkipFree
	}
	if Declined(occ, me) {
		return SkipDeclined
	}
	if len(Others(occ, me)) == 0 {
		return SkipAlone
	}
	return ""
}

// Declined reports whether the lawyer, as one of occ's attendees,
// declined it.
func Declined(occ Occurrence, me Me) bool {
	for _, a := range occ.Attendees {
		if me.Is(a.Email) && a.PartStat == PartStatDeclined {
			return true
		}
	}
	return false
}

// Busy reports whether occ takes the lawyer's time: it is not marked
// free (TRANSP:TRANSPARENT), not cancelled and not declined by them. An
// all-day event that is not marked free is busy all day, as calendar
// apps show it.
func Busy(occ Occurrence, me Me) bool {
	return !occ.Transparent && occ.Status != StatusCancelled && !Declined(occ, me)
}

// Others is the occurrence's people who are not the lawyer.
func Others(occ Occurrence, me Me) []Person {
	return slices.DeleteFunc(occ.People(), func(p Person) bool { return me.Is(p.Email) })
}

// OpenThread is a mail thread that waits on the lawyer.
type OpenThread struct {
	ThreadID int64 `json:"thread_id"`
	// MessageID is the newest message of the thread.
	MessageID string    `json:"message_id"`
	Subject   string    `json:"subject"`
	From      Person    `json:"from"`
	Date      time.Time `json:"date"`
	// Prompt is the task the glance would hand to the assistant for it
	// ("Draft a reply to … about …: <the question>").
	Prompt string `json:"prompt,omitempty"`
}

// OpenThreadsFunc finds the threads that wait on the lawyer with any of
// the given addresses (lower-case) among their senders. MailThreads is the
// one backed by the mail index.
type OpenThreadsFunc func(ctx context.Context, addrs []string) ([]OpenThread, error)

// Decision is Brief's verdict.
type Decision struct {
	Nudge  bool   `json:"nudge"`
	Reason string `json:"reason"`
	// Meeting is the qualifying occurrence the decision is about (nil
	// with ReasonNoMeeting), Others its people besides the lawyer.
	Meeting *Occurrence `json:"meeting,omitempty"`
	Others  []Person    `json:"others,omitempty"`
	// Threads are the meeting's open threads, newest first.
	Threads []OpenThread `json:"threads,omitempty"`
	// Message is the nudge's text when Nudge is set.
	Message string `json:"message,omitempty"`
	// Dropped says why an offer was not made (ReasonDropped).
	Dropped *proposal.Dropped `json:"dropped,omitempty"`
}

// Brief decides, at now, whether a meeting about to start is worth a
// nudge: of the occurrences that start after now and at most Lead later,
// it takes the earliest that qualifies (see Skip), and nudges when its
// other people have open mail (open is asked once, with their addresses).
// When several qualifying meetings start at that same minute the one with
// open threads wins. It does no I/O of its own.
func Brief(ctx context.Context, now time.Time, me Me, occs []Occurrence, open OpenThreadsFunc) (Decision, error) {
	var first []Occurrence
	for _, o := range occs {
		if !o.Start.After(now) || o.Start.After(now.Add(Lead)) || Skip(o, me) != "" {
			continue
		}
		switch {
		case len(first) == 0 || o.Start.Before(first[0].Start):
			first = []Occurrence{o}
		case o.Start.Equal(first[0].Start):
			first = append(first, o)
		}
	}
	if len(first) == 0 {
		return Decision{Reason: ReasonNoMeeting}, nil
	}
	var fallback Decision
	for i, m := range first {
		others := Others(m, me)
		d := Decision{Reason: ReasonNoThreads, Meeting: &first[i], Others: others}
		addrs := make([]string, len(others))
		for j, p := range others {
			addrs[j] = p.Email
		}
		threads, err := open(ctx, addrs)
		if err != nil {
			return d, fmt.Errorf("brief: open threads: %w", err)
		}
		if i == 0 {
			fallback = d
		}
		if len(threads) == 0 {
			continue
		}
		slices.SortFunc(threads, func(a, b OpenThread) int { return b.Date.Compare(a.Date) })
		d.Threads = threads
		msg := NudgeMessage(now, m, others, threads)
		if err := checkOffer(msg, m, others, me); err != nil {
			d.Reason, d.Dropped = ReasonDropped, proposal.Why(err)
			fallback = d
			continue
		}
		d.Nudge, d.Reason, d.Message = true, ReasonOpenThreads, msg
		return d, nil
	}
	return fallback, nil
}

// checkOffer holds a meeting offer's words to the rule for proposals
// (package proposal): its names come from the invitation and its
// subjects from the mail, which anyone may have written. A name or a
// subject that carries an address not of the meeting's people, a link or
// an instruction's words drops the offer.
func checkOffer(msg string, m Occurrence, others []Person, me Me) error {
	mt := proposal.Meeting{Key: m.Key(), Title: m.Summary}
	for _, p := range others {
		mt.People = append(mt.People, proposal.Person{Name: p.Name, Email: p.Email})
	}
	_, err := proposal.Check(proposal.Proposed{Message: msg, Action: proposal.Brief, Meeting: mt.Key},
		proposal.Facts{Me: me.Addresses, Meeting: &mt})
	return err
}

// NudgeMessage words the nudge: "Meeting with Marcy Howard in 15 min —
// “SNDA - Brooklyn Gardens” still waits on your reply. Want a brief?",
// naming first whoever on the meeting the mail waits on.
func NudgeMessage(now time.Time, m Occurrence, others []Person, threads []OpenThread) string {
	mins := int((m.Start.Sub(now) + time.Minute - 1) / time.Minute)
	who := ""
	for _, t := range threads {
		for _, p := range others {
			if strings.EqualFold(p.Email, t.From.Email) {
				who = p.Display()
				break
			}
		}
		if who != "" {
			break
		}
	}
	if who == "" && len(others) > 0 {
		who = others[0].Display()
	}
	with := who
	if n := len(others) - 1; n == 1 {
		with += " and 1 other"
	} else if n > 1 {
		with += fmt.Sprintf(" and %d others", n)
	}
	what := fmt.Sprintf("“%s” still waits on your reply", shorten(threads[0].Subject, 60))
	if len(threads) > 1 {
		what = fmt.Sprintf("%d threads wait on your reply, the latest “%s”", len(threads), shorten(threads[0].Subject, 50))
	}
	return fmt.Sprintf("Meeting with %s in %d min — %s. Want a brief?", with, mins, what)
}

func shorten(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// Recheck finds the occurrence a nudge was about (by its Key) in a fresh
// expansion, so the app can update a nudge whose meeting moved and
// withdraw one whose meeting was deleted, cancelled, declined or made
// free: ok is false when the occurrence is gone or no longer qualifies.
func Recheck(key string, me Me, occs []Occurrence) (Occurrence, bool) {
	for _, o := range occs {
		if o.Key() == key {
			return o, Skip(o, me) == ""
		}
	}
	return Occurrence{}, false
}

// NextWindow is when Brief should next be asked: the first time after now
// at which a qualifying occurrence comes within Lead of its start (ok
// false when none does). The app sleeps until then, or until a sync.
func NextWindow(now time.Time, me Me, occs []Occurrence) (time.Time, bool) {
	var next time.Time
	for _, o := range occs {
		if !o.Start.After(now) || Skip(o, me) != "" {
			continue
		}
		at := o.Start.Add(-Lead)
		if !at.After(now) {
			at = now // already in its window
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next, !next.IsZero()
}
