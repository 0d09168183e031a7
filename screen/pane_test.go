package screen

import (
	"slices"
	"testing"
)

// sig is a pane sample of mid-grey cells whose cells from..to-1 are
// brightened by 40 levels: a stand-in for text that differs there.
func sig(from, to int) paneSig {
	s := make(paneSig, 2000)
	for i := range s {
		s[i] = 100
	}
	for i := from; i < to; i++ {
		s[i] += 40
	}
	return s
}

// TestPaneTrackerFiresOnceASettledChange: the pane is reported when it
// shows something else than the glance saw and two samples in a row agree
// on it; never while it is unchanged, still changing, or back to what the
// glance saw.
func TestPaneTrackerFiresOnceASettledChange(t *testing.T) {
	var (
		a     = sig(0, 0)
		aNear = sig(5, 9)      // 4 cells: a caret, a clock
		b     = sig(100, 130)  // another message
		bNear = sig(100, 131)  // b and a caret
		c     = sig(400, 450)  // a third message
		d     = sig(600, 700)  // frames of an animation
		e     = sig(700, 800)  //
		f     = sig(800, 900)  //
		g     = sig(900, 1000) //
		faint = sig(0, 0)      // all cells within the delta of a
	)
	for i := range faint {
		faint[i] = 100 + paneCellDelta
	}
	tests := []struct {
		name  string
		first paneSig
		ticks []paneSig
		want  []int // indexes of ticks that report a change
	}{
		{"unchanged", a, []paneSig{a, a, a, a, a}, nil},
		{"caret blinking", a, []paneSig{aNear, a, aNear, a, aNear}, nil},
		{"every cell within the delta", a, []paneSig{faint, faint, faint}, nil},
		{"another message, settled", a, []paneSig{b, b, b, b}, []int{1}},
		{"another message, caret blinking after", a, []paneSig{b, bNear, b, bNear}, []int{1}},
		{"drawn in two steps", a, []paneSig{c, b, b, b}, []int{2}},
		{"a tooltip that goes away", a, []paneSig{b, a, a, a}, nil},
		{"back and forth settled", a, []paneSig{b, b, a, a}, []int{1, 3}},
		{"two messages in turn", a, []paneSig{b, b, c, c, c}, []int{1, 3}},
		{"an animation never settles", a, []paneSig{d, e, f, g, d, e}, nil},
		{"an animation, then a message", a, []paneSig{d, e, f, b, b}, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newPaneTracker(tt.first)
			var got []int
			for i, s := range tt.ticks {
				if tr.next(s) {
					got = append(got, i)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("reported at ticks %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPaneTrackerPending: a sample unlike the pane the glance saw is
// pending (the watcher samples sooner) until it is reported or goes away.
func TestPaneTrackerPending(t *testing.T) {
	a, aNear, b, c := sig(0, 0), sig(5, 9), sig(100, 130), sig(400, 450)
	tests := []struct {
		name  string
		ticks []paneSig
		want  []bool // pending after each tick
	}{
		{"unchanged", []paneSig{a, a}, []bool{false, false}},
		{"a caret is not a change", []paneSig{aNear, a}, []bool{false, false}},
		{"another message: pending until reported", []paneSig{b, b, b}, []bool{true, false, false}},
		{"drawn in two steps", []paneSig{c, b, b}, []bool{true, true, false}},
		{"a tooltip that goes away", []paneSig{b, a}, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newPaneTracker(a)
			for i, s := range tt.ticks {
				tr.next(s)
				if got := tr.pending(); got != tt.want[i] {
					t.Errorf("after tick %d: pending = %v, want %v", i, got, tt.want[i])
				}
			}
		})
	}
}
