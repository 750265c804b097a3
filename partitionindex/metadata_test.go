package partitionindex

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// TestCompleteMetadata: what Complete reports is what the file says. The
// footer is decoded here by hand (not through NewIndex), the size is the
// sink's byte count and the page count is recomputed from it.
func TestCompleteMetadata(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 6))
	var many [][]byte
	for range 3000 {
		many = append(many, randomBytes(r, 1, 24, nil))
	}
	cases := []struct {
		name     string
		part     partitioner.Partitioner
		raws     [][]byte
		pageSize int
	}{
		{"empty", partitioner.Murmur3, nil, 0},
		{"one", partitioner.Murmur3, [][]byte{[]byte("only")}, 0},
		{"murmur3-3000", partitioner.Murmur3, many, 0},
		{"byteordered-3000-page64", partitioner.ByteOrdered, many, 64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			buf.WriteString("earlier bytes") // the builder's file starts where the sink is
			start := buf.Len()
			b := NewBuilder(&buf, Options{Partitioner: c.part, PageSize: c.pageSize})
			keys := keyset.Decorate(c.part, c.raws)
			for i, k := range keys {
				require.NoError(t, b.Add(&k, DataPosition(int64(i))))
			}
			m, err := b.Complete()
			require.NoError(t, err)
			file := buf.Bytes()[start:]

			footer := file[len(file)-footerLength:]
			wantPage := int64(c.pageSize)
			if wantPage == 0 {
				wantPage = 4096
			}
			require.Equal(t, Metadata{
				Keys:        int64(len(keys)),
				Size:        int64(len(file)),
				Root:        int64(binary.BigEndian.Uint64(footer[16:])),
				FirstKeyPos: int64(binary.BigEndian.Uint64(footer[0:])),
				PageSize:    wantPage,
				Pages:       (int64(len(file)) + wantPage - 1) / wantPage,
			}, m)
			require.Equal(t, int64(len(keys)), int64(binary.BigEndian.Uint64(footer[8:])))

			again, err := b.Complete()
			require.NoError(t, err)
			require.Equal(t, m, again, "a second Complete reports the same")
		})
	}
}

// TestNodeCounts: Index.NodeCounts agrees with a walk written here over
// trie.Trie.Node (a different decoder of the same nodes), every key has
// exactly one payload-carrying node, and String names the types.
func TestNodeCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	var raws [][]byte
	for range 2000 {
		raws = append(raws, randomBytes(r, 1, 12, []byte{0, 1, 'a', 'b', 0xff}))
	}
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		t.Run(p.String(), func(t *testing.T) {
			keys := keyset.Decorate(p, raws)
			var buf bytes.Buffer
			b := NewBuilder(&buf, Options{Partitioner: p})
			for i, k := range keys {
				require.NoError(t, b.Add(&k, RowIndexPosition(int64(i))))
			}
			_, err := b.Complete()
			require.NoError(t, err)
			ix, err := NewIndex(buf.Bytes(), OpenOptions{Partitioner: p})
			require.NoError(t, err)
			defer ix.Close()

			got, err := ix.NodeCounts()
			require.NoError(t, err)
			byName, payloads := walkNodeTypes(t, ix.Trie())
			var total int64
			for code, n := range got {
				name := trie.NodeTypeName(byte(code << 4))
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
// the nodes with a payload, breadth first through Trie.Node.
func walkNodeTypes(t *testing.T, tr *trie.Trie) (map[string]int64, int64) {
	t.Helper()
	byName := map[string]int64{}
	var payloads int64
	var info trie.NodeInfo
	queue := []int64{tr.Root()}
	for len(queue) > 0 {
		pos := queue[0]
		queue = queue[1:]
		require.NoError(t, tr.Node(pos, &info))
		byName[info.Type]++
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
	b := NewBuilder(&buf, Options{Partitioner: partitioner.ByteOrdered})
	for i, k := range []string{"a", "z"} {
		dk := partitioner.ByteOrdered.Decorate([]byte(k))
		require.NoError(t, b.Add(&dk, int64(i)))
	}
	m, err := b.Complete()
	require.NoError(t, err)
	data := bytes.Clone(buf.Bytes())
	ix, err := NewIndex(data, OpenOptions{Partitioner: partitioner.ByteOrdered})
	require.NoError(t, err)
	defer ix.Close()
	_, err = ix.NodeCounts()
	require.NoError(t, err)
	// The root is a SPARSE_8 over "a" and "z" (ByteOrdered keys share the
	// token's leading bytes, so find it): break its first child distance.
	var info trie.NodeInfo
	require.NoError(t, ix.Trie().Node(m.Root, &info))
	for len(info.Children) == 1 {
		require.NoError(t, ix.Trie().Node(info.Children[0].Pos, &info))
	}
	require.Equal(t, "SPARSE_8", info.Type)
	data[info.Pos+2+int64(len(info.Children))] = 0xff // first distance: far before the file
	_, err = ix.NodeCounts()
	require.ErrorIs(t, err, ErrCorrupt)
}
