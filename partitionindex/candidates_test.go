package partitionindex

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

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
	for name, call := range map[string]func() error{
		"Ceiling":        func() error { _, _, err := rd.Ceiling(&k, nil); return err },
		"Floor":          func() error { _, _, err := rd.Floor(&k, nil); return err },
		"CeilingEncoded": func() error { _, _, err := rd.CeilingEncoded(enc, nil); return err },
		"FloorEncoded":   func() error { _, _, err := rd.FloorEncoded(enc, nil); return err },
	} {
		require.ErrorIs(t, call(), ErrNoKeyAt, name)
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
					for _, dir := range []int{+1, -1} {
						var c, ce Candidates
						var err error
						want := m.ceiling(k)
						if dir < 0 {
							want = m.floor(k)
							c, err = rd.FloorCandidates(&k)
							require.NoError(t, err)
							ce, err = rd.FloorCandidatesEncoded(k.AppendComparable(nil))
						} else {
							c, err = rd.CeilingCandidates(&k)
							require.NoError(t, err)
							ce, err = rd.CeilingCandidatesEncoded(k.AppendComparable(nil))
						}
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
