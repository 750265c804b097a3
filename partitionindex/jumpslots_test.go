package partitionindex

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/goldenindex"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// OpenOptions.JumpSlots: an index of jumpSlotsMinBytes or more opens with
// the trie's jump slots, taking trie.JumpSlotBytes more than without, and
// every lookup kind answers as without them; a smaller index opens without.
func TestJumpSlotsIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("600,000 keys: skipped under -short")
	}
	r := rand.New(rand.NewPCG(8, 9))
	raws := randomRaws16(r, 600_000)
	file := buildKeys(t, keyset.Decorate(partitioner.Murmur3, raws), Options{Partitioner: partitioner.Murmur3})
	require.GreaterOrEqual(t, len(file), jumpSlotsMinBytes)

	plain, err := NewIndex(file, OpenOptions{})
	require.NoError(t, err)
	require.False(t, plain.Trie().JumpSlots(), "slots only when asked for")
	before := allocated()
	slotted, err := NewIndex(file, OpenOptions{JumpSlots: true})
	require.NoError(t, err)
	withSlots := allocated() - before
	require.True(t, slotted.Trie().JumpSlots(), "a %d-byte index opens with jump slots", len(file))
	// What opening allocates: the slots, the jump table and the index's
	// own small structures (footer keys, the trie handle).
	require.GreaterOrEqual(t, withSlots, uint64(trie.JumpSlotBytes))
	require.LessOrEqual(t, withSlots, uint64(trie.JumpSlotBytes+trie.JumpTableBytes+64<<10), "memory of an index with slots")

	probes := lookupProbes(r, partitioner.Murmur3, raws, 20_000)
	sameLookups(t, slotted, plain, probes)
	if !raceEnabled && testing.CoverMode() == "" {
		// Lookups through the slots allocate nothing, as without them.
		rd, err := slotted.OpenReader()
		require.NoError(t, err)
		defer rd.Close()
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			k := &probes[i%len(probes)]
			_, _, _ = rd.Get(k)
			_, _ = rd.CeilingCandidates(k)
			_, _ = rd.FloorCandidates(k)
			i++
		})
		require.Zero(t, allocs, "allocations per lookup through the slots")
	}

	small := buildKeys(t, keyset.Decorate(partitioner.Murmur3, raws[:1000]), Options{Partitioner: partitioner.Murmur3})
	ix, err := NewIndex(small, OpenOptions{JumpSlots: true})
	require.NoError(t, err)
	require.False(t, ix.Trie().JumpSlots(), "a %d-byte index opens without", len(small))
}

// On every golden file (Cassandra's bytes), an index whose trie has jump
// slots answers every lookup kind as the index without them. The files
// are smaller than jumpSlotsMinBytes, so the slots are added to the trie
// directly.
func TestJumpSlotsGolden(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	slotted := 0
	for _, c := range goldenindex.Cases(t) {
		plain, err := NewIndex(c.Want, OpenOptions{Partitioner: c.Partitioner})
		require.NoError(t, err)
		ix, err := NewIndex(c.Want, OpenOptions{Partitioner: c.Partitioner})
		require.NoError(t, err)
		ix.trie = ix.trie.WithJumpSlots()
		if !ix.trie.JumpSlots() {
			continue
		}
		slotted++
		raws := make([][]byte, len(c.Entries))
		for i, e := range c.Entries {
			raws[i] = e.Key
		}
		sameLookups(t, ix, plain, lookupProbes(r, c.Partitioner, raws, 200))
	}
	require.NotZero(t, slotted, "golden files whose tries get jump slots")
}

// lookupProbes returns up to n probes from raws: keys, keys with a byte
// appended, with the last byte changed, and cut short.
func lookupProbes(r *rand.Rand, p partitioner.Partitioner, raws [][]byte, n int) []partitioner.Key {
	var probes []partitioner.Key
	for len(probes) < n && len(raws) > 0 {
		raw := slices.Clone(raws[r.IntN(len(raws))])
		switch r.IntN(4) {
		case 1:
			raw = append(raw, byte(r.Uint32()))
		case 2:
			if len(raw) > 0 {
				raw[len(raw)-1] ^= byte(1 + r.IntN(255))
			}
		case 3:
			raw = raw[:r.IntN(len(raw)+1)]
		}
		probes = append(probes, p.Decorate(raw))
	}
	return probes
}

// sameLookups checks that a and b (the same file) answer every lookup kind
// alike for probes: Get, GetBatch, the ceiling and floor candidates of the
// keys and of their token bounds, First and Last.
func sameLookups(t *testing.T, a, b *Index, probes []partitioner.Key) {
	t.Helper()
	ra, err := a.OpenReader()
	require.NoError(t, err)
	defer ra.Close()
	rb, err := b.OpenReader()
	require.NoError(t, err)
	defer rb.Close()
	var bound []byte
	for i := range probes {
		k := &probes[i]
		pa, oka, erra := ra.Get(k)
		pb, okb, errb := rb.Get(k)
		require.Equal(t, [3]any{pb, okb, errb}, [3]any{pa, oka, erra}, "Get %x", k.Raw)
		ca, erra := ra.CeilingCandidates(k)
		cb, errb := rb.CeilingCandidates(k)
		require.Equal(t, [2]any{cb, errb}, [2]any{ca, erra}, "CeilingCandidates %x", k.Raw)
		ca, erra = ra.FloorCandidates(k)
		cb, errb = rb.FloorCandidates(k)
		require.Equal(t, [2]any{cb, errb}, [2]any{ca, erra}, "FloorCandidates %x", k.Raw)
		for _, max := range []bool{false, true} {
			bound = k.AppendBound(bound[:0], max)
			ca, erra = ra.CeilingCandidatesEncoded(bound)
			cb, errb = rb.CeilingCandidatesEncoded(bound)
			require.Equal(t, [2]any{cb, errb}, [2]any{ca, erra}, "CeilingCandidatesEncoded %x", bound)
		}
	}
	ba := ra.GetBatch(nil, probes)
	bb := rb.GetBatch(nil, probes)
	require.Equal(t, bb, ba, "GetBatch")
	fa, oka, erra := ra.First()
	fb, okb, errb := rb.First()
	require.Equal(t, [3]any{fb, okb, errb}, [3]any{fa, oka, erra}, "First")
	fa, oka, erra = ra.Last()
	fb, okb, errb = rb.Last()
	require.Equal(t, [3]any{fb, okb, errb}, [3]any{fa, oka, erra}, "Last")
}

// allocated returns the bytes the process has allocated so far.
func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}
