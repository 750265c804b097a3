//go:build !race

package rowindex_test

const raceEnabled = false
