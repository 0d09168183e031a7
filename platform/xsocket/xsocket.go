// Package xsocket prepares the folder where local X servers put their
// sockets, for whatever starts an X server of its own (the test harnesses
// start Xvfb; nothing in Spirit itself does).
package xsocket

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Dir is where X servers listen on local sockets (X<n>).
const Dir = "/tmp/.X11-unix"

// EnsureDir creates Dir, world-writable with the sticky bit as X servers
// expect, if it does not exist yet.
//
// Why: on a machine that never ran an X server the folder is missing, and
// every Xvfb creates it at start. Several Xvfb started at once race for it;
// the losers fail with "_XSERVTransmkdir: ERROR: Cannot create
// /tmp/.X11-unix … errno = 17" and never listen. Creating it once, before
// the first server starts, removes the race.
func EnsureDir() error { return ensure(Dir) }

func ensure(dir string) error {
	err := os.Mkdir(dir, 0o1777)
	if errors.Is(err, fs.ErrExist) {
		fi, serr := os.Stat(dir)
		if serr != nil {
			return fmt.Errorf("x11 socket folder: %w", serr)
		}
		if !fi.IsDir() {
			return fmt.Errorf("x11 socket folder: %s exists and is not a folder", dir)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("x11 socket folder: %w", err)
	}
	// Mkdir's mode is filtered by the umask; X servers want exactly 1777.
	if err := os.Chmod(dir, 0o777|fs.ModeSticky); err != nil {
		return fmt.Errorf("x11 socket folder: %w", err)
	}
	return nil
}
