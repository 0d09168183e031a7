package app

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/spirit-app/spirit/platform"
)

// SetAutostart makes the system start this Spirit, on dataDir, at each
// login (on), or no longer (off), and returns what the system now holds.
// `spirit autostart` and the Settings window both come here, so the two
// write the same entry.
func SetAutostart(dataDir string, on bool) (platform.Autostart, error) {
	if on {
		cmd, err := platform.AutostartCommand(dataDir)
		if err != nil {
			return platform.Autostart{}, err
		}
		if err := platform.EnableAutostart(cmd); err != nil {
			return platform.Autostart{}, err
		}
	} else if err := platform.DisableAutostart(); err != nil {
		return platform.Autostart{}, err
	}
	return platform.AutostartStatus()
}

// AutostartText says, in the lawyer's words, whether Spirit starts at
// login and what it starts.
func AutostartText(a platform.Autostart) string {
	switch {
	case a.On:
		return "Spirit starts when you log in: " + strings.Join(a.Command, " ") + "\n(" + a.Where + ")"
	case a.Command != nil:
		return "Spirit does not start when you log in. " + a.Note + "\n(" + a.Where + ")"
	}
	return "Spirit does not start when you log in."
}

// Autostart reads whether Spirit starts when the lawyer logs in.
func (c *Core) Autostart() (platform.Autostart, error) { return platform.AutostartStatus() }

// SetAutostart turns starting at login on or off for this Spirit and its
// data folder, and records the change in the world log as by's.
func (c *Core) SetAutostart(ctx context.Context, on bool, by string) (platform.Autostart, error) {
	a, err := SetAutostart(filepath.Dir(c.store.Path()), on)
	if err != nil {
		return a, err
	}
	state := "off"
	if a.On {
		state = "on"
	}
	c.event(ctx, "user", by, "start at login = "+state)
	return a, nil
}
