//go:build race

package bytecomparable

// raceEnabled skips allocation checks: the race detector allocates.
const raceEnabled = true
