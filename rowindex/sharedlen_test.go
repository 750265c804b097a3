package rowindex

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
)

// TestSharedLen ties sharedLen, Add's inlined comparison, to
// bytecomparable.DiffPoint, which it mirrors: for pairs of every length up
// to 20 that differ at every position or not at all, it decides exactly
// those that differ in the first eight bytes of two keys of eight or
// more, and agrees with DiffPoint on them.
func TestSharedLen(t *testing.T) {
	fast, slow := 0, 0 // pairs sharedLen decided, pairs it left to DiffPoint
	rng := rand.New(rand.NewPCG(22, 8))
	for range 20000 {
		a := make([]byte, rng.IntN(21))
		for i := range a {
			a[i] = byte(rng.IntN(3)) // few values, so that long prefixes are shared
		}
		b := bytes.Clone(a[:rng.IntN(len(a)+1)])
		for len(b) < 20 && rng.IntN(3) > 0 {
			b = append(b, byte(rng.IntN(3)))
		}
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		want := bytecomparable.DiffPoint(a, b) - 1
		got, ok := sharedLen(a, b)
		if ok != (len(a) >= 8 && len(b) >= 8 && want < 8) || ok && got != want {
			t.Fatalf("sharedLen(%x, %x) = %d, %v; DiffPoint - 1 = %d", a, b, got, ok, want)
		}
		if ok {
			fast++
		} else {
			slow++
		}
	}
	if fast < 1000 || slow < 1000 {
		t.Fatalf("only %d pairs for the first-word case and %d for DiffPoint", fast, slow)
	}
}
