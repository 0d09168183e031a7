//go:build !unix

package audio

import (
	"io"
	"os"
)

// protocolOutput is standard output where descriptors cannot be rearranged.
func protocolOutput() io.Writer { return os.Stdout }
