package keygen

import (
	"testing"

	"github.com/bti-go/bti/partitioner"
)

// With PositionsIncreasing, both position streams strictly increase in key
// order (what partitionindex.PositionsIncreasing checks); the default has
// outliers that break it.
func TestPositionsIncreasing(t *testing.T) {
	for _, increasing := range []bool{false, true} {
		c := Config{Partitioner: partitioner.Murmur3, Kind: UUID, Count: 5000, Seed: 9, PositionsIncreasing: increasing}
		entries, err := c.Generate()
		if err != nil {
			t.Fatal(err)
		}
		lastRow, lastData, breaks := int64(-1), int64(-1), 0
		sizes := map[int]bool{}
		for _, e := range entries {
			if e.Pos >= 0 {
				if e.Pos <= lastRow {
					breaks++
				}
				lastRow = e.Pos
			} else {
				if ^e.Pos <= lastData {
					breaks++
				}
				lastData = ^e.Pos
			}
			n := 1
			for v := e.Pos; v >= 128 || v < -128; v >>= 8 {
				n++
			}
			sizes[n] = true
		}
		if increasing && breaks != 0 {
			t.Fatalf("increasing positions: %d out of order", breaks)
		}
		if !increasing && breaks == 0 {
			t.Fatal("default positions: no outliers")
		}
		if len(sizes) < 5 {
			t.Fatalf("increasing=%v: only payload sizes %v", increasing, sizes)
		}
	}
}
