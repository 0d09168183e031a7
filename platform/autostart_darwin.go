package platform

// UNTESTED HERE: there is no macOS to run on. The plist's text is built and
// read by autostart.go, whose tests run everywhere; this file only places
// it. launchd loads ~/Library/LaunchAgents at each login, so writing the
// file is enough for the next one; Spirit is not started now (it is
// running already when the lawyer turns this on).

import (
	"os"
	"path/filepath"
)

func autostartPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Library", "LaunchAgents", AutostartID+".plist"), nil
}

func autostartEntry() fileEntry {
	return fileEntry{path: autostartPath, text: launchAgentPlist, parse: parseLaunchAgent,
		offNote: "Turned off in the LaunchAgent (Disabled)."}
}

func enableAutostart(command []string) error { return autostartEntry().enable(command) }
func disableAutostart() error                { return autostartEntry().disable() }
func autostartStatus() (Autostart, error)    { return autostartEntry().status() }
