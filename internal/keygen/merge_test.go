package keygen

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// referenceMerge is the allocating merge Keys used before it merged in
// place: the oracle for mergeUnique.
func referenceMerge(keys, batch []partitioner.Key) []partitioner.Key {
	out := []partitioner.Key{}
	add := func(k partitioner.Key) {
		if len(out) == 0 || partitioner.Compare(out[len(out)-1], k) != 0 {
			out = append(out, k)
		}
	}
	i, j := 0, 0
	for i < len(keys) && j < len(batch) {
		if partitioner.Compare(keys[i], batch[j]) <= 0 {
			add(keys[i])
			i++
		} else {
			add(batch[j])
			j++
		}
	}
	for _, k := range keys[i:] {
		add(k)
	}
	for _, k := range batch[j:] {
		add(k)
	}
	return out
}

// TestMergeUniqueInPlace checks the in-place merge against the reference
// on small random sets full of duplicates (one-byte ByteOrdered keys), in
// both shapes Keys uses: the first round (batch is keys' own memory) and a
// later one (a separate batch, keys with room for it).
func TestMergeUniqueInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() partitioner.Key {
		return partitioner.ByteOrdered.Decorate([]byte{byte(rng.IntN(40))})
	}
	for range 2000 {
		n := rng.IntN(30)
		keys := make([]partitioner.Key, 0, n+rng.IntN(30))
		// First round.
		first := keys[:0]
		for range n {
			first = append(first, key())
		}
		slices.SortFunc(first, partitioner.Compare)
		want := referenceMerge(nil, slices.Clone(first))
		keys = mergeUnique(keys, first)
		require.Equal(t, want, keys)
		// A later round into the remaining capacity.
		batch := make([]partitioner.Key, rng.IntN(cap(keys)-len(keys)+1))
		for i := range batch {
			batch[i] = key()
		}
		slices.SortFunc(batch, partitioner.Compare)
		want = referenceMerge(slices.Clone(keys), batch)
		keys = mergeUnique(keys, batch)
		require.Equal(t, want, keys)
	}
}
