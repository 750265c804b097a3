package partitionindex

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
)

// Range reads by token: the bounds of a Murmur3 token (sorting before or
// after every key of that token) as ceiling, floor and scan positions,
// checked against the model.
func TestTokenBoundLookups(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	var raws [][]byte
	for range 5000 {
		raws = append(raws, randomBytes(r, 1, 12, nil))
	}
	file, m := buildModel(t, partitioner.Murmur3, raws, r, 0)
	_, rd := openIndexReader(t, file, partitioner.Murmur3)
	entries := m.sorted()

	// Tokens to probe: those of entries (bounds touching a key) and random.
	var tokens []int64
	for range 300 {
		tokens = append(tokens, entries[r.IntN(len(entries))].key.Token, int64(r.Uint64()))
	}
	var lo, hi []byte
	for _, tok := range tokens {
		lo = bytecomparable.AppendLongTokenBound(lo[:0], tok, false)
		hi = bytecomparable.AppendLongTokenBound(hi[:0], tok, true)
		// The first entry with token >= tok, the last with token <= tok.
		first := sort.Search(len(entries), func(i int) bool { return entries[i].key.Token >= tok })
		last := sort.Search(len(entries), func(i int) bool { return entries[i].key.Token > tok }) - 1
		if first == len(entries) {
			first = -1
		}
		pos, ok, err := rd.CeilingEncoded(lo, m.keyAt)
		require.NoError(t, err)
		require.Equal(t, first >= 0, ok, "ceiling of min bound %d", tok)
		if first >= 0 {
			require.Equal(t, entries[first].pos, pos, "ceiling of min bound %d", tok)
		}
		pos, ok, err = rd.FloorEncoded(hi, m.keyAt)
		require.NoError(t, err)
		require.Equal(t, last >= 0, ok, "floor of max bound %d", tok)
		if last >= 0 {
			require.Equal(t, entries[last].pos, pos, "floor of max bound %d", tok)
		}
	}

	// A scan between two token bounds yields every key in the range, plus
	// at most one candidate just outside at each end (entries are prefixes;
	// callers check the real keys at both ends, as Cassandra does).
	for range 100 {
		t1, t2 := int64(r.Uint64()), int64(r.Uint64())
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		lo = bytecomparable.AppendLongTokenBound(lo[:0], t1, false)
		hi = bytecomparable.AppendLongTokenBound(hi[:0], t2, true)
		var got []int64
		it := rd.ScanEncoded(lo, hi)
		for it.Next() {
			got = append(got, it.Pos())
		}
		require.NoError(t, it.Err())
		var want []int64
		for _, e := range entries {
			if e.key.Token >= t1 && e.key.Token <= t2 {
				want = append(want, e.pos)
			}
		}
		returned := map[int64]bool{}
		for _, p := range got {
			returned[p] = true
		}
		for _, p := range want {
			require.True(t, returned[p], "scan [%d, %d] misses the key at %d", t1, t2, p)
		}
		require.LessOrEqual(t, len(got), len(want)+2, "scan [%d, %d] returns more than one extra candidate per end", t1, t2)
	}
}
