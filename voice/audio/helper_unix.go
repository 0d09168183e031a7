//go:build unix

package audio

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// protocolOutput moves the helper's protocol to a private copy of standard
// output and points file descriptor 1 at standard error, so that anything a
// C library prints to stdout cannot corrupt the audio frames.
func protocolOutput() io.Writer {
	fd, err := unix.Dup(1)
	if err != nil {
		return os.Stdout
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return os.Stdout
	}
	return os.NewFile(uintptr(fd), "helper-protocol")
}
