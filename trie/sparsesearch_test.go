package trie

import (
	"math/rand"
	"slices"
	"testing"
)

// searchIncreasing answers as searchSparse on strictly increasing
// transitions, and notIncreasing, only on the others (where the walks fall
// back to searchSparse): every count 0..32, every byte, increasing
// transitions (with both ends of the byte range among them), the same with
// one byte overwritten (unsorted or repeated) and random bytes, whatever
// lies past the transitions.
func TestSearchIncreasing(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for n := 0; n <= maxIncreasing; n++ {
		for round := range 60 {
			var buf [increasingSpan]byte
			for i := range buf {
				buf[i] = byte(r.Intn(256)) // what follows the transitions
			}
			tr := buf[:n]
			if round%3 != 2 {
				perm := r.Perm(256)[:n]
				if round%6 == 0 && n >= 2 {
					perm[0], perm[1] = 0, 255
				}
				for i, b := range perm {
					tr[i] = byte(b)
				}
				slices.Sort(tr)
				if round%3 == 1 && n >= 1 {
					tr[r.Intn(n)] = byte(r.Intn(256))
				}
			}
			increasing := true
			for i := 1; i < n; i++ {
				increasing = increasing && tr[i] > tr[i-1]
			}
			for b := range 256 {
				got := searchIncreasing(&buf, n, b)
				if got == notIncreasing {
					if increasing {
						t.Fatalf("transitions %x increase, byte %02x: notIncreasing", tr, b)
					}
					continue
				}
				if want := searchSparse(tr, b); got != want {
					t.Fatalf("transitions %x, byte %02x: searchIncreasing %d, searchSparse %d", tr, b, got, want)
				}
			}
		}
	}
}
