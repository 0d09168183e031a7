package work

import (
	"context"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work/pace"
)

// Before is the part of the output gate that is known before the work,
// so that a message that could not be shown costs no model call: the
// dedup key already delivered within window, quiet hours, the hourly cap.
// delivered are the runs delivered lately, nudges those created in the
// last hour.
func Before(now time.Time, key string, delivered []store.WorkRun, nudges []store.Nudge, p pace.Policy, window time.Duration) Reason {
	if key != "" && deliveredKey(now, key, delivered, window) {
		return ReasonDuplicate
	}
	return paced(now, delivered, nudges, p)
}

// After is the output gate for notice n: an empty message is an ack; the
// same text or dedup key delivered within window is a duplicate; then
// quiet hours and the hourly cap, the glance's (package pace). "" lets n
// through.
func After(now time.Time, n Notice, key string, delivered []store.WorkRun, nudges []store.Nudge, p pace.Policy, window time.Duration) Reason {
	text := normal(n.Message)
	if text == "" {
		return ReasonAck
	}
	if key != "" && deliveredKey(now, key, delivered, window) {
		return ReasonDuplicate
	}
	for _, r := range delivered {
		if within(r.Delivered, now, window) && normal(r.Message) == text {
			return ReasonDuplicate
		}
	}
	return paced(now, delivered, nudges, p)
}

// paced applies the lawyer's pacing. The hour's count is the glance's
// nudges plus the work delivered: work is counted by its runs, which
// exist before their nudges do, and not again by its nudges (by their
// subject, or, for a delivery with a subject of its own, by the run's
// nudge id).
func paced(now time.Time, delivered []store.WorkRun, nudges []store.Nudge, p pace.Policy) Reason {
	ofRuns := map[int64]bool{}
	for _, r := range delivered {
		if r.NudgeID != 0 {
			ofRuns[r.NudgeID] = true
		}
	}
	others := make([]store.Nudge, 0, len(nudges))
	for _, n := range nudges {
		if !strings.HasPrefix(n.Subject, pace.WorkSubjectPrefix) && !ofRuns[n.ID] {
			others = append(others, n)
		}
	}
	count := pace.LastHour(others, now)
	for _, r := range delivered {
		if within(r.Delivered, now, time.Hour) {
			count++
		}
	}
	return Reason(p.Gate(now, count))
}

func deliveredKey(now time.Time, key string, delivered []store.WorkRun, window time.Duration) bool {
	for _, r := range delivered {
		if r.DedupKey == key && within(r.Delivered, now, window) {
			return true
		}
	}
	return false
}

// within: t is set and less than d before now (or after it: a clock that
// went back still blocks).
func within(t *time.Time, now time.Time, d time.Duration) bool {
	return t != nil && now.Sub(*t) < d
}

// normal is a message as compared for duplicates: case and spacing do
// not make it new.
func normal(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// ActiveHours are the days and hours the heartbeat may work, in the
// lawyer's time zone: outside them the model is never called.
type ActiveHours struct {
	Days [7]bool // indexed by time.Weekday
	// From and To are minutes after midnight; To may be 24*60. A span
	// whose From is after its To runs past midnight and belongs to the
	// day it starts on; From == To is empty.
	From, To int
}

// DefaultActiveHours: weekdays 08:00–19:00.
var DefaultActiveHours = ActiveHours{Days: [7]bool{time.Monday: true, time.Tuesday: true, time.Wednesday: true,
	time.Thursday: true, time.Friday: true}, From: 8 * 60, To: 19 * 60}

// Contains reports whether t (its wall clock in its own location) is
// inside the active hours.
func (a ActiveHours) Contains(t time.Time) bool {
	m, wd := t.Hour()*60+t.Minute(), t.Weekday()
	switch {
	case a.From < a.To:
		return a.Days[wd] && m >= a.From && m < a.To
	case a.From > a.To:
		return a.Days[wd] && m >= a.From || a.Days[(wd+6)%7] && m < a.To
	}
	return false
}

// Gate is an input gate that skips with ReasonOutsideActiveHours outside
// a, reading now in loc (nil: now's own location).
func (a ActiveHours) Gate(loc *time.Location) InputGate {
	return func(_ context.Context, now time.Time) Reason {
		if loc != nil {
			now = now.In(loc)
		}
		if !a.Contains(now) {
			return ReasonOutsideActiveHours
		}
		return ""
	}
}
