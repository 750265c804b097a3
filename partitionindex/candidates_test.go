package partitionindex

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
)

// TestCeilingFloorRequireKeyAt: without a KeyAt, Ceiling and Floor cannot
// confirm their answer and say so, rather than returning an unconfirmed
// candidate as if it were the answer (which, for probes whose path reaches
// an entry on the wrong side, it is not).
func TestCeilingFloorRequireKeyAt(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	file, m := buildModel(t, partitioner.ByteOrdered, keyset.Shapes[4].Gen(r, 200), r, 0)
	_, rd := openIndexReader(t, file, partitioner.ByteOrdered)
	// A probe just above a member whose stored prefix it shares: the
	// entry on its path is smaller than the probe, not its ceiling.
	entries := m.sorted()
	k := partitioner.ByteOrdered.Decorate(append([]byte{}, append(entries[0].key.Raw, 0xFF, 0xFF)...))
	enc := k.AppendComparable(nil)
	for _, d := range lookupDirs {
		_, _, err := d.byKey(rd, &k, nil)
		require.ErrorIs(t, err, ErrNoKeyAt, d.name)
		_, _, err = d.byEncoded(rd, enc, nil)
		require.ErrorIs(t, err, ErrNoKeyAt, d.name+"Encoded")
	}
}

// TestCandidatesModel: the raw candidates, confirmed by hand with the
// model's keys, give the model's ceiling and floor; Beyond always lies
// strictly on the wanted side; and the confirmed calls agree.
func TestCandidatesModel(t *testing.T) {
	for _, p := range []partitioner.Partitioner{partitioner.ByteOrdered, partitioner.Murmur3, partitioner.Random} {
		for _, ks := range []keyset.Shape{keyset.Shapes[2], keyset.Shapes[4]} {
			t.Run(fmt.Sprintf("%v/%s", p, ks.Name), func(t *testing.T) {
				r := rand.New(rand.NewPCG(1, uint64(p)))
				file, m := buildModel(t, p, ks.Gen(r, 500), r, 64)
				_, rd := openIndexReader(t, file, p)
				byPos := map[int64]partitioner.Key{}
				for _, e := range m.sorted() {
					byPos[e.pos] = e.key
				}
				wrongSide := 0
				for _, k := range probeKeys(r, p, m.sorted(), 2000) {
					for _, d := range lookupDirs {
						dir, want := d.dir, m.nearest(k, d.dir)
						c, err := d.candidates(rd, &k)
						require.NoError(t, err)
						ce, err := d.candidatesEncoded(rd, k.AppendComparable(nil))
						require.NoError(t, err)
						require.Equal(t, c, ce, "encoded form")
						side := func(pos int64) int { return dir * partitioner.Compare(byPos[pos], k) }
						if c.HasBeyond {
							require.Positive(t, side(c.Beyond), "Beyond of %x dir %d is not strictly beyond the probe", k.Raw, dir)
						}
						var got *int64
						switch {
						case c.HasOnPath && side(c.OnPath) >= 0:
							got = &c.OnPath
						case c.HasOnPath:
							wrongSide++
							fallthrough
						case c.HasBeyond:
							if c.HasBeyond {
								got = &c.Beyond
							}
						}
						if want == nil {
							require.Nil(t, got, "probe %x dir %d", k.Raw, dir)
							continue
						}
						require.NotNil(t, got, "probe %x dir %d", k.Raw, dir)
						require.Equal(t, want.pos, *got, "probe %x dir %d", k.Raw, dir)
					}
				}
				// The probes include keys sharing members' prefixes, so some
				// on-path candidates lie on the wrong side: the reason a
				// confirmation is needed at all.
				require.Positive(t, wrongSide, "no probe met a wrong-side candidate")
			})
		}
	}
}

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
