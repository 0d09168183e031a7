package platform

import "image"

// WindowSize is a window's size in screen pixels.
type WindowSize struct{ W, H int }

// DockPosition returns where a window of size sz sits when docked at the right
// edge of the work area wa, vertically centred, margin pixels from the edge.
func DockPosition(wa image.Rectangle, sz WindowSize, margin int) image.Point {
	x := wa.Max.X - sz.W - margin
	if x < wa.Min.X {
		x = wa.Min.X
	}
	y := wa.Min.Y + (wa.Dy()-sz.H)/2
	if y < wa.Min.Y {
		y = wa.Min.Y
	}
	return image.Pt(x, y)
}

// RootEvent is a change on the desktop that Spirit's windows react to.
type RootEvent int

const (
	WorkAreaChanged RootEvent = iota // screen resized or panels moved: re-dock
	ActiveChanged                    // another window got the focus
)
