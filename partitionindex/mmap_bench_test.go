//go:build unix

package partitionindex_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// BenchmarkLookupMmap runs the three lookups of issue 12 on the memory-mapped
// file (Open), one million Murmur3 UUID keys: get-hit probes every present
// key once per pass in a fixed random order, get-miss and ceiling (the walk
// only: CeilingCandidates) a million distinct absent keys, so no pass is
// served by the caches a previous pass warmed. The probes (Key structs and
// raw bytes) are laid out in probe order, so the input streams from memory
// and the benchmark measures the index.
//
// Besides wall-clock ns/op it reports cpu-ns/op, the benchmark thread's own
// CPU time per lookup (getrusage RUSAGE_THREAD on a locked thread): on a
// shared machine the wall clock also counts the time other processes held
// the core, the thread's CPU time does not. get-hit and get-miss use only
// API that exists at cc421fe, so they run at both ends of an A/B; ceiling
// needs CeilingCandidates (217017b): before it, Ceiling with a nil KeyAt was
// the same walk; since then Ceiling refuses a nil KeyAt (ErrNoKeyAt).
func BenchmarkLookupMmap(b *testing.B) {
	if testing.Short() {
		b.Skip("a million keys: skipped under -short")
	}
	f := mmapFixture(b)
	for _, op := range []string{"get-hit", "get-miss", "ceiling"} {
		b.Run("keys=1000000/set=murmur3-uuid/op="+op+"/threads=1", func(b *testing.B) {
			rd, err := f.ix.OpenReader()
			if err != nil {
				b.Fatal(err)
			}
			defer rd.Close()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			probes := f.absent
			if op == "get-hit" {
				probes = f.hits
			}
			wrong := 0
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := threadCPU(b)
			j := 0
			for range b.N {
				switch op {
				case "get-hit":
					pos, ok, err := rd.Get(&probes[j])
					if err != nil || !ok || pos != f.hitPos[j] {
						wrong++
					}
				case "get-miss":
					if _, _, err := rd.Get(&probes[j]); err != nil {
						wrong++
					}
				default:
					if _, err := rd.CeilingCandidates(&probes[j]); err != nil {
						wrong++
					}
				}
				if j++; j == len(probes) {
					j = 0
				}
			}
			cpu := threadCPU(b) - cpu0
			b.StopTimer()
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			if wrong > 0 {
				b.Fatalf("%d lookups failed", wrong)
			}
		})
	}
}

func threadCPU(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type mmapBench struct {
	ix     *partitionindex.Index
	hits   []partitioner.Key
	hitPos []int64
	absent []partitioner.Key
}

var mmapBenchFixture *mmapBench

func mmapFixture(b *testing.B) *mmapBench {
	if mmapBenchFixture != nil {
		return mmapBenchFixture
	}
	cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 1_000_000, Seed: 7}
	path := filepath.Join(b.TempDir(), "Partitions.db")
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	entries := writeIndex(b, out, cfg)
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	ix, err := partitionindex.Open(path, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ix.Close() })
	absentCfg := cfg
	absentCfg.Seed = 8
	absent, err := absentCfg.Generate()
	if err != nil {
		b.Fatal(err)
	}
	f := &mmapBench{ix: ix}
	f.hits, f.hitPos = layProbes(entries, xorshiftPerm(len(entries)))
	f.absent, _ = layProbes(absent, xorshiftPerm(len(absent)))
	mmapBenchFixture = f
	return f
}

// xorshiftPerm is a fixed random permutation of 0..n-1.
func xorshiftPerm(n int) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	x := uint64(0x9E3779B97F4A7C15)
	for i := n - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// writeIndex generates the keys of cfg and writes their index to w, each
// key at its generated position; it returns the keys. It, layProbes and
// xorshiftPerm build the fixtures of these benchmarks and of the batch
// benchmarks (batch_bench_test.go).
func writeIndex(b *testing.B, w io.Writer, cfg keygen.Config) []keystsv.Entry {
	entries, err := cfg.Generate()
	if err != nil {
		b.Fatal(err)
	}
	bld := partitionindex.NewBuilder(w, partitionindex.Options{Partitioner: cfg.Partitioner})
	for _, e := range entries {
		dk := cfg.Partitioner.Decorate(e.Key)
		if err := bld.Add(&dk, e.Pos); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := bld.Complete(); err != nil {
		b.Fatal(err)
	}
	return entries
}

// layProbes returns the Murmur3 keys of entries in the order perm gives,
// with their raw bytes copied back to back in that order, and their
// positions: the probes stream from memory, so a benchmark measures the
// index, not misses on its input.
func layProbes(entries []keystsv.Entry, perm []int) ([]partitioner.Key, []int64) {
	keys, positions := make([]partitioner.Key, len(perm)), make([]int64, len(perm))
	arena := make([]byte, 0, 16*len(perm))
	for i, j := range perm {
		start := len(arena)
		arena = append(arena, entries[j].Key...)
		keys[i] = partitioner.Murmur3.Decorate(arena[start:len(arena):len(arena)])
		positions[i] = entries[j].Pos
	}
	return keys, positions
}
