//go:build linux

package xtest

import (
	"context"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// boxesPage writes a page with a red box at (100,50) 200×100 and a blue
// one in the window's bottom right corner, 20×20.
func boxesPage(t *testing.T) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "boxes page.html") // a space, escaped in the URL
	html := `<!DOCTYPE html><html><body style="margin:0;background:#fff">
<div style="position:absolute;left:100px;top:50px;width:200px;height:100px;background:#f00"></div>
<div style="position:fixed;right:0;bottom:0;width:20px;height:20px;background:#00f"></div>
</body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return page
}

func TestRenderHTML(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	page := boxesPage(t)
	start := time.Now()
	one := RenderHTML(t, ctx, page, 480, 300)
	t.Logf("one page with --screenshot: %v", time.Since(start))
	start = time.Now()
	many := RenderPages(t, ctx, []Page{{page, 480, 300}, {page, 640, 360}})
	t.Logf("two pages in one Chromium: %v", time.Since(start))
	white, red, blue := color.RGBA{0xff, 0xff, 0xff, 0xff}, color.RGBA{0xff, 0, 0, 0xff}, color.RGBA{0, 0, 0xff, 0xff}
	for _, tc := range []struct {
		name string
		img  image.Image
		w, h int
	}{
		{"RenderHTML", one, 480, 300},
		{"RenderPages 480x300", many[0], 480, 300},
		{"RenderPages 640x360", many[1], 640, 360},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.img.Bounds(); got != image.Rect(0, 0, tc.w, tc.h) {
				t.Fatalf("bounds %v, want %v", got, image.Rect(0, 0, tc.w, tc.h))
			}
			for _, p := range []struct {
				at   image.Point
				want color.RGBA
			}{
				{image.Pt(5, 5), white},
				{image.Pt(101, 51), red},
				{image.Pt(298, 148), red},
				{image.Pt(302, 152), white},
				{image.Pt(tc.w-10, tc.h-10), blue},
				{image.Pt(tc.w-25, tc.h-10), white},
			} {
				if got := tc.img.At(p.at.X, p.at.Y); maxDiff(image.NewUniform(got), image.NewUniform(p.want)) > 2 {
					t.Errorf("pixel at %v is %v, want %v", p.at, got, p.want)
				}
			}
		})
	}
	if d := maxDiff(one, many[0]); d > 8 {
		t.Errorf("the same page differs by up to %d between the two ways of rendering", d)
	}
}

func TestRenderMissingPage(t *testing.T) {
	RequireChromium(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	good := boxesPage(t)
	missing := filepath.Join(t.TempDir(), "missing.html")
	_, err := renderAll(ctx, t.TempDir(), []Page{{good, 200, 100}, {missing, 200, 100}})
	if err == nil || !strings.Contains(err.Error(), "missing.html") {
		t.Errorf("got error %v, want one naming missing.html", err)
	}
	if _, err := screenshot(ctx, t.TempDir(), Page{missing, 200, 100}); err == nil {
		t.Error("screenshot of a missing page: no error")
	}
}

// maxDiff is the largest difference of a colour channel between a and b
// (a uniform image compares as one pixel).
func maxDiff(a, b image.Image) int {
	r := a.Bounds()
	if _, ok := a.(*image.Uniform); ok {
		r = image.Rect(0, 0, 1, 1)
	} else if r != b.Bounds() {
		return 256
	}
	d := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			for _, v := range []int{int(ar>>8) - int(br>>8), int(ag>>8) - int(bg>>8), int(ab>>8) - int(bb>>8)} {
				d = max(d, v, -v)
			}
		}
	}
	return d
}
