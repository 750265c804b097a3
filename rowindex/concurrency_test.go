package rowindex_test

import (
	"sync"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
)

// TestConcurrentReaders runs one Reader per goroutine over a shared
// Partition (run it with -race): a Partition is immutable, Readers are not
// shared.
func TestConcurrentReaders(t *testing.T) {
	_, blocks, p := widePartition(t, 3000, "k")
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
