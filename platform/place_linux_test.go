package platform

import (
	"slices"
	"testing"
)

func TestUserPlaced(t *testing.T) {
	// GLFW's hints for a fixed-size window: PMinSize|PMaxSize (16|32),
	// min 120x80 and max 120x80 (fields 5–8), PWinGravity (512) last.
	glfw := make([]uint32, sizeHintsLen)
	glfw[0] = 16 | 32 | 512
	glfw[5], glfw[6], glfw[7], glfw[8] = 120, 80, 120, 80
	glfw[17] = 1
	tests := []struct {
		name string
		old  []uint32
		x, y int
		want func() []uint32
	}{
		{"no hints yet", nil, 10, 20, func() []uint32 {
			h := make([]uint32, sizeHintsLen)
			h[0], h[1], h[2] = usPosition|pPosition, 10, 20
			return h
		}},
		{"the toolkit's size limits kept", glfw, 1000, 360, func() []uint32 {
			h := slices.Clone(glfw)
			h[0] |= usPosition | pPosition
			h[1], h[2] = 1000, 360
			return h
		}},
		{"a short property padded", []uint32{pPosition, 5, 5}, 7, 8, func() []uint32 {
			h := make([]uint32, sizeHintsLen)
			h[0], h[1], h[2] = usPosition|pPosition, 7, 8
			return h
		}},
		{"left of a second screen", nil, -300, 40, func() []uint32 {
			h := make([]uint32, sizeHintsLen)
			h[0], h[1], h[2] = usPosition|pPosition, uint32(0xFFFFFED4), 40
			return h
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := slices.Clone(tt.old)
			got := userPlaced(tt.old, tt.x, tt.y)
			if want := tt.want(); !slices.Equal(got, want) {
				t.Errorf("userPlaced = %v, want %v", got, want)
			}
			if !slices.Equal(tt.old, old) {
				t.Errorf("userPlaced changed its input: %v, was %v", tt.old, old)
			}
		})
	}
}
