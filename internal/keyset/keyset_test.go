package keyset

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

func TestDecorate(t *testing.T) {
	raws := [][]byte{[]byte("c"), []byte("a"), []byte("b"), []byte("a"), []byte("c")}
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		keys := Decorate(p, raws)
		require.Len(t, keys, 3, "%v", p)
		for i := 1; i < len(keys); i++ {
			require.Negative(t, partitioner.Compare(keys[i-1], keys[i]), "%v: keys %d and %d", p, i-1, i)
		}
		require.ElementsMatch(t, [][]byte{[]byte("a"), []byte("b"), []byte("c")}, Raws(keys))
	}
	require.Equal(t, [][]byte{[]byte("a"), []byte("b"), []byte("c")}, Raws(Decorate(partitioner.ByteOrdered, raws)))
}

func TestBytes(t *testing.T) {
	got := Bytes([][]byte{{2}, {1, 0}, {1}, {2}, {}, {1}})
	require.Equal(t, [][]byte{{}, {1}, {1, 0}, {2}}, got)
}

func TestUniquePositions(t *testing.T) {
	pos := UniquePositions(rand.New(rand.NewPCG(1, 2)), 5000)
	seen := map[int64]bool{}
	var negative, wide int
	for _, v := range pos {
		if seen[v] {
			t.Fatalf("position %d twice", v)
		}
		seen[v] = true
		if v < 0 {
			negative++
		}
		if v > 1<<32 || v < -1<<32 {
			wide++
		}
	}
	if len(pos) != 5000 || negative == 0 || negative == len(pos) || wide == 0 {
		t.Errorf("%d positions, %d negative, %d beyond 32 bits", len(pos), negative, wide)
	}
}
