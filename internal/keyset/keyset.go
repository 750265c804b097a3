// Package keyset turns arbitrary raw keys into what a builder accepts:
// decorated, in the partitioner's order, without duplicates. Tests and
// tools that make up their own keys use it, so the rule lives in one place
// (package keygen generates keys; keyset orders keys made elsewhere). It
// also holds what the model tests of partitionindex and the checks of audit
// share: the key shapes and cases they build (Shapes, ModelCases) and the
// build on both builder paths (BuildOnPaths).
package keyset

import (
	"bytes"
	"slices"

	"github.com/bti-go/bti/partitioner"
)

// Decorate decorates raws with p and returns them sorted by
// partitioner.Compare with duplicates dropped: the order
// partitionindex.Builder.Add requires. The keys reference raws.
func Decorate(p partitioner.Partitioner, raws [][]byte) []partitioner.Key {
	keys := make([]partitioner.Key, len(raws))
	for i, raw := range raws {
		keys[i] = p.Decorate(raw)
	}
	slices.SortFunc(keys, partitioner.Compare)
	return slices.CompactFunc(keys, func(a, b partitioner.Key) bool { return partitioner.Compare(a, b) == 0 })
}

// Raws returns the raw bytes of keys, in the same order.
func Raws(keys []partitioner.Key) [][]byte {
	raws := make([][]byte, len(keys))
	for i, k := range keys {
		raws[i] = k.Raw
	}
	return raws
}

// Bytes sorts raws in unsigned byte order in place and drops duplicates:
// the order trie.Writer.Add requires. It returns the shortened slice.
func Bytes(raws [][]byte) [][]byte {
	slices.SortFunc(raws, bytes.Compare)
	return slices.CompactFunc(raws, bytes.Equal)
}
