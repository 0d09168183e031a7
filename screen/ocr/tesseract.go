//go:build !no_ocr

// Package ocr reads text off screen captures with Tesseract, through
// github.com/otiai10/gosseract/v2. It needs the Tesseract and Leptonica C
// libraries and language data at build and run time (Debian:
// libtesseract-dev libleptonica-dev tesseract-ocr-eng); it is a package of
// its own so that screen and its users build without them.
//
// Built with the tag no_ocr (the Windows cross-build: see build/README.md)
// it holds no reader: New and Available say that screen text is not
// available on this system.
package ocr

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode"

	xdraw "golang.org/x/image/draw"

	"github.com/otiai10/gosseract/v2"

	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// Config configures a Tesseract reader. The zero value reads English.
type Config struct {
	// Languages are Tesseract language codes ("eng", "deu"); their
	// traineddata must be installed. Empty means English.
	Languages []string
	// Scale enlarges images before recognition; 0 and 1 mean as is.
	// Tesseract is tuned for text 20-30 px high, but on crisp screen text
	// of 11-13 px it was measured nearly as accurate as at 2× (only
	// apostrophes lost) in 40% of the time (74 ms against 183 ms for a
	// 900×360 e-mail). Use 2 for blurry or very small text.
	Scale int
}

// Tesseract is a screen.TextReader. One recognition runs at a time (a
// Tesseract instance is not reentrant); it is safe for concurrent use.
type Tesseract struct {
	scale int

	mu     sync.Mutex
	client *gosseract.Client // nil once closed
}

// Available reports nil: this build reads screen text with Tesseract
// (whether its language data is installed, New finds out).
func Available() error { return nil }

// New prepares a reader and loads the language data (about 0.2 s), so a
// missing language fails here and the first glance does not wait.
//
// It does not use gosseract.GetAvailableLanguages: that initialises a
// hidden static Tesseract instance, loading a model that then stays in
// memory for good.
func New(cfg Config) (*Tesseract, error) {
	langs := cfg.Languages
	if len(langs) == 0 {
		langs = []string{"eng"}
	}
	c := gosseract.NewClient()
	if err := c.SetLanguage(langs...); err != nil {
		c.Close()
		return nil, fmt.Errorf("ocr: %w", err)
	}
	// Tesseract's diagnostics ("Estimating resolution as …") go to
	// stderr unless routed away.
	if err := c.DisableOutput(); err != nil {
		c.Close()
		return nil, fmt.Errorf("ocr: %w", err)
	}
	t := &Tesseract{scale: cfg.Scale, client: c}
	blank := image.NewGray(image.Rect(0, 0, 64, 32))
	draw.Draw(blank, blank.Bounds(), image.White, image.Point{}, draw.Src)
	if _, err := t.ReadText(context.Background(), blank); err != nil {
		c.Close()
		return nil, fmt.Errorf("ocr: load languages %s (Debian: apt-get install %s): %w",
			strings.Join(langs, "+"), debianPackages(langs), err)
	}
	return t, nil
}

func debianPackages(langs []string) string {
	pkgs := make([]string, len(langs))
	for i, l := range langs {
		pkgs[i] = "tesseract-ocr-" + l
	}
	return strings.Join(pkgs, " ")
}

// ReadText returns the text Tesseract recognises in img, lines separated
// by newlines. Pass a capture at native resolution (screen.Shot.Full):
// text downscaled from a large monitor is too small to read. Recognition
// itself cannot be interrupted: ctx is checked before it starts and after
// it ends.
//
// Known leak: gosseract never frees the C string Tesseract returns, about
// the size of the text (a few KB) per call.
func (t *Tesseract) ReadText(ctx context.Context, img image.Image) (string, error) {
	var text string
	err := t.recognise(ctx, img, func(c *gosseract.Client) error {
		var err error
		text, err = c.Text()
		return err
	})
	if err != nil {
		return "", err
	}
	return text, nil
}

