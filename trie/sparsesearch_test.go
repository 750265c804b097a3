package trie

import (
	"math/rand"
	"runtime"
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
			var seg [2 + increasingSpan]byte // a SPARSE node's header and count, then its transitions
			for i := range seg {
				seg[i] = byte(r.Intn(256)) // what follows the transitions
			}
			tr := seg[2 : 2+n]
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
				got := searchIncreasing(seg[:], n, b)
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

// searchIncreasing takes the tests its callers would otherwise make: it
// answers notIncreasing (amd64) or as searchSparse (elsewhere, where it is
// searchSparse) for more than 32 transitions, for eos, and for a segment
// shorter than the increasingSpan bytes it reads from seg[2]; the slice it
// is given is cut to that length, so a read past it would find the bytes
// this test leaves there and answer from them.
func TestSearchIncreasingOutOfRange(t *testing.T) {
	var buf [2 + 64]byte
	for i := range buf {
		buf[i] = byte(i) // strictly increasing everywhere
	}
	check := func(seg []byte, n, b int) {
		t.Helper()
		got, want := searchIncreasing(seg, n, b), searchSparse(seg[2:2+n], b)
		if got != notIncreasing && (runtime.GOARCH == "amd64" || got != want) {
			t.Fatalf("len(seg) %d, n %d, byte %d: %d, want notIncreasing (or %d off amd64)", len(seg), n, b, got, want)
		}
	}
	for n := 0; n <= maxIncreasing; n++ {
		for _, b := range []int{0, n / 2, n + 1, 255} {
			for l := 2 + n; l < 2+increasingSpan; l++ {
				check(buf[:l], n, b)
			}
		}
		check(buf[:2+increasingSpan], n, eos)
	}
	for n := maxIncreasing + 1; n <= 64; n++ {
		check(buf[:2+n], n, n/2)
	}
}
