package platform

import (
	"fmt"
	"os"
	"path/filepath"
)

// DataDirEnv names the environment variable that overrides the data directory.
const DataDirEnv = "SPIRIT_DATA_DIR"

// DataDir returns the directory that holds Spirit's database and run files.
// An explicit flag wins over SPIRIT_DATA_DIR, which wins over the OS default.
// The directory is created with mode 0700: lawyers' data is nobody else's.
func DataDir(flagValue string) (string, error) {
	dir := flagValue
	if dir == "" {
		dir = os.Getenv(DataDirEnv)
	}
	if dir == "" {
		d, err := defaultDataDir()
		if err != nil {
			return "", fmt.Errorf("find data directory (set --data-dir or %s): %w", DataDirEnv, err)
		}
		dir = d
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("data directory %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("create data directory: %w", err)
	}
	return abs, nil
}

// DefaultDataDir is the folder Spirit uses when neither --data-dir nor
// SPIRIT_DATA_DIR names one: what a command typed in another terminal
// (or started at login) finds without being told.
func DefaultDataDir() (string, error) { return defaultDataDir() }
