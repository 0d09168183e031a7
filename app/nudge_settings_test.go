package app

import (
	"context"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/settings"
)

// TestSnoozeLengthSetting: Snooze on a fired reminder, with no time given,
// puts it off by the lawyer's snooze length — 10 minutes by default, what
// Settings → Nudges says once changed; a time typed still wins.
func TestSnoozeLengthSetting(t *testing.T) {
	ctx := context.Background()
	c, st := newTestCore(t, t.TempDir())
	record(c)
	for _, tc := range []struct {
		name    string
		setting int    // 0: leave the default
		typed   string // in the bubble's box
		said    string // instead of the button: a voice command
		want    time.Duration
	}{
		{"default length", 0, "", "", 10 * time.Minute},
		{"changed length", 25, "", "", 25 * time.Minute},
		{"a typed time wins", 25, "45", "", 45 * time.Minute},
		{"said without a length", 25, "", "snooze that", 25 * time.Minute},
		{"said with a length", 25, "", "snooze that for 5 minutes", 5 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setting != 0 {
				if _, err := c.UpdateSettings(ctx, "test", func(s *settings.Settings) { s.SnoozeMinutes = tc.setting }); err != nil {
					t.Fatal(err)
				}
			}
			due := time.Now().Add(-time.Minute)
			r, err := st.CreateReminder(ctx, store.NewReminder{Task: "call Marcy Howard", Due: &due})
			if err != nil {
				t.Fatal(err)
			}
			n, err := c.nudge(ctx, store.Nudge{Kind: nudge.KindReminder, Message: "Call Marcy Howard", Subject: nudge.ReminderSubject(r.ID)})
			if err != nil {
				t.Fatal(err)
			}
			before := time.Now()
			if tc.said != "" {
				if res, err := c.Say(ctx, tc.said); err != nil || res.Intent != "snooze" {
					t.Fatalf("Say(%q) = %+v, %v", tc.said, res, err)
				}
			} else if _, err := c.Answer(ctx, n.ID, nudge.Snooze, tc.typed); err != nil {
				t.Fatal(err)
			}
			after := time.Now()
			got, err := st.Reminder(ctx, r.ID)
			if err != nil || got.Due == nil {
				t.Fatalf("reminder = %+v, %v", got, err)
			}
			// The store keeps milliseconds.
			if got.Due.Before(before.Add(tc.want).Truncate(time.Millisecond)) || got.Due.After(after.Add(tc.want)) {
				t.Errorf("due %v, want %v after the snooze (%v)", got.Due.Format(time.TimeOnly), tc.want, before.Format(time.TimeOnly))
			}
		})
	}
}

// TestDismissBackoffSetting: after two dismissed glances the glance holds
// back, as it always has; with the back-off turned off in Settings it does
// not, and the hourly cap set there still holds.
func TestDismissBackoffSetting(t *testing.T) {
	ctx := context.Background()
	c, _ := newTestCore(t, t.TempDir())
	now := time.Now()
	dismissed := func(ago time.Duration) store.Nudge {
		return store.Nudge{Kind: nudge.KindGlance, State: store.NudgeDismissed, Created: now.Add(-ago - time.Minute), Updated: now.Add(-ago)}
	}
	all := []store.Nudge{dismissed(2 * time.Minute), dismissed(5 * time.Minute)}
	policy := glancePolicy(c.settings)
	gate := func() string {
		t.Helper()
		p, err := policy(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return glance.Gate(all, now, p)
	}
	if got := gate(); got != "cooling down after 2 dismissals" {
		t.Errorf("default: gate %q, want the glance held back", got)
	}
	if _, err := c.UpdateSettings(ctx, "test", func(s *settings.Settings) { s.DismissBackoff = false }); err != nil {
		t.Fatal(err)
	}
	if got := gate(); got != "" {
		t.Errorf("back-off off: gate %q, want the glance let through", got)
	}
	if _, err := c.UpdateSettings(ctx, "test", func(s *settings.Settings) { s.GlanceMaxPerHour = 0 }); err != nil {
		t.Fatal(err)
	}
	if got := gate(); got != "2 unprompted nudges in the last hour" {
		t.Errorf("cap 0: gate %q, want the cap to hold", got)
	}
}
