//go:build !unix

package trie

// willNeed does nothing where there is no madvise: ExactBatchCold is then
// ExactBatch without its prefetches.
func willNeed(f []byte, offs []int64) {}
