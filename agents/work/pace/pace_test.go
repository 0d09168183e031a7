package pace

import (
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

func TestGate(t *testing.T) {
	now := time.Date(2026, 11, 25, 21, 0, 0, 0, time.UTC)
	evenings := func(t time.Time) bool { return t.Hour() >= 20 || t.Hour() < 8 }
	cases := []struct {
		name     string
		p        Policy
		lastHour int
		want     string
	}{
		{"open", Policy{MaxPerHour: 4}, 0, ""},
		{"one below the cap", Policy{MaxPerHour: 4}, 3, ""},
		{"at the cap", Policy{MaxPerHour: 4}, 4, HourlyCap},
		{"cap of zero turns nudges off", Policy{MaxPerHour: 0}, 0, HourlyCap},
		{"quiet hours", Policy{MaxPerHour: 4, Quiet: evenings}, 0, QuietHours},
		{"quiet hours before the cap", Policy{MaxPerHour: 1, Quiet: evenings}, 5, QuietHours},
		{"not quiet now", Policy{MaxPerHour: 4, Quiet: func(time.Time) bool { return false }}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.p.Gate(now, c.lastHour); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestLastHour(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	n := func(kind, subject string, ago time.Duration) store.Nudge {
		return store.Nudge{Kind: kind, Subject: subject, Created: now.Add(-ago)}
	}
	cases := []struct {
		name string
		all  []store.Nudge
		want int
	}{
		{"none", nil, 0},
		{"a glance a minute ago", []store.Nudge{n(nudge.KindGlance, "glance:<a@x>", time.Minute)}, 1},
		{"a brief offered before a meeting", []store.Nudge{n(nudge.KindMeeting, "meeting:k", time.Minute)}, 1},
		{"an offer about something said on a call", []store.Nudge{n(nudge.KindCommitment, "commitment:k", time.Minute)}, 1},
		{"a work delivery", []store.Nudge{n(nudge.KindInfo, "work-12", 10*time.Minute)}, 1},
		{"older than an hour", []store.Nudge{n(nudge.KindGlance, "", time.Hour)}, 0},
		{"asked-for nudges do not count", []store.Nudge{n(nudge.KindReminder, "reminder-3", time.Minute),
			n(nudge.KindQuestion, "agent:task-1", time.Minute), n(nudge.KindInfo, "agent:task-1", time.Minute)}, 0},
		{"a clock that went back still counts", []store.Nudge{n(nudge.KindGlance, "", -time.Minute)}, 1},
		{"mixed", []store.Nudge{n(nudge.KindGlance, "", time.Minute), n(nudge.KindInfo, "work-1", 59*time.Minute),
			n(nudge.KindInfo, "work-2", 61*time.Minute), n(nudge.KindResult, "agent:x", time.Minute)}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := LastHour(c.all, now); got != c.want {
				t.Fatalf("got %d, want %d", got, c.want)
			}
		})
	}
}
