package trie

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
)

// The page-aware layout's promise, checked on every lookup path: positions
// fall from the root down (children are written before parents), so a
// lookup never returns to a page it left, and the number of distinct pages
// it touches is the number of page changes on the path plus one.
func TestLookupPagesAreMonotone(t *testing.T) {
	for _, set := range []struct {
		name string
		keys func(r *rand.Rand) [][]byte
	}{
		{"random-16B", func(r *rand.Rand) [][]byte {
			ks := make([][]byte, 100_000)
			for i := range ks {
				ks[i] = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, r.Uint64()), r.Uint64())
			}
			return ks
		}},
		{"shared-5000B-prefix", func(r *rand.Rand) [][]byte {
			prefix := bytes.Repeat([]byte{0x42}, 5000)
			ks := make([][]byte, 400)
			for i := range ks {
				ks[i] = binary.BigEndian.AppendUint32(slices.Clone(prefix), r.Uint32())
			}
			return ks
		}},
	} {
		t.Run(set.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 5))
			keys := keyset.Bytes(set.keys(r))
			var buf bytes.Buffer
			w := NewWriter(&buf, Options{})
			payload := []byte{1, 2, 3}
			for _, k := range keys {
				require.NoError(t, w.Add(k, 10, payload))
			}
			root, err := w.Complete()
			require.NoError(t, err)
			tr, err := New(Source{File: buf.Bytes()}, root)
			require.NoError(t, err)

			histogram := map[uint64]int{}
			pages := roaring.New()
			for _, k := range keys {
				pages.Clear()
				require.NoError(t, tr.PathPages(k, pages))
				changes := pathPageChanges(t, tr, k)
				require.Equal(t, uint64(changes+1), pages.GetCardinality(),
					"a lookup re-entered a page it had left")
				histogram[pages.GetCardinality()]++
			}
			t.Logf("%d keys, %d bytes: distinct pages per lookup %v", len(keys), buf.Len(), histogram)
			st, err := tr.Stats()
			require.NoError(t, err)
			require.Equal(t, int64(len(keys)), st.Payloads)
		})
	}
}

// pathPageChanges walks key's lookup path and counts page changes, checking
// that positions strictly fall. (That no node straddles a page is checked
// for every node in roundtrip_test.go.)
func pathPageChanges(t *testing.T, tr *Trie, key []byte) int {
	var nv nodeView
	require.NoError(t, nv.load(&tr.src, tr.root))
	changes := 0
	for k := 0; ; k++ {
		i := nv.search(keyByte(key, k))
		if i < 0 {
			return changes
		}
		c := nv.child(i)
		require.Less(t, c, nv.pos, "children come before parents")
		if c/DefaultPageSize != nv.pos/DefaultPageSize {
			changes++
		}
		require.NoError(t, nv.load(&tr.src, c))
	}
}
