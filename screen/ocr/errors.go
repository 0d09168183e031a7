package ocr

import "errors"

// ErrClosed is returned by ReadText and ReadLines after Close.
var ErrClosed = errors.New("ocr: reader closed")

// ErrUnavailable is what a build without OCR (tag no_ocr) answers: the
// lawyer sees it in `spirit doctor` and /health.
var ErrUnavailable = errors.New("screen text: not available on this system")
