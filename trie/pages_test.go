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

// The page-aware layout's promise, checked on every lookup path: the pages a
// lookup reads, counted as a set, agree with Stats' count of page changes
// (so no lookup returns to a page it left), and every page is read by some
// lookup.
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

			st, err := tr.Stats()
			require.NoError(t, err)
			// Two independent counts of the pages each lookup reads: the
			// distinct pages of PathPages (a set, so a path that returned
			// to a page it had left would count it once) against Stats,
			// whose depth-first walk counts page changes. And the union of
			// all paths must be every page up to the root's: the layout
			// leaves no page that no lookup reads.
			histogram := make([]int64, len(st.PagesPerPayload))
			pages, all := roaring.New(), roaring.New()
			var path []int64
			for _, k := range keys {
				path, err = tr.PathPages(path[:0], k)
				require.NoError(t, err)
				pages.Clear()
				for _, p := range path {
					pages.Add(uint32(p))
				}
				all.Or(pages)
				n := int(pages.GetCardinality())
				require.Less(t, n, len(histogram), "key %x reads more pages than Stats saw on any path", k)
				histogram[n]++
			}
			t.Logf("%d keys, %d bytes: distinct pages per lookup %v", len(keys), buf.Len(), histogram)
			require.Equal(t, st.PagesPerPayload, histogram)
			require.Equal(t, uint64(root/DefaultPageSize+1), all.GetCardinality(), "a page no lookup reads")
			require.Equal(t, int64(len(keys)), st.Payloads)
		})
	}
}
