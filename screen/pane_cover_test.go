package screen

import (
	"context"
	"image"
	"image/color"
	"slices"
	"testing"

	"github.com/spirit-app/spirit/platform"
)

// deskScreen is a paneSource over a screen in memory: the mail window in
// front, showing message n, and windows stacked above it (Spirit's bubble
// or tooltip, a notification), drawn as flat grey.
type deskScreen struct {
	mail  platform.Window
	n     int
	above []image.Rectangle
}

var deskBounds = image.Rect(0, 0, 1280, 800)

func (s *deskScreen) Foreground(context.Context) (platform.Window, error) { return s.mail, nil }

func (s *deskScreen) VisibleWindows(context.Context) ([]platform.Window, error) {
	out := []platform.Window{s.mail} // bottom to top
	for i, r := range s.above {
		out = append(out, platform.Window{ID: uint64(100 + i), Title: "Spirit", Frame: r})
	}
	return out, nil
}

func (s *deskScreen) Grab(_ context.Context, r image.Rectangle) (*image.RGBA, error) {
	r = r.Intersect(deskBounds)
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x-r.Min.X, y-r.Min.Y, s.at(image.Pt(x, y)))
		}
	}
	return img, nil
}

// at is the screen's pixel at p: message n's "lines of text" are dark
// bands whose places depend on n, so another message moves most of them.
func (s *deskScreen) at(p image.Point) color.RGBA {
	for _, r := range s.above {
		if p.In(r) {
			return color.RGBA{128, 128, 128, 255}
		}
	}
	if !p.In(s.mail.Frame) {
		return color.RGBA{0, 0, 64, 255}
	}
	if line := (p.Y - s.mail.Frame.Min.Y) / 6; (line*7+s.n*3)%5 == 0 {
		return color.RGBA{20, 20, 20, 255}
	}
	return color.RGBA{250, 250, 250, 255}
}

// TestPaneWindowAboveComesWithAMessage: a window coming, going or moving
// above the mail window is not a new message, but a message opened in the
// same moment is still one. The watcher once started afresh whenever the
// windows above changed, and so missed the message the lawyer opened as
// Spirit's tooltip appeared (the three-pane glance test, 1 run in 3).
func TestPaneWindowAboveComesWithAMessage(t *testing.T) {
	tooltip := image.Rect(993, 384, 1222, 416)
	bubble := image.Rect(934, 762, 1274, 794)
	type step struct {
		n     int               // the message shown
		above []image.Rectangle // the windows above it
	}
	tests := []struct {
		name  string
		steps []step
		want  []int // the steps after which a change is reported
	}{
		{"a tooltip comes and goes", []step{{0, []image.Rectangle{tooltip}}, {0, nil}}, nil},
		{"a bubble comes, moves and goes", []step{{0, []image.Rectangle{bubble}},
			{0, []image.Rectangle{bubble.Add(image.Pt(-40, 0))}}, {0, nil}}, nil},
		{"a message opened as a tooltip comes", []step{{1, []image.Rectangle{tooltip}}}, []int{0}},
		{"a message opened as the tooltip goes", []step{{0, []image.Rectangle{tooltip}}, {1, nil}}, []int{1}},
		{"a message opened as a bubble comes, then the next", []step{{1, []image.Rectangle{bubble}}, {2, nil}}, []int{0, 1}},
		{"a message opened without a window above", []step{{3, nil}}, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			src := &deskScreen{mail: platform.Window{ID: 1, PID: 2, Title: "Inbox - Mozilla Thunderbird",
				Frame: image.Rect(0, 0, 1280, 800)}}
			sw := Switch{Window: 1, PID: 2, Title: src.mail.Title}
			p, err := startPane(ctx, src, sw, NewExclusions(nil, nil))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for i, st := range tt.steps {
				src.n, src.above = st.n, st.above
				// Enough ticks for a change to settle, and to show it is
				// reported once.
				for range 2 * paneSettleTicks {
					changed, err := p.tick(ctx)
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if changed {
						got = append(got, i)
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("reported after steps %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCellsUnder: the cells a rectangle overlaps, in the order a sample
// lists them (column by column, top to bottom).
func TestCellsUnder(t *testing.T) {
	areas := []image.Rectangle{image.Rect(100, 0, 116, 16), image.Rect(300, 0, 316, 10)}
	tests := []struct {
		name string
		rs   []image.Rectangle
		want []int
	}{
		{"nothing above", nil, nil},
		{"beside both columns", []image.Rectangle{image.Rect(120, 0, 290, 16)}, nil},
		{"one cell of the first", []image.Rectangle{image.Rect(110, 5, 112, 7)}, []int{1}},
		{"the edge between two cells", []image.Rectangle{image.Rect(0, 7, 400, 9)}, []int{1, 2, 5, 6}},
		{"the short last cell", []image.Rectangle{image.Rect(300, 9, 301, 20)}, []int{6}},
		{"two windows", []image.Rectangle{image.Rect(0, 0, 101, 1), image.Rect(315, 4, 320, 5)}, []int{0, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mask := cellsUnder(areas, tt.rs)
			if len(mask) != 4+3 {
				t.Fatalf("%d cells, want 7", len(mask))
			}
			var got []int
			for i, m := range mask {
				if m {
					got = append(got, i)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("cells %v, want %v", got, tt.want)
			}
		})
	}
}
