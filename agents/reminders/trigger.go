package reminders

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// Reminders tied to a moment (issue 15 §4) wait in the store without a
// time. The app's watchers call FireOn when a moment of their kind comes:
// the glance when a window shows a mail thread, the app switch when a
// window comes to the front, the calendar part 15 minutes before a
// meeting. The rules below say whether the moment fits; the store's
// FireTriggered makes it fire once.

// Window is an app or window that came to the front.
type Window struct {
	App, Title string
	// Mail marks a mail client's window, which "my email" or "my inbox" names.
	Mail bool
	// Excluded windows are never looked at: nothing fires on them.
	Excluded bool
}

// Person is someone on a mail thread or a meeting.
type Person struct {
	Name, Email string
}

// MailThread is a mail thread a window showed.
type MailThread struct {
	Subject string
	People  []Person
}

// MatchWindow reports whether w fits an app trigger: every word of its
// name is among the words of the app's name and the window's title ("the
// Brookline NDA" fits "Brookline NDA v3.docx - Word"), and "email" fits
// any mail client.
func MatchWindow(t store.Trigger, w Window) bool {
	if t.Kind != store.TriggerApp || w.Excluded {
		return false
	}
	want := keyWords(t.Name)
	if len(want) == 0 {
		return false
	}
	if len(want) == 1 && mailWords[want[0]] {
		return w.Mail
	}
	return containsAll(keyWords(w.App+" "+w.Title), want)
}

// MatchThread reports whether th fits a thread trigger: the person is one
// of its people (see MatchPerson) and every word of the subject is in its
// subject, whichever of the two the trigger names.
func MatchThread(t store.Trigger, th MailThread) bool {
	if t.Kind != store.TriggerThread || (t.Person == "" && t.Subject == "") {
		return false
	}
	if t.Person != "" && !slices.ContainsFunc(th.People, func(p Person) bool { return MatchPerson(t.Person, p) }) {
		return false
	}
	if t.Subject != "" {
		want := keyWords(t.Subject)
		if len(want) == 0 || !containsAll(keyWords(th.Subject), want) {
			return false
		}
	}
	return true
}

// MatchMeeting reports whether a meeting with people fits a person
// trigger.
func MatchMeeting(t store.Trigger, people []Person) bool {
	return t.Kind == store.TriggerPerson &&
		slices.ContainsFunc(people, func(p Person) bool { return MatchPerson(t.Person, p) })
}

// MatchPerson reports whether the name the lawyer said fits p: each of its
// words (titles aside) is a word of p's name, or, when p has no name, of
// the address before the @ ("marcy.howard@…"). "Marcy" fits Marcy Howard;
// "Marcy Howard" fits "Howard, Marcy"; "Marc" fits neither.
func MatchPerson(said string, p Person) bool {
	want := slices.DeleteFunc(keyWords(said), func(w string) bool { return titleWords[w] })
	if len(want) == 0 {
		return false
	}
	have := keyWords(p.Name)
	if local, _, ok := strings.Cut(p.Email, "@"); ok {
		have = append(have, keyWords(local)...)
	}
	return containsAll(have, want)
}

// mailWords name the mail app itself.
var mailWords = map[string]bool{"email": true, "mail": true, "inbox": true, "emails": true}

// titleWords come before a name and are not part of what must match.
var titleWords = map[string]bool{"dr": true, "mr": true, "mrs": true, "ms": true, "prof": true}

// noiseWords carry nothing a window or subject must show.
var noiseWords = map[string]bool{"the": true, "a": true, "an": true, "my": true, "of": true, "and": true}

// keyWords are s's words, lower case, split at anything not a letter or a
// digit, possessives and noise words dropped.
func keyWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		if w != "" && !noiseWords[w] {
			out = append(out, w)
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// Moment words what a trigger waits for, after "next time you": "open
// Marcy Howard's email", "open the Brookline NDA", "meet with Grant".
func Moment(t store.Trigger) string {
	switch t.Kind {
	case store.TriggerThread:
		switch {
		case t.Person != "" && t.Subject != "":
			return "open " + possessive(t.Person) + " email about " + t.Subject
		case t.Person != "":
			return "open " + possessive(t.Person) + " email"
		}
		return "open the email about " + t.Subject
	case store.TriggerApp:
		name := strings.TrimSpace(t.Name)
		if mailWords[strings.ToLower(name)] {
			return "open your email"
		}
		if strings.Contains(name, " ") {
			// Several words name a document or a page ("the Brookline
			// NDA"); one word names an app ("Outlook").
			return "open the " + name
		}
		return "open " + name
	case store.TriggerPerson:
		return "meet with " + t.Person
	}
	return "come back"
}

func possessive(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}

// aboutOrTo joins a task to "remind you": "to ask about the cure period",
// but "about the estoppel" for a task that is a thing, not an act ("remind
// me about the estoppel").
func aboutOrTo(task string) string {
	first, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(task)), " ")
	switch first {
	case "the", "a", "an", "my", "our", "his", "her", "their", "this", "that", "these", "those", "your":
		return "about " + task
	}
	return "to " + task
}

// Heading is the Reminders window's line for a waiting reminder: "When
// you next open Marcy Howard's email: ask about the cure period".
func Heading(r store.Reminder) string {
	if r.Trigger == nil {
		return r.Task
	}
	return "When you next " + Moment(*r.Trigger) + ": " + r.Task
}

// FireOn fires, once each, the reminders waiting for a moment of kind
// that match says has come; seen words the moment for the world log
// ("Outlook — RE: SNDA"). Each firing is told to the Notifier as a due
// reminder's is, so it shows the same bubble. It returns how many fired.
func (s *Scheduler) FireOn(ctx context.Context, kind store.TriggerKind, seen string, match func(store.Trigger) bool) (int, error) {
	ws, err := s.st.WaitingReminders(ctx, kind)
	if err != nil {
		return 0, fmt.Errorf("fire on %s: %w", kind, err)
	}
	fired := 0
	var errs []error
	for _, r := range ws {
		if r.Trigger == nil || !match(*r.Trigger) {
			continue
		}
		msg := "Reminder: " + r.Task + " (you asked for it next time you " + Moment(*r.Trigger) + ")"
		if r.Trigger.Kind == store.TriggerPerson {
			msg = "Reminder: " + r.Task + " — your meeting with " + r.Trigger.Person + " starts soon"
		}
		fr, n, err := s.st.FireTriggered(ctx, r.ID, s.clock.Now(), seen, store.Nudge{Kind: nudge.KindReminder, Message: msg})
		switch {
		case errors.Is(err, store.ErrNotDue), errors.Is(err, store.ErrNotFound):
			continue // fired by another watcher, or taken back meanwhile
		case err != nil:
			errs = append(errs, err)
			continue
		}
		fired++
		s.log.InfoContext(ctx, "reminders: fired on its moment", "reminder", fr.ID, "nudge", n.ID, "trigger", string(kind))
		s.deliver(ctx, fr, n, false)
	}
	return fired, errors.Join(errs...)
}

// Waiting reports whether any reminder waits for a moment of kind, so a
// watcher can skip the work of finding out what the screen shows.
func (s *Scheduler) Waiting(ctx context.Context, kind store.TriggerKind) bool {
	ws, err := s.st.WaitingReminders(ctx, kind)
	return err == nil && len(ws) > 0
}
