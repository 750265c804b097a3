package audit

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// Test helpers the checks' tests share, written against the engine's
// public API (partitionindex's own tests have their own).

// checkPartial takes the early-open view the golden case says Cassandra
// took at this point, requires it to be that one (root, count, cutoff and
// the sha256 of its tail, as partitionindex's golden test does) and
// returns it, or nil where Cassandra's request was refused.
func checkPartial(t *testing.T, b *partitionindex.Builder, want golden.Partial) *partitionindex.PartialIndex {
	t.Helper()
	got, err := b.BuildPartialSynced(0, 0)
	require.NoError(t, err)
	require.Equal(t, want.Accepted, got != nil, "after %d keys: accepted", want.AfterKeys)
	if got == nil {
		return nil
	}
	want.RequireView(t, got.Root, got.Count, got.Cutoff, got.Tail)
	return got
}

// buildModel builds the index of raws (deduplicated and sorted by the
// builder's order) on both builder paths, which must agree, with unique
// positions of every payload size and both signs; it returns the file and
// the number of entries.
func buildModel(t *testing.T, p partitioner.Partitioner, raws [][]byte, r *rand.Rand, pageSize int) ([]byte, int) {
	t.Helper()
	keys := keyset.Decorate(p, raws)
	file, err := keyset.BuildOnPaths(keys, keyset.UniquePositions(r, len(keys)), func(w io.Writer, path buildpath.Path) keyset.PathBuilder[partitionindex.Metadata] {
		return workload.NewPathBuilder(w, partitionindex.Options{Partitioner: p, PageSize: pageSize}, path)
	})
	require.NoError(t, err)
	return file, len(keys)
}

// earlyKeys returns n ByteOrdered keys "key00000", "key00001", ... in
// order.
func earlyKeys(n int) []partitioner.Key {
	keys := make([]partitioner.Key, n)
	for i := range keys {
		keys[i] = partitioner.ByteOrdered.Decorate(fmt.Appendf(nil, "key%05d", i))
	}
	return keys
}

// addRaw decorates raw with p and adds it: the builder takes decorated
// keys only.
func addRaw(b *partitionindex.Builder, p partitioner.Partitioner, raw []byte, pos int64) error {
	k := p.Decorate(raw)
	return b.Add(&k, pos)
}
