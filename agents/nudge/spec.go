package nudge

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Choice is one button of a bubble: ID is the answer it gives.
type Choice struct {
	ID    string
	Label string
}

// Spec is how the bubble presents a kind of nudge, besides the nudge's own
// Message. Esc always answers Dismiss.
type Spec struct {
	// Title is the small heading: what the nudge is about in the lawyer's
	// words ("Email", "Reminder"), never the kind's internal name; empty
	// shows "Spirit".
	Title       string
	Choices     []Choice // the buttons; the first is the default for Enter on an empty box
	Placeholder string   // hint in the response box; empty for none
	// NoDefault: Enter on an empty box does nothing (a question must not be
	// dismissed, an approval not approved, by a stray Enter).
	NoDefault bool
}

// ApprovalUnreadable is added to the message of an approval whose Detail
// cannot be read or shows no action; such an approval offers only Deny.
const ApprovalUnreadable = "\n\nSpirit cannot show this action in full, so it cannot be approved here."

var specs = map[Kind]Spec{
	KindReminder: {Title: "Reminder",
		Choices:     []Choice{{Accept, "Done"}, {Snooze, "Snooze 10 min"}, {Dismiss, "Dismiss"}},
		Placeholder: "Snooze for… (e.g. 30 minutes)"},
	KindReminderConfirm: {Title: "Reminder",
		Choices:     []Choice{{Accept, "Set"}, {Change, "Change time"}, {Dismiss, "Dismiss"}},
		Placeholder: "Or type another time, e.g. “at 4 instead”"},
	KindReminderTrigger: {Title: "Reminder",
		Choices:     []Choice{{Accept, "Set"}, {Dismiss, "Dismiss"}},
		Placeholder: "Or type a time instead, e.g. “tomorrow at 9”"},
	KindReminderWhen: {Title: "Reminder",
		Placeholder: "Or type a time, e.g. “Friday at 10”"},
	KindReminderList: {Title: "Reminder",
		Choices: []Choice{{OpenReminders, "Open Reminders"}, {Accept, "OK"}}},
	KindInfo: {Title: "Spirit",
		Choices: []Choice{{Accept, "OK"}}},
	KindGlance: {Title: "Email",
		Choices:     []Choice{{Accept, "Draft it"}, {Snooze, "Not now"}, {Dismiss, "Dismiss"}},
		Placeholder: "Or tell Spirit what to do instead…"},
	KindCommitment: {Title: "Said on a call",
		Choices:     []Choice{{Accept, "Set"}, {Change, "Change time"}, {Dismiss, "Dismiss"}},
		Placeholder: "Or type another time, e.g. “Thursday at 4 instead”"},
	KindMeeting: {Title: "Meeting",
		Choices:     []Choice{{Accept, "Brief me"}, {Snooze, "Not now"}, {Dismiss, "Dismiss"}},
		Placeholder: "Or tell Spirit what to prepare…"},
	KindSuggestion: {Title: "Spirit",
		Choices:     []Choice{{Accept, "Do it"}, {Snooze, "Not now"}, {Dismiss, "Dismiss"}},
		Placeholder: "Or tell Spirit what to do instead…"},
	KindQuestion: {Title: "Question",
		Choices:     []Choice{{Dismiss, "Dismiss"}},
		Placeholder: "Type your answer…", NoDefault: true},
	KindApproval: {Title: "Approval",
		Choices:     []Choice{{Accept, "Approve"}, {Edit, "Edit"}, {Dismiss, "Deny"}},
		Placeholder: "Or tell Spirit what to change…", NoDefault: true},
	KindHelp: {Title: "Need help",
		Choices:     []Choice{{Accept, "Try again"}, {Dismiss, "Stop"}},
		Placeholder: "Tell Spirit how to go on…"},
	KindResult: {Title: "Done",
		Choices: []Choice{{Accept, "OK"}, {OpenActivity, "Show activity"}}},
}

// DefaultChoices are the buttons of a nudge of unknown kind (a proposal
// raised through the local API), and of a question whose Detail cannot be
// read.
func DefaultChoices() []Choice {
	return []Choice{{Accept, "Do it"}, {Snooze, "Not now"}, {Dismiss, "Dismiss"}}
}

// SpecFor is how the bubble presents a nudge of kind. The Choices are the
// caller's own copy.
//
// Three kinds have parts that depend on the nudge or the time; SpecFor gives
// only their fixed parts, and the caller builds the rest:
//   - KindQuestion: the Question detail's options become answer buttons
//     (AnswerChoice) besides Choices; a Detail that cannot be read shows
//     DefaultChoices instead.
//   - KindApproval: the Approval detail's Fields and Body are shown; the
//     Edit choice is dropped when Body is empty. A Detail that cannot be
//     read, or shows neither Fields nor Body, adds ApprovalUnreadable to the
//     message and keeps only the Dismiss ("Deny") choice.
//   - KindReminderWhen: Choices is empty; the caller offers quick times
//     relative to now (AtChoice).
//
// An unknown kind (one raised through the local API, named by whoever
// raised it) is titled by kindTitle and has DefaultChoices.
func SpecFor(kind Kind) Spec {
	s, ok := specs[kind]
	if !ok {
		return Spec{Title: kindTitle(kind), Choices: DefaultChoices()}
	}
	s.Choices = slices.Clone(s.Choices)
	return s
}

// kindTitle is an unknown kind's name as a heading: "_" as spaces, the
// first letter capitalised ("file_review" → "File review"); "" for none.
func kindTitle(kind Kind) string {
	t := strings.TrimSpace(strings.ReplaceAll(kind, "_", " "))
	r, n := utf8.DecodeRuneInString(t)
	if n == 0 {
		return ""
	}
	return string(unicode.ToUpper(r)) + t[n:]
}
