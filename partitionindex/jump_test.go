package partitionindex

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// An index of jumpMinBytes or more opens with the trie's jump table, and
// every lookup through it agrees with the model (and GetBatch with Get);
// a smaller one opens without.
func TestJumpTableIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("300,000 keys: skipped under -short")
	}
	r := rand.New(rand.NewPCG(5, 6))
	raws := make([][]byte, 300_000)
	for i := range raws {
		raws[i] = randomBytesN(r, 16, nil)
	}
	file, m := buildModel(t, partitioner.Murmur3, raws, r, 0)
	require.GreaterOrEqual(t, len(file), jumpMinBytes)
	ix, err := NewIndex(file, OpenOptions{Partitioner: partitioner.Murmur3})
	require.NoError(t, err)
	require.True(t, ix.Trie().JumpTable(), "a %d-byte index opens with a jump table", len(file))
	checkAgainstModel(t, partitioner.Murmur3, file, m, r)

	rd, err := ix.OpenReader()
	require.NoError(t, err)
	defer rd.Close()
	var probes []partitioner.Key
	for i, e := range m.sorted() {
		if i%97 == 0 {
			probes = append(probes, e.key, partitioner.Murmur3.Decorate(append(e.key.Raw[:len(e.key.Raw):len(e.key.Raw)], 1)))
		}
	}
	checkBatchAgainstGet(t, rd, probes)

	small, _ := buildModel(t, partitioner.Murmur3, raws[:1000], r, 0)
	ix, err = NewIndex(small, OpenOptions{Partitioner: partitioner.Murmur3})
	require.NoError(t, err)
	require.False(t, ix.Trie().JumpTable(), "a %d-byte index opens without", len(small))
}
