package desktop

import (
	"image"
	"testing"

	"github.com/spirit-app/spirit/platform"
)

func TestBesideOrb(t *testing.T) {
	wa := image.Rect(0, 0, 1280, 800)
	orb := platform.WindowSize{W: 44, H: 44}
	menu := platform.WindowSize{W: 200, H: 260}
	tests := []struct {
		name   string
		wa     image.Rectangle
		orbPos image.Point
		win    platform.WindowSize
		want   image.Point
	}{
		{"docked at the right edge, centred on the orb", wa, image.Pt(1228, 378), menu, image.Pt(1228-8-200, 378+22-130)},
		{"orb near the top: kept on screen", wa, image.Pt(1228, 10), menu, image.Pt(1020, 0)},
		{"orb near the bottom: kept above the edge", wa, image.Pt(1228, 780), menu, image.Pt(1020, 800-260)},
		{"work area below a top panel", image.Rect(0, 30, 1280, 800), image.Pt(1228, 40), menu, image.Pt(1020, 30)},
		{"a window wider than the room left of the orb", wa, image.Pt(100, 378), platform.WindowSize{W: 300, H: 100}, image.Pt(0, 350)},
		{"second screen right of the first", image.Rect(1280, 0, 2560, 1024), image.Pt(2508, 490), menu, image.Pt(2300, 382)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := besideOrb(tt.wa, tt.orbPos, orb, tt.win); got != tt.want {
				t.Errorf("besideOrb = %v, want %v", got, tt.want)
			}
		})
	}
}
