package desktop

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/app/settings"
)

// TestNudgesPage: Settings → Nudges shows the pacing as set; what cannot
// be kept is refused as it is typed, with the reason under its box and
// Save off; valid values are kept on Enter and read back by the core; the
// back-off check is kept at once.
func TestNudgesPage(t *testing.T) {
	ctx := context.Background()
	g, sp, _ := newTestGUI(t)
	w := g.fa.NewWindow("Settings")
	w.Resize(fyne.NewSize(700, 700))
	v := newNudgesView(g)
	w.SetContent(v.content)
	if v.perHour.Text != "4" || v.quiet.Text != "" || v.snooze.Text != "10" || !v.backoff.Checked {
		t.Fatalf("page shows %q %q %q %v, want the defaults", v.perHour.Text, v.quiet.Text, v.snooze.Text, v.backoff.Checked)
	}

	for _, tc := range []struct {
		name                  string
		perHour, quiet, snooz string
		wantProblem           map[string]string // key → part of the reason shown
	}{
		{"too many an hour", "61", "", "10", map[string]string{settings.KeyGlanceMaxPerHour: "from 0 to 60"}},
		{"quiet hours in words", "4", "10pm to 7am", "10", map[string]string{settings.KeyGlanceQuietHours: "must look like 20-8"}},
		{"snooze in words, and empty", "", "", "ten", map[string]string{
			settings.KeyGlanceMaxPerHour: "from 0 to 60", settings.KeySnoozeMinutes: "minutes from 1 to 1440"}},
		{"all valid", "2", "22-7", "25", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v.perHour.SetText(tc.perHour)
			v.quiet.SetText(tc.quiet)
			v.snooze.SetText(tc.snooz)
			for key, l := range v.problems {
				want := tc.wantProblem[key]
				if want == "" && l.Visible() || want != "" && (!l.Visible() || !strings.Contains(l.Text, want)) {
					t.Errorf("%s: problem shown %v %q, want %q", key, l.Visible(), l.Text, want)
				}
			}
			if got := !v.save.Disabled(); got != (tc.wantProblem == nil) {
				t.Errorf("Save enabled = %v, want %v", got, tc.wantProblem == nil)
			}
		})
	}
	v.snooze.OnSubmitted(v.snooze.Text)
	settleWork(g, &v.bg)
	s, err := sp.core.Settings(ctx)
	if err != nil || s.GlanceMaxPerHour != 2 || s.GlanceQuietHours != (settings.QuietHours{From: 22, To: 7, On: true}) || s.SnoozeMinutes != 25 {
		t.Fatalf("settings after Enter: %d %v %d, %v; want 2, 22-7, 25", s.GlanceMaxPerHour, s.GlanceQuietHours, s.SnoozeMinutes, err)
	}
	if v.status.Text != "Saved." {
		t.Errorf("status = %q, want Saved.", v.status.Text)
	}

	// Refused values are never kept, even on Enter.
	v.snooze.SetText("0")
	v.snooze.OnSubmitted(v.snooze.Text)
	settleWork(g, &v.bg)
	if s, _ := sp.core.Settings(ctx); s.SnoozeMinutes != 25 || !strings.HasPrefix(v.status.Text, "Not saved") {
		t.Errorf("after a refused Enter: snooze %d, status %q; want 25 kept and Not saved", s.SnoozeMinutes, v.status.Text)
	}

	test.Tap(v.backoff)
	settleWork(g, &v.bg)
	if s, _ := sp.core.Settings(ctx); s.DismissBackoff {
		t.Error("unchecking the back-off did not turn it off")
	}
	// A new page shows what is kept.
	if v2 := newNudgesView(g); v2.perHour.Text != "2" || v2.quiet.Text != "22-7" || v2.snooze.Text != "25" || v2.backoff.Checked {
		t.Errorf("a new page shows %q %q %q %v", v2.perHour.Text, v2.quiet.Text, v2.snooze.Text, v2.backoff.Checked)
	}
}

// TestReminderBubbleSaysTheSnoozeLength: a fired reminder's Snooze button
// names the length set on the Nudges page.
func TestReminderBubbleSaysTheSnoozeLength(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	if _, err := sp.core.UpdateSettings(context.Background(), "test", func(s *settings.Settings) { s.SnoozeMinutes = 45 }); err != nil {
		t.Fatal(err)
	}
	notify(t, g, sp.core, nudge.KindReminder, "Call Marcy Howard", "")
	if g.bubble == nil {
		t.Fatal("no bubble shown")
	}
	if got := choiceIDs(g.bubble.Prompt().Choices); got != "accept=Done|snooze=Snooze 45 min|dismiss=Dismiss" {
		t.Errorf("reminder bubble buttons = %s, want the 45-minute snooze", got)
	}
}
