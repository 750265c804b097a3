package keygen

import (
	"testing"

	"github.com/bti-go/bti/partitioner"
)

// With PositionsIncreasing, both position streams strictly increase in key
// order (what audit.PositionsIncreasing checks); the default has
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

// TestPositionStreamMatchesPositions: the stream gives Positions' values,
// with and without outliers, for the sizes where frac's special cases
// (n = 0, 1) and ordinary ones lie.
func TestPositionStreamMatchesPositions(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000} {
		for _, increasing := range []bool{false, true} {
			c := Config{Seed: 5, PositionsIncreasing: increasing}
			want := c.Positions(n)
			ps := c.PositionStream(n)
			for i, w := range want {
				if got := ps.Next(); got != w {
					t.Fatalf("n=%d increasing=%v: position %d is %d, Positions says %d", n, increasing, i, got, w)
				}
			}
		}
	}
}
