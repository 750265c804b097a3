package partitionindex

import (
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
)

// byteOrderedHead is the head addBytes keeps for a ByteOrdered key,
// 40 <escaped key> 40, written without the incremental encoder.
func byteOrderedHead(raw []byte) []byte {
	head := bytecomparable.AppendEscaped([]byte{bytecomparable.NextComponent}, raw)
	return append(head, bytecomparable.NextComponent)
}

// firstWordPairs returns pairs of raw ByteOrdered keys, each pair in
// increasing order, whose heads first differ at every byte of the first
// word and the bytes past it, of the head (head bytes 1..17) and of what
// follows a shared stride (65..81), after zeros or none, with keys of
// every length around a word and a stride;
// keys that are prefixes of one another; and keys of equal length that
// differ in their last byte.
func firstWordPairs(r *rand.Rand) [][2][]byte {
	var pairs [][2][]byte
	for _, n := range []int{1, 2, 5, 6, 7, 8, 9, 12, 15, 16, 17, 18, 24, 40, 63, 64, 65, 130} {
		// Bytes 0x02..0xFE: no zero (a plain head) and room to raise one.
		a := make([]byte, n)
		for i := range a {
			a[i] = byte(2 + r.IntN(0xFD))
		}
		// Bytes 0..16, and 64..80 past a shared stride, where the
		// comparison starts after the bytes the encoder reused.
		var at []int
		for d := range 17 {
			at = append(at, d, 64+d)
		}
		for _, d := range at {
			if d >= n {
				continue
			}
			b := slices.Clone(a)
			b[d]++
			pairs = append(pairs, [2][]byte{a, b})
			// A zero (or two) before byte d moves it one (two) bytes
			// further into the head.
			for _, zeros := range [][]int{{0}, {d - 1}, {0, 1}} {
				if zeros[len(zeros)-1] >= d || zeros[0] < 0 {
					continue
				}
				za, zb := slices.Clone(a), slices.Clone(b)
				for _, z := range zeros {
					za[z], zb[z] = 0, 0
				}
				pairs = append(pairs, [2][]byte{za, zb})
			}
			// 00 against 01 at byte d: the escaped 00 FF sorts below 01,
			// and the heads differ at the escape's first byte.
			za, zb := slices.Clone(a), slices.Clone(a)
			za[d], zb[d] = 0, 1
			pairs = append(pairs, [2][]byte{za, zb})
		}
		// A prefix and its extensions by a zero and by a non-zero byte.
		pairs = append(pairs,
			[2][]byte{a, append(slices.Clone(a), 0)},
			[2][]byte{a, append(slices.Clone(a), 7)},
			[2][]byte{append(slices.Clone(a), 0), append(slices.Clone(a), 0, 0)})
	}
	pairs = append(pairs, [2][]byte{nil, {0}}, [2][]byte{{0}, {1}}, [2][]byte{nil, {1}})
	return pairs
}

// TestAddBytesFirstWordIsDiffPoint ties addBytes's manually inlined
// first-word test to DiffPoint: for every pair of keys whose heads differ
// in and just past the first word that addBytes compares (after the
// leading 40, or after the bytes the encoder reused from a shared stride),
// after a fresh Reset and in one long sorted run, the diff point addBytes
// records is DiffPoint of the two heads, and the pair in the wrong order
// is refused.
func TestAddBytesFirstWordIsDiffPoint(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	pairs := firstWordPairs(r)
	opts := Options{Partitioner: partitioner.ByteOrdered}
	b := NewBuilder(io.Discard, opts)
	var all [][]byte
	for _, p := range pairs {
		ha, hb := byteOrderedHead(p[0]), byteOrderedHead(p[1])
		want := bytecomparable.DiffPoint(ha, hb)
		require.Negative(t, slices.Compare(ha, hb), "pair %x %x is not in order", p[0], p[1])
		b.Reset(io.Discard, opts)
		ka, kb := partitioner.ByteOrdered.Decorate(p[0]), partitioner.ByteOrdered.Decorate(p[1])
		require.NoError(t, b.Add(&ka, 0))
		require.NoError(t, b.Add(&kb, 1))
		require.Equal(t, want, b.lastDiff, "%x then %x (heads %x, %x)", p[0], p[1], ha, hb)
		b.Reset(io.Discard, opts)
		require.NoError(t, b.Add(&kb, 0))
		require.ErrorIs(t, b.Add(&ka, 1), ErrKeyOrder, "%x after %x", p[0], p[1])
		require.ErrorIs(t, b.Add(&kb, 1), ErrKeyOrder, "%x after itself", p[1])
		all = append(all, p[0], p[1])
	}
	slices.SortFunc(all, func(x, y []byte) int { return slices.Compare(byteOrderedHead(x), byteOrderedHead(y)) })
	all = slices.CompactFunc(all, slices.Equal)
	b.Reset(io.Discard, opts)
	for i, raw := range all {
		k := partitioner.ByteOrdered.Decorate(raw)
		require.NoError(t, b.Add(&k, int64(i)))
		if i > 0 {
			require.Equal(t, bytecomparable.DiffPoint(byteOrderedHead(all[i-1]), byteOrderedHead(raw)), b.lastDiff, "run: %x then %x", all[i-1], raw)
		}
	}
	_, err := b.Complete()
	require.NoError(t, err)
}
