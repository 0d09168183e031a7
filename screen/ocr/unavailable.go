package ocr

import "errors"

// ErrUnavailable is what a build without OCR (tag no_ocr) answers: the
// lawyer sees it in `spirit doctor` and /health.
var ErrUnavailable = errors.New("screen text: not available on this system")
