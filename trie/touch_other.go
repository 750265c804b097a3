//go:build !amd64

package trie

// touchAround reads the bytes 128 and 64 below position c and 32 above it,
// when they lie in f, and returns them: the lines amd64's touchAround
// prefetches (see there), read the only portable way. Unlike a prefetch, a
// load holds up the end of a walk until its line arrives, so here a miss
// waits for the lines of leaves it does not read; a hit gains as there. It
// reads only bytes, so it cannot change an answer.
func touchAround(f []byte, c int64) byte {
	if c >= 128 && c < int64(len(f))-32 {
		return f[c-128] ^ f[c-64] ^ f[c+32]
	}
	return 0
}
