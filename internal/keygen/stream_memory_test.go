package keygen

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/bti-go/bti/partitioner"
)

// streamHeap streams c with the given Memory and returns the largest live
// heap seen above the heap before (sampled after a GC every 8192 keys
// emitted, while the sort's arena and entries are still held) and all the
// bytes allocated on the way.
func streamHeap(t *testing.T, c Config, memory int64) (peak, total uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, alloc0 := ms.HeapAlloc, ms.TotalAlloc
	sample := func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			peak = max(peak, ms.HeapAlloc-base)
		}
	}
	n := 0
	err := c.Stream(context.Background(), StreamOptions{Dir: t.TempDir(), Memory: memory}, func([]byte, int64) error {
		if n%8192 == 0 {
			sample()
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sample()
	runtime.ReadMemStats(&ms)
	return peak, ms.TotalAlloc - alloc0
}

// TestStreamMemoryBounded: with the set spilled, Stream's live heap and
// even all it allocates stay put as the count grows eightfold: it holds a
// sort's worth (Memory/2) and the buckets' buffers, never the set.
func TestStreamMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 400,000+ keys; skipped under -short")
	}
	const memory = 1 << 20
	small, large := 50_000, 400_000
	if os.Getenv("BTI_LONG") == "1" {
		large = 4_000_000
	}
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		c := Config{Partitioner: p, Kind: Int64, Seed: 1}
		c.Count = small
		smallPeak, smallTotal := streamHeap(t, c, memory)
		c.Count = large
		bigPeak, bigTotal := streamHeap(t, c, memory)
		t.Logf("%v: %d keys: peak %.2f MiB, allocated %.2f MiB; %d keys: peak %.2f MiB, allocated %.2f MiB",
			p, small, float64(smallPeak)/(1<<20), float64(smallTotal)/(1<<20), large, float64(bigPeak)/(1<<20), float64(bigTotal)/(1<<20))
		if bigPeak > 2*memory {
			t.Errorf("%v: peak live heap %d bytes for %d keys, above 2*Memory", p, bigPeak, large)
		}
		if bigPeak > 2*smallPeak+(1<<20) {
			t.Errorf("%v: peak live heap grows with the count: %d bytes for %d keys, %d for %d", p, bigPeak, large, smallPeak, small)
		}
		// Keys in memory would allocate at least 16 bytes a key.
		if bigTotal > 4*memory {
			t.Errorf("%v: allocated %d bytes for %d keys: more than a few sorts' worth", p, bigTotal, large)
		}
	}
}
