package platform

import (
	"os"
	"path/filepath"
)

// autostartPath is Spirit's XDG autostart entry: in $XDG_CONFIG_HOME/
// autostart, or ~/.config/autostart when that is unset or not absolute
// (XDG Base Directory Specification).
func autostartPath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "autostart", "spirit.desktop"), nil
}

func autostartEntry() fileEntry {
	return fileEntry{path: autostartPath, text: desktopEntry,
		parse:   func(b []byte) ([]string, bool, error) { return parseDesktopEntry(string(b)) },
		offNote: "Turned off in your desktop's startup settings."}
}

func enableAutostart(command []string) error { return autostartEntry().enable(command) }
func disableAutostart() error                { return autostartEntry().disable() }
func autostartStatus() (Autostart, error)    { return autostartEntry().status() }
