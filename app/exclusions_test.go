package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen"
)

// TestExclusionsFrom: the lawyer's lists apply as read; lists that cannot
// be read exclude every window, and say so unless the look was cut short.
func TestExclusionsFrom(t *testing.T) {
	signal := platform.Window{Class: "Signal", Title: "Signal - Marcy"}
	mail := platform.Window{Class: "thunderbird", Title: "Inbox - Mozilla Thunderbird"}
	lists := settings.Settings{ExcludedApps: []string{"Signal"}}
	for _, tc := range []struct {
		name      string
		err       error
		cancelled bool
		// What is excluded, and whether the log warns.
		wantSignal, wantMail bool
		wantWarn             bool
	}{
		{name: "read", wantSignal: true},
		{name: "some settings invalid", err: fmt.Errorf("%w: hud.lines", settings.ErrInvalid), wantSignal: true},
		{name: "unreadable", err: errors.New("database disk image is malformed"), wantSignal: true, wantMail: true, wantWarn: true},
		{name: "look cut short", err: context.Canceled, cancelled: true, wantSignal: true, wantMail: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs xtest.LockedBuffer
			load := func(context.Context) (settings.Settings, error) {
				if tc.err != nil && !errors.Is(tc.err, settings.ErrInvalid) {
					return settings.Settings{}, tc.err
				}
				return lists, tc.err
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.cancelled {
				cancel()
			}
			e := exclusionsFrom(load, slog.New(slog.NewTextHandler(&logs, nil)))(ctx)
			if got, _ := e.Match(signal); got != tc.wantSignal {
				t.Errorf("Signal excluded = %v, want %v", got, tc.wantSignal)
			}
			if got, why := e.Match(mail); got != tc.wantMail || (got && why != screen.ReasonListUnknown) {
				t.Errorf("mail excluded = %v (%q), want %v", got, why, tc.wantMail)
			}
			if warned := logs.String() != ""; warned != tc.wantWarn {
				t.Errorf("warned = %v, want %v: %q", warned, tc.wantWarn, logs.String())
			}
		})
	}
}
