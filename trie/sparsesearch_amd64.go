package trie

// searchIncreasing is searchSparse(seg[2:2+n], b) for 0 <= n <= 32 and
// 0 <= b <= 255 when len(seg) >= 2+increasingSpan and seg[2:2+n] strictly
// increases, else notIncreasing; it reads the increasingSpan bytes from
// seg[2] (sparsesearch.go).
//
//go:noescape
func searchIncreasing(seg []byte, n, b int) int
