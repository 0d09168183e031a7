package screen

import (
	"context"
	"errors"
	"image"
)

// TextReader reads the text shown in a capture (OCR). Pass Shot.Full, the
// capture at native resolution. Reading is slow (0.8 s for a 1280×800
// screen of text with Tesseract on 2 cores) and the glance should call it
// only when the window title does not carry what it needs. The Tesseract
// implementation lives in screen/ocr, so that packages using screen need no
// C libraries.
type TextReader interface {
	ReadText(ctx context.Context, img image.Image) (string, error)
}

// ErrTextOff means the user turned reading screen text off.
var ErrTextOff = errors.New("reading screen text is turned off")

// TextOff is the TextReader to use when the user's setting turns screen
// text off: it reads nothing and says so.
type TextOff struct{}

// ReadText returns ErrTextOff.
func (TextOff) ReadText(context.Context, image.Image) (string, error) { return "", ErrTextOff }
