//go:build !unix

package trie

// willNeedPages does nothing where there is no madvise: ExactBatchCold is
// then ExactBatch without its prefetches.
type willNeedPages struct{}

func (p *willNeedPages) ask(f []byte, offs []int64) int { return 0 }
