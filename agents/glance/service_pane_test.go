package glance

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/spirit-app/spirit/screen"
)

// TestWatchPane: only a mail client's main window, whose title does not
// say which message is open, has its reading pane watched.
func TestWatchPane(t *testing.T) {
	tests := []struct {
		name string
		sw   screen.Switch
		want bool
	}{
		{"thunderbird folder view", screen.Switch{App: "thunderbird", Title: "Inbox - dana@example.com - Mozilla Thunderbird"}, true},
		{"thunderbird message tab", screen.Switch{App: "thunderbird", Title: "Re: Settlement offer - Mozilla Thunderbird"}, false},
		{"outlook on the web inbox", screen.Switch{App: "Google-chrome", Title: "Mail - Dana Whitfield - Outlook - Google Chrome"}, true},
		{"gmail inbox", screen.Switch{App: "Google-chrome", Title: "Inbox (3) - dana@gmail.com - Gmail - Google Chrome"}, true},
		{"gmail conversation", screen.Switch{App: "Google-chrome", Title: "Re: Settlement offer - dana@gmail.com - Gmail - Google Chrome"}, false},
		{"not a mail client", screen.Switch{App: "libreoffice-writer", Title: "Agreement.odt - LibreOffice Writer"}, false},
		{"excluded", screen.Switch{App: "thunderbird", Excluded: true, ExcludedBy: "app"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WatchPane(tt.sw); got != tt.want {
				t.Errorf("WatchPane(%q, %q) = %v, want %v", tt.sw.App, tt.sw.Title, got, tt.want)
			}
		})
	}
}

// refusingCapturer counts the screenshots asked for and takes none, as
// the watch service does while it is not watching.
type refusingCapturer struct{ asked int }

func (c *refusingCapturer) Capture(context.Context, screen.Switch) (screen.Shot, error) {
	c.asked++
	return screen.Shot{}, errors.New("not watching")
}

// TestServiceLooksAgainAtAPaneChange: a pane change of a mail main window
// is glanced at like a switch, so the screen is looked at again; pane
// changes that queued up while a glance ran are logged as passed over,
// and only the latest is looked at.
func TestServiceLooksAgainAtAPaneChange(t *testing.T) {
	inbox := screen.Switch{App: "thunderbird", Title: "Inbox - dana@example.com - Mozilla Thunderbird", Window: 7}
	changed := inbox
	changed.PaneChanged = true
	capt := &refusingCapturer{}
	lines := glanceAll(t, capt, inbox, changed, changed)
	want := []string{
		"thunderbird: silent: another message opened in the reading pane (gate)",
		"thunderbird: silent: another message opened in the reading pane (gate)",
		"thunderbird: no screenshot: not watching",
		"thunderbird: silent: not_email (triage)",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("world log = %q, want %q", lines, want)
	}
	if capt.asked != 1 {
		t.Errorf("screenshots asked for = %d, want 1 (the latest pane only)", capt.asked)
	}
}
