//go:build !race

package partitionindex

const raceEnabled = false
