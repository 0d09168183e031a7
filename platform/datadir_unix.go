//go:build !darwin && !windows

package platform

import (
	"os"
	"path/filepath"
)

// defaultDataDir follows the XDG base directory spec.
func defaultDataDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "spirit"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "spirit"), nil
}
