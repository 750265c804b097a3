package partitionindex

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
)

// Go counterparts of the scenarios in Cassandra's PartitionIndexTest that
// the model test (sizing at 1, 10, 100..., random and sequential keys, full
// and constrained iteration) does not already cover.

// buildRaw builds raw keys (already in p's order) with positions 0, 1, 2...
func buildRaw(t *testing.T, p partitioner.Partitioner, raws [][]byte, opts Options) []byte {
	t.Helper()
	keys := make([]partitioner.Key, len(raws))
	for i, raw := range raws {
		keys[i] = p.Decorate(raw)
	}
	opts.Partitioner = p
	return buildKeys(t, keys, opts)
}

// buildKeys builds keys (already in order) with positions 0, 1, 2...
func buildKeys(t *testing.T, keys []partitioner.Key, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	b := NewBuilder(&buf, opts)
	for i := range keys {
		require.NoError(t, b.Add(&keys[i], int64(i)), "key %d", i)
	}
	_, err := b.Complete()
	require.NoError(t, err)
	return buf.Bytes()
}

// openIndexReader opens file as an index under p and a Reader on it; the
// Reader is closed when the test ends.
func openIndexReader(t *testing.T, file []byte, p partitioner.Partitioner) (*Index, *Reader) {
	t.Helper()
	ix, err := NewIndex(file, OpenOptions{Partitioner: p})
	require.NoError(t, err)
	rd, err := ix.OpenReader()
	require.NoError(t, err)
	t.Cleanup(func() { _ = rd.Close() })
	return ix, rd
}

func requireAllFound(t *testing.T, p partitioner.Partitioner, file []byte, raws [][]byte) {
	t.Helper()
	ix, r := openIndexReader(t, file, p)
	require.Equal(t, int64(len(raws)), ix.Count())
	for i, raw := range raws {
		dk := p.Decorate(raw)
		pos, ok, err := r.Get(&dk)
		require.NoError(t, err)
		require.True(t, ok, "key %d", i)
		require.Equal(t, int64(i), pos, "key %d", i)
	}
	n := 0
	for it := r.Scan(nil, nil); it.Next(); n++ {
		require.Equal(t, int64(n), it.Pos())
	}
	require.Equal(t, len(raws), n)
}

// testLongKeys: keys of 2,000 to 10,000 characters.
func TestScenarioLongKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var raws [][]byte
	for i := range 300 {
		n := 2000 + r.IntN(8001)
		raws = append(raws, []byte(fmt.Sprintf("%06d", i)+strings.Repeat("x", n)))
	}
	file := buildRaw(t, partitioner.ByteOrdered, raws, Options{})
	requireAllFound(t, partitioner.ByteOrdered, file, raws)
}

// testAddEmptyKey: the empty partition key, first in every partitioner.
func TestScenarioEmptyKey(t *testing.T) {
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		t.Run(p.String(), func(t *testing.T) {
			raws := [][]byte{{}}
			file := buildRaw(t, p, raws, Options{})
			requireAllFound(t, p, file, raws)
			// And as the first of several keys.
			raws = keyset.Raws(keyset.Decorate(p, [][]byte{{}, []byte("a"), []byte("b")}))
			file = buildRaw(t, p, raws, Options{})
			requireAllFound(t, p, file, raws)
		})
	}
}

// testDeepRecursion: a handful of ByteOrdered keys sharing a ~15,000-byte
// prefix, so the trie is a chain deeper than a page (and, encoded twice,
// 30,000 nodes deep), with partial views taken along the way.
func TestScenarioDeepRecursion(t *testing.T) {
	prefix := strings.Repeat("0123456789abcdef", 15000/16)
	var raws [][]byte
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		raws = append(raws, []byte(prefix+s))
	}
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{Partitioner: partitioner.ByteOrdered})
	for i, raw := range raws {
		require.NoError(t, addRaw(b, raw, int64(i)))
		view, accepted := takeView(t, b)
		require.Equal(t, i > 0, accepted, "a view needs a key in the trie")
		if !accepted {
			continue
		}
		ix, rd := openViewReader(t, view, buf.Bytes())
		require.Equal(t, int64(i), ix.Count())
		for j := range i {
			dk := partitioner.ByteOrdered.Decorate(raws[j])
			pos, ok, err := rd.Get(&dk)
			require.NoError(t, err)
			require.True(t, ok, "view after %d keys: key %d", i+1, j)
			require.Equal(t, int64(j), pos)
		}
		dk := partitioner.ByteOrdered.Decorate(raws[i])
		_, ok, err := rd.Get(&dk)
		require.NoError(t, err)
		require.False(t, ok, "the newest key is not in the view yet")
	}
	_, err := b.Complete()
	require.NoError(t, err)
	requireAllFound(t, partitioner.ByteOrdered, buf.Bytes(), raws)

	// Built without views, the same keys give the same file here: with
	// nothing written yet when the views were taken, no estimate changed.
	plain := buildRaw(t, partitioner.ByteOrdered, raws, Options{})
	requireAllFound(t, partitioner.ByteOrdered, plain, raws)
}

