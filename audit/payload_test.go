package audit

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// TestNodeCounts: CountNodes agrees with a walk written here over
// trie.Trie.Node (a different decoder of the same nodes), every key has
// exactly one payload-carrying node, and String names the types.
func TestNodeCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	var raws [][]byte
	for range 2000 {
		raws = append(raws, keyset.RandomBytes(r, 1, 12, []byte{0, 1, 'a', 'b', 0xff}))
	}
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		t.Run(p.String(), func(t *testing.T) {
			keys := keyset.Decorate(p, raws)
			var buf bytes.Buffer
			b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: p})
			for i, k := range keys {
				require.NoError(t, b.Add(&k, partitionindex.RowIndexPosition(int64(i))))
			}
			_, err := b.Complete()
			require.NoError(t, err)
			ix, err := partitionindex.NewIndex(buf.Bytes(), partitionindex.OpenOptions{Partitioner: p})
			require.NoError(t, err)
			defer ix.Close()

			got, err := CountNodes(ix)
			require.NoError(t, err)
			byName, payloads := walkNodeTypes(t, ix.Trie())
			var total int64
			for code, n := range got {
				name := trie.TypeName(uint8(code))
				require.Equal(t, byName[name], n, "%s nodes", name)
				total += byName[name]
			}
			require.Equal(t, total, got.Total())
			require.Equal(t, int64(len(keys)), payloads, "one payload node per key")
			require.Contains(t, got.String(), "PAYLOAD_ONLY=")
		})
	}
}

// walkNodeTypes counts the nodes reachable from the root by type name, and
// the nodes with a payload, breadth first through shapeOf (Trie.Shape, a bad pointer an error).
func walkNodeTypes(t *testing.T, tr *trie.Trie) (map[string]int64, int64) {
	t.Helper()
	byName := map[string]int64{}
	var payloads int64
	var info trie.Shape
	queue := []int64{tr.Root()}
	for len(queue) > 0 {
		pos := queue[0]
		queue = queue[1:]
		require.NoError(t, shapeOf(tr, pos, &info))
		byName[trie.TypeName(info.Type)]++
		if info.Flags != 0 {
			payloads++
		}
		for _, c := range info.Children {
			queue = append(queue, c.Pos)
		}
	}
	return byName, payloads
}

func TestNodeCountsString(t *testing.T) {
	var c NodeCounts
	require.Equal(t, "", c.String())
	c[0], c[5], c[15] = 3, 1, 2
	require.Equal(t, "PAYLOAD_ONLY=3 SPARSE_8=1 LONG_DENSE=2", c.String())
	require.Equal(t, int64(6), c.Total())
}

// TestNodeCountsCorrupt: a node pointing outside the file is reported as
// corruption, not followed.
func TestNodeCountsCorrupt(t *testing.T) {
	var buf bytes.Buffer
	b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: partitioner.ByteOrdered})
	for i, k := range []string{"a", "z"} {
		dk := partitioner.ByteOrdered.Decorate([]byte(k))
		require.NoError(t, b.Add(&dk, int64(i)))
	}
	m, err := b.Complete()
	require.NoError(t, err)
	data := bytes.Clone(buf.Bytes())
	ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
	require.NoError(t, err)
	defer ix.Close()
	_, err = CountNodes(ix)
	require.NoError(t, err)
	// The root is a SPARSE_8 over "a" and "z" (ByteOrdered keys share the
	// token's leading bytes, so find it): break its first child distance.
	var info trie.Shape
	require.NoError(t, shapeOf(ix.Trie(), m.Root, &info))
	for len(info.Children) == 1 {
		require.NoError(t, shapeOf(ix.Trie(), info.Children[0].Pos, &info))
	}
	require.Equal(t, "SPARSE_8", trie.TypeName(info.Type))
	data[info.Pos+2+int64(len(info.Children))] = 0xff // first distance: far before the file
	_, err = CountNodes(ix)
	require.ErrorIs(t, err, partitionindex.ErrCorrupt)
}
