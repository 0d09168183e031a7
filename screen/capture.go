package screen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spirit-app/spirit/platform"
)

// ScreenSource is what capture needs from the window system;
// *platform.Display provides it.
type ScreenSource interface {
	Foreground(ctx context.Context) (platform.Window, error)
	// VisibleWindows may return platform.ErrUnsupported; capture then
	// cannot black out excluded windows that are visible but not in front.
	VisibleWindows(ctx context.Context) ([]platform.Window, error)
	Monitors(ctx context.Context) ([]image.Rectangle, error)
	Grab(ctx context.Context, r image.Rectangle) (*image.RGBA, error)
}

var (
	// ErrExcluded means the window must not be captured.
	ErrExcluded = errors.New("window is excluded from capture")
	// ErrStale means the foreground window is no longer the switch's (or
	// changed during the capture): the watcher will report the new one.
	ErrStale = errors.New("foreground window changed since the switch")
)

// Format is how a shot is encoded.
type Format int

const (
	// JPEG at quality 85 is the default. Measured on a 1280×720 shot of
	// a page of anti-aliased text: 135 KB in 14 ms, against PNG's 202 KB
	// in 22 ms (fastest level) or 191 KB in 32 ms (default level); with
	// photos or gradients on screen PNG grows several times larger. Text
	// stays legible to a vision model at q85, and OCR reads the raw pixels
	// (Shot.Full), not the encoding.
	JPEG Format = iota
	// PNG is lossless, and smaller than JPEG only for flat UI with few
	// colours; choose it when exact pixels matter more than bytes.
	PNG
)

// Defaults of CaptureConfig.
const (
	DefaultMaxSide     = 1280
	DefaultJPEGQuality = 85
)

