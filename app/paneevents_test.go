package app

import (
	"errors"
	"testing"
	"time"

	"github.com/spirit-app/spirit/screen"
)

// TestPaneEventsRestAfterNoTree: with no accessibility tree to be had, the
// screen watcher's first ask fails with the tree's own error, the asks
// within paneEventsRest fail at once without trying (errPaneEventsResting),
// and the first ask after it tries the tree again.
func TestPaneEventsRestAfterNoTree(t *testing.T) {
	// No session bus: a11y.Open fails at once, as on a desktop without one.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+t.TempDir()+"/no-bus")
	t.Setenv("AT_SPI_BUS_ADDRESS", "")
	clock := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	p := &paneEvents{now: func() time.Time { return clock }}
	sw := screen.Switch{Window: 7, PID: 4242, App: "thunderbird", Title: "Inbox - dana@example.com - Mozilla Thunderbird"}
	tries := []struct {
		name    string
		after   time.Duration
		resting bool
	}{
		{"first ask tries the tree", 0, false},
		{"a moment later rests", time.Second, true},
		{"just before the rest ends", paneEventsRest - 2*time.Second, true},
		{"after the rest tries again", 2 * time.Second, false},
		{"and rests again", time.Second, true},
	}
	for _, tc := range tries {
		clock = clock.Add(tc.after)
		ch, err := p.Changes(t.Context(), sw)
		if ch != nil || err == nil {
			t.Fatalf("%s: Changes = %v, %v; want no channel and an error", tc.name, ch, err)
		}
		if got := errors.Is(err, errPaneEventsResting); got != tc.resting {
			t.Errorf("%s: resting = %v (%v), want %v", tc.name, got, err, tc.resting)
		}
	}
}
