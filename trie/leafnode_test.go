package trie

import (
	"bytes"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLeafNodePass ties writeShallow, appendShallow and appendOneLeafNode,
// write's one pass over a marked branch, and closeSingle, to the general
// paths they mirror (write's loop over the branch, then appendNode;
// closeNode's loop): the same keys written with and without
// them (Writer.noFastPaths), partial views taken after the same keys,
// give the same bytes, roots and views. The key sets make nodes of 1 to 60
// leaves over narrow and wide spans (SPARSE_8, DENSE_12, SINGLE), branches
// past 255 bytes (SPARSE_12), nodes with a payload of their own above
// their leaves, leaves promoted to nodes, chains of up to 20 nodes (taller
// than a height mark goes), and payloads of 0 to 15 bytes and some longer
// (childless nodes), on small pages too.
func TestLeafNodePass(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		entries := leafNodeEntries(r)
		for _, page := range []int{4096, 512, 64} {
			opts := Options{PageSize: page}
			partialEvery := 1 + r.Intn(200)
			want, wantRoot, wantViews := writeWithPass(t, entries, opts, partialEvery, false)
			got, gotRoot, gotViews := writeWithPass(t, entries, opts, partialEvery, true)
			require.Equal(t, wantRoot, gotRoot, "seed %d page %d", seed, page)
			require.True(t, bytes.Equal(want, got), "seed %d page %d: the pass wrote other bytes", seed, page)
			require.Equal(t, wantViews, gotViews, "seed %d page %d", seed, page)
		}
	}
}

// leafNodeEntries returns sorted unique keys under a one-byte prefix and
// one or two bytes of fan-out with random density, some ending at a node
// that also has leaves below it.
func leafNodeEntries(r *rand.Rand) []entry {
	seen := map[string]bool{}
	var keys [][]byte
	fan := 1 + r.Intn(8)      // second bytes
	perNode := 1 + r.Intn(60) // leaves below each
	width := 1 + r.Intn(256)  // span the leaves' bytes are drawn from
	for a := 0; a < fan; a++ {
		base := []byte{0x40, byte(r.Intn(256))}
		if r.Intn(4) == 0 {
			keys = append(keys, slices.Clone(base)) // a payload above the leaves
		}
		for range 1 + r.Intn(perNode) {
			k := append(slices.Clone(base), byte(r.Intn(width)))
			if r.Intn(8) == 0 {
				k = append(k, byte(r.Intn(256))) // promotes or deepens
			}
			if r.Intn(16) == 0 {
				for range 1 + r.Intn(20) {
					k = append(k, byte(r.Intn(4))) // a chain, past maxMarkedHeight at times
				}
			}
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	var entries []entry
	for _, k := range keys {
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		p := make([]byte, r.Intn(16))
		if r.Intn(16) == 0 {
			p = make([]byte, 16+r.Intn(8)) // too long for a leaf: a childless node
		}
		r.Read(p)
		entries = append(entries, entry{key: k, flags: byte(1 + r.Intn(15)), payload: p})
	}
	return entries
}

// writeWithPass writes entries with the leaf node pass on or off, taking
// a partial view after every partialEvery keys.
func writeWithPass(t *testing.T, entries []entry, opts Options, partialEvery int, pass bool) ([]byte, int64, []PartialRoot) {
	var out bytes.Buffer
	w := NewWriter(&out, opts)
	w.noFastPaths = !pass
	var views []PartialRoot
	for i, e := range entries {
		require.NoError(t, w.Add(e.key, e.flags, e.payload))
		if (i+1)%partialEvery == 0 {
			v, err := w.MakePartialRoot()
			require.NoError(t, err)
			v.Tail = slices.Clone(v.Tail)
			views = append(views, v)
		}
	}
	root, err := w.Complete()
	require.NoError(t, err)
	return out.Bytes(), root, views
}
