package trie

// prefetch starts loading the cache line holding *p (PREFETCHT0, see
// prefetch_amd64.s) and returns 0. It reads nothing and changes no value.
//
//go:noescape
func prefetch(p *byte) byte
