package platform

import (
	"os"
	"path/filepath"
)

func defaultDataDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Library", "Application Support", "Spirit"), nil
}
