package nudge

import (
	"strconv"
	"strings"

	"github.com/spirit-app/spirit/agents/store"
)

// A nudge's Subject says what it is about; nudges about the same thing
// share it (one glance per email, the nudges of one agent, of one reminder).
const (
	glancePrefix   = "glance:"
	taskPrefix     = "agent:"
	reminderPrefix = "reminder-"
	commitPrefix   = "commitment:"
	meetingPrefix  = "meeting:"
)

// GlanceSubject is the subject of a glance nudge about the email with
// this Message-ID: "glance:<id>".
func GlanceSubject(messageID string) string { return glancePrefix + messageID }

// GlanceMessage is the Message-ID a glance subject names; ok is false for
// any other subject and for one that names no message.
func GlanceMessage(subject string) (messageID string, ok bool) {
	return cutNonEmpty(subject, glancePrefix)
}

// TaskSubject is the subject of the nudges of the task agent session:
// "agent:<session>".
func TaskSubject(session string) string { return taskPrefix + session }

// TaskSession is the agent session a subject names; ok is false for any
// other subject and for one that names no session.
func TaskSession(subject string) (session string, ok bool) {
	return cutNonEmpty(subject, taskPrefix)
}

// CommitmentSubject is the subject of the nudge offering a reminder for
// the commitment with this key (commit.Commitment.Key): "commitment:<key>".
// A commitment is offered once, whatever the answer: a nudge with this
// subject, in any state, means it was.
func CommitmentSubject(key string) string { return commitPrefix + key }

// CommitmentKey is the commitment key a subject names; ok is false for
// any other subject and for one that names no key.
func CommitmentKey(subject string) (key string, ok bool) {
	return cutNonEmpty(subject, commitPrefix)
}

// MeetingSubject is the subject of the nudges about the calendar
// occurrence with this key (calendar.Occurrence.Key): "meeting:<key>". An
// occurrence is offered once: a nudge with this subject that the calendar
// did not itself withdraw means it was.
func MeetingSubject(key string) string { return meetingPrefix + key }

// MeetingKey is the occurrence key a subject names; ok is false for any
// other subject and for one that names no key.
func MeetingKey(subject string) (key string, ok bool) {
	return cutNonEmpty(subject, meetingPrefix)
}

// ReminderSubject is the subject of the nudges about reminder id:
// "reminder-<id>". It is the reminder's world-log identifier too
// (store.ReminderIdentifier), which the store writes as the subject of the
// nudge a firing raises.
func ReminderSubject(id int64) string { return store.ReminderIdentifier(id) }

// ReminderID is the reminder a subject names; ok is false for any other
// subject and for an id that is not a positive decimal number as
// ReminderSubject writes it.
func ReminderID(subject string) (int64, bool) {
	s, ok := strings.CutPrefix(subject, reminderPrefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != s {
		return 0, false
	}
	return id, true
}

func cutNonEmpty(s, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || rest == "" {
		return "", false
	}
	return rest, true
}
