package main

import "testing"

func TestStreamsToReopen(t *testing.T) {
	const disk, char, pipe = 1, 2, 3
	for _, tc := range []struct {
		name   string
		types  [3]uint32
		reopen [3]bool
		any    bool
	}{
		{"typed in a console, nothing redirected", [3]uint32{0, 0, 0}, [3]bool{true, true, true}, true},
		{"output to a pipe", [3]uint32{0, pipe, 0}, [3]bool{true, false, true}, true},
		{"output to a file", [3]uint32{0, disk, 0}, [3]bool{true, false, true}, true},
		{"all redirected", [3]uint32{pipe, pipe, disk}, [3]bool{}, false},
		{"a console program's own console", [3]uint32{char, char, char}, [3]bool{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reopen, any := streamsToReopen(tc.types)
			if reopen != tc.reopen || any != tc.any {
				t.Errorf("streamsToReopen(%v) = %v, %v; want %v, %v", tc.types, reopen, any, tc.reopen, tc.any)
			}
		})
	}
}