// ReadLines returns the lines Tesseract recognises in img, in its reading
// order, each cut at gaps between columns, with its words and their boxes
// in img's pixels (img.Bounds().Min is the origin, whatever the scale).
// The glance reads a message header by where its lines are (a label
// column, a sender's name above its address, the first body line), which
// one flat string cannot tell. Recognition is the same as ReadText's, and
// so is its cost: pass a small region (a reading pane's header), not a
// whole screen.
//
// Known leak: gosseract's word iterator frees neither the C strings of
// the words nor the iterator, a few KB per call.
func (t *Tesseract) ReadLines(ctx context.Context, img image.Image) ([]layout.Line, error) {
	var boxes []gosseract.BoundingBox
	err := t.recognise(ctx, img, func(c *gosseract.Client) error {
		var err error
		boxes, err = c.GetBoundingBoxesVerbose()
		return err
	})
	if err != nil {
		return nil, err
	}
	return linesOf(boxes, max(t.scale, 1), img.Bounds().Min), nil
}

// linesOf groups Tesseract's words (in reading order, numbered by block,
// paragraph and line) into lines, cut where columns are far apart
// (layout.SplitAtGaps), with boxes scaled back to the image read and
// moved to its origin.
func linesOf(boxes []gosseract.BoundingBox, scale int, origin image.Point) []layout.Line {
	var lines []layout.Line
	var words []layout.Word
	var key [3]int
	flush := func() {
		for _, l := range layout.SplitAtGaps(layout.NewLine(words)) {
			if l.Text != "" {
				lines = append(lines, l)
			}
		}
		words = nil
	}
	for _, b := range boxes {
		k := [3]int{b.BlockNum, b.ParNum, b.LineNum}
		if k != key {
			flush()
			key = k
		}
		if noise(b) {
			continue
		}
		r := image.Rect(b.Box.Min.X/scale, b.Box.Min.Y/scale, (b.Box.Max.X+scale-1)/scale, (b.Box.Max.Y+scale-1)/scale)
		words = append(words, layout.Word{Text: b.Word, Box: r.Add(origin), Confidence: b.Confidence})
	}
	flush()
	return lines
}

// noise reports whether a word is a stroke Tesseract made up from a gap,
// a border or an icon: no letter or digit, and recognised with little
// confidence. Its box, often much taller than the text, would distort the
// line's.
func noise(b gosseract.BoundingBox) bool {
	return b.Confidence < 60 && !strings.ContainsFunc(b.Word, func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	})
}

// recognise runs Tesseract on img and hands the client to read, which
// fetches the result in the form it wants. Recognition itself cannot be
// interrupted: ctx is checked before it starts and after it ends.
func (t *Tesseract) recognise(ctx context.Context, img image.Image, read func(*gosseract.Client) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	scale := max(t.scale, 1)
	data := pgm(img, scale)

	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client == nil {
		return ErrClosed
	}
	// Screen pixels are about 96 per inch; saying so keeps Tesseract from
	// guessing (and warning about it).
	if err := t.client.SetVariable("user_defined_dpi", strconv.Itoa(96*scale)); err != nil {
		return fmt.Errorf("ocr: %w", err)
	}
	if err := t.client.SetImageFromBytes(data); err != nil {
		return fmt.Errorf("ocr: %w", err)
	}
	// Recognition runs on this OS thread, with OpenMP sized to the free
	// cores (see limitOpenMP).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	restore := limitOpenMP()
	err := read(t.client)
	restore()
	if err != nil {
		return fmt.Errorf("ocr: %w", err)
	}
	return ctx.Err()
}

// Close frees Tesseract; it waits for a running ReadText.
func (t *Tesseract) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client == nil {
		return nil
	}
	err := t.client.Close()
	t.client = nil
	return err
}

// pgm encodes img as a binary greyscale PGM, scaled by scale. Tesseract
// binarises greyscale anyway; PGM needs no compression, so it is the
// cheapest format Leptonica reads from memory.
func pgm(img image.Image, scale int) []byte {
	b := img.Bounds()
	gray := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(gray, gray.Bounds(), img, b.Min, draw.Src)
	if scale > 1 {
		big := image.NewGray(image.Rect(0, 0, b.Dx()*scale, b.Dy()*scale))
		xdraw.CatmullRom.Scale(big, big.Bounds(), gray, gray.Bounds(), xdraw.Src, nil)
		gray = big
	}
	w, h := gray.Rect.Dx(), gray.Rect.Dy()
	var buf bytes.Buffer
	buf.Grow(w*h + 32)
	fmt.Fprintf(&buf, "P5\n%d %d\n255\n", w, h)
	for y := range h {
		buf.Write(gray.Pix[y*gray.Stride : y*gray.Stride+w])
	}
	return buf.Bytes()
}