// randomMurmur3Keys returns n random 16-byte keys decorated by Murmur3, in
// its order.
func randomMurmur3Keys(r *rand.Rand, n int) []partitioner.Key {
	raws := make([][]byte, n)
	for i := range raws {
		raws[i] = randomBytes(r, 16, 16, nil)
	}
	return keyset.Decorate(partitioner.Murmur3, raws)
}

// openViewReader opens an early-open view over file, the bytes written so
// far, and a Reader on it; the Reader is closed when the test ends.
func openViewReader(t *testing.T, view *PartialIndex, file []byte) (*Index, *Reader) {
	t.Helper()
	ix, err := view.NewIndex(file)
	require.NoError(t, err)
	rd, err := ix.OpenReader()
	require.NoError(t, err)
	t.Cleanup(func() { _ = rd.Close() })
	return ix, rd
}

// takeView asks for an early-open view with all three files synced at once
// (as the golden cases were made); TestBuildPartialProtocol checks the
// protocol underneath.
func takeView(t *testing.T, b indexBuilder) (*PartialIndex, bool) {
	t.Helper()
	view, err := b.BuildPartialSynced(0, 0)
	require.NoError(t, err)
	return view, view != nil
}

// testPartialIndex: views every 1/15 of a random Murmur3 input read back
// exactly the keys that reached the trie, and the final file is valid.
func TestScenarioPartialEveryFifteenth(t *testing.T) {
	keys := randomMurmur3Keys(rand.New(rand.NewPCG(2, 2)), 30_000)
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{})
	step := len(keys) / 15
	for i, k := range keys {
		require.NoError(t, b.Add(&k, int64(i)))
		if (i+1)%step != 0 || i+1 == len(keys) {
			continue
		}
		view, accepted := takeView(t, b)
		require.True(t, accepted)
		ix, rd := openViewReader(t, view, buf.Bytes())
		require.Equal(t, int64(i), ix.Count(), "the view lags one key")
		n := 0
		for it := rd.Scan(nil, nil); it.Next(); n++ {
			require.Equal(t, int64(n), it.Pos())
		}
		require.Equal(t, i, n)
		for j := 0; j < i; j += 97 {
			pos, ok, err := rd.Get(&keys[j])
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, int64(j), pos)
		}
		require.NoError(t, rd.Close())
	}
	_, err := b.Complete()
	require.NoError(t, err)
	_, rd := openIndexReader(t, buf.Bytes(), partitioner.Murmur3)
	for i, k := range keys {
		pos, ok, err := rd.Get(&k)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, int64(i), pos)
	}
}

// testPointerGrowth, payload side: positions from 0 to 2^62 in both signs
// need every payload size from 1 to 8 bytes; each reads back exactly.
func TestScenarioPositionSizes(t *testing.T) {
	var raws [][]byte
	var positions []int64
	for shift := range 63 {
		for _, v := range []int64{1 << shift, (1 << shift) - 1, ^(1 << shift), ^((1 << shift) - 1)} {
			raws = append(raws, []byte(fmt.Sprintf("k%04d", len(raws))))
			positions = append(positions, v)
		}
	}
	var buf bytes.Buffer
	b := NewBuilder(&buf, Options{Partitioner: partitioner.ByteOrdered})
	sizes := map[int]bool{}
	for i, raw := range raws {
		require.NoError(t, addRaw(b, raw, positions[i]))
		sizes[positionSize(positions[i])] = true
	}
	_, err := b.Complete()
	require.NoError(t, err)
	require.Len(t, sizes, 8, "every payload size occurs")
	_, rd := openIndexReader(t, buf.Bytes(), partitioner.ByteOrdered)
	for i, raw := range raws {
		dk := partitioner.ByteOrdered.Decorate(raw)
		pos, ok, err := rd.Get(&dk)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, positions[i], pos, "key %d", i)
	}
}

// The payload encoding against Cassandra's SizedInts examples (docs/format.md §5).
func TestPositionSize(t *testing.T) {
	for v, want := range map[int64]int{0: 1, 127: 1, 128: 2, -128: 1, -129: 2, 0x7FFF: 2, 0x7FFFFFFF: 4, 1<<63 - 1: 8, -1 << 63: 8} {
		require.Equal(t, want, positionSize(v), "size of %d", v)
	}
	for _, v := range []int64{0, -1, 100, -51, 4096, 1 << 40, -(1 << 40), 1<<63 - 1} {
		p, flags := partitionpayload.Append(nil, 0xAD, v)
		hash, hasHash, got, ok := decodePayload(flags, p)
		require.True(t, ok)
		require.True(t, hasHash)
		require.Equal(t, byte(0xAD), hash)
		require.Equal(t, v, got)
		require.Equal(t, byte(8+positionSize(v)-1), flags)
	}
}
