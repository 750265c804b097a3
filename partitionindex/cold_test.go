package partitionindex

import (
	"io"
	"runtime"
	"testing"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/partitioner"
)

// A cold build (a fresh builder, as `bti build` runs it) allocates its
// working set once; it must not grow with the key count. Pinned at 2 MB in
// all, which is the 2 bytes per key that issue 12 asks of a 1M-key build.
// It builds the 1M keys in every full run (under a second): at 200K keys a
// writer change that cost 2.36 B/key at 1M still passed (1.92 MB), and the
// 1M case only ran under BTI_LONG=1 (stop 27, reverted in dcfecc8).
func TestColdBuildAllocations(t *testing.T) {
	if testing.Short() || raceEnabled || testing.CoverMode() != "" {
		t.Skip("builds 1,000,000 keys; skipped under -short, -race and -cover")
	}
	const n = 1_000_000
	keys, err := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: n, Seed: 1}.Keys()
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b := NewBuilder(io.Discard, Options{})
	for i, k := range keys {
		if err := b.Add(&k, int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Complete(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	total := after.TotalAlloc - before.TotalAlloc
	t.Logf("cold build of %d keys: %d bytes (%.2f B/key), %d allocations", n, total, float64(total)/float64(n), after.Mallocs-before.Mallocs)
	if total > 2_000_000 {
		t.Errorf("cold build allocates %d bytes, want <= 2,000,000", total)
	}
}

// A small index keeps its whole trie pending until the root closes (no
// branch fills a page before that), so a fresh builder's allocation is its
// working set: about 16 bytes per leaf slot, 8 per child ref and 32 per
// node, plus the output buffer. Grown by append's quarter steps it was
// about 144 B/key; grown in chunks and by doubling, about 57. Pinned at 64
// B/key for a 16,384-key ByteOrdered blob set shaped like the build-cold
// benchmark's (8..24-byte keys, another seed).
func TestColdSmallBuildAllocations(t *testing.T) {
	skipIfAllocsInstrumented(t)
	const n = 16384
	keys, err := keygen.Config{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: n, Seed: 1,
		KeyLenMin: 8, KeyLenMax: 24}.Keys()
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b := NewBuilder(io.Discard, Options{Partitioner: partitioner.ByteOrdered})
	for i, k := range keys {
		if err := b.Add(&k, int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	meta, err := b.Complete()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	total := after.TotalAlloc - before.TotalAlloc
	perKey := float64(total) / n
	t.Logf("cold build of %d ByteOrdered keys (%d-byte index): %d bytes (%.1f B/key), %d allocations", n, meta.Size, total, perKey, after.Mallocs-before.Mallocs)
	if perKey > 64 {
		t.Errorf("cold build allocates %.1f B/key, want <= 64", perKey)
	}
}
