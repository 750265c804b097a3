//go:build !race

package bytecomparable

const raceEnabled = false
