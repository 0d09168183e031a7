package ocr_test

import (
	"fmt"
	"image"
	"image/draw"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen/ocr"
	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// header is a reading pane's header region at UI text size.
var header = []string{
	"Jane Doe",
	"jane.doe@example.com",
	"To  Dana Whitfield",
	"Settlement offer in Smith v. Acme Corporation",
}

func TestReadLinesRendered(t *testing.T) {
	r := newReader(t, ocr.Config{})
	img, err := xtest.TextImage(900, 160, 14, header...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := r.ReadLines(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(header) {
		t.Fatalf("got %d lines, want %d: %q", len(lines), len(header), texts(lines))
	}
	for i, l := range lines {
		if got, want := squash(l.Text), squash(header[i]); got != want {
			t.Errorf("line %d: got %q, want %q", i, l.Text, header[i])
		}
		// TextImage draws line i with its baseline at 28+21i px from x=14.
		base := 28 + 21*i
		if l.Box.Min.Y > base || l.Box.Max.Y < base-8 || l.Box.Min.X < 12 || l.Box.Min.X > 18 {
			t.Errorf("line %d %q: box %v is not where it was drawn (baseline y=%d, x=14)", i, l.Text, l.Box, base)
		}
		var union image.Rectangle
		for _, w := range l.Words {
			union = union.Union(w.Box)
		}
		if union != l.Box {
			t.Errorf("line %d: box %v is not the union of its words' %v", i, l.Box, union)
		}
	}
}

func TestReadLinesOffsetAndScale(t *testing.T) {
	// Boxes are in the pixels of the image given: a sub-image keeps its
	// origin, and a 2× read is scaled back.
	page, err := xtest.TextImage(900, 160, 14, header...)
	if err != nil {
		t.Fatal(err)
	}
	screen := image.NewRGBA(image.Rect(0, 0, 1300, 500))
	draw.Draw(screen, screen.Bounds(), image.White, image.Point{}, draw.Src)
	at := image.Pt(200, 300)
	draw.Draw(screen, page.Bounds().Add(at), page, image.Point{}, draw.Src)
	region := screen.SubImage(page.Bounds().Add(at))
	want := linesOrFatal(t, newReader(t, ocr.Config{}), page)
	for _, tc := range []struct {
		name  string
		scale int
		img   image.Image
		shift image.Point
	}{
		{"sub-image keeps its origin", 1, region, at},
		{"2× read scaled back", 2, page, image.Point{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := linesOrFatal(t, newReader(t, ocr.Config{Scale: tc.scale}), tc.img)
			if len(got) != len(want) {
				t.Fatalf("got %d lines, want %d", len(got), len(want))
			}
			for i := range got {
				w := want[i].Box.Add(tc.shift)
				if d := boxDiff(got[i].Box, w); d > 3 {
					t.Errorf("line %d: box %v, want about %v", i, got[i].Box, w)
				}
			}
		})
	}
}

func TestReadLinesClosed(t *testing.T) {
	r, err := ocr.New(ocr.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	img, _ := xtest.TextImage(100, 40, 14, "x")
	if _, err := r.ReadLines(t.Context(), img); err != ocr.ErrClosed {
		t.Errorf("got %v, want ErrClosed", err)
	}
}

// TestBenchPaneRead times reading one reading pane's header region (900×160,
// four lines of 14 px text) into lines. It runs only with SPIRIT_BENCH=1
// (make bench) and prints
// "BENCH ocr_lines_900x160_ms <p95 of 20 reads, language data already loaded> ms".
func TestBenchPaneRead(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to measure")
	}
	img, err := xtest.TextImage(900, 160, 14, header...)
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(t, ocr.Config{})
	if lines := linesOrFatal(t, r, img); len(lines) != len(header) {
		t.Fatalf("OCR output unusable: %q", texts(lines))
	}
	var times []time.Duration
	for range 20 {
		start := time.Now()
		if _, err := r.ReadLines(t.Context(), img); err != nil {
			t.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	s := sortedDurations(times)
	p95 := s[(len(s)*95+99)/100-1]
	t.Logf("reads: p50 %v, p95 %v, max %v", s[len(s)/2], p95, s[len(s)-1])
	fmt.Printf("BENCH ocr_lines_900x160_ms %.0f ms\n", float64(p95)/float64(time.Millisecond))
}

func linesOrFatal(t *testing.T, r *ocr.Tesseract, img image.Image) []layout.Line {
	t.Helper()
	lines, err := r.ReadLines(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func texts(lines []layout.Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// squash drops spaces, which Tesseract may add or drop around
// punctuation.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

func boxDiff(a, b image.Rectangle) int {
	abs := func(v int) int { return max(v, -v) }
	return max(abs(a.Min.X-b.Min.X), abs(a.Min.Y-b.Min.Y), abs(a.Max.X-b.Max.X), abs(a.Max.Y-b.Max.Y))
}

func sortedDurations(ds []time.Duration) []time.Duration {
	return slices.Sorted(slices.Values(ds))
}
