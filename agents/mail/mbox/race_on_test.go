//go:build race

package mbox

// raceAllocFactor scales allocation bounds under the race detector: its
// instrumented build turns off the compiler's append(b, make(...)...)
// optimisation, so each bytes.Buffer growth allocates twice (measured:
// 256 MiB instead of 128 MiB scanning a 300 MiB message).
const raceAllocFactor = 2
