package ocr_test

import (
	"context"
	"image"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr"
)

func openDisplay(t *testing.T, name string) *platform.Display {
	t.Helper()
	d, err := platform.OpenDisplay(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestReadTextOffScreenCapture(t *testing.T) {
	// The whole path: pixels drawn in an X window, captured (BGRX →
	// RGBA), then read.
	d := xtest.StartDisplay(t, 1280, 800)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	page, err := xtest.TextImage(900, 360, 14, mail...)
	if err != nil {
		t.Fatal(err)
	}
	pid := xtest.FakeApp(t, "thunderbird")
	win, err := d.NewWindow(ctx, xtest.WindowSpec{Title: "Settlement offer - Mozilla Thunderbird",
		Class: "thunderbird", PID: pid, Rect: image.Rect(150, 120, 1050, 480), Image: page})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Activate(ctx, win.ID); err != nil {
		t.Fatal(err)
	}
	disp := openDisplay(t, d.Name)
	shot, err := screen.NewCapturer(disp, screen.CaptureConfig{}).Capture(ctx, screen.Switch{Window: uint64(win.ID)})
	if err != nil {
		t.Fatal(err)
	}
	text, err := newReader(t, ocr.Config{}).ReadText(ctx, shot.Full)
	if err != nil {
		t.Fatal(err)
	}
	checkWords(t, text)
}
