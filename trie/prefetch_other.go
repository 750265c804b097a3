//go:build !amd64

package trie

// prefetch starts loading the cache line holding *p the only portable way,
// by reading it: the caller keeps the result, so the load stays. Unlike a
// prefetch instruction, the load holds up retirement until the line
// arrives, so fewer misses overlap.
func prefetch(p *byte) byte { return *p }

// prefetchOffsets reads b[o] for every o in offs, as prefetch reads its byte.
func prefetchOffsets(b []byte, offs []int64) byte {
	var t byte
	for _, o := range offs {
		t ^= b[o]
	}
	return t
}
