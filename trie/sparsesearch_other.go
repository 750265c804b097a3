//go:build !amd64

package trie

// searchIncreasing is searchSparse(t[:n], b) for 0 <= n <= 32 and
// 0 <= b <= 255 (sparsesearch.go): without a vector search it is the
// binary search itself, which answers as the amd64 version where that one
// answers, and as the fallback to it where that one does not.
func searchIncreasing(t *[33]byte, n, b int) int { return searchSparse(t[:n], b) }
