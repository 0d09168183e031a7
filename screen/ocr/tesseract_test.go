package ocr_test

import (
	"context"
	"errors"
	"image"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr"
)

var _ screen.TextReader = (*ocr.Tesseract)(nil)

// mail is a screen-sized e-mail at ordinary UI text sizes.
var mail = []string{
	"From: Jane Doe <jane.doe@example.com>",
	"Subject: Settlement offer in Smith v. Acme Corporation",
	"",
	"Dear Counsel,",
	"",
	"Please find attached our client's settlement offer. The offer",
	"remains open until Friday 14 March. Case number 2024/1187.",
	"",
	"Kind regards,",
	"Jane Doe, Partner",
}

// keyWords must be recovered: what a glance would look for.
var keyWords = []string{"Settlement", "Smith", "Acme", "Friday", "2024/1187", "jane.doe@example.com", "Partner"}

func newReader(t *testing.T, cfg ocr.Config) *ocr.Tesseract {
	t.Helper()
	r, err := ocr.New(cfg)
	if err != nil {
		t.Fatalf("ocr.New: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func checkWords(t *testing.T, text string) {
	t.Helper()
	// Tesseract sometimes splits a word at punctuation ("jane.doe
	// @example.com"); a search would ignore that too.
	flat := strings.Join(strings.Fields(text), "")
	var missing []string
	for _, w := range keyWords {
		if !strings.Contains(flat, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("OCR missed %q in:\n%s", missing, text)
	}
}

func TestReadTextRendered(t *testing.T) {
	r := newReader(t, ocr.Config{})
	for _, size := range []float64{13, 16} {
		img, err := xtest.TextImage(900, 360, size, mail...)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		text, err := r.ReadText(t.Context(), img)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v px text: read in %v", size, time.Since(start).Round(time.Millisecond))
		checkWords(t, text)
	}
}

func TestReadTextContextAndClose(t *testing.T) {
	r := newReader(t, ocr.Config{})
	img, err := xtest.TextImage(400, 100, 16, "Hello")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.ReadText(ctx, img); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// Concurrent callers are serialised, not crashed.
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if text, err := r.ReadText(t.Context(), img); err != nil || !strings.Contains(text, "Hello") {
				t.Errorf("concurrent read: %q, %v", text, err)
			}
		})
	}
	wg.Wait()
	r.Close()
	if _, err := r.ReadText(t.Context(), img); !errors.Is(err, ocr.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestNewRejectsMissingLanguage(t *testing.T) {
	_, err := ocr.New(ocr.Config{Languages: []string{"xxx"}})
	if err == nil || !strings.Contains(err.Error(), "tesseract-ocr-xxx") {
		t.Errorf("New with a language that is not installed: %v", err)
	}
}

func TestTextOff(t *testing.T) {
	var r screen.TextReader = screen.TextOff{}
	if _, err := r.ReadText(t.Context(), image.NewRGBA(image.Rect(0, 0, 1, 1))); !errors.Is(err, screen.ErrTextOff) {
		t.Errorf("TextOff: %v", err)
	}
}
