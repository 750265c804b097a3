package rowindex_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/rowgen"
	"github.com/bti-go/bti/rowindex"
)

// wideBlocks is the wide-partition workload of the tests and benchmarks.
func wideBlocks(n int) ([]bytecomparable.Column, []rowindex.Block) { return rowgen.Wide(n) }

// widePartition writes the row index of n wide blocks for partition key
// and opens it.
func widePartition(tb testing.TB, n int, key string) ([]bytecomparable.Column, []rowindex.Block, *rowindex.Partition) {
	tb.Helper()
	cols, blocks := wideBlocks(n)
	var out bytes.Buffer
	w := rowindex.NewWriter(&out, rowindex.Options{Columns: cols})
	for _, b := range blocks {
		if err := w.Add(&b); err != nil {
			tb.Fatal(err)
		}
	}
	res, err := w.FinishPartition([]byte(key), 0, 1<<40, rowindex.Live)
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	p, err := rowindex.OpenPartition(out.Bytes(), res.Value, cols)
	if err != nil {
		tb.Fatal(err)
	}
	return cols, blocks, p
}

func TestAllocsWarmAdd(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	cols, blocks := wideBlocks(2000)
	w := rowindex.NewWriter(io.Discard, rowindex.Options{Columns: cols})
	// Warm up: one whole partition grows every buffer.
	for _, b := range blocks {
		if err := w.Add(&b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.FinishPartition([]byte("k"), 0, 1<<40, rowindex.Live); err != nil {
		t.Fatal(err)
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		if err := w.Add(&blocks[i]); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("warm Add: %v allocs per block, want 0", allocs)
	}
}

// TestAllocsWarmPartition: a whole partition on a warm Writer, its blocks,
// the trie's completion and the entry, allocates nothing, wherever in the
// file (and so in its pages) it starts.
func TestAllocsWarmPartition(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	cols, blocks := wideBlocks(3000)
	w := rowindex.NewWriter(io.Discard, rowindex.Options{Columns: cols})
	partition := func() {
		for _, b := range blocks {
			if err := w.Add(&b); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.FinishPartition([]byte("k"), 0, 1<<40, rowindex.Live); err != nil {
			t.Fatal(err)
		}
	}
	partition() // warm-up
	if allocs := testing.AllocsPerRun(20, partition); allocs != 0 {
		t.Errorf("warm partition of %d blocks: %v allocs, want 0", len(blocks), allocs)
	}
}

func TestAllocsLookup(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	cols, blocks, p := widePartition(t, 2000, "k")
	r := p.NewReader()
	keys := make([][]byte, len(blocks))
	for i, b := range blocks {
		keys[i], _ = bytecomparable.AppendClustering(nil, cols, b.Last, bytecomparable.Clustering)
	}
	run := func(name string, f func(i int)) {
		f(0) // warm-up
		i := 0
		if allocs := testing.AllocsPerRun(200, func() { f(i % len(blocks)); i += 7 }); allocs != 0 {
			t.Errorf("%s: %v allocs, want 0", name, allocs)
		}
	}
	run("SeparatorFloor", func(i int) {
		if info, ok, err := r.SeparatorFloor(keys[i]); err != nil || !ok || info.Offset != blocks[i].Offset {
			t.Fatalf("floor %d: %+v %v", i, info, err)
		}
	})
	run("Floor by value", func(i int) {
		if info, _, err := r.Floor(blocks[i].First, bytecomparable.Clustering); err != nil || info.Offset != blocks[i].Offset {
			t.Fatalf("floor %d: %+v %v", i, info, err)
		}
	})
	run("Forward, 3 blocks", func(i int) {
		n := 0
		for r.Forward(keys[i]); n < 3 && r.Next(); n++ {
		}
	})
	run("Reverse, 3 blocks", func(i int) {
		n := 0
		for r.Reverse(keys[i]); n < 3 && r.Next(); n++ {
		}
	})
}
