//go:build !amd64

package trie

import "testing"

// TestTouchBelowInBounds: the slot steps call touchBelow with any position
// a jump entry holds; it reads only inside the file, at every position
// from 0 to past its end, and returns the bytes it read.
func TestTouchBelowInBounds(t *testing.T) {
	f := make([]byte, 300)
	for i := range f {
		f[i] = byte(i*7 + 1)
	}
	for c := int64(-1); c <= int64(len(f))+1; c++ {
		got := touchBelow(f, c)
		if c < 128 || c > int64(len(f)) {
			if got != 0 {
				t.Fatalf("touchBelow(f, %d) = %#x outside the file, want 0", c, got)
			}
			continue
		}
		if want := f[c-128] ^ f[c-64] ^ f[c-1]; got != want {
			t.Fatalf("touchBelow(f, %d) = %#x, want %#x", c, got, want)
		}
	}
}
