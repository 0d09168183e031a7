// Package nudge holds the contract of Spirit's nudges in one place: their
// kinds, the answers the lawyer can give (API actions and bubble choices),
// the JSON details agents attach, the subjects that say what a nudge is
// about, how the bubble presents each kind, and a registry of what acts on
// an answer.
//
// The string values are stored in the nudges table and sent over the local
// API: they must not change.
package nudge

// Kind is a nudge's kind (store.Nudge.Kind). Kinds raised through the local
// API may be any lower-case word; these are the ones Spirit knows.
type Kind = string

// Nudge kinds.
const (
	// Spirit's own.
	KindReminder        Kind = "reminder"         // a reminder fired
	KindReminderConfirm Kind = "reminder_confirm" // "Remind you to … — tomorrow 3:00 PM?"
	KindReminderWhen    Kind = "reminder_when"    // "When should I remind you to …?"
	KindReminderList    Kind = "reminder_list"    // the reminders, read out
	KindInfo            Kind = "info"             // a plain message; agents' notify_user too
	KindGlance          Kind = "glance"           // an email on screen may need the lawyer
	// KindReminderTrigger: "I'll remind you to … next time you open
	// Marcy Howard's email." — a reminder tied to a moment, just asked for.
	KindReminderTrigger Kind = "reminder_trigger"
	// KindCommitment: "You said you'd … by Friday. Remind you Friday at
	// 9:00 AM?" — a commitment heard in a call (voice/commit), offered
	// once; Subject is CommitmentSubject(key).
	KindCommitment Kind = "commitment"
	// KindMeeting: "Meeting with Marcy Howard in 15 min — … Want a
	// brief?" — a meeting about to start with people whose mail waits on
	// the lawyer, once per occurrence; Subject is MeetingSubject(key),
	// Detail a MeetingOffer.
	KindMeeting Kind = "meeting"
	// KindSuggestion: what work outside a conversation (a heartbeat, a
	// routine, a webhook) found, with an action Spirit could take: Do it
	// runs the action (ActionPrompt) as a task agent. Without an action,
	// work's delivery is KindInfo.
	KindSuggestion Kind = "suggestion"

	// The task agents'.
	KindQuestion Kind = "question" // ask_user: Detail is a Question
	KindApproval Kind = "approval" // request_approval: Detail is an Approval
	KindHelp     Kind = "help"     // an agent failed: "Need help"
	KindResult   Kind = "result"   // an agent finished: Message is the summary
)

// SpiritsOwn reports whether only Spirit's own parts raise nudges of
// kind: every kind Spirit knows but KindInfo. A local integration (POST
// /nudges) raises KindInfo or a kind of its own naming, never one that
// would pass for Spirit's own: an agent's approval or question, a glance.
func SpiritsOwn(kind Kind) bool {
	_, known := specs[kind]
	return known && kind != KindInfo
}

// Important reports whether an agent waits on the lawyer's answer to a
// nudge of this kind: such bubbles go first and push a lesser bubble back
// into the queue.
func Important(kind Kind) bool {
	return kind == KindQuestion || kind == KindApproval || kind == KindHelp
}

// Answers: the actions of the local API (POST /nudges/{id}/respond) and
// the bubble's choices (Choice.ID). A handler receives one of these, or a
// prefixed choice (AnswerPrefix, AtPrefix).
const (
	// API actions; the bubble's buttons use them too.
	Accept  = "accept"
	Dismiss = "dismiss" // also what Esc answers
	Snooze  = "snooze"
	// Edit approves an approval with the text as its edited body; in the
	// bubble it is the button that opens the body for editing.
	Edit = "edit"
	// AnswerPrefix + an option's text answers a question (AnswerChoice).
	AnswerPrefix = "answer:"

	// Bubble-only choices.
	Reply         = "reply"          // free text sent with Enter; taken as Accept with the text
	Change        = "change"         // reminder_confirm: ask for another time
	OpenReminders = "open_reminders" // reminder_list: open the Reminders window
	OpenActivity  = "open_activity"  // result: open the Activity window
	// AtPrefix + an RFC 3339 time is a reminder_when quick time (AtChoice).
	AtPrefix = "at:"
)
