package trie

import (
	"math"
	"runtime"
	"testing"
)

// TestTouchAround: the walks call touchAround with any position a jump
// entry or a DENSE pointer yields, damaged files included. It reads (or,
// on amd64, prefetches) only inside the file: at every position from
// before its start to past its end, and at the extremes, it returns 0 or
// the bytes it read (a read outside would panic) and its arithmetic does
// not wrap.
func TestTouchAround(t *testing.T) {
	prefetches := runtime.GOARCH == "amd64" // touch_amd64.s returns 0; touch_other.go the bytes
	f := make([]byte, 300)
	for i := range f {
		f[i] = byte(i*7 + 1)
	}
	check := func(c int64) {
		got := touchAround(f, c)
		if c < 128 || c >= int64(len(f))-32 || prefetches {
			if got != 0 {
				t.Fatalf("touchAround(f, %d) = %#x, want 0", c, got)
			}
			return
		}
		if want := f[c-128] ^ f[c-64] ^ f[c+32]; got != want {
			t.Fatalf("touchAround(f, %d) = %#x, want %#x", c, got, want)
		}
	}
	for c := int64(-1); c <= int64(len(f))+1; c++ {
		check(c)
	}
	for _, c := range []int64{math.MinInt64, math.MinInt64 + 128, -128, math.MaxInt64 - 32, math.MaxInt64} {
		check(c)
	}
}
