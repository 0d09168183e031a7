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

func enableAutostart(command []string) error {
	path, err := autostartPath()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, []byte(desktopEntry(command)), 0o644)
}

func disableAutostart() error {
	path, err := autostartPath()
	if err != nil {
		return err
	}
	return removeFile(path)
}

func autostartStatus() (Autostart, error) {
	path, err := autostartPath()
	if err != nil {
		return Autostart{}, err
	}
	return fileAutostartStatus(path, func(b []byte) ([]string, bool, error) { return parseDesktopEntry(string(b)) },
		"Turned off in your desktop's startup settings.")
}
