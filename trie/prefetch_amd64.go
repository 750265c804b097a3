package trie

// prefetchOffsets starts loading the cache lines holding b[o] for every o in
// offs (each in [0, len(b))) and returns 0.
//
//go:noescape
func prefetchOffsets(b []byte, offs []int64) byte
