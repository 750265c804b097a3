//go:build race

package rowindex_test

// raceEnabled skips allocation tests: the race detector allocates.
const raceEnabled = true
