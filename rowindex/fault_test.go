package rowindex_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/faultsink"
	"github.com/bti-go/bti/internal/refrows"
	"github.com/bti-go/bti/rowindex"
)

// cleanBuild writes the partitions of blocks (each partition the blocks
// [i*per, (i+1)*per)) without faults.
func cleanBuild(t *testing.T, cols []bytecomparable.Column, blocks []rowindex.Block, per int, path buildpath.Path) []byte {
	t.Helper()
	var out bytes.Buffer
	w := refrows.New(path, &out, rowindex.Options{Columns: cols})
	addPartitions(t, w, blocks, per)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// addPartitions adds blocks to w as partitions of per blocks each (key the
// last block's index, ending 1 after it), failing t on any error.
func addPartitions(t *testing.T, w refrows.IndexWriter, blocks []rowindex.Block, per int) {
	t.Helper()
	for i, b := range blocks {
		if err := w.Add(&b); err != nil {
			t.Fatal(err)
		}
		if (i+1)%per == 0 {
			if _, err := w.FinishPartition([]byte{byte(i)}, int64(i), b.Offset+1, rowindex.Live); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestBadBlocks offers, before each good block, blocks the writer must
// refuse with a typed error; the refusals leave no trace in the file.
func TestBadBlocks(t *testing.T) {
	cols, blocks := wideBlocks(300)
	for _, path := range buildpath.All {
		want := cleanBuild(t, cols, blocks, 100, path)
		var out bytes.Buffer
		w := refrows.New(path, &out, rowindex.Options{Columns: cols})
		for i, b := range blocks {
			if i%100 > 0 {
				prev := blocks[i-1]
				bad := []struct {
					block rowindex.Block
					want  error
				}{
					{rowindex.Block{First: prev.First, Last: b.Last, Offset: b.Offset}, rowindex.ErrBlockOrder},            // overlaps the previous block
					{rowindex.Block{First: prev.Last, Last: b.Last, Offset: b.Offset}, rowindex.ErrBlockOrder},             // starts at the previous block's end
					{rowindex.Block{First: b.Last, Last: b.First, Offset: b.Offset}, rowindex.ErrBlockOrder},               // inverted
					{rowindex.Block{First: b.First, Last: b.Last, Offset: prev.Offset}, rowindex.ErrOffset},                // offset not increasing
					{rowindex.Block{First: b.First[:1], Last: b.Last, Offset: b.Offset}, bytecomparable.ErrValue},          // too few components
					{rowindex.Block{First: [][]byte{{1, 2}, {}}, Last: b.Last, Offset: b.Offset}, bytecomparable.ErrValue}, // bigint of 2 bytes
					{rowindex.Block{First: b.First, Last: b.Last, Offset: b.Offset, OpenDeletion: rowindex.Deletion(-1, 0)}, rowindex.ErrDeletion},
				}
				for _, bb := range bad {
					err := w.Add(&bb.block)
					var be *rowindex.BlockError
					if !errors.As(err, &be) || !errors.Is(err, bb.want) || be.Block != i%100 {
						t.Fatalf("%s block %d: got %v, want a *BlockError for block %d matching %v", path, i, err, i%100, bb.want)
					}
				}
			}
			if err := w.Add(&b); err != nil {
				t.Fatal(err)
			}
			if (i+1)%100 == 0 {
				if _, err := w.FinishPartition([]byte{byte(i)}, int64(i), b.Offset, rowindex.Live); !errors.Is(err, rowindex.ErrOffset) {
					t.Fatalf("end position at the last block's offset: %v", err)
				}
				if _, err := w.FinishPartition([]byte{byte(i)}, int64(i), b.Offset+1, rowindex.Live); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%s: refused blocks changed the file", path)
		}
	}
}

// TestFailedWrites builds about 400 KB of row indexes (30 partitions) into a sink that fails a
// third of its writes; every failed call is retried until it succeeds and
// the file equals a clean build's.
func TestFailedWrites(t *testing.T) {
	cols, blocks := wideBlocks(30000)
	for _, path := range buildpath.All {
		t.Run(path.String(), func(t *testing.T) {
			want := cleanBuild(t, cols, blocks, 1000, path)
			sink := faultsink.New(rand.New(rand.NewPCG(1, uint64(path))), 3)
			w := refrows.New(path, sink, rowindex.Options{Columns: cols})
			for i, b := range blocks {
				faultsink.Retry(t, func() error { return w.Add(&b) })
				if (i+1)%1000 == 0 {
					faultsink.Retry(t, func() error {
						_, err := w.FinishPartition([]byte{byte(i)}, int64(i), b.Offset+1, rowindex.Live)
						return err
					})
				}
			}
			faultsink.Retry(t, w.Flush)
			if sink.Fails == 0 {
				t.Fatal("the sink never failed")
			}
			if !bytes.Equal(sink.Out.Bytes(), want) {
				t.Fatalf("after %d failed writes the file differs from a clean build", sink.Fails)
			}
		})
	}
}
