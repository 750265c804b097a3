//go:build !race

package partitioner

const raceEnabled = false
