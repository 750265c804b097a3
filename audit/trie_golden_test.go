package audit

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// DumpTrie, CountTrie, CountNodes and TriePathPages on tries Cassandra wrote
// and on the writer's own output, against independent walks over
// trie.Trie.Shape.

// goldenTrie opens the trie of a Partitions.db image: everything before
// firstKeyPos, the root from the footer's last 8 bytes.
func goldenTrie(t *testing.T, data []byte) (tr *trie.Trie, fkp, count int64) {
	t.Helper()
	require.GreaterOrEqual(t, len(data), 24)
	footer := data[len(data)-24:]
	fkp = int64(binary.BigEndian.Uint64(footer))
	count = int64(binary.BigEndian.Uint64(footer[8:]))
	require.LessOrEqual(t, fkp, int64(len(data)-24))
	return newTrie(t, data[:fkp], int64(binary.BigEndian.Uint64(footer[16:]))), fkp, count
}

// storedKeys lists the paths to the payload nodes below pos, in order: a
// recursive walk, independent of trieWalk.
func storedKeys(t *testing.T, tr *trie.Trie, pos int64, path []byte, out [][]byte) [][]byte {
	var s trie.Shape
	require.NoError(t, tr.Shape(pos, &s))
	require.Zero(t, s.BadPointers)
	if s.Flags != 0 {
		out = append(out, bytes.Clone(path))
	}
	for _, c := range s.Children {
		out = storedKeys(t, tr, c.Pos, append(path, c.Transition), out)
	}
	return out
}

func TestTrieToolsGolden(t *testing.T) {
	golden.ForEach(t, func(t *testing.T, c golden.Case) {
		data := c.PartitionsDB(t)
		tr, fkp, count := goldenTrie(t, data)

		st, err := CountTrie(tr)
		require.NoError(t, err)
		assert.Equal(t, count, st.Payloads)
		var hist int64
		for _, c := range st.PagesPerPayload {
			hist += c
		}
		assert.Equal(t, count, hist)

		// Page-aware layout: a lookup's path runs from the root's page to
		// the entry's.
		keys := storedKeys(t, tr, tr.Root(), nil, nil)
		w := tr.Walker()
		if len(keys) > 0 {
			k := keys[len(keys)/2]
			path, err := TriePathPages(nil, tr, k)
			require.NoError(t, err)
			n, ok, err := w.Exact(k)
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, tr.Root()/trie.DefaultPageSize, path[0], "root page")
			assert.Equal(t, n/trie.DefaultPageSize, path[len(path)-1], "entry page")
			// Every page Cassandra wrote is on some entry's path: the
			// union of all paths is every page up to the root's.
			all := roaring.New()
			for _, key := range keys {
				if path, err = TriePathPages(path[:0], tr, key); err != nil {
					t.Fatal(err)
				}
				for _, p := range path {
					all.Add(uint32(p))
				}
			}
			assert.Equal(t, uint64(tr.Root()/trie.DefaultPageSize+1), all.GetCardinality(), "a page no lookup reads")
		}
		var buf bytes.Buffer
		require.NoError(t, DumpTrie(&buf, tr))
		assert.Equal(t, st.Nodes, int64(bytes.Count(buf.Bytes(), []byte{'\n'})))

		// Flipped bytes and cuts: the walks return, with corruption errors
		// only (the fuzz target FuzzTrieTools goes further).
		r := rand.New(rand.NewPCG(uint64(len(data)), 1))
		clean := data[:fkp]
		damaged := make([]byte, len(clean))
		for range 60 {
			copy(damaged, clean)
			for range 1 + r.IntN(4) {
				damaged[r.IntN(len(damaged))] = byte(r.IntN(256))
			}
			runTrieTools(t, trie.Source{File: damaged}, tr.Root(), keys[r.IntN(max(len(keys), 1)):])
		}
		for _, cut := range []int64{0, 1, fkp / 2, fkp - 1, tr.Root(), tr.Root() + 1} {
			if cut >= 0 && cut <= fkp {
				runTrieTools(t, trie.Source{File: clean[:cut]}, tr.Root(), keys)
			}
		}
	})
}

