//go:build ignore

// genicon draws Spirit's icon: a softly glowing disc. Run with
// `go run genicon.go` from this directory to regenerate the PNGs.
package main

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
)

func main() {
	for _, s := range []struct {
		name string
		size int
	}{{"icon.png", 256}, {"tray.png", 64}} {
		if err := write(s.name, s.size); err != nil {
			panic(err)
		}
	}
}

func write(name string, n int) error {
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	c := float64(n) / 2
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			dx, dy := (float64(x)+0.5-c)/c, (float64(y)+0.5-c)/c
			r := math.Hypot(dx, dy)
			var a float64
			switch {
			case r < 0.56: // core, antialiased at its rim
				a = 1
			case r < 0.98: // glow falling off
				a = 0.85 * math.Pow(1-(r-0.56)/0.42, 1.8)
			}
			if r > 0.54 && r < 0.58 {
				a = math.Max(a, 1-(r-0.54)/0.04)
			}
			// Highlight up-left gives depth.
			h := math.Max(0, 1-math.Hypot(dx+0.18, dy+0.18)/0.22)
			R := 0x6f + (0xff-0x6f)*h
			G := 0x9c + (0xff-0x9c)*h
			B := 0xf5 + (0xff-0xf5)*h
			img.SetNRGBA(x, y, color.NRGBA{uint8(R), uint8(G), uint8(B), uint8(255 * math.Min(1, a))})
		}
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}
