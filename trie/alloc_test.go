package trie

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestZeroAlloc(t *testing.T) {
	if raceEnabled || testing.CoverMode() != "" {
		t.Skip("allocation counts are not meaningful under -race or -cover")
	}
	r := rand.New(rand.NewSource(5))
	entries := randomEntries(r, 500, 6, []byte{0, 1, 2, 0x61, 0xFF})
	data, root := buildTrie(t, entries, buildOpts{rnd: r, anyType: true, maxPad: 5000, padChance: 0.05})
	tr := mustNew(t, data, root)
	keys := collect(t, tr).keys
	w := tr.Walker()
	i := 0
	next := func() []byte { i++; return keys[i%len(keys)] }
	check := func(name string, f func()) {
		t.Helper()
		require.Zero(t, testing.AllocsPerRun(100, f), name)
	}
	check("Exact", func() { _, _, _ = w.Exact(next()) })
	check("Ceiling", func() { _, _, _ = w.Ceiling(next()) })
	check("Floor", func() { _, _, _ = w.Floor(next()) })
	check("First/Last", func() { _, _ = w.First(); _, _ = w.Last() })
	check("Payload", func() { _, _, _ = tr.Payload(root) })
	var it Iterator
	for it.Reset(tr, nil, nil, true); it.Next(); {
	}
	check("Iterator", func() {
		n := 0
		for it.Reset(tr, keys[1], keys[len(keys)-2], true); it.Next(); n++ {
		}
		for it.Reset(tr, nil, nil, true); it.Next(); n++ {
		}
		if n < len(keys) {
			t.Fatal("short iteration")
		}
	})
	var rit ReverseIterator
	for rit.Reset(tr, nil, nil, true); rit.Next(); {
	}
	check("ReverseIterator", func() {
		n := 0
		for rit.Reset(tr, keys[1], keys[len(keys)-2], true); rit.Next(); n++ {
		}
		for rit.Reset(tr, nil, nil, true); rit.Next(); n++ {
		}
		if n < len(keys) {
			t.Fatal("short iteration")
		}
	})
}
