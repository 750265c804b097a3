package trie

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSiblingLeafPath ties AddShared's fast path (a sibling leaf added
// without a call, its manually inlined copy of addPath's leaf add) to
// addPath, which every key takes with Writer.noSiblingPath: the same keys
// give the same bytes, roots, partial views, counts and errors. The sets mix leafNode
// sets (nodes of 1 to 60 leaves, so that leaf lists fill and move,
// promoted leaves, chains, payloads of 0 to 23 bytes) with Murmur3-like
// sets (random token prefixes cut where they differ, as the partition
// index builder cuts them), on pages of 4096 bytes and of 64, 16 and 8,
// where the longest payload of a leaf is 14 and 6 bytes. Between keys
// they try a key that repeats or precedes the previous key's last byte
// (refused on both paths), and after Complete a sibling of the last key
// (ErrFinished on both).
func TestSiblingLeafPath(t *testing.T) {
	fast := 0 // keys the fast path took, so that the test cannot pass vacuously
	for seed := int64(1); seed <= 160; seed++ {
		r := rand.New(rand.NewSource(seed))
		var entries []entry
		if seed%2 == 0 {
			entries = leafNodeEntries(r)
		} else {
			entries = tokenEntries(r)
		}
		for _, page := range []int{4096, 64, 16, 8} {
			opts := Options{PageSize: page}
			partialEvery := 1 + r.Intn(300)
			bad := r.Int63()
			want := writeSibling(t, entries, opts, partialEvery, bad, false)
			got := writeSibling(t, entries, opts, partialEvery, bad, true)
			require.Equal(t, want.root, got.root, "seed %d page %d", seed, page)
			require.True(t, bytes.Equal(want.out, got.out), "seed %d page %d: the fast path wrote other bytes", seed, page)
			require.Equal(t, want.views, got.views, "seed %d page %d", seed, page)
			require.Equal(t, want.log, got.log, "seed %d page %d", seed, page)
			fast += got.fast
		}
	}
	require.Greater(t, fast, 100000, "keys through the fast path")
	t.Logf("fast %d", fast)
}

// tokenEntries returns a sorted set of keys shaped like a Murmur3
// partition index's: 40, 8 random token bytes (a narrow span of first
// bytes at times, so that nodes gather many leaves), each key cut one
// byte past its larger diff point with its neighbours, with payloads of
// 0 to 15 bytes (2 to 9 mostly).
func tokenEntries(r *rand.Rand) []entry {
	n := 1 + r.Intn(3000)
	span := 1 + r.Intn(256) // of the first token byte
	full := make([][]byte, 0, n)
	seen := map[string]bool{}
	for range n {
		k := make([]byte, 9)
		k[0] = 0x40
		r.Read(k[1:])
		k[1] = byte(r.Intn(span))
		if !seen[string(k)] {
			seen[string(k)] = true
			full = append(full, k)
		}
	}
	slices.SortFunc(full, bytes.Compare)
	entries := make([]entry, len(full))
	for i, k := range full {
		cut := 1
		if i > 0 {
			cut = max(cut, commonPrefix(full[i-1], k)+1)
		}
		if i+1 < len(full) {
			cut = max(cut, commonPrefix(full[i+1], k)+1)
		}
		p := make([]byte, 2+r.Intn(8))
		if r.Intn(8) == 0 {
			p = make([]byte, r.Intn(16))
		}
		r.Read(p)
		entries[i] = entry{key: k[:cut], flags: byte(1 + r.Intn(15)), payload: p}
	}
	return entries
}

// siblingRun is what writeSibling saw.
type siblingRun struct {
	out   []byte
	root  int64
	views []PartialRoot
	log   []string // errors and counts, in order
	fast  int      // keys added through the fast path
}

// writeSibling writes entries with AddShared's fast path on (sibling) or
// off, taking a partial view after every partialEvery keys, and before
// some keys (chosen by bad) trying one that does not follow the previous
// key.
func writeSibling(t *testing.T, entries []entry, opts Options, partialEvery int, bad int64, sibling bool) siblingRun {
	var out bytes.Buffer
	w := NewWriter(&out, opts)
	w.noSiblingPath = !sibling
	r := rand.New(rand.NewSource(bad))
	var run siblingRun
	for i, e := range entries {
		if i > 0 && r.Intn(16) == 0 {
			// A key that repeats or precedes the previous key's last byte,
			// sharing all the bytes before it: a sibling the fast path
			// must refuse (through addPath) as addPath does.
			prev := entries[i-1].key
			k := slices.Clone(prev)
			if k[len(k)-1] > 0 {
				k[len(k)-1] -= byte(r.Intn(2))
			}
			err := w.Add(k, e.flags, e.payload)
			require.Error(t, err)
			run.log = append(run.log, fmt.Sprintf("refused %x after %x: %v", k, prev, err))
		}
		// AddShared's test for its fast path, on a key known to follow.
		top := &w.nodes[w.stack[len(w.stack)-1]]
		if len(e.payload) <= w.siblingLeafMax && len(e.key) == len(w.prevKey) &&
			commonPrefix(e.key, w.prevKey) == len(e.key)-1 && top.nkids < leafCap[top.class] {
			run.fast++
		}
		before := w.Count()
		require.NoError(t, w.Add(e.key, e.flags, e.payload))
		require.Equal(t, before+1, w.Count())
		if (i+1)%partialEvery == 0 {
			v, err := w.MakePartialRoot()
			require.NoError(t, err)
			v.Tail = slices.Clone(v.Tail)
			run.views = append(run.views, v)
		}
	}
	root, err := w.Complete()
	require.NoError(t, err)
	run.root = root
	if len(entries) > 0 {
		// A sibling of the last key, which the fast path would take if
		// Complete left it enabled.
		k := slices.Clone(entries[len(entries)-1].key)
		if k[len(k)-1] < 0xFF {
			k[len(k)-1]++
		}
		err := w.Add(k, 1, []byte{1, 2})
		run.log = append(run.log, fmt.Sprintf("after Complete: %v, count %d", err, w.Count()))
	}
	run.out = out.Bytes()
	return run
}
