//go:build no_ocr

package ocr

import (
	"context"
	"fmt"
	"image"

	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// This build has no OCR engine. Windows is cross-built without one:
// Windows.Media.Ocr (WinRT) does not run under Wine, where the Windows
// build is tested, and Tesseract with Leptonica and their image libraries
// is a large cross-build of its own. Tesseract can be linked on Windows
// itself (MSYS2: mingw-w64-x86_64-tesseract-ocr) by building without the
// tag.

// Config is accepted and ignored: there is nothing to configure.
type Config struct {
	Languages []string
	Scale     int
}

// Tesseract is never made in this build; its methods exist so that code
// written against the real reader compiles.
type Tesseract struct{}

// Available reports ErrUnavailable.
func Available() error { return ErrUnavailable }

// New reports ErrUnavailable.
func New(Config) (*Tesseract, error) {
	return nil, fmt.Errorf("ocr: %w", ErrUnavailable)
}

func (*Tesseract) ReadText(context.Context, image.Image) (string, error) {
	return "", ErrUnavailable
}

func (*Tesseract) ReadLines(context.Context, image.Image) ([]layout.Line, error) {
	return nil, ErrUnavailable
}

func (*Tesseract) Close() error { return nil }
