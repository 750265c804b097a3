//go:build race

package audit

// raceEnabled skips allocation checks: the race detector allocates.
const raceEnabled = true
