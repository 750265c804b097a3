//go:build !amd64

package trie

// searchIncreasing is searchSparse(seg[2:2+n], b) for a SPARSE node of n
// children whose fixed part lies in seg (sparsesearch.go): without a vector
// search it is the binary search itself, which answers as the amd64 version
// where that one answers, and as the fallback to it where that one does not.
func searchIncreasing(seg []byte, n, b int) int { return searchSparse(seg[2:2+n], b) }