// TestTriePathPagesMatchCountTrie: the distinct pages of each lookup's
// TriePathPages against CountTrie's histogram, whose depth-first walk counts
// page changes: since children precede parents a path's pages only fall, so
// this checks the two walks against each other, not the layout. The union of
// all paths must be every page up to the root's: the writer leaves no page
// that no lookup reads. The key shapes span many pages: 100,000 random keys,
// and 400 keys behind a 5,000-byte shared prefix.
func TestTriePathPagesMatchCountTrie(t *testing.T) {
	for _, set := range []struct {
		shape keyset.Shape
		n     int
	}{{keyset.Shapes[0], 100_000}, {keyset.Shapes[3], 400}} {
		t.Run(set.shape.Name, func(t *testing.T) {
			keys := keyset.Bytes(set.shape.Gen(rand.New(rand.NewPCG(5, 5)), set.n))
			tr := writeTrie(t, keys, func(int) []byte { return []byte{1, 2, 3} })

			st, err := CountTrie(tr)
			require.NoError(t, err)
			histogram := make([]int64, len(st.PagesPerPayload))
			pages, all := roaring.New(), roaring.New()
			var path []int64
			for _, k := range keys {
				path, err = TriePathPages(path[:0], tr, k)
				require.NoError(t, err)
				pages.Clear()
				for _, p := range path {
					pages.Add(uint32(p))
				}
				all.Or(pages)
				n := int(pages.GetCardinality())
				require.Less(t, n, len(histogram), "key %x reads more pages than CountTrie saw on any path", k)
				histogram[n]++
			}
			t.Logf("%d keys: distinct pages per lookup %v", len(keys), histogram)
			require.Equal(t, st.PagesPerPayload, histogram)
			require.Equal(t, uint64(tr.Root()/trie.DefaultPageSize+1), all.GetCardinality(), "a page no lookup reads")
			require.Equal(t, int64(len(keys)), st.Payloads)
		})
	}
}

// writeTrie writes keys (sorted, unique) with trie.Writer, the i-th with
// payload(i) and flags 8, and opens the result.
func writeTrie(t testing.TB, keys [][]byte, payload func(i int) []byte) *trie.Trie {
	t.Helper()
	var out bytes.Buffer
	w := trie.NewWriter(&out, trie.Options{})
	for i, k := range keys {
		require.NoError(t, w.Add(k, 8, payload(i)))
	}
	root, err := w.Complete()
	require.NoError(t, err)
	return newTrie(t, out.Bytes(), root)
}

// TestCountTrieByType checks CountTrie's counts against a plain walk on a
// trie whose keys branch in every way and whose occasional large payloads
// push child pointers to 16 and 24 bits.
func TestCountTrieByType(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	alphabet := []byte{1, 2, 3, 5, 8, 13, 21, 200}
	raws := make([][]byte, 400)
	for i := range raws {
		k := make([]byte, 1+r.IntN(5))
		for j := range k {
			k[j] = alphabet[r.IntN(len(alphabet))]
		}
		raws[i] = k
	}
	keys := keyset.Bytes(raws)
	tr := writeTrie(t, keys, func(int) []byte {
		if r.IntN(20) == 0 {
			return make([]byte, 1+r.IntN(70000))
		}
		return []byte{1}
	})
	st, err := CountTrie(tr)
	require.NoError(t, err)
	assert.Equal(t, int64(len(keys)), st.Payloads)
	want := plainCount(t, tr)
	assert.Equal(t, want.nodes, st.Nodes)
	assert.Equal(t, want.byType, st.ByType)
	assert.Equal(t, want.maxDepth, st.MaxDepth)
	used := 0
	for _, c := range st.ByType {
		if c > 0 {
			used++
		}
	}
	t.Logf("node types: %v", st.ByType)
	assert.Greater(t, used, 8, "the keys and payloads should bring out most node types")
}

// nodeTally is what plainCount counts.
type nodeTally struct {
	byType          NodeCounts
	nodes, payloads int64 // all nodes, and those with a payload
	maxDepth        int
}

// plainCount counts the nodes reachable from tr's root with a stack of its
// own over shapeOf (Trie.Shape, a bad pointer an error), independent of the
// walk CountTrie and CountNodes share.
func plainCount(t *testing.T, tr *trie.Trie) nodeTally {
	t.Helper()
	var n nodeTally
	type frame struct {
		pos   int64
		depth int
	}
	stack := []frame{{tr.Root(), 0}}
	var s trie.Shape
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		require.NoError(t, shapeOf(tr, f.pos, &s))
		n.nodes++
		n.byType[s.Type]++
		if s.Flags != 0 {
			n.payloads++
		}
		n.maxDepth = max(n.maxDepth, f.depth)
		for _, c := range s.Children {
			stack = append(stack, frame{c.Pos, f.depth + 1})
		}
	}
	return n
}

// TestNodeCounts: CountNodes agrees with plainCount on a partition index
// under both partitioners, and every key has exactly one payload-carrying
// node.
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
			want := plainCount(t, ix.Trie())
			require.Equal(t, want.byType, got)
			require.Equal(t, want.nodes, got.Total())
			require.Equal(t, int64(len(keys)), want.payloads, "one payload node per key")
			require.Contains(t, got.String(), "PAYLOAD_ONLY=")
		})
	}
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
