package trie

// prefetch starts loading the cache line holding *p (PREFETCHT0, see
// prefetch_amd64.s) and returns 0. It reads nothing and changes no value.
//
//go:noescape
func prefetch(p *byte) byte

// prefetchOffsets starts loading the cache lines holding b[o] for every o in
// offs (each in [0, len(b))) and returns 0.
//
//go:noescape
func prefetchOffsets(b []byte, offs []int64) byte
