//go:build race

package ring

// raceEnabled skips allocation checks: the race detector allocates.
const raceEnabled = true
