package glance

import (
	"context"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
)

func TestGate(t *testing.T) {
	now := time.Date(2026, 11, 25, 14, 0, 0, 0, time.Local)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	glance := func(created time.Duration) store.Nudge {
		return store.Nudge{Kind: nudge.KindGlance, State: store.NudgeShown, Created: ago(created), Updated: ago(created)}
	}
	dismissed := func(at time.Duration) store.Nudge {
		return store.Nudge{Kind: nudge.KindGlance, State: store.NudgeDismissed, Created: ago(at + time.Minute), Updated: ago(at)}
	}
	never := func(time.Time) bool { return false }
	always := func(time.Time) bool { return true }
	tests := []struct {
		name string
		all  []store.Nudge
		pol  Policy
		want string
	}{
		{"nothing yet", nil, Policy{MaxPerHour: 4}, ""},
		{"quiet hours", nil, Policy{MaxPerHour: 4, Quiet: always}, "quiet hours"},
		{"not quiet", nil, Policy{MaxPerHour: 4, Quiet: never}, ""},
		{"under the hourly cap", []store.Nudge{glance(10 * time.Minute), glance(20 * time.Minute), glance(30 * time.Minute)}, Policy{MaxPerHour: 4}, ""},
		{"at the hourly cap", []store.Nudge{glance(10 * time.Minute), glance(20 * time.Minute)}, Policy{MaxPerHour: 2}, "2 unprompted nudges in the last hour"},
		{"older than an hour does not count", []store.Nudge{glance(61 * time.Minute), glance(2 * time.Hour)}, Policy{MaxPerHour: 2}, ""},
		{"a cap of zero silences every glance", nil, Policy{MaxPerHour: 0}, "0 unprompted nudges in the last hour"},
		{"work delivered unasked counts toward the cap", []store.Nudge{glance(10 * time.Minute), {Kind: nudge.KindInfo, Subject: store.WorkIdentifier(7), Created: ago(5 * time.Minute)}}, Policy{MaxPerHour: 2}, "2 unprompted nudges in the last hour"},
		{"other kinds do not count", []store.Nudge{{Kind: nudge.KindReminder, Created: ago(time.Minute)}}, Policy{MaxPerHour: 1}, ""},
		{"one dismissal: 15 min cool-down", []store.Nudge{dismissed(14 * time.Minute)}, Policy{MaxPerHour: 4, DismissBackoff: true}, "cooling down after 1 dismissals"},
		{"one dismissal, cooled down", []store.Nudge{dismissed(16 * time.Minute)}, Policy{MaxPerHour: 4, DismissBackoff: true}, ""},
		{"two dismissals double it", []store.Nudge{dismissed(3 * time.Hour), dismissed(20 * time.Minute)}, Policy{MaxPerHour: 4, DismissBackoff: true}, "cooling down after 2 dismissals"},
		{"two dismissals, cooled down", []store.Nudge{dismissed(3 * time.Hour), dismissed(31 * time.Minute)}, Policy{MaxPerHour: 4, DismissBackoff: true}, ""},
		{"back-off off: a dismissal holds nothing back", []store.Nudge{dismissed(time.Minute), dismissed(2 * time.Minute)}, Policy{MaxPerHour: 4}, ""},
		{"back-off off: the hourly cap still holds", []store.Nudge{dismissed(time.Minute), glance(2 * time.Minute)}, Policy{MaxPerHour: 2}, "2 unprompted nudges in the last hour"},
		{"dismissals older than a day are forgiven", []store.Nudge{dismissed(25 * time.Hour), dismissed(26 * time.Hour)}, Policy{MaxPerHour: 4, DismissBackoff: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Gate(tt.all, now, tt.pol); got != tt.want {
				t.Errorf("Gate = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSeen(t *testing.T) {
	all := []store.Nudge{{Subject: nudge.GlanceSubject("<a@x>")}, {Subject: ""}}
	tests := []struct {
		name    string
		subject string
		want    bool
	}{
		{"nudged before", nudge.GlanceSubject("<a@x>"), true},
		{"another thread", nudge.GlanceSubject("<b@x>"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Seen(all, tt.subject); got != tt.want {
				t.Errorf("Seen(%q) = %v, want %v", tt.subject, got, tt.want)
			}
		})
	}
}

// glanceAll runs a glance service, with no provider and capt (may be nil)
// for screenshots, over switches queued up before it starts, and returns
// the world-log lines it wrote ("app: text").
func glanceAll(t *testing.T, capt Capturer, sws ...screen.Switch) []string {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenDir(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	switches := make(chan events.Event, len(sws))
	for _, sw := range sws {
		switches <- events.Event{Type: events.AppSwitched, Data: sw}
	}
	close(switches)
	var lines []string
	svc, err := NewService(ServiceOptions{
		Store:    st,
		Index:    index.New(st),
		Switches: switches,
		Capture:  capt,
		Policy:   func(context.Context) (Policy, error) { return Policy{MaxPerHour: 4}, nil },
		Models:   func(context.Context) (Models, bool) { return Models{}, false },
		Propose:  func(context.Context, store.Nudge) error { t.Error("proposed a nudge"); return nil },
		Record: func(_ context.Context, source, id, text string) {
			lines = append(lines, id+": "+text)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestServiceGlancesOnlyAtTheLatestSwitch: switches that queued up while a
// glance ran are logged as passed over, and only the window in front now
// is glanced at; excluded windows are never glanced at.
func TestServiceGlancesOnlyAtTheLatestSwitch(t *testing.T) {
	lines := glanceAll(t, nil,
		screen.Switch{App: "Finder", Title: "Documents"},
		screen.Switch{App: "KeePassXC", Excluded: true},
		screen.Switch{App: "Calculator", Title: "Calculator"},
		screen.Switch{App: "Notes", Title: "Groceries"},
	)
	want := []string{
		"Finder: silent: moved on to another window (gate)",
		"Calculator: silent: moved on to another window (gate)",
		"Notes: silent: not_email (triage)",
	}
	if len(lines) != len(want) {
		t.Fatalf("world log = %q, want %q", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i, lines[i], want[i])
		}
	}
}
