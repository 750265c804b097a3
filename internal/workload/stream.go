package workload

import (
	"math"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bti-go/bti/internal/sortedkeys"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// SetMurmurSorted16 names the streamed sets ("set" parameter): 16-byte
// Murmur3 keys from internal/sortedkeys, generated in order, never held.
const SetMurmurSorted16 = "murmur3-sorted16"

// StreamSeed seeds the streamed sets. Changing it changes every number
// measured on them and the name of their cached index files.
const StreamSeed = 1

// ScaleBuildSizes and ScaleLookupSizes are the streamed set sizes of the
// scale benchmarks (--size huge): the cost curve of builds and lookups
// far beyond what fits in memory as a key list.
var (
	ScaleBuildSizes  = []int{1_000_000, 10_000_000, 100_000_000}
	ScaleLookupSizes = []int{10_000_000, 100_000_000}
)

// LongKeys is the size from which a streamed set runs in go test only
// under BTI_LONG=1.
const LongKeys = 100_000_000

// Streamed returns the streamed set of n keys. Its parameters are keys
// and set.
func (c *Catalog) Streamed(n int) *Set {
	params := []jmhstyle.Param{{Key: "keys", Value: strconv.Itoa(n)}, {Key: "set", Value: SetMurmurSorted16}}
	return c.set(params, n, StreamSeed, n >= 1_000_000, func(s *Set) {
		s.Gen, s.genErr = sortedkeys.New(n, StreamSeed)
		s.Long = n >= LongKeys
		s.part = partitioner.Murmur3
	})
}

// countingSink discards what the builder writes and counts it, so a
// build of any size holds nothing of the index.
type countingSink struct{ n int64 }

func (w *countingSink) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// heapSampleKeys is how often (in keys) build-stream samples the heap: at
// about 100 ns a key, every 6 ms, cheap against the 65,536 Add calls
// between samples, and often enough to see a growth that is linear in the
// keys long before the end.
const heapSampleKeys = 1 << 16

// generatorCost returns the mean ns of Key and Pos over gen's first 2^20
// keys (all of them if fewer): the part of build-stream's ns/key that is
// not the builder's.
func generatorCost(gen *sortedkeys.Set) uint64 {
	n := min(gen.Count(), 1<<20)
	var raw [sortedkeys.KeyLen]byte
	var sum int64
	start := time.Now()
	for i := range n {
		sum += gen.Key(i, &raw).Token ^ gen.Pos(i)
	}
	ns := float64(time.Since(start).Nanoseconds()) / float64(n)
	runtime.KeepAlive(sum) // the keys must be computed, not optimised away
	return math.Float64bits(ns)
}

// heapMetrics are the two heap sizes build-stream samples (runtime/metrics,
// no stop-the-world): the bytes of heap objects, live or not yet swept,
// and the live heap as the last GC marked it.
var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/gc/heap/live:bytes"}

// heapPeaks tracks the largest values of heapMetrics.
type heapPeaks struct {
	samples               []metrics.Sample
	objects, live         uint64 // peaks
	baseObjects, baseLive uint64
}

func newHeapPeaks() *heapPeaks {
	h := &heapPeaks{samples: make([]metrics.Sample, len(heapMetrics))}
	for i, name := range heapMetrics {
		h.samples[i].Name = name
	}
	return h
}

// start takes the baseline (the runner collected garbage just before the
// iteration, so the live heap is then exact).
func (h *heapPeaks) start() {
	metrics.Read(h.samples)
	h.baseObjects, h.baseLive = h.samples[0].Value.Uint64(), h.samples[1].Value.Uint64()
	h.objects, h.live = h.baseObjects, h.baseLive
}

func (h *heapPeaks) sample() {
	metrics.Read(h.samples)
	h.objects = max(h.objects, h.samples[0].Value.Uint64())
	h.live = max(h.live, h.samples[1].Value.Uint64())
}

// BuildStream measures building a whole index of a streamed set: every
// iteration is one op(1) (single shot) that adds all Count keys, as the
// generator yields them, with Add to a fresh (Reset) builder and
// calls Complete, writing into a sink that only counts bytes; ns/op is per
// key (OpsPerInvocation is Count) and includes the generator's cost and
// Complete. Nothing
// held grows with the set, so what the heap holds is the builder's own.
//
// Info adds generator-ns-per-key, the generator's own cost per key (Key
// and Pos of the first 2^20 keys, timed in Setup, so it can be subtracted:
// the same machine, the same moment), index-bytes, and peaks over all
// iterations, each a rise over its value at the start of a build, sampled
// every 65,536 keys and after Complete (runtime/metrics):
//
//   - peak-heap-bytes, of /memory/classes/heap/objects:bytes: an upper
//     bound on what the builder holds, since garbage counts until it is
//     swept, so it reads up to the GC's 4 MB minimum heap target even
//     for a builder that holds little;
//   - peak-live-heap-bytes, of /gc/heap/live:bytes, the heap the last GC
//     found live: what the builder holds as of each GC during the build
//     (0 if it allocated too little to start one);
//   - on Linux, peak-rss-bytes and rss-before-bytes, the kernel's
//     resident-set high-water mark (reset at the start of the build) and
//     the resident set then.
func BuildStream(set *Set) jmhstyle.Benchmark {
	var indexBytes, peakHeap, peakLive, rssBefore, peakRSS atomic.Int64
	var genNs atomic.Uint64 // float64 bits
	gen := set.Gen
	bm := wholeBuild("build-stream", set)
	bm.Setup = func() (func(n int), func(), error) {
		if set.genErr != nil {
			return nil, nil, set.genErr
		}
		genNs.Store(generatorCost(gen))
		opts := partitionindex.Options{Partitioner: partitioner.Murmur3}
		sink := &countingSink{}
		b := partitionindex.NewBuilder(sink, opts)
		heap := newHeapPeaks()
		var raw [sortedkeys.KeyLen]byte
		op := func(int) {
			sink.n = 0
			b.Reset(sink, opts)
			before, rssOK := resetPeakRSS()
			heap.start()
			for i := range gen.Count() {
				k := gen.Key(i, &raw)
				if err := b.Add(&k, gen.Pos(i)); err != nil {
					panic(err) // the generator's keys increase: a bug
				}
				if i%heapSampleKeys == heapSampleKeys-1 {
					heap.sample()
				}
			}
			if _, err := b.Complete(); err != nil {
				panic(err)
			}
			heap.sample()
			indexBytes.Store(sink.n)
			if rise := int64(heap.objects - heap.baseObjects); rise > peakHeap.Load() {
				peakHeap.Store(rise)
			}
			if rise := int64(heap.live - heap.baseLive); rise > peakLive.Load() {
				peakLive.Store(rise)
			}
			if rssOK {
				if p, ok := readStatusBytes("VmHWM:"); ok && p > peakRSS.Load() {
					rssBefore.Store(before)
					peakRSS.Store(p)
				}
			}
		}
		return op, nil, nil
	}
	bm.Info = func() []jmhstyle.Param {
		info := set.info()
		for _, m := range []struct {
			key string
			v   *atomic.Int64
		}{{"index-bytes", &indexBytes}, {"peak-heap-bytes", &peakHeap}, {"peak-live-heap-bytes", &peakLive}, {"rss-before-bytes", &rssBefore}, {"peak-rss-bytes", &peakRSS}} {
			if n := m.v.Load(); n > 0 || strings.HasPrefix(m.key, "peak-") && m.key != "peak-rss-bytes" {
				info = append(info, jmhstyle.Param{Key: m.key, Value: strconv.FormatInt(n, 10)})
			}
		}
		if ns := math.Float64frombits(genNs.Load()); ns > 0 {
			info = append(info, jmhstyle.Param{Key: "generator-ns-per-key", Value: strconv.FormatFloat(ns, 'f', 1, 64)})
		}
		return info
	}
	return bm
}
