//go:build !amd64

package trie

// prefetchOffsets starts loading the cache lines holding b[o] for every o in
// offs the only portable way, by reading them: the caller keeps the result,
// so the loads stay. Unlike a prefetch instruction, a load holds up
// retirement until its line arrives, so fewer misses overlap.
func prefetchOffsets(b []byte, offs []int64) byte {
	var t byte
	for _, o := range offs {
		t ^= b[o]
	}
	return t
}
