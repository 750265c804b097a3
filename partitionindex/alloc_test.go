package partitionindex

import (
	"io"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/partitioner"
)

// The zero-allocation promise, pinned: once a builder has built an index of
// the same shape (its node arena, ring slots and output buffer are warm),
// Add allocates nothing; lookups never allocate.

// skipIfAllocsInstrumented skips an allocation count where the race
// detector or coverage instrumentation allocate themselves.
func skipIfAllocsInstrumented(t *testing.T) {
	t.Helper()
	if raceEnabled || testing.CoverMode() != "" {
		t.Skip("the race detector and coverage instrumentation allocate")
	}
}

func TestAddAllocatesNothingWhenWarm(t *testing.T) {
	skipIfAllocsInstrumented(t)
	for _, cfg := range []keygen.Config{
		{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 20_000, Seed: 1},
		{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: 5_000, Seed: 2, PrefixBytes: 64, KeyLenMin: 1, KeyLenMax: 40},
	} {
		t.Run(cfg.Partitioner.String(), func(t *testing.T) {
			keys, err := cfg.Keys()
			require.NoError(t, err)
			opts := Options{Partitioner: cfg.Partitioner}
			b := NewBuilder(io.Discard, opts)
			build := func() {
				for i, k := range keys {
					require.NoError(t, b.Add(&k, int64(i)))
				}
				_, err := b.Complete()
				require.NoError(t, err)
				b.Reset(io.Discard, opts)
			}
			build() // warm up: the arena and buffers reach their peak size
			i := 0
			allocs := testing.AllocsPerRun(len(keys)-1, func() {
				if err := b.Add(&keys[i], int64(i)); err != nil {
					t.Fatal(err)
				}
				i++
			})
			require.Zero(t, allocs, "allocations per Add on a warm builder")
		})
	}
}

func TestLookupsAllocateNothing(t *testing.T) {
	skipIfAllocsInstrumented(t)
	cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 5_000, Seed: 3}
	keys, err := cfg.Keys()
	require.NoError(t, err)
	_, r := openIndexReader(t, buildKeys(t, keys, Options{Partitioner: partitioner.Murmur3}), partitioner.Murmur3)
	absent := partitioner.Murmur3.Decorate([]byte("absent key"))
	// Positions are key numbers; the caller's data file is keys.
	keyAt := KeyAt(func(pos int64) ([]byte, error) { return keys[pos].Raw, nil })
	i := 0
	var enc []byte
	ops := map[string]func(){
		"get":                func() { _, _, _ = r.Get(&keys[i%len(keys)]) },
		"miss":               func() { _, _, _ = r.Get(&absent) },
		"ceiling":            func() { _, _, _ = r.Ceiling(&keys[i%len(keys)], keyAt) },
		"floor":              func() { _, _, _ = r.Floor(&keys[i%len(keys)], keyAt) },
		"ceiling-candidates": func() { _, _ = r.CeilingCandidates(&keys[i%len(keys)]) },
		"floor-candidates":   func() { _, _ = r.FloorCandidates(&keys[i%len(keys)]) },
		"first":              func() { _, _, _ = r.First() },
		"scan": func() {
			it := r.Scan(&keys[i%len(keys)], nil)
			for n := 0; n < 10 && it.Next(); n++ {
			}
		},
		"scan-reverse": func() {
			it := r.ScanReverse(nil, &keys[i%len(keys)])
			for n := 0; n < 10 && it.Next(); n++ {
			}
		},
		"scan-reverse-from": func() {
			it := r.ScanReverse(&keys[i%len(keys)], nil)
			for n := 0; n < 10 && it.Next(); n++ {
			}
		},
		"scan-encoded": func() {
			enc = keys[i%len(keys)].AppendComparable(enc[:0])
			it := r.ScanReverseEncoded(enc, nil)
			for n := 0; n < 10 && it.Next(); n++ {
			}
		},
	}
	for name, op := range ops {
		op() // warm the handle's scratch and iterator stacks
		allocs := testing.AllocsPerRun(200, func() { op(); i++ })
		require.Zero(t, allocs, "allocations per %s", name)
	}
}

// A fresh builder for a tiny index (an sstable with one partition is
// common: flushes of small tables, streaming) must be cheap: at most 8
// allocations and 8 KiB from NewBuilder to a completed one-key index.
func TestOneKeyIndexIsCheap(t *testing.T) {
	skipIfAllocsInstrumented(t)
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		t.Run(p.String(), func(t *testing.T) {
			key := p.Decorate([]byte("the only partition"))
			build := func() {
				b := NewBuilder(io.Discard, Options{Partitioner: p})
				if err := b.Add(&key, 42); err != nil {
					t.Fatal(err)
				}
				if _, err := b.Complete(); err != nil {
					t.Fatal(err)
				}
			}
			allocs := testing.AllocsPerRun(100, build)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			const runs = 100
			for range runs {
				build()
			}
			runtime.ReadMemStats(&after)
			perBuild := (after.TotalAlloc - before.TotalAlloc) / runs
			t.Logf("%v: %.0f allocations, %d bytes per one-key index", p, allocs, perBuild)
			require.LessOrEqual(t, allocs, 8.0, "allocations")
			require.LessOrEqual(t, perBuild, uint64(8<<10), "bytes")
		})
	}
}
