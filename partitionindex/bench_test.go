package partitionindex_test

import (
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitionindex"
)

// The benchmarks are the workloads of internal/workload, the same ones
// "bti bench" runs, under the same names: BenchmarkLookupHit/keys=1000000/
// set=murmur3-uuid/threads=1 here is lookup-hit with those parameters there
// (jmhstyle.BenchName), with the same keys, seeds and probes, so
//
//	go test -run '^$' -bench . -count 6 ./partitionindex/ > gotest.txt
//	bti bench --format benchfmt > bti.txt
//	benchstat gotest.txt bti.txt
//
// compares them line by line (-count 6 gives benchstat a confidence
// interval). Workloads on a million keys skip under -short.
//
// threads=T runs T goroutines, each with its own state, each doing b.N
// operations; ns/op is the wall time over b.N, that is each thread's time
// per operation under contention, as jmhstyle's (and JMH's) average-time
// mode reports it, not b.RunParallel's throughput. B/op and allocs/op are
// divided by all threads' operations.

// benchCatalog is shared by every benchmark of the test binary, so the
// million-key lookup index is built once.
var (
	benchCatalog = workload.NewCatalog()
	benchBad     atomic.Int64 // lookups of present keys that failed
)

func benchSuite() []workload.Workload {
	return workload.Suite(benchCatalog, workload.All, &benchBad)
}

func BenchmarkBuild(b *testing.B)           { runWorkloads(b, "build") }
func BenchmarkNewBuilder(b *testing.B)      { runWorkloads(b, "new-builder") }
func BenchmarkLookupHit(b *testing.B)       { runWorkloads(b, "lookup-hit") }
func BenchmarkLookupMiss(b *testing.B)      { runWorkloads(b, "lookup-miss") }
func BenchmarkCeiling(b *testing.B)         { runWorkloads(b, "ceiling") }
func BenchmarkBinarySearchHit(b *testing.B) { runWorkloads(b, "binary-search-hit") }
func BenchmarkLookupBatch(b *testing.B)     { runWorkloads(b, "lookup-batch") }

// The scale benchmarks (bti bench --size huge): whole builds of 1M, 10M
// and 100M keys streamed from internal/sortedkeys, and cold lookups on
// cached index files of 10M and 100M keys (in $BTI_BENCH_CACHE, default
// bti-bench under the user cache directory; the first run builds them).
// They skip under -short; 100M runs only with BTI_LONG=1:
//
//	BTI_LONG=1 go test -run '^$' -bench 'BuildStream|Cold' -benchtime 1x ./partitionindex/
func BenchmarkBuildStream(b *testing.B)     { runWorkloads(b, "build-stream") }
func BenchmarkLookupHitCold(b *testing.B)   { runWorkloads(b, "lookup-hit-cold") }
func BenchmarkLookupMissCold(b *testing.B)  { runWorkloads(b, "lookup-miss-cold") }
func BenchmarkCeilingCold(b *testing.B)     { runWorkloads(b, "ceiling-cold") }
func BenchmarkLookupBatchCold(b *testing.B) { runWorkloads(b, "lookup-batch-cold") }

// subName is the sub-benchmark name of w on threads threads: its
// parameters and the thread count, key=value, in order.
func subName(w workload.Workload, threads int) string {
	var parts []string
	for _, p := range w.Params {
		parts = append(parts, p.Key+"="+p.Value)
	}
	return strings.Join(append(parts, "threads="+strconv.Itoa(threads)), "/")
}

// checkName fails the benchmark if its name is not the one bti bench
// gives the same workload: the suites must stay comparable.
func checkName(b *testing.B, w workload.Workload, threads int) {
	b.Helper()
	if want := jmhstyle.BenchName(w.Name, w.Params, threads); b.Name() != want {
		b.Fatalf("benchmark named %s, but bti bench names this workload %s", b.Name(), want)
	}
}

func runWorkloads(b *testing.B, name string) {
	found := false
	for _, w := range benchSuite() {
		if w.Name != name || w.Cold {
			continue
		}
		found = true
		for _, threads := range w.Threads {
			b.Run(subName(w, threads), func(b *testing.B) { runWorkload(b, w, threads) })
		}
	}
	if !found {
		b.Fatalf("internal/workload has no workload %q", name)
	}
}

func runWorkload(b *testing.B, w workload.Workload, threads int) {
	checkName(b, w, threads)
	if why := w.SkipReason(testing.Short(), os.Getenv(workload.EnvLong) == "1"); why != "" {
		b.Skip(why)
	}
	if w.SingleShot {
		runSingleShot(b, w)
		return
	}
	ops := make([]func(int), threads)
	for i := range ops {
		ops[i] = setUp(b, w)
	}
	bad := benchBad.Load()
	var before, after runtime.MemStats
	b.ReportAllocs()
	b.ResetTimer()
	if threads == 1 {
		ops[0](b.N)
	} else {
		runtime.ReadMemStats(&before)
		var wg sync.WaitGroup
		for _, op := range ops {
			wg.Go(func() { op(b.N) })
		}
		wg.Wait()
		runtime.ReadMemStats(&after)
	}
	b.StopTimer()
	if threads > 1 {
		total := float64(b.N) * float64(threads)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/total, "B/op")
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/op")
	}
	if n := benchBad.Load() - bad; n > 0 {
		b.Fatalf("%d lookups of present keys did not find their position", n)
	}
	for _, p := range w.Info() {
		if p.Key == "index-bytes" {
			size, _ := strconv.ParseFloat(p.Value, 64)
			if keys, _ := strconv.ParseFloat(paramOf(w, "keys"), 64); keys > 0 {
				b.ReportMetric(size/keys, "B/key")
			}
		}
	}
}

