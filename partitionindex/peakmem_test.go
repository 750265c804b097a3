package partitionindex_test

import (
	"io"
	"runtime"
	"testing"

	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/partitionindex"
)

// TestPeakMemory1M reports the peak heap of building the headline
// set, 1,000,000 Murmur3 UUID keys (workload.MurmurUUID, as the build
// benchmarks), into io.Discard, and checks that it stays far below what
// the keys themselves take: the builder holds the unwritten part of the
// trie, a page and three keys, not the key set. (memory_test.go shows the
// bound does not grow with the key count; this test gives the number at
// the size the performance goals are stated for.)
//
// The heap is sampled every 10,000 keys without forcing a collection (the
// warm builder allocates almost nothing, so what it adds is live), above
// the heap after a collection with the keys loaded.
func TestPeakMemory1M(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and builds 1,000,000 keys; skipped under -short")
	}
	ks, err := workload.NewCatalog().Generated(workload.MurmurUUID(1_000_000), workload.SetMurmurUUID).Keys()
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	sample := func() {
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			peak = max(peak, ms.HeapAlloc-base)
		}
	}
	b := partitionindex.NewBuilder(io.Discard, partitionindex.Options{Partitioner: ks.Keys[0].Partitioner})
	for i, k := range ks.Keys {
		if err := b.Add(&k, ks.Pos[i]); err != nil {
			t.Fatal(err)
		}
		if i%10_000 == 0 {
			sample()
		}
	}
	if _, err := b.Complete(); err != nil {
		t.Fatal(err)
	}
	sample()
	runtime.KeepAlive(b)
	t.Logf("building 1,000,000 Murmur3 UUID keys: peak heap %.2f MiB (%.1f B/key) above the %.1f MiB of loaded keys",
		float64(peak)/(1<<20), float64(peak)/1e6, float64(base)/(1<<20))
	if peak > 32<<20 {
		t.Errorf("peak heap of the builder %.1f MiB, want well below the key set (at most 32 MiB)", float64(peak)/(1<<20))
	}
}
