// Package platform answers questions about the operating system that the rest
// of Spirit needs: where its data lives, whether another instance runs, the
// desktop's work area, and window-manager hints for Spirit's own windows.
//
// Each fact has one small API here; the implementations are split by file
// suffix and return ErrUnsupported on systems where a fact cannot be had.
package platform

import "errors"

// ErrUnsupported is returned where the running system cannot answer a question.
var ErrUnsupported = errors.New("not supported on this system")
