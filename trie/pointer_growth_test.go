package trie

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// Counterpart of Cassandra's testPointerGrowth: children far behind their
// parents need wide pointers. Cassandra fakes the writer's positions; here
// big payloads really push the children back (by 2^16 and 2^24 bytes), so
// the single, sparse and dense types of the 16-, 24- and 32/40-bit classes
// are written and read back.
func TestPointerGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 17 MB trie")
	}
	cases := []struct {
		name  string
		keys  []string
		sizes []int
		want  []nodeType
	}{
		// One child 70 KB back: a single pointer needs 24 bits -> one-slot DENSE_24.
		{"single-24", []string{"ab"}, []int{70_000}, []nodeType{dense24}},
		// Two children, the first 140 KB back: SPARSE_24 (sparse is smaller for a wide span).
		{"sparse-24", []string{"a\x00", "a\xff"}, []int{70_000, 70_000}, []nodeType{sparse24}},
		// Two adjacent children, far back: DENSE_24 (dense ties or wins).
		{"dense-24", []string{"a\x10", "a\x11"}, []int{70_000, 70_000}, []nodeType{dense24}},
		// A child 17 MB back: 32-bit class, where SPARSE_40 competes with DENSE_32.
		{"dense-32", []string{"b\x10", "b\x11"}, []int{17 << 20, 10}, []nodeType{dense32}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entries := make([]entry, len(c.keys))
			for i, k := range c.keys {
				entries[i] = entry{key: []byte(k), flags: 8, payload: bytes.Repeat([]byte{byte(i + 1)}, c.sizes[i])}
			}
			data, root := writeEntries(t, entries, Options{})
			tr := mustNew(t, data, root)
			st, err := tr.Stats()
			require.NoError(t, err)
			for _, typ := range c.want {
				require.NotZero(t, st.ByType[typ], "a %v node is written", typ)
			}
			for i, k := range c.keys {
				var wk Walker
				wk.Reset(tr)
				node, ok, err := wk.Exact([]byte(k))
				require.NoError(t, err)
				require.True(t, ok, "key %q", k)
				_, p, err := tr.Payload(node)
				require.NoError(t, err)
				require.GreaterOrEqual(t, len(p), c.sizes[i])
				require.Equal(t, byte(i+1), p[0])
				require.Equal(t, byte(i+1), p[c.sizes[i]-1])
			}
		})
	}
}
