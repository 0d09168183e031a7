package xtest

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// TextImage renders lines of dark text on a white w×h page with the Go
// font at size pixels, anti-aliased like real screen text: a stand-in for
// a document or an e-mail.
func TextImage(w, h int, size float64, lines ...string) (*image.RGBA, error) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("parse Go font: %w", err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("font face: %w", err)
	}
	defer face.Close()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	dr := font.Drawer{Dst: img, Src: image.NewUniform(color.RGBA{0x20, 0x20, 0x28, 0xff}), Face: face}
	lineH := int(size * 1.5)
	for i, l := range lines {
		dr.Dot = fixed.P(int(size), int(size)*2+i*lineH)
		dr.DrawString(l)
	}
	return img, nil
}
