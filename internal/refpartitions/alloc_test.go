package refpartitions

import (
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/bti-go/bti/internal/sortedkeys"
	"github.com/bti-go/bti/partitioner"
)

// TestAddAllocations pins what the reference path allocates per Add on
// Murmur3 keys, so that `bti bench --run path=reference` measures the
// reference way of building and not accidents: the four allocations it is
// written to make (the pending key's and the new key's encodings for the
// comparison, the pending key's again for its cut, and the new key's raw
// bytes) and nothing else. A pending key held by pointer and a payload
// returned from a helper that is not inlined once cost three more (from
// 88af10f; 652ed94 made 4): this test measured 7 allocations and 264.9 B
// per Add at 723c8c8, and 160.9 B with the commit that added it.
func TestAddAllocations(t *testing.T) {
	if instrumented() {
		t.Skip("the race detector and coverage instrumentation allocate")
	}
	// The first 60,000 keys of a million: at that density the trie's
	// branches fill pages and are written as they close, so the trie
	// writer's own share of the bytes stays near what a 1M build costs
	// (a small index keeps its whole trie pending, tens of bytes a key).
	set, err := sortedkeys.New(1_000_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(io.Discard, Options{Partitioner: partitioner.Murmur3})
	var raw [sortedkeys.KeyLen]byte
	i := 0
	add := func() {
		key := set.Key(i, &raw)
		if err := b.Add(&key, set.Pos(i)); err != nil {
			t.Fatal(err)
		}
		i++
	}
	// Warm up: the trie writer's node lists and the output buffer reach
	// their size, so what is left is what every Add allocates.
	for i < 20_000 {
		add()
	}
	if allocs := testing.AllocsPerRun(4_000, add); allocs > 4 {
		t.Errorf("%v allocations per warm Add, want at most 4", allocs)
	}

	// Bytes: three encodings of 28 bytes, grown by append into 48-byte
	// size classes, and the 16 raw bytes: 160 B, and a few more for the
	// trie writer's node lists.
	const end = 60_000
	n := end - i
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i < end {
		add()
	}
	runtime.ReadMemStats(&after)
	if perAdd := float64(after.TotalAlloc-before.TotalAlloc) / float64(n); perAdd > 176 {
		t.Errorf("%.1f B allocated per warm Add, want at most 176", perAdd)
	}
}

// instrumented reports whether counting allocations is meaningless here:
// coverage counters and the race detector allocate themselves. The build
// settings of the test binary say whether it was built with -race.
func instrumented() bool {
	if testing.CoverMode() != "" {
		return true
	}
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(bi.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}
