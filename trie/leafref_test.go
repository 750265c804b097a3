package trie

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// pendingLeavesEntries is a trie whose root has a child branch too big for
// a page (written early, so the root has a written descendant: B) beside
// leaves that stay pending until Complete, then re-measures the root with
// recalcTotalSize over those leaves; and keys that extend the previous key,
// so open leaves become nodes (promoteLeaf), with partial views between.
func pendingLeavesEntries() []entry {
	r := rand.New(rand.NewSource(7))
	var entries []entry
	seen := map[string]bool{}
	for len(entries) < 3000 {
		k := []byte{0x01, byte(r.Intn(256)), byte(r.Intn(256)), byte(r.Intn(4))}
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		entries = append(entries, entry{key: k})
	}
	for _, k := range []string{"\x02", "\x02\x05", "\x02\x05\x07", "\x03", "\x04\x00"} {
		entries = append(entries, entry{key: []byte(k)})
	}
	slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
	for i := range entries {
		entries[i].flags = byte(1 + i%15)
		entries[i].payload = []byte{byte(i), byte(i >> 8), byte(i >> 16)}[:1+i%3]
	}
	return entries
}

// TestPendingLeaves checks the writer on pendingLeavesEntries against the
// bytes the writer made before pending leaves became refs (revision
// cf52d61, whose output is Cassandra's for every golden case), reads them
// back, and under -tags invariants the layout's estimates are asserted
// exact throughout.
func TestPendingLeaves(t *testing.T) {
	want := map[int]string{
		DefaultPageSize: "544a5ae82a7d5bb0b4c19c25ffaa1729ffffb9834c89e1c64726da25bf03de8f",
		256:             "9e2075d83580a446f92d4009515c1eb59a3be70da7745ce0d17d392b8b4c6058",
	}
	entries := pendingLeavesEntries()
	for _, ps := range []int{DefaultPageSize, 256} {
		t.Run(fmt.Sprintf("page=%d", ps), func(t *testing.T) {
			var out bytes.Buffer
			w := NewWriter(&out, Options{PageSize: ps})
			var views int
			for i, e := range entries {
				require.NoError(t, w.Add(e.key, e.flags, e.payload))
				if i%500 == 499 || (i > 2990 && i%2 == 0) {
					p, err := w.MakePartialRoot()
					require.NoError(t, err)
					require.NoError(t, w.Flush())
					tr, err := New(Source{File: out.Bytes(), Cutoff: p.Cutoff, Tail: p.Tail}, p.Root)
					require.NoError(t, err)
					require.Len(t, collect(t, tr).keys, i+1)
					views++
				}
			}
			root, err := w.Complete()
			require.NoError(t, err)
			sum := sha256.Sum256(append(out.Bytes(), byte(root), byte(root>>8), byte(root>>16), byte(root>>24)))
			require.Equal(t, want[ps], hex.EncodeToString(sum[:]), "%d views", views)
			readBack(t, out.Bytes(), root, entries)
		})
	}
}

// readBack opens the trie in file at root and checks that it lists exactly
// the keys of entries, in order.
func readBack(t *testing.T, file []byte, root int64, entries []entry) (*Trie, model) {
	t.Helper()
	tr, err := New(Source{File: file}, root)
	require.NoError(t, err)
	m := collect(t, tr)
	require.Len(t, m.keys, len(entries))
	for i, e := range entries {
		require.Equal(t, e.key, m.keys[i])
	}
	return tr, m
}

// TestSortCandidates: the radix sort orders as compareCandidates does, on
// lists long and short, with sizes that collide and sizes past 16 bits.
func TestSortCandidates(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var w Writer
	for _, n := range []int{0, 1, 5, 31, 32, 33, 100, 256} {
		for _, maxSize := range []int64{4, 300, 4096, 1 << 16, 1 << 20} {
			c := make([]candidate, n)
			for i := range c {
				c[i] = candidate{size: r.Int63n(maxSize), transition: byte(i * 256 / max(n, 1)), slot: int32(i)}
			}
			want := slices.Clone(c)
			slices.SortFunc(want, compareCandidates)
			w.sortCandidates(c)
			require.Equal(t, want, c, "n=%d sizes below %d", n, maxSize)
		}
	}
}

// TestLeafPayloadLengths: a leaf slot holds every payload length up to
// maxLeafPayload (AddShared copies it in overlapping words), whether the leaf
// is written as it is or becomes a node because the next key extends it
// (promoteLeaf reads the payload back out of the slot).
func TestLeafPayloadLengths(t *testing.T) {
	var entries []entry
	for n := 0; n <= maxLeafPayload; n++ {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(0xA0 + 16*n + i)
		}
		leaf := []byte{byte(n), 0x10}
		entries = append(entries,
			entry{key: leaf, flags: 1 + byte(n%15), payload: p},
			entry{key: []byte{byte(n), 0x20}, flags: 1, payload: []byte{byte(n)}},
			entry{key: []byte{byte(n), 0x20, 0x01}, flags: 2, payload: p}) // promotes the leaf before it
	}
	data, root := writeEntries(t, entries, Options{})
	tr, m := readBack(t, data, root, entries)
	for i, e := range entries {
		flags, payload, err := tr.Payload(m.nodes[i])
		require.NoError(t, err)
		require.Equal(t, e.flags, flags, "key %x", e.key)
		// Payload returns the bytes from the payload on; the caller knows
		// its length.
		require.GreaterOrEqual(t, len(payload), len(e.payload), "key %x", e.key)
		require.Equal(t, e.payload, payload[:len(e.payload)], "key %x", e.key)
	}
}
