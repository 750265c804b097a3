//go:build race

package partitionindex

// raceEnabled skips allocation checks: the race detector allocates.
const raceEnabled = true
