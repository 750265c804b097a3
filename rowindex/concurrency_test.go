package rowindex_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/rowindex"
)

// TestConcurrentReaders runs one Reader per goroutine over a shared
// Partition (run it with -race): a Partition is immutable, Readers are not
// shared.
func TestConcurrentReaders(t *testing.T) {
	cols, blocks := wideBlocks(3000)
	var out bytes.Buffer
	w := rowindex.NewWriter(&out, rowindex.Options{Columns: cols})
	for _, b := range blocks {
		if err := w.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.FinishPartition([]byte("k"), 0, 1<<40, rowindex.Live)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	p, err := rowindex.OpenPartition(out.Bytes(), res.Value, cols)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := p.NewReader()
			for i := g; i < len(blocks); i += 4 {
				info, _, err := r.Floor(blocks[i].First, bytecomparable.Clustering)
				if err != nil || info.Offset != blocks[i].Offset {
					t.Errorf("goroutine %d block %d: %+v %v", g, i, info, err)
					return
				}
				n := 0
				for r.Reverse(nil); r.Next() && n < 3; n++ {
				}
			}
		}()
	}
	wg.Wait()
}
