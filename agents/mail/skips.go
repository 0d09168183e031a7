package mail

import (
	"log/slog"
	"slices"
	"sync"
)

// Skips collects the messages one Sync of a connector leaves out. It is
// safe for the concurrent fetches a sync runs, and serves the connectors'
// Skipped (see Skipper). The zero value is ready to use.
type Skips struct {
	mu   sync.Mutex
	list []Skip
}

// Add records s and logs it: a skipped message is worth a warning, since
// the lawyer will not find it in Spirit.
func (k *Skips) Add(log *slog.Logger, s Skip) {
	log.Warn("skipped a message", "folder", s.Folder, "where", s.Where, "reason", s.Reason)
	k.mu.Lock()
	k.list = append(k.list, s)
	k.mu.Unlock()
}

// Reset forgets what an earlier sync skipped.
func (k *Skips) Reset() {
	k.mu.Lock()
	k.list = nil
	k.mu.Unlock()
}

// List returns a copy of what was skipped since the last Reset.
func (k *Skips) List() []Skip {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.list)
}
