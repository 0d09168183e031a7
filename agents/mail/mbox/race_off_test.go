//go:build !race

package mbox

// raceAllocFactor scales allocation bounds under the race detector (see
// race_on_test.go); without it, none.
const raceAllocFactor = 1
