//go:build linux

package screen

import (
	"fmt"
	"image"
	"image/color"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/xtest"
)

// TestPaneSampleTellsMessagesApart: on real pixels, the sample of a
// three-pane window stays put while nothing changes or a caret blinks, and
// moves beyond the threshold when another message is selected, even when
// only the selection and a few characters of the header differ.
func TestPaneSampleTellsMessagesApart(t *testing.T) {
	d := xtest.StartDisplay(t, 1280, 800)
	disp, err := platform.OpenDisplay(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer disp.Close()
	ctx := t.Context()
	rect := image.Rect(40, 40, 1000, 700)
	page := func(sel, sender int, body string) *image.RGBA {
		var lines []string
		for i := range 8 {
			mark := "  "
			if i == sel {
				mark = "> "
			}
			lines = append(lines, fmt.Sprintf("%sSender %d    Subject of message number %d    %d Nov", mark, i, i, i+3))
		}
		lines = append(lines, "", fmt.Sprintf("From: Sender %d <sender%d@example.com>", sender, sender),
			fmt.Sprintf("Subject: Subject of message number %d", sender), "")
		for l := range 14 {
			lines = append(lines, fmt.Sprintf("%s paragraph %d: the parties agree that clause %d shall apply.", body, l, l+3))
		}
		img, err := xtest.TextImage(rect.Dx(), rect.Dy(), 15, lines...)
		if err != nil {
			t.Fatal(err)
		}
		highlight(img, sel)
		return img
	}
	win, err := d.NewWindow(ctx, xtest.WindowSpec{Title: "Inbox - Mozilla Thunderbird", Class: "thunderbird", Rect: rect, Image: page(0, 0, "Body")})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Activate(ctx, win.ID); err != nil {
		t.Fatal(err)
	}
	frame, err := win.Frame()
	if err != nil {
		t.Fatal(err)
	}
	sample := func() paneSig {
		t.Helper()
		s, _, err := samplePane(ctx, disp, frame, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := sample()
	if d := sample().distance(base); d != 0 {
		t.Errorf("unchanged window: distance %d, want 0", d)
	}
	// A caret inside the first sampled column, on a body line.
	client, err := win.Client()
	if err != nil {
		t.Fatal(err)
	}
	caret := page(0, 0, "Body")
	caretX := paneStrips(frame)[0].Min.X + paneColumnW/2 - client.Min.X
	for y := 300; y < 316; y++ {
		caret.Set(caretX, y, color.Black)
	}
	tests := []struct {
		name string
		img  *image.RGBA
		new  bool
	}{
		{"another message", page(3, 3, "Other"), true},
		{"another header, same body", page(5, 5, "Body"), true},
		{"the same message and a caret", caret, false},
		{"the same message again", page(0, 0, "Body"), false},
	}
	for _, tt := range tests {
		if err := win.SetImage(tt.img); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		s := sample()
		took := time.Since(start)
		dist := s.distance(base)
		t.Logf("%s: %d cells from the first message (sampled in %v)", tt.name, dist, took)
		if got := dist > paneThreshold; got != tt.new {
			t.Errorf("%s: distance %d, new = %v, want %v", tt.name, dist, got, tt.new)
		}
	}
}

// highlight tints line i of a TextImage page (size 15) light blue, as mail
// clients show the selected message in the list.
func highlight(img *image.RGBA, i int) {
	top := 30 + 22*i - 16
	for y := max(top, 0); y < min(top+22, img.Rect.Dy()); y++ {
		for x := range img.Rect.Dx() {
			o := img.PixOffset(x, y)
			img.Pix[o] = uint8(int(img.Pix[o]) * 3 / 4)
			img.Pix[o+1] = uint8(int(img.Pix[o+1]) * 7 / 8)
		}
	}
}