// setUp runs w's Setup and returns its op; the teardown, if any, runs when
// the benchmark ends.
func setUp(b *testing.B, w workload.Workload) func(int) {
	op, teardown, err := w.Setup()
	if err != nil {
		b.Fatal(err)
	}
	if teardown != nil {
		b.Cleanup(teardown)
	}
	return op
}

// runSingleShot runs a single-shot workload (build-stream, the cold
// lookups) as jmhstyle does: each of the b.N iterations is one op(1) of
// OpsPerInvocation operations, after BeforeIteration (untimed). ns/op is
// per operation, as bti bench reports it, and Info's byte counts become
// metrics: B/op and allocs/op per operation too (MemStats deltas around
// each op(1), so the cold lookups' evictions and reopens are not counted),
// B/key from index-bytes, peak-heap-B and peak-live-heap-B, and the cold
// lookups' major-faults/op.
func runSingleShot(b *testing.B, w workload.Workload) {
	op := setUp(b, w)
	bad := benchBad.Load()
	var before, after runtime.MemStats
	var allocBytes, allocs uint64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if w.BeforeIteration != nil {
			if err := w.BeforeIteration(); err != nil {
				b.Fatal(err)
			}
		}
		runtime.ReadMemStats(&before)
		b.StartTimer()
		op(1)
		b.StopTimer()
		runtime.ReadMemStats(&after)
		allocBytes += after.TotalAlloc - before.TotalAlloc
		allocs += after.Mallocs - before.Mallocs
		b.StartTimer()
	}
	b.StopTimer()
	ops := float64(b.N) * float64(max(1, w.OpsPerInvocation))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ops, "ns/op")
	b.ReportMetric(float64(allocBytes)/ops, "B/op")
	b.ReportMetric(float64(allocs)/ops, "allocs/op")
	if n := benchBad.Load() - bad; n > 0 {
		b.Fatalf("%d lookups of present keys did not find their position", n)
	}
	for _, p := range w.Info() {
		v, err := strconv.ParseFloat(p.Value, 64)
		if err != nil {
			continue
		}
		switch p.Key {
		case "index-bytes":
			b.ReportMetric(v/float64(w.OpsPerInvocation), "B/key")
		case "peak-heap-bytes":
			b.ReportMetric(v, "peak-heap-B")
		case "peak-live-heap-bytes":
			b.ReportMetric(v, "peak-live-heap-B")
		case "major-faults-per-op":
			b.ReportMetric(v, "major-faults/op")
		}
	}
}

func paramOf(w workload.Workload, key string) string {
	for _, p := range w.Params {
		if p.Key == key {
			return p.Value
		}
	}
	return ""
}

// coldForkArgs start this test binary as a jmhstyle fork child that runs
// only TestWorkloadFork.
var coldForkArgs = []string{"-test.run=^TestWorkloadFork$", "-test.bench=^$", "-test.count=1"}

// BenchmarkBuildCold runs build-cold as bti bench does: every iteration is
// a fresh process (this test binary re-executed, see TestWorkloadFork)
// that builds the whole index once. ns/op, B/op and allocs/op are per key
// as measured inside the child (so process start-up is not counted),
// alloc-B/key is B/op with decimals, and peak-RSS-B is how much the
// child's resident set grew during the build.
func BenchmarkBuildCold(b *testing.B) {
	for _, w := range benchSuite() {
		if !w.Cold {
			continue
		}
		b.Run(subName(w, 1), func(b *testing.B) {
			checkName(b, w, 1)
			if w.Huge && testing.Short() {
				b.Skip("a million keys: skipped under -short")
			}
			cfg := jmhstyle.Config{Forks: 1, Warmup: -1, Measurement: 1, ForkArgs: coldForkArgs}
			var ns, bytes, allocs, rss float64
			for range b.N {
				rs, err := jmhstyle.Run([]jmhstyle.Benchmark{w.Benchmark}, cfg)
				if err != nil {
					b.Fatal(err)
				}
				r := rs[0]
				ns += r.Score
				bytes += r.BytesPerOp
				allocs += r.AllocsPerOp
				var before, peak float64
				for _, p := range r.Info {
					switch p.Key {
					case "rss-before-bytes":
						before, _ = strconv.ParseFloat(p.Value, 64)
					case "peak-rss-bytes":
						peak, _ = strconv.ParseFloat(p.Value, 64)
					}
				}
				rss += peak - before
			}
			n := float64(b.N)
			b.ReportAllocs() // prints B/op and allocs/op, the values set below
			b.ReportMetric(ns/n, "ns/op")
			b.ReportMetric(bytes/n, "B/op")
			b.ReportMetric(allocs/n, "allocs/op")
			// go test prints B/op as a whole number; the goal is 2 B/key.
			b.ReportMetric(bytes/n, "alloc-B/key")
			if rss > 0 {
				b.ReportMetric(rss/n, "peak-RSS-B")
			}
		})
	}
}

// TestWorkloadFork is the fork hook of BenchmarkBuildCold: in a child
// process started with JMHSTYLE_FORK set it runs the requested workload
// and reports to the parent. In an ordinary test run there is nothing to
// do. (A TestMain hook would serve as well, but the package's tests may
// need their own TestMain.)
func TestWorkloadFork(t *testing.T) {
	if _, ok := os.LookupEnv(jmhstyle.EnvFork); !ok {
		t.Skip("runs only as a fork child of BenchmarkBuildCold")
	}
	var bs []jmhstyle.Benchmark
	for _, w := range benchSuite() {
		bs = append(bs, w.Benchmark)
	}
	jmhstyle.MaybeRunFork(bs)
}

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
