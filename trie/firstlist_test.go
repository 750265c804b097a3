package trie

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFirstListFromDepth: a node whose first child is a node gets its
// first list from the last node closed at its depth (firstLists), not a
// one-ref list that then moves through every class: here each node below
// the root has a node child, then 59 leaves, as the nodes one key byte down
// of a ByteOrdered index have (a zero byte, which escaping follows with
// FE or FF, is a node there, and sorts first). The first such node, and
// every node after Reset, has no hint and starts with one ref; a node
// after a sibling of 60 children starts with a leaf list of 32, half what
// that sibling needed, and moves once, to 64.
func TestFirstListFromDepth(t *testing.T) {
	w := NewWriter(io.Discard, Options{})
	for round := range 2 {
		for a := byte(1); a <= 4; a++ {
			add := func(key ...byte) {
				t.Helper()
				require.NoError(t, w.Add(key, 1, []byte{a}))
			}
			add(a, 0, 0)
			n := &w.nodes[w.stack[1]]
			if a == 1 {
				require.Equal(t, uint8(1), n.class, "round %d: the first node at depth 1 has no hint", round)
			} else {
				require.Equal(t, uint8(6|leafList), n.class, "round %d, node %d: the first list from the sibling's 60 children", round, a)
			}
			add(a, 0, 1)
			for b := byte(1); b < 60; b++ {
				add(a, b)
			}
			n = &w.nodes[w.stack[1]]
			require.Equal(t, uint16(60), n.nkids)
			require.Equal(t, uint8(7|leafList), n.class, "round %d, node %d", round, a)
		}
		_, err := w.Complete()
		require.NoError(t, err)
		w.Reset(io.Discard, Options{})
	}
}

// TestFirstListSmallSibling: a sibling of at most 8 children leaves no
// hint, so a node after it starts with one ref, as without hints: small
// nodes are where a first list sized from one neighbour wastes most (a
// node of 2 children after one of 3 would hold 4).
func TestFirstListSmallSibling(t *testing.T) {
	w := NewWriter(io.Discard, Options{})
	for a := byte(1); a <= 3; a++ {
		require.NoError(t, w.Add([]byte{a, 0, 0}, 1, []byte{a}))
		require.Equal(t, uint8(1), w.nodes[w.stack[1]].class, "node %d", a)
		require.NoError(t, w.Add([]byte{a, 0, 1}, 1, []byte{a}))
		for b := byte(1); b < 8; b++ {
			require.NoError(t, w.Add([]byte{a, b}, 1, []byte{a}))
		}
	}
	_, err := w.Complete()
	require.NoError(t, err)
}
