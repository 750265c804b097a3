package partitionindex

import (
	"io"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/partitioner"
)

// A fresh builder for a tiny index (an sstable with one partition is
// common: flushes of small tables, streaming) must be cheap: at most 8
// allocations and 8 KiB from NewBuilder to a completed one-key index.
func TestOneKeyIndexIsCheap(t *testing.T) {
	if raceEnabled || testing.CoverMode() != "" {
		t.Skip("the race detector and coverage instrumentation allocate")
	}
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
