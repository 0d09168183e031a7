package platform

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math/bits"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/xinerama"
	"github.com/jezek/xgb/xproto"
)

// Monitors returns the monitors' rectangles in root coordinates. RandR
// 1.5 monitors are what desktops call screens (one may span several
// outputs, e.g. a tiled 5K display); Xinerama is the older interface to the
// same; without either the whole root window is the one monitor.
// Monitors may overlap (mirrored outputs).
func (d *Display) Monitors(ctx context.Context) ([]image.Rectangle, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	screen, err := d.x.ScreenRect()
	if err != nil {
		return nil, err
	}
	var out []image.Rectangle
	add := func(x, y, w, h int) {
		if r := image.Rect(x, y, x+w, y+h).Intersect(screen); !r.Empty() {
			out = append(out, r)
		}
	}
	if d.randr {
		if r, err := randr.GetMonitors(d.x.conn, d.x.root, true).Reply(); err == nil {
			for _, m := range r.Monitors {
				add(int(m.X), int(m.Y), int(m.Width), int(m.Height))
			}
		}
	}
	if len(out) == 0 && d.xinerama {
		if r, err := xinerama.QueryScreens(d.x.conn).Reply(); err == nil {
			for _, s := range r.ScreenInfo {
				add(int(s.XOrg), int(s.YOrg), int(s.Width), int(s.Height))
			}
		}
	}
	if len(out) == 0 {
		out = append(out, screen)
	}
	return out, nil
}

// grabStripeBytes bounds one GetImage reply. A 4K monitor is 33 MB in one
// piece; in stripes the context is checked between pieces and xgb's reader
// never holds more than one large buffer per stripe.
const grabStripeBytes = 4 << 20

// Grab reads the screen's pixels inside r (root coordinates, clipped to the
// screen) and returns them as an opaque RGBA image whose bounds start at
// (0, 0). Pixels come straight from the X server (GetImage on the root,
// ZPixmap), so what another window covers is what the user sees.
func (d *Display) Grab(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	if d.pix.err != nil {
		return nil, d.pix.err
	}
	screen, err := d.x.ScreenRect()
	if err != nil {
		return nil, err
	}
	r = r.Intersect(screen)
	if r.Empty() {
		return nil, fmt.Errorf("grab %v: outside the %v screen", r, screen)
	}
	w, h := r.Dx(), r.Dy()
	srcStride := d.pix.stride(w)
	rows := max(1, grabStripeBytes/srcStride)

	// All stripes are requested before the first reply is read, so the
	// server works while earlier replies are converted.
	type stripe struct {
		y, h   int
		cookie xproto.GetImageCookie
	}
	var stripes []stripe
	for y := 0; y < h; y += rows {
		n := min(rows, h-y)
		stripes = append(stripes, stripe{y, n, xproto.GetImage(d.x.conn, xproto.ImageFormatZPixmap,
			xproto.Drawable(d.x.root), int16(r.Min.X), int16(r.Min.Y+y), uint16(w), uint16(n), ^uint32(0))})
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for _, s := range stripes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		reply, err := s.cookie.Reply()
		if err != nil {
			return nil, fmt.Errorf("read screen %v: %w", r, err)
		}
		if len(reply.Data) < srcStride*s.h {
			return nil, fmt.Errorf("read screen %v: got %d bytes, want %d", r, len(reply.Data), srcStride*s.h)
		}
		d.pix.toRGBA(img.Pix[s.y*img.Stride:(s.y+s.h)*img.Stride], img.Stride, reply.Data, srcStride, w, s.h)
	}
	return img, nil
}

// pixelFormat is how the server lays out ZPixmap pixels of the root depth.
type pixelFormat struct {
	bpp, pad         int
	order            binary.ByteOrder
	rMask, gMask, bM uint32
	err              error // the format cannot be converted
}

func pixelFormatOf(setup *xproto.SetupInfo, screen *xproto.ScreenInfo) pixelFormat {
	var pf pixelFormat
	for _, f := range setup.PixmapFormats {
		if f.Depth == screen.RootDepth {
			pf.bpp, pf.pad = int(f.BitsPerPixel), int(f.ScanlinePad)
		}
	}
	pf.order = binary.LittleEndian
	if setup.ImageByteOrder == xproto.ImageOrderMSBFirst {
		pf.order = binary.BigEndian
	}
	for _, dep := range screen.AllowedDepths {
		for _, v := range dep.Visuals {
			if v.VisualId == screen.RootVisual {
				pf.rMask, pf.gMask, pf.bM = v.RedMask, v.GreenMask, v.BlueMask
			}
		}
	}
	// Every desktop X server today uses 24-bit colour in 32-bit pixels;
	// 16-bit and 8-bit visuals are not worth a converter.
	if pf.bpp != 32 || pf.pad == 0 || !mask8(pf.rMask) || !mask8(pf.gMask) || !mask8(pf.bM) {
		pf.err = fmt.Errorf("screen capture: depth %d, %d bpp, masks %#x/%#x/%#x: %w",
			screen.RootDepth, pf.bpp, pf.rMask, pf.gMask, pf.bM, ErrUnsupported)
	}
	return pf
}

// mask8 reports whether m is eight contiguous bits.
func mask8(m uint32) bool {
	return m != 0 && m>>bits.TrailingZeros32(m) == 0xff
}

// stride is the byte length of one ZPixmap row of w pixels.
func (pf pixelFormat) stride(w int) int {
	return (w*pf.bpp + pf.pad - 1) / pf.pad * pf.pad / 8
}

// toRGBA converts h rows of w pixels. The alpha channel is set to 255: X
// leaves the pad byte undefined (robotgo's CaptureImg returns it as 0),
// and a transparent screenshot encodes as nothing.
func (pf pixelFormat) toRGBA(dst []byte, dstStride int, src []byte, srcStride, w, h int) {
	if pf.order == binary.LittleEndian && pf.rMask == 0xff0000 && pf.gMask == 0xff00 && pf.bM == 0xff {
		// The common case: B, G, R, pad in memory.
		for y := range h {
			s := src[y*srcStride : y*srcStride+4*w]
			t := dst[y*dstStride : y*dstStride+4*w]
			for i := 0; i < len(s); i += 4 {
				t[i], t[i+1], t[i+2], t[i+3] = s[i+2], s[i+1], s[i], 0xff
			}
		}
		return
	}
	rs, gs, bs := bits.TrailingZeros32(pf.rMask), bits.TrailingZeros32(pf.gMask), bits.TrailingZeros32(pf.bM)
	for y := range h {
		s := src[y*srcStride:]
		t := dst[y*dstStride:]
		for x := range w {
			p := pf.order.Uint32(s[4*x:])
			t[4*x] = byte(p >> rs)
			t[4*x+1] = byte(p >> gs)
			t[4*x+2] = byte(p >> bs)
			t[4*x+3] = 0xff
		}
	}
}

// randrVersionOK announces RandR 1.5 to the server and reports whether it
// has it: GetMonitors appeared in 1.5.
func randrVersionOK(c *xgb.Conn) bool {
	v, err := randr.QueryVersion(c, 1, 5).Reply()
	if err != nil {
		return false
	}
	return v.MajorVersion > 1 || (v.MajorVersion == 1 && v.MinorVersion >= 5)
}
