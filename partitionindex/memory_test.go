package partitionindex

import (
	"encoding/binary"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// Resources: the builder's memory is bounded by the unwritten part of the
// trie plus three encoded keys, not by the number of keys. Build a large
// ByteOrdered index whose keys share a 4 KiB prefix (so the trie is 4 KiB
// deep and pages fill constantly) into io.Discard, generating the keys on
// the fly, and sample the live heap as it goes.

// measurePeakHeap builds n keys (prefix + 8-byte big-endian counter) and returns
// the largest live heap seen, sampled after a GC every 10,000 keys, above
// the live heap before the builder existed.
func measurePeakHeap(t *testing.T, n int) (peak uint64, took time.Duration) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	start := time.Now()

	prefix := make([]byte, 4096)
	for i := range prefix {
		prefix[i] = byte(i*7 + 1)
	}
	key := make([]byte, len(prefix)+8)
	copy(key, prefix)
	b := NewBuilder(io.Discard, Options{Partitioner: partitioner.ByteOrdered})
	sample := func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			peak = max(peak, ms.HeapAlloc-base)
		}
	}
	for i := range n {
		binary.BigEndian.PutUint64(key[len(prefix):], uint64(i))
		require.NoError(t, addRaw(b, key, int64(i)*131))
		if i%10000 == 0 {
			sample()
		}
	}
	_, err := b.Complete()
	require.NoError(t, err)
	sample()
	took = time.Since(start)
	runtime.KeepAlive(b)
	return peak, took
}

func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 200,000+ keys of 4 KiB; skipped under -short")
	}
	if raceEnabled {
		t.Skip("the race detector changes allocation; skipped under -race")
	}
	large := 200000
	if longTestsRequested() {
		large = 1000000
	}
	small, smallTook := measurePeakHeap(t, 100000)
	big, bigTook := measurePeakHeap(t, large)
	t.Logf("peak live heap: %d keys %.2f MiB (%v), %d keys %.2f MiB (%v)",
		100000, float64(small)/(1<<20), smallTook, large, float64(big)/(1<<20), bigTook)
	require.Less(t, big, uint64(64<<20), "peak heap below 64 MiB")
	// Within 2x (plus 1 MiB of sampling noise) of the 100k peak.
	require.Less(t, big, 2*small+(1<<20), "peak heap grows with the key count")
}
