package trie

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keyset"
)

// randomEntries returns n sorted unique keys over alphabet, of length
// 0..maxLen, so that many keys are prefixes of others (payloads on inner
// nodes, as in Cassandra's WalkerTest).
func randomEntries(r *rand.Rand, n, maxLen int, alphabet []byte) []entry {
	seen := map[string]bool{}
	var keys [][]byte
	for tries := 0; len(keys) < n && tries < 20*n; tries++ {
		k := make([]byte, r.Intn(maxLen+1))
		for i := range k {
			k[i] = alphabet[r.Intn(len(alphabet))]
		}
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	return sortedEntries(r, keys)
}

// sortedEntries sorts unique keys and gives each random payload flags and
// a two-byte payload naming its index.
func sortedEntries(r *rand.Rand, keys [][]byte) []entry {
	keys = keyset.Bytes(keys)
	out := make([]entry, len(keys))
	for i, k := range keys {
		out[i] = entry{key: k, flags: uint8(1 + r.Intn(15)), payload: []byte{byte(i), byte(i >> 8)}}
	}
	return out
}

func TestModelRandomTries(t *testing.T) {
	alphabets := [][]byte{
		{0x00, 0x01, 0xFF},
		{'a', 'b', 'c', 'x'},
		func() []byte { // wide fan-out: SPARSE and DENSE with holes
			var a []byte
			for b := 0; b < 256; b += 1 + b%3 {
				a = append(a, byte(b))
			}
			return a
		}(),
	}
	for seed := int64(1); seed <= 24; seed++ {
		r := rand.New(rand.NewSource(seed))
		alpha := alphabets[int(seed)%len(alphabets)]
		entries := randomEntries(r, 1+r.Intn(300), 1+r.Intn(6), alpha)
		o := buildOpts{rnd: r, maxPad: []int{0, 300, 5000, 70000}[int(seed)%4], padChance: 0.1, anyType: seed%2 == 0}
		data, root := buildTrie(t, entries, o)
		tr, err := New(Source{File: data}, root)
		require.NoError(t, err)
		m := collect(t, tr)
		require.Len(t, m.keys, len(entries), "seed %d", seed)
		for i, e := range entries {
			require.True(t, bytes.Equal(e.key, m.keys[i]), "key %d", i)
			f, p, err := tr.Payload(m.nodes[i])
			require.NoError(t, err)
			require.Equal(t, e.flags, f)
			require.Equal(t, e.payload, p[:2])
		}
		require.Equal(t, m.nodes, iterAll(t, tr, nil, nil, false))
		checkModel(t, tr, m, r, 200)
		// Exhaustive short probes over the alphabet plus one outsider.
		probeAlpha := append([]byte{alpha[0] + 1}, alpha[:min(len(alpha), 4)]...)
		w := tr.Walker()
		var q []byte
		var rec func(int)
		rec = func(d int) { // bounded by 3 levels: test-only recursion
			probeModel(t, &w, m, q)
			if d == 3 {
				return
			}
			for _, b := range probeAlpha {
				q = append(q, b)
				rec(d + 1)
				q = q[:len(q)-1]
			}
		}
		rec(0)
	}
}

// TestTailSource reads the docs/format.md §10.3 trie split into a file part and an
// early-open tail, with garbage in the file past the cutoff.
func TestTailSource(t *testing.T) {
	full := fileC()[:0x17]
	want := iterAll(t, mustNew(t, full, 0x15), nil, nil, true)
	for cut := 1; cut < len(full); cut++ {
		file := bytes.Clone(full)
		for i := cut; i < len(file); i++ {
			file[i] = 0xFF // overridden by the tail
		}
		src := Source{File: file, Cutoff: int64(cut), Tail: full[cut:]}
		tr, err := New(src, 0x15)
		require.NoError(t, err)
		// Nodes must not straddle the cutoff: only cuts at node starts work.
		isStart := cut == 3 || cut == 6 || cut == 0x0C || cut == 0x0F || cut == 0x15
		got := []int64{}
		var it Iterator
		for it.Reset(tr, nil, nil, true); it.Next(); {
			got = append(got, it.Node())
		}
		if isStart {
			require.NoError(t, it.Err(), "cut %d", cut)
			assert.Equal(t, want, got, "cut %d", cut)
			n, ok, err := walkerOf(tr).Exact(bop("ab"))
			require.NoError(t, err)
			assert.True(t, ok)
			assert.Equal(t, int64(3), n)
		}
	}
	// A file shorter than the cutoff: the gap is unreadable.
	src := Source{File: full[:3], Cutoff: 6, Tail: full[6:]}
	tr, err := New(src, 0x15)
	require.NoError(t, err)
	_, _, err = walkerOf(tr).Exact(bop("ab"))
	assert.ErrorIs(t, err, ErrCorrupt)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, int64(3), ce.Offset)
	n, ok, err := walkerOf(tr).Exact(bop("a"))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, int64(0), n)
}

func TestNewRejectsRootOutside(t *testing.T) {
	for _, root := range []int64{-1, 3, 100} {
		_, err := New(Source{File: []byte{0x08, 1, 2}}, root)
		assert.ErrorIs(t, err, ErrCorrupt, "root %d", root)
	}
	_, err := New(Source{File: []byte{0x08, 1, 2}, Cutoff: -1, Tail: []byte{0}}, 0)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = New(Source{File: []byte{0x08, 1, 2}, Cutoff: 3, Tail: []byte{0x21, 0x00, 3}}, 3)
	assert.NoError(t, err)
}

func walkerOf(tr *Trie) *Walker {
	w := tr.Walker()
	return &w
}