// CaptureConfig configures a Capturer. The zero value is ready to use.
type CaptureConfig struct {
	// MaxSide bounds the longest side of a shot in pixels; 0 means
	// DefaultMaxSide. Vision models downscale larger images anyway, and
	// bill by pixels.
	MaxSide int
	// Format and JPEGQuality (0 means DefaultJPEGQuality) choose the
	// encoding.
	Format      Format
	JPEGQuality int
	// Exclusions decides what is never captured; nil applies the
	// built-in rules.
	Exclusions *Exclusions
	// OwnPID is Spirit's process id; 0 means os.Getpid(). Spirit's own
	// windows are blacked out of shots: the model should see the user's
	// work, not read Spirit's previous answers back.
	OwnPID int
	// DebugDir, when set, receives a copy of every shot (mode 0600).
	// Shots are otherwise never written to disk.
	DebugDir string
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Shot is one capture of the monitor holding the foreground window.
type Shot struct {
	Window uint64
	App    string
	// Monitor is the captured area in screen coordinates.
	Monitor image.Rectangle
	// Image holds the downscaled pixels (bounds at 0,0) that Data
	// encodes.
	Image *image.RGBA
	// Full is the capture at native resolution, for OCR: text downscaled
	// from a large monitor is too small to read. It is Image itself when
	// no downscaling was needed; otherwise a 4K monitor's is 33 MB, so do
	// not keep shots around.
	Full *image.RGBA
	// Data is Image encoded as MIME ("image/jpeg" or "image/png").
	Data []byte
	MIME string
	// Hash is Image's perceptual hash, for Deduper.
	Hash Hash
	// Redacted counts the windows blacked out (in Image and Full):
	// excluded or Spirit's own windows visible on the monitor.
	Redacted int
	At       time.Time
}

// Capturer takes shots. It is safe for concurrent use.
type Capturer struct {
	src ScreenSource
	cfg CaptureConfig
}

// NewCapturer returns a Capturer reading from src.
func NewCapturer(src ScreenSource, cfg CaptureConfig) *Capturer {
	if cfg.MaxSide <= 0 {
		cfg.MaxSide = DefaultMaxSide
	}
	if cfg.JPEGQuality <= 0 || cfg.JPEGQuality > 100 {
		cfg.JPEGQuality = DefaultJPEGQuality
	}
	if cfg.OwnPID == 0 {
		cfg.OwnPID = os.Getpid()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Capturer{src: src, cfg: cfg}
}

// Capture shoots the monitor that holds sw's window, downscaled so its
// longest side is at most MaxSide, encoded in memory.
//
// It refuses (ErrExcluded) an excluded switch, and checks the live
// foreground window before and after reading the pixels: if it is excluded
// now, or is no longer sw's window (ErrStale), the pixels are dropped.
// Other visible windows that are excluded, and Spirit's own, are blacked
// out where the system can list them (X11).
func (c *Capturer) Capture(ctx context.Context, sw Switch) (Shot, error) {
	if sw.Excluded {
		return Shot{}, ErrExcluded
	}
	fg, err := c.checkForeground(ctx, sw)
	if err != nil {
		return Shot{}, err
	}
	mons, err := c.src.Monitors(ctx)
	if err != nil {
		return Shot{}, fmt.Errorf("capture: %w", err)
	}
	mon := MonitorFor(mons, fg.Frame)
	hide, nHide, err := c.hidden(ctx, mon)
	if err != nil {
		return Shot{}, err
	}
	img, err := c.src.Grab(ctx, mon)
	if err != nil {
		return Shot{}, fmt.Errorf("capture: %w", err)
	}
	if _, err := c.checkForeground(ctx, sw); err != nil {
		clear(img.Pix)
		return Shot{}, err
	}
	// Windows may have moved during the grab: black out where excluded
	// ones were before and after.
	after, nAfter, err := c.hidden(ctx, mon)
	if err != nil {
		clear(img.Pix)
		return Shot{}, err
	}
	redact(img, append(hide, after...), mon.Min)

	small := Downscale(img, c.cfg.MaxSide)
	shot := Shot{
		Window:   sw.Window,
		App:      sw.App,
		Monitor:  mon,
		Image:    small,
		Full:     img,
		Hash:     HashImage(small),
		Redacted: max(nHide, nAfter),
		At:       time.Now(),
	}
	shot.Data, shot.MIME, err = encode(small, c.cfg.Format, c.cfg.JPEGQuality)
	if err != nil {
		return Shot{}, fmt.Errorf("capture: %w", err)
	}
	if c.cfg.DebugDir != "" {
		c.writeDebug(shot)
	}
	return shot, nil
}

// checkForeground reads the live foreground window and refuses it if it is
// excluded or no longer sw's.
func (c *Capturer) checkForeground(ctx context.Context, sw Switch) (platform.Window, error) {
	fg, err := c.src.Foreground(ctx)
	if err != nil {
		if errors.Is(err, platform.ErrWindowChanged) {
			return platform.Window{}, fmt.Errorf("capture: %w: %w", ErrStale, err)
		}
		return platform.Window{}, fmt.Errorf("capture: %w", err)
	}
	if ex, _ := c.cfg.Exclusions.Match(fg); ex {
		return platform.Window{}, ErrExcluded
	}
	if fg.ID != sw.Window {
		return platform.Window{}, ErrStale
	}
	return fg, nil
}

// hidden lists the rectangles on mon to black out, and how many windows
// they belong to: the visible parts of windows that are excluded or
// Spirit's own. Parts covered by windows stacked above are left alone, so
// a password manager behind the e-mail does not black out the e-mail.
func (c *Capturer) hidden(ctx context.Context, mon image.Rectangle) ([]image.Rectangle, int, error) {
	wins, err := c.src.VisibleWindows(ctx) // bottom to top
	if errors.Is(err, platform.ErrUnsupported) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("capture: %w", err)
	}
	var out []image.Rectangle
	n := 0
	for i, w := range wins {
		r := w.Frame.Intersect(mon)
		if r.Empty() {
			continue
		}
		if ex, _ := c.cfg.Exclusions.Match(w); !ex && !isOwn(w, c.cfg.OwnPID) {
			continue
		}
		parts := []image.Rectangle{r}
		for _, above := range wins[i+1:] {
			parts = subtract(parts, above.Frame)
		}
		if len(parts) > 0 {
			out = append(out, parts...)
			n++
		}
	}
	return out, n, nil
}

// subtract removes cut from each rectangle in rs, splitting each into at
// most four: above, below, left and right of the cut.
func subtract(rs []image.Rectangle, cut image.Rectangle) []image.Rectangle {
	var out []image.Rectangle
	for _, r := range rs {
		in := r.Intersect(cut)
		if in.Empty() {
			out = append(out, r)
			continue
		}
		for _, p := range []image.Rectangle{
			{r.Min, image.Pt(r.Max.X, in.Min.Y)},                        // above
			{image.Pt(r.Min.X, in.Max.Y), r.Max},                        // below
			{image.Pt(r.Min.X, in.Min.Y), image.Pt(in.Min.X, in.Max.Y)}, // left
			{image.Pt(in.Max.X, in.Min.Y), image.Pt(r.Max.X, in.Max.Y)}, // right
		} {
			if !p.Empty() {
				out = append(out, p)
			}
		}
	}
	return out
}

// redact blacks out rects (screen coordinates) in img, whose (0,0) is
// origin on screen.
func redact(img *image.RGBA, rects []image.Rectangle, origin image.Point) {
	black := image.NewUniform(color.RGBA{A: 0xff})
	for _, r := range rects {
		draw.Draw(img, r.Sub(origin), black, image.Point{}, draw.Src)
	}
}

// MonitorFor picks the monitor showing most of frame; among equals (a
// monitor inside another, mirrored outputs) the smaller. With no overlap,
// or no frame, it is the first monitor, which X11 and Windows list first
// when primary.
func MonitorFor(mons []image.Rectangle, frame image.Rectangle) image.Rectangle {
	if len(mons) == 0 {
		return image.Rectangle{}
	}
	best, bestArea := mons[0], 0
	for _, m := range mons {
		a := area(m.Intersect(frame))
		if a > bestArea || (a == bestArea && a > 0 && area(m) < area(best)) {
			best, bestArea = m, a
		}
	}
	return best
}

func area(r image.Rectangle) int {
	if r.Empty() {
		return 0
	}
	return r.Dx() * r.Dy()
}

func encode(img *image.RGBA, f Format, quality int) ([]byte, string, error) {
	var buf bytes.Buffer
	switch f {
	case PNG:
		// BestSpeed: the default level costs about twice the time
		// for a few percent on screen content.
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, img); err != nil {
			return nil, "", fmt.Errorf("encode png: %w", err)
		}
		return buf.Bytes(), "image/png", nil
	default:
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
			return nil, "", fmt.Errorf("encode jpeg: %w", err)
		}
		return buf.Bytes(), "image/jpeg", nil
	}
}

// writeDebug saves a copy of shot in DebugDir. The file name holds the
// time and hash only, never the title.
func (c *Capturer) writeDebug(shot Shot) {
	ext := ".jpg"
	if shot.MIME == "image/png" {
		ext = ".png"
	}
	name := fmt.Sprintf("shot-%s-%s%s", shot.At.Format("20060102-150405.000"), shot.Hash, ext)
	path := filepath.Join(c.cfg.DebugDir, name)
	err := os.MkdirAll(c.cfg.DebugDir, 0o700)
	if err == nil {
		err = os.WriteFile(path, shot.Data, 0o600)
	}
	if err != nil {
		c.cfg.Logger.Warn("cannot write debug shot", "err", err)
		return
	}
	c.cfg.Logger.Debug("debug shot written", "path", path)
}
