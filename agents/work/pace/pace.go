// Package pace holds the one rule for how often Spirit may interrupt the
// lawyer unasked: quiet hours and an hourly cap, shared by the glance and
// by work done outside a conversation (package work), so that the two
// together never show more than the lawyer allowed.
package pace

import (
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// Policy is what the lawyer set (Settings: the glance's quiet hours and
// nudges per hour).
type Policy struct {
	MaxPerHour int                  // unasked-for nudges allowed in any hour; 0: none
	Quiet      func(time.Time) bool // inside quiet hours; nil: never quiet
}

// Reasons Gate gives.
const (
	QuietHours = "quiet-hours"
	HourlyCap  = "hourly-cap"
)

// WorkSubjectPrefix begins the subject of every nudge a work delivery
// becomes (store.WorkIdentifier).
const WorkSubjectPrefix = "work-"

// Unasked reports whether n is a nudge Spirit raised on its own, the kind
// the hourly cap counts: a glance, an offer about something said on a
// call, a brief offered before a meeting, or a delivery of work.
func Unasked(n store.Nudge) bool {
	switch n.Kind {
	case nudge.KindGlance, nudge.KindCommitment, nudge.KindMeeting:
		return true
	}
	return strings.HasPrefix(n.Subject, WorkSubjectPrefix)
}

// LastHour counts the unasked-for nudges created in the hour before now.
func LastHour(all []store.Nudge, now time.Time) int {
	n := 0
	for _, x := range all {
		if Unasked(x) && inLastHour(x.Created, now) {
			n++
		}
	}
	return n
}

// inLastHour is the glance's own test: a nudge stamped after now (the
// clock went back) still counts, which errs on the quiet side.
func inLastHour(t, now time.Time) bool { return now.Sub(t) < time.Hour }

// Gate returns why no unasked-for nudge may be shown at now, when
// lastHour were shown in the hour before: QuietHours, HourlyCap, or ""
// when one may.
func (p Policy) Gate(now time.Time, lastHour int) string {
	if p.Quiet != nil && p.Quiet(now) {
		return QuietHours
	}
	if lastHour >= p.MaxPerHour {
		return HourlyCap
	}
	return ""
}
