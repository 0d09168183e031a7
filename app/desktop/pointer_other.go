//go:build !linux

package desktop

import (
	"fmt"

	"github.com/spirit-app/spirit/platform"
)

// pointerProbe tells whether the pointer is over a window; only X11 has
// one so far, so elsewhere an open bubble stays open until answered or
// folded away.
type pointerProbe struct{}

func openPointerProbe() (*pointerProbe, error) {
	return nil, fmt.Errorf("pointer watch: %w", platform.ErrUnsupported)
}

func (p *pointerProbe) over(uint32) (bool, error) { return false, platform.ErrUnsupported }

func (p *pointerProbe) close() {}
