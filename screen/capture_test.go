package screen

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"testing"

	xdraw "golang.org/x/image/draw"
)

func TestDownscale(t *testing.T) {
	for _, tc := range []struct {
		w, h, max, wantW, wantH int
	}{
		{1280, 800, 1280, 1280, 800},
		{1920, 1080, 1280, 1280, 720},
		{3840, 2160, 1280, 1280, 720},
		{2560, 1440, 1280, 1280, 720},
		{1080, 1920, 1280, 720, 1280},
		{5120, 1440, 1280, 1280, 360},
		{800, 600, 1280, 800, 600},
	} {
		src := image.NewRGBA(image.Rect(0, 0, tc.w, tc.h))
		draw.Draw(src, src.Bounds(), image.NewUniform(color.RGBA{10, 200, 30, 255}), image.Point{}, draw.Src)
		got := Downscale(src, tc.max)
		if b := got.Bounds(); b.Dx() != tc.wantW || b.Dy() != tc.wantH {
			t.Errorf("%dx%d → %v, want %dx%d", tc.w, tc.h, b, tc.wantW, tc.wantH)
			continue
		}
		if c := got.RGBAAt(tc.wantW/2, tc.wantH/2); c != (color.RGBA{10, 200, 30, 255}) {
			t.Errorf("%dx%d: colour %v after scaling", tc.w, tc.h, c)
		}
	}
}

func TestMonitorFor(t *testing.T) {
	left := image.Rect(0, 0, 1920, 1080)
	right := image.Rect(1920, 0, 4480, 1440)
	mirror := image.Rect(0, 0, 1280, 720)
	mons := []image.Rectangle{left, right, mirror}
	for _, tc := range []struct {
		frame, want image.Rectangle
	}{
		{image.Rect(100, 100, 800, 600), mirror},   // inside both: the smaller
		{image.Rect(1500, 100, 2500, 900), right},  // more on the right
		{image.Rect(1000, 100, 2100, 900), left},   // more on the left
		{image.Rect(5000, 5000, 5100, 5100), left}, // off-screen: the first
		{image.Rectangle{}, left},                  // unknown: the first
	} {
		if got := MonitorFor(mons, tc.frame); got != tc.want {
			t.Errorf("MonitorFor(%v) = %v, want %v", tc.frame, got, tc.want)
		}
	}
	if got := MonitorFor(nil, image.Rect(0, 0, 1, 1)); got != (image.Rectangle{}) {
		t.Errorf("no monitors: %v", got)
	}
}

func TestDownscaleMatchesBiLinear(t *testing.T) {
	// Against x/image/draw's BiLinear, which also widens its kernel when
	// shrinking: the two filters differ, but only slightly on average.
	src := page(7, 30)
	for _, maxSide := range []int{1280, 960, 640, 427} {
		got := Downscale(src, maxSide)
		ref := image.NewRGBA(got.Bounds())
		xdraw.BiLinear.Scale(ref, ref.Bounds(), src, src.Bounds(), xdraw.Src, nil)
		var sum, n float64
		for i := 0; i < len(got.Pix); i += 4 {
			for c := range 3 {
				sum += math.Abs(float64(got.Pix[i+c]) - float64(ref.Pix[i+c]))
				n++
			}
			if got.Pix[i+3] != 0xff {
				t.Fatalf("max %d: alpha %d", maxSide, got.Pix[i+3])
			}
		}
		if mean := sum / n; mean > 6 {
			t.Errorf("max %d: mean difference from BiLinear %.2f levels", maxSide, mean)
		} else {
			t.Logf("max %d: mean difference from BiLinear %.2f levels", maxSide, mean)
		}
	}
	// Mean brightness is preserved exactly (up to rounding).
	mean := func(img *image.RGBA) float64 {
		var s float64
		for i := 0; i < len(img.Pix); i += 4 {
			s += float64(img.Pix[i])
		}
		return s / float64(len(img.Pix)/4)
	}
	if a, b := mean(src), mean(Downscale(src, 640)); math.Abs(a-b) > 0.5 {
		t.Errorf("mean brightness %.2f → %.2f", a, b)
	}
}

func TestSubtract(t *testing.T) {
	area := func(rs []image.Rectangle) (a int) {
		for _, r := range rs {
			a += r.Dx() * r.Dy()
		}
		return a
	}
	r := image.Rect(0, 0, 100, 100)
	for _, tc := range []struct {
		cut  image.Rectangle
		area int
	}{
		{image.Rect(200, 200, 300, 300), 10000}, // disjoint
		{image.Rect(-10, -10, 110, 110), 0},     // covered
		{image.Rect(25, 25, 75, 75), 7500},      // hole
		{image.Rect(50, -10, 150, 110), 5000},   // right half
		{image.Rect(-10, 90, 10, 200), 9900},    // corner
	} {
		parts := subtract([]image.Rectangle{r}, tc.cut)
		if got := area(parts); got != tc.area {
			t.Errorf("cut %v: area %d, want %d (%v)", tc.cut, got, tc.area, parts)
		}
		for i, p := range parts {
			if !p.In(r) || !p.Intersect(tc.cut).Empty() {
				t.Errorf("cut %v: part %v outside or overlapping the cut", tc.cut, p)
			}
			for _, q := range parts[i+1:] {
				if !p.Intersect(q).Empty() {
					t.Errorf("cut %v: parts %v and %v overlap", tc.cut, p, q)
				}
			}
		}
	}
}
