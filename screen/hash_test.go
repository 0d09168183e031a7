package screen

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math/rand/v2"
	"strings"
	"testing"
)

// page draws a screen: a dark desktop with a white page at (100, 60) and
// "text" as dark bars whose lengths come from seed, like lines of prose.
func page(seed uint64, lines int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{0x30, 0x30, 0x30, 0xff}), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(100, 60, 1100, 700), image.White, image.Point{}, draw.Src)
	r := rand.New(rand.NewPCG(seed, 1))
	ink := image.NewUniform(color.RGBA{0x20, 0x20, 0x28, 0xff})
	for l := range lines {
		y := 90 + l*22
		x := 120
		for x < 1080 {
			// Words: 2-10 glyphs of 8 px, 6 px apart.
			n := 2 + r.IntN(9)
			w := n * 8
			if x+w > 1080 || r.IntN(12) == 0 {
				break
			}
			draw.Draw(img, image.Rect(x, y, x+w, y+12), ink, image.Point{}, draw.Src)
			x += w + 6
		}
	}
	return img
}

func TestHashImage(t *testing.T) {
	base := page(1, 24)
	caret := page(1, 24)
	draw.Draw(caret, image.Rect(600, 400, 601, 416), image.Black, image.Point{}, draw.Src)
	clock := page(1, 24)
	draw.Draw(clock, image.Rect(1200, 775, 1230, 790), image.White, image.Point{}, draw.Src)
	moved := image.NewRGBA(base.Bounds())
	draw.Draw(moved, moved.Bounds(), image.NewUniform(color.RGBA{0x30, 0x30, 0x30, 0xff}), image.Point{}, draw.Src)
	draw.Draw(moved, image.Rect(140, 60, 1140, 700), base, image.Pt(100, 60), draw.Src)

	h := HashImage(base)
	if got := HashImage(page(1, 24)); got != h {
		t.Fatalf("same pixels, different hash: %v vs %v", got, h)
	}
	for _, tc := range []struct {
		name     string
		img      *image.RGBA
		min, max int
	}{
		{"blinking caret", caret, 0, DefaultDedupThreshold},
		{"clock changed", clock, 0, DefaultDedupThreshold},
		{"other text", page(2, 24), DefaultDedupThreshold + 1, 64},
		{"other text again", page(3, 24), DefaultDedupThreshold + 1, 64},
		{"half the text", page(1, 12), DefaultDedupThreshold + 1, 64},
		{"window moved", moved, DefaultDedupThreshold + 1, 64},
	} {
		d := h.Distance(HashImage(tc.img))
		t.Logf("%-16s %2d bits", tc.name, d)
		if d < tc.min || d > tc.max {
			t.Errorf("%s: distance %d, want %d..%d", tc.name, d, tc.min, tc.max)
		}
	}
	// A generic image.Image gives the same hash as its RGBA form.
	if got := HashImage(nonRGBA{base}); got.Distance(h) > 1 {
		t.Errorf("generic path: %v vs %v", got, h)
	}
	if HashImage(image.NewRGBA(image.Rect(0, 0, 3, 2))) != 0 || HashImage(image.NewRGBA(image.Rectangle{})) != 0 {
		t.Error("tiny or empty images must hash to 0, not panic")
	}
}

type nonRGBA struct{ image.Image }

func TestDeduper(t *testing.T) {
	dd := NewDeduper(DefaultDedupThreshold)
	a := Hash(0)
	near := Hash(0b101)                // 2 bits away
	far := Hash(0xffff_0000_0000_0000) // 16 bits away
	if !dd.IsNew("w1", a) || dd.IsNew("w1", a) || dd.IsNew("w1", near) {
		t.Fatal("a screen and its near-duplicate must be new once")
	}
	if !dd.IsNew("w2", a) {
		t.Fatal("keys are independent")
	}
	if !dd.IsNew("w1", far) {
		t.Fatal("a different screen must be new")
	}
	// Back to the first screen: still remembered (history of 4).
	if dd.IsNew("w1", a) {
		t.Fatal("going back to an already sent screen must not be new")
	}
	dd.Forget("w1")
	if !dd.IsNew("w1", a) {
		t.Fatal("Forget must forget")
	}
	// Memory is bounded.
	for i := range dedupMaxKeys * 2 {
		dd.IsNew(fmt.Sprint(i), a)
	}
	if n := len(dd.keys); n > dedupMaxKeys {
		t.Fatalf("%d keys kept, max %d", n, dedupMaxKeys)
	}
	// The most recently used key survives eviction.
	dd.IsNew("keep", far)
	for i := range dedupMaxKeys - 1 {
		dd.IsNew(fmt.Sprint("x", i), a)
	}
	if dd.IsNew("keep", far) {
		t.Fatal("recently used key was evicted")
	}
}

func TestDedupKeyHidesTitle(t *testing.T) {
	sw := Switch{Window: 0x2a, App: "thunderbird", Title: "Re: Smith v. Acme"}
	k := DedupKey(sw)
	other := sw
	other.Title = "Re: Jones v. Acme"
	if k == DedupKey(other) {
		t.Error("different titles, same key")
	}
	for _, s := range []string{"Smith", "Acme", "thunderbird"} {
		if strings.Contains(k, s) {
			t.Errorf("key %q contains %q", k, s)
		}
	}
}
