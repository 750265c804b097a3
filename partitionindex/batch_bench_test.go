//go:build unix

package partitionindex_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// BenchmarkLookupBatchSweep is the lookup-batch sweep: Reader.GetBatch of present keys in
// random order, batch keys per call, every result checked. One op is one
// KEY, so ns/op compares with one-at-a-time Get; batch=1 is that Get loop
// over the same probes (the baseline of the ratio). threads=T runs T
// goroutines, each with its own handle and b.N keys; ns/op is the wall time
// over b.N, as the other lookup benchmarks report it; threads=1 also
// reports cpu-ns/op (see BenchmarkLookupMmap).
func BenchmarkLookupBatchSweep(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, batch := range []int{1, 16, 64} {
			for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
				name := fmt.Sprintf("keys=%d/set=murmur3-uuid/batch=%d/threads=%d", n, batch, threads)
				b.Run(name, func(b *testing.B) {
					if n > 100_000 && testing.Short() {
						b.Skip("a million keys: skipped under -short")
					}
					f := batchFixture(b, n)
					runBatch(b, f, batch, threads)
				})
			}
		}
	}
}

// BenchmarkGetBatchScale compares Get with GetBatch as the index outgrows
// the caches: at a million keys the index (about 11 MB) fits in L3, at ten
// million (about 108 MB) it no longer does on most machines. batch=1 is the
// Get loop; batch=16, 256 and 1000 are the keys per GetBatch call (a
// multi-key read, a merge's run of probes). One op is one key, on one
// thread; cpu-ns/op is that thread's CPU time.
func BenchmarkGetBatchScale(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		for _, batch := range []int{1, 16, 256, 1000} {
			b.Run(fmt.Sprintf("keys=%d/batch=%d", n, batch), func(b *testing.B) {
				if testing.Short() {
					b.Skip("a million keys or more: skipped under -short")
				}
				runBatch(b, batchFixture(b, n), batch, 1)
			})
		}
	}
	// The same 10M-key lookups with the index copied into anonymous memory
	// backed by 2 MiB pages (MADV_HUGEPAGE): how much of the cost beyond
	// L3 is TLB misses (4 KiB pages: one per node step).
	for _, batch := range []int{1, 16, 256, 1000} {
		b.Run(fmt.Sprintf("keys=10000000/pages=huge/batch=%d", batch), func(b *testing.B) {
			if testing.Short() {
				b.Skip("ten million keys: skipped under -short")
			}
			runBatch(b, hugeFixture(b, 10_000_000), batch, 1)
		})
	}
}

var hugeBenches = map[int]*batchBench{}

// hugeFixture is batchFixture(n) with the index in huge pages, when the
// kernel grants them (b.Skip otherwise).
func hugeFixture(b *testing.B, n int) *batchBench {
	if f := hugeBenches[n]; f != nil {
		return f
	}
	f := batchFixture(b, n)
	data := f.data
	const huge = 2 << 20
	m, err := unix.Mmap(-1, 0, (len(data)+huge-1)/huge*huge, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		b.Fatal(err)
	}
	if err := unix.Madvise(m, unix.MADV_HUGEPAGE); err != nil {
		b.Skipf("MADV_HUGEPAGE: %v", err)
	}
	copy(m, data)
	if rollup, err := os.ReadFile("/proc/self/smaps_rollup"); err == nil {
		for _, line := range strings.Split(string(rollup), "\n") {
			if strings.HasPrefix(line, "AnonHugePages:") {
				b.Logf("index of %d bytes in huge pages; process %s", len(data), line)
			}
		}
	}
	ix, err := partitionindex.NewIndex(m[:len(data)], partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
	if err != nil {
		b.Fatal(err)
	}
	hf := &batchBench{ix: ix, data: m[:len(data)], probes: f.probes, want: f.want}
	hugeBenches[n] = hf
	return hf
}

type batchBench struct {
	ix     *partitionindex.Index
	data   []byte            // the index file
	probes []partitioner.Key // present keys, random order, laid out back to back
	want   []int64
}

var batchBenches = map[int]*batchBench{}

func batchFixture(b *testing.B, n int) *batchBench {
	if f := batchBenches[n]; f != nil {
		return f
	}
	var file bytes.Buffer
	entries := writeIndex(b, &file, keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: n, Seed: 7})
	ix, err := partitionindex.NewIndex(file.Bytes(), partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
	if err != nil {
		b.Fatal(err)
	}
	f := &batchBench{ix: ix, data: file.Bytes()}
	f.probes, f.want = layProbes(entries, xorshiftPerm(len(entries)))
	batchBenches[n] = f
	return f
}

func runBatch(b *testing.B, f *batchBench, batch, threads int) {
	readers := make([]*partitionindex.Reader, threads)
	for i := range readers {
		rd, err := f.ix.OpenReader()
		if err != nil {
			b.Fatal(err)
		}
		defer rd.Close()
		readers[i] = rd
	}
	run := func(rd *partitionindex.Reader, start, n int) (wrong int) {
		j := start % len(f.probes)
		results := make([]partitionindex.Result, 0, batch)
		for done := 0; done < n; {
			m := min(batch, n-done, len(f.probes)-j)
			if batch == 1 {
				pos, ok, err := rd.Get(&f.probes[j])
				if err != nil || !ok || pos != f.want[j] {
					wrong++
				}
			} else {
				results = rd.GetBatch(results[:0], f.probes[j:j+m])
				for i, res := range results {
					if res.Err != nil || !res.OK || res.Pos != f.want[j+i] {
						wrong++
					}
				}
			}
			done += m
			if j += m; j == len(f.probes) {
				j = 0
			}
		}
		return wrong
	}
	b.ReportAllocs()
	b.ResetTimer()
	var wrong int
	if threads == 1 {
		// cpu-ns/op as in BenchmarkLookupMmap: the thread's own CPU time
		// (threadCPU, in mmap_bench_test.go).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cpu0 := threadCPU(b)
		wrong = run(readers[0], 0, b.N)
		b.ReportMetric(float64((threadCPU(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	} else {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for t, rd := range readers {
			wg.Go(func() {
				w := run(rd, (t+1)*7919, b.N)
				mu.Lock()
				wrong += w
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	b.StopTimer()
	if wrong > 0 {
		b.Fatalf("%d lookups of present keys did not find their position", wrong)
	}
}
