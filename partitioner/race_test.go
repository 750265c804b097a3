//go:build race

package partitioner

// raceEnabled skips allocation checks: the race detector allocates.
const raceEnabled = true
