//go:build unix

package app

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// writable reports why the current user may not write path, or nil. It
// asks the kernel (access(2)) rather than reading mode bits, so it is right
// for root, ACLs and read-only mounts, and it writes nothing to find out.
func writable(path string) error {
	if err := unix.Access(path, unix.W_OK); err != nil {
		return fmt.Errorf("%s is not writable: %w", path, err)
	}
	return nil
}
