package platform

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/gofrs/flock"
)

// ErrLocked means another Spirit already holds the data directory.
var ErrLocked = errors.New("another Spirit is running with this data directory")

// InstanceLock is an advisory lock on the data directory. The OS releases it
// when the process dies, so a crash never leaves a stale lock behind.
type InstanceLock struct {
	fl *flock.Flock
}

// LockInstance takes the lock for dataDir or returns ErrLocked.
func LockInstance(dataDir string) (*InstanceLock, error) {
	fl := flock.New(filepath.Join(dataDir, "spirit.lock"))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	if !ok {
		return nil, ErrLocked
	}
	return &InstanceLock{fl: fl}, nil
}

// Unlock releases the lock.
func (l *InstanceLock) Unlock() error {
	return l.fl.Unlock()
}
