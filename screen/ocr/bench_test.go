package ocr_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen/ocr"
)

// TestBenchOCR times reading a full 1280×800 screen of 14 px text (48
// lines), the worst case of a glance that needs screen text. It runs only
// with SPIRIT_BENCH=1 (make bench) and prints
// "BENCH ocr_screen_1280x800_ms <median of 5 reads, language data already loaded> ms".
func TestBenchOCR(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to measure")
	}
	lines := make([]string, 48)
	for i := range lines {
		lines[i] = fmt.Sprintf("%02d  Re: Smith v. Acme Corporation - hearing bundle, index page %d, exhibit %c, served on counsel", i, i+1, 'A'+i%26)
	}
	img, err := xtest.TextImage(1280, 800, 14, lines...)
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(t, ocr.Config{})
	text, err := r.ReadText(t.Context(), img) // loads the language data
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Acme") {
		t.Fatalf("OCR output unusable:\n%s", text)
	}
	var times []time.Duration
	for range 5 {
		start := time.Now()
		if _, err := r.ReadText(t.Context(), img); err != nil {
			t.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	med := median(times)
	t.Logf("reads: %v", times)
	fmt.Printf("BENCH ocr_screen_1280x800_ms %.0f ms\n", float64(med)/float64(time.Millisecond))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}
