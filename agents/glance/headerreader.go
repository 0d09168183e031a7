package glance

import (
	"container/list"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"image"
	"image/draw"
	"sync"

	xdraw "golang.org/x/image/draw"

	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// LineReader reads text with its positions off an image: screen/ocr's
// Tesseract.ReadLines.
type LineReader interface {
	ReadLines(ctx context.Context, img image.Image) ([]layout.Line, error)
}

// DefaultHeaderCache is how many pane headers a HeaderReader remembers:
// enough for going back and forth between the messages of a morning's
// inbox, and small (a header's lines are a few KB).
const DefaultHeaderCache = 64

// PaneHeader is what a HeaderReader read off one image.
type PaneHeader struct {
	// Lines are the image's lines with positions, for Input.ScreenLines.
	Lines []layout.Line
	// Info is ParseHeader's reading of them.
	Info ScreenInfo
	// Hash is screen.HashImage of the image read.
	Hash screen.Hash
	// Cached is true when the image had been read before and OCR did not
	// run again.
	Cached bool
}

// HeaderReader reads the message header off images of a reading pane's
// (or message window's) header region, and remembers what it read by
// image, so that the same pane is never read twice: OCR costs a tenth of
// a second or more, and a lawyer going back to a message, or a watcher
// seeing the pane settle again, shows it the same pixels. It is safe for
// concurrent use; two goroutines reading the same new image at once may
// both run OCR.
type HeaderReader struct {
	r    LineReader
	size int
	seed maphash.Seed

	mu      sync.Mutex
	entries map[headerKey]*list.Element // of *headerEntry
	order   *list.List                  // most recently used first
}

// headerKey identifies an image: its perceptual hash, and a hash of its
// exact pixels and bounds. The perceptual hash alone can be equal for two
// headers one digit apart ("Invoice 1234" and "Invoice 1235" are other
// threads); the exact hash alone would do, and the perceptual one comes
// with the reading for the caller's dedup.
type headerKey struct {
	perceptual screen.Hash
	exact      uint64
}

type headerEntry struct {
	key   headerKey
	lines []layout.Line
	info  ScreenInfo
}

// NewHeaderReader reads with r and remembers the last size images read
// (DefaultHeaderCache when size ≤ 0).
func NewHeaderReader(r LineReader, size int) *HeaderReader {
	if size <= 0 {
		size = DefaultHeaderCache
	}
	return &HeaderReader{r: r, size: size, seed: maphash.MakeSeed(),
		entries: make(map[headerKey]*list.Element), order: list.New()}
}

// Read returns the lines of img, a header region at native resolution,
// and the header they show. An image read before (the same pixels at the
// same place) is answered from memory. A failed read is not remembered.
// The returned lines are shared with the cache: do not modify them.
func (h *HeaderReader) Read(ctx context.Context, img image.Image) (PaneHeader, error) {
	return h.read(ctx, img, h.r.ReadLines)
}

// ReadRegion is Read for a header region (not a whole window): a header
// read there without its sender's name, address or subject is read again
// enlarged (readRegionLines).
func (h *HeaderReader) ReadRegion(ctx context.Context, img image.Image) (PaneHeader, error) {
	return h.read(ctx, img, func(ctx context.Context, img image.Image) ([]layout.Line, error) {
		return readRegionLines(ctx, h.r, img)
	})
}

// read is Read with the reading of img given.
func (h *HeaderReader) read(ctx context.Context, img image.Image, readLines func(context.Context, image.Image) ([]layout.Line, error)) (PaneHeader, error) {
	key := headerKey{perceptual: screen.HashImage(img), exact: h.exactHash(img)}
	h.mu.Lock()
	if el, ok := h.entries[key]; ok {
		h.order.MoveToFront(el)
		e := el.Value.(*headerEntry)
		h.mu.Unlock()
		return PaneHeader{Lines: e.lines, Info: e.info, Hash: key.perceptual, Cached: true}, nil
	}
	h.mu.Unlock()

	lines, err := readLines(ctx, img)
	if err != nil {
		return PaneHeader{Hash: key.perceptual}, fmt.Errorf("read pane header: %w", err)
	}
	e := h.store(key, lines)
	return PaneHeader{Lines: e.lines, Info: e.info, Hash: key.perceptual}, nil
}

// Remember records lines as what img shows, without OCR: the header
// region of a window whose whole capture was read (the header's lines
// from that reading), so that the same pane seen again is not read again.
// A later Read of the same pixels answers lines, as cached.
func (h *HeaderReader) Remember(img image.Image, lines []layout.Line) {
	h.store(headerKey{perceptual: screen.HashImage(img), exact: h.exactHash(img)}, lines)
}

// store remembers lines under key, unless an entry is there already, and
// returns the entry kept.
func (h *HeaderReader) store(key headerKey, lines []layout.Line) *headerEntry {
	e := &headerEntry{key: key, lines: lines, info: ParseHeader(lines)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if el, ok := h.entries[key]; ok {
		h.order.MoveToFront(el)
		return el.Value.(*headerEntry)
	}
	h.entries[key] = h.order.PushFront(e)
	for h.order.Len() > h.size {
		old := h.order.Remove(h.order.Back()).(*headerEntry)
		delete(h.entries, old.key)
	}
	return e
}

// exactHash hashes img's bounds and pixels (as RGBA). It costs well under
// a millisecond for a header region, against 0.1 s or more of OCR.
func (h *HeaderReader) exactHash(img image.Image) uint64 {
	b := img.Bounds()
	rgba, ok := img.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(b)
		draw.Draw(rgba, b, img, b.Min, draw.Src)
	}
	var mh maphash.Hash
	mh.SetSeed(h.seed)
	var hdr [32]byte
	for i, v := range []int{b.Min.X, b.Min.Y, b.Max.X, b.Max.Y} {
		binary.LittleEndian.PutUint64(hdr[8*i:], uint64(int64(v)))
	}
	mh.Write(hdr[:])
	if b.Empty() {
		return mh.Sum64()
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := rgba.PixOffset(b.Min.X, y)
		mh.Write(rgba.Pix[off : off+4*b.Dx()])
	}
	return mh.Sum64()
}

// readRegionLines reads the lines of img, a header region, and when they
// hold a header without its sender's name, address or subject, reads img
// again enlarged twice and keeps that reading if it holds more of them.
// Tesseract is tuned for text taller than a header's 13 px: at 2× it read
// an address it had lost beside the contact's round picture on a real
// Thunderbird pane. It is the fallback and not the rule because at 2× it
// also misread letters it had right ("Plerce" for "Pierce"), and it costs
// about twice a region's read; a whole window is never enlarged.
func readRegionLines(ctx context.Context, r LineReader, img image.Image) ([]layout.Line, error) {
	lines, err := r.ReadLines(ctx, img)
	if err != nil {
		return nil, err
	}
	info := ParseHeader(lines)
	if !info.Email || headerFields(info) == 3 {
		return lines, nil
	}
	big, err := r.ReadLines(ctx, enlarge(img))
	if err != nil {
		return nil, err
	}
	big = shrinkLines(big, img.Bounds().Min)
	if headerFields(ParseHeader(big)) > headerFields(info) {
		return big, nil
	}
	return lines, nil
}

// enlarge returns img scaled twice, in grey (what OCR reads anyway), with
// its origin at (0,0).
func enlarge(img image.Image) *image.Gray {
	b := img.Bounds()
	big := image.NewGray(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
	xdraw.CatmullRom.Scale(big, big.Bounds(), img, b, xdraw.Src, nil)
	return big
}

// shrinkLines maps lines read off enlarge's image back to the pixels of
// the image enlarged, whose origin was origin.
func shrinkLines(lines []layout.Line, origin image.Point) []layout.Line {
	out := make([]layout.Line, 0, len(lines))
	for _, l := range lines {
		words := make([]layout.Word, 0, len(l.Words))
		for _, w := range l.Words {
			b := w.Box
			w.Box = image.Rect(b.Min.X/2, b.Min.Y/2, (b.Max.X+1)/2, (b.Max.Y+1)/2).Add(origin)
			words = append(words, w)
		}
		out = append(out, layout.NewLine(words))
	}
	return out
}
