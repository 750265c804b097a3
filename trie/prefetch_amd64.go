package trie

// prefetchOffsets starts loading the cache lines holding b[o] for every o in
// offs (each in [0, len(b))) and returns 0.
//
//go:noescape
func prefetchOffsets(b []byte, offs []int64) byte

// prefetchBelow starts loading the cache lines holding b[c-128], b[c-64]
// and b[c-1] (the caller keeps 128 <= c <= len(b)) and returns 0.
//
//go:noescape
func prefetchBelow(b []byte, c int64) byte
