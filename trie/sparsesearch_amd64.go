package trie

// searchIncreasing is searchSparse(t[:n], b) for 0 <= n <= 32 and
// 0 <= b <= 255 when t[:n] strictly increases, else notIncreasing; it
// reads all 33 bytes of t (sparsesearch.go).
//
//go:noescape
func searchIncreasing(t *[33]byte, n, b int) int
