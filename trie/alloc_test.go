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
	for _, c := range []struct {
		name string
		it   nodeIterator
	}{{"Iterator", new(Iterator)}, {"ReverseIterator", new(ReverseIterator)}} {
		it := c.it
		for it.Reset(tr, nil, nil, true); it.Next(); { // warm up the stack
		}
		check(c.name, func() {
			n := 0
			for it.Reset(tr, keys[1], keys[len(keys)-2], true); it.Next(); n++ {
			}
			for it.Reset(tr, nil, nil, true); it.Next(); n++ {
			}
			if n < len(keys) {
				t.Fatal("short iteration")
			}
		})
	}
}
