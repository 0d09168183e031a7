package desktop

import (
	"image"
	"testing"

	"github.com/spirit-app/spirit/platform"
)

// orbIn is the orb's window docked in work area wa, as dockOrb puts it.
func orbIn(wa image.Rectangle) image.Rectangle {
	p := platform.DockPosition(wa, platform.WindowSize{W: 44, H: 44}, dockMargin)
	return image.Rectangle{p, p.Add(image.Pt(44, 44))}
}

func TestChooseSpot(t *testing.T) {
	screen := image.Rect(0, 0, 1280, 800)
	work := image.Rect(0, 0, 1280, 770) // a panel along the bottom
	orb := orbIn(work)                  // (1230,363)-(1274,407)
	compact := image.Pt(300, 36)
	full := image.Pt(340, 210)
	dual := []image.Rectangle{image.Rect(0, 0, 1280, 800), image.Rect(1280, 0, 2560, 800)}
	dualWork := image.Rect(0, 0, 2560, 770)
	dualOrb := orbIn(dualWork)

	for _, tc := range []struct {
		name string
		in   placeInput
		size image.Point
		want spot
	}{
		{"no window in front: beside the orb",
			placeInput{work: work, orb: orb}, compact,
			spot{image.Rect(922, 367, 1222, 403), growLeft | growAround}},
		{"a window on the left half: beside the orb, covering nothing",
			placeInput{work: work, orb: orb, active: image.Rect(0, 0, 640, 770)}, compact,
			spot{image.Rect(922, 367, 1222, 403), growLeft | growAround}},
		{"a maximised window: the bottom corner at the orb's edge, where a message has the least text",
			placeInput{work: work, orb: orb, active: work}, compact,
			spot{image.Rect(974, 728, 1274, 764), growLeft | growUp}},
		{"a maximised window, the full bubble: the same corner",
			placeInput{work: work, orb: orb, active: work}, full,
			spot{image.Rect(934, 554, 1274, 764), growLeft | growUp}},
		{"a window on the right half: the far edge, covering nothing",
			placeInput{work: work, orb: orb, active: image.Rect(640, 0, 1280, 770)}, compact,
			spot{image.Rect(6, 367, 306, 403), growRight | growAround}},
		{"a short window on the right half: the bottom corner under it",
			placeInput{work: work, orb: orb, active: image.Rect(640, 0, 1280, 420)}, compact,
			spot{image.Rect(974, 728, 1274, 764), growLeft | growUp}},
		{"a window from the orb down: above the orb, in the margin",
			placeInput{work: work, orb: orb, active: image.Rect(600, 360, 1280, 770)}, compact,
			spot{image.Rect(974, 319, 1274, 355), growLeft | growUp}},
		{"two monitors, a window maximised on the orb's: the bottom corner of that monitor",
			placeInput{work: dualWork, monitors: dual, orb: dualOrb, active: image.Rect(1280, 0, 2560, 770)}, compact,
			spot{image.Rect(2254, 728, 2554, 764), growLeft | growUp}},
		{"two monitors, the window on the other one: beside the orb",
			placeInput{work: dualWork, monitors: dual, orb: dualOrb, active: image.Rect(0, 0, 1280, 770)}, compact,
			spot{image.Rect(2202, 367, 2502, 403), growLeft | growAround}},
		{"two monitors, a window on the right half of the orb's: the far edge of that monitor, not the other one",
			placeInput{work: dualWork, monitors: dual, orb: dualOrb, active: image.Rect(1920, 0, 2560, 770)}, compact,
			spot{image.Rect(1286, 367, 1586, 403), growRight | growAround}},
		{"a tiny work area: kept inside, off the orb",
			placeInput{work: image.Rect(0, 0, 400, 200), orb: orbIn(image.Rect(0, 0, 400, 200)), active: image.Rect(0, 0, 400, 200)}, compact,
			spot{image.Rect(94, 158, 394, 194), growLeft | growUp}},
		{"a work area narrower than the bubble: its left part shows",
			placeInput{work: image.Rect(0, 0, 200, 120), orb: orbIn(image.Rect(0, 0, 200, 120))}, compact,
			spot{image.Rect(0, 0, 300, 36), growLeft | growUp}},
		{"a work area left of a panel: inside it",
			placeInput{work: image.Rect(0, 0, 1000, 800), orb: orbIn(image.Rect(0, 0, 1000, 800)), active: screen}, compact,
			spot{image.Rect(694, 758, 994, 794), growLeft | growUp}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := chooseSpot(tc.in, tc.size)
			if got != tc.want {
				t.Errorf("chooseSpot = %v grow %b, want %v grow %b (covers %d px of the window, want %d)",
					got.rect, got.grow, tc.want.rect, tc.want.grow,
					overlap(got.rect, tc.in.active), overlap(tc.want.rect, tc.in.active))
			}
			if got.rect.Size() != tc.size {
				t.Errorf("size = %v, want %v", got.rect.Size(), tc.size)
			}
		})
	}
}

func TestGrowFrom(t *testing.T) {
	area := image.Rect(0, 0, 1280, 770)
	full := image.Pt(340, 210)
	for _, tc := range []struct {
		name string
		from spot
		size image.Point
		want image.Rectangle
	}{
		{"beside the orb: grows left and both ways around its middle",
			spot{image.Rect(922, 367, 1222, 403), growLeft | growAround}, full, image.Rect(882, 280, 1222, 490)},
		{"bottom corner: grows left and up",
			spot{image.Rect(974, 728, 1274, 764), growLeft | growUp}, full, image.Rect(934, 554, 1274, 764)},
		{"above the orb: grows left and up",
			spot{image.Rect(974, 319, 1274, 355), growLeft | growUp}, full, image.Rect(934, 145, 1274, 355)},
		{"top corner: grows left and down",
			spot{image.Rect(974, 6, 1274, 42), growLeft | growDown}, full, image.Rect(934, 6, 1274, 216)},
		{"far edge: grows right",
			spot{image.Rect(6, 367, 306, 403), growRight | growAround}, full, image.Rect(6, 280, 346, 490)},
		{"too tall to grow up: kept inside the work area",
			spot{image.Rect(974, 100, 1274, 136), growLeft | growUp}, full, image.Rect(934, 0, 1274, 210)},
		{"back to one line: the same corner",
			spot{image.Rect(934, 554, 1274, 764), growLeft | growUp}, image.Pt(300, 36), image.Rect(974, 728, 1274, 764)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := growFrom(tc.from, tc.size, area)
			if got != tc.want {
				t.Errorf("growFrom = %v, want %v", got, tc.want)
			}
			// The full bubble covers the line it grew from, so the
			// pointer that hovered the line is still over the bubble.
			if tc.size.X >= tc.from.rect.Dx() && tc.size.Y >= tc.from.rect.Dy() && !tc.from.rect.In(got) {
				t.Errorf("grown bubble %v does not cover its line %v", got, tc.from.rect)
			}
		})
	}
}
