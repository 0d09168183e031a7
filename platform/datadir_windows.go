package platform

import (
	"os"
	"path/filepath"
)

// defaultDataDir uses %LocalAppData%: the database should not roam between machines.
func defaultDataDir() (string, error) {
	if d := os.Getenv("LocalAppData"); d != "" {
		return filepath.Join(d, "Spirit"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "Spirit"), nil
}
