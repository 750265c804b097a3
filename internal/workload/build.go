package workload

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/refpartitions"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// Build measures building per key: op(n) adds the next n keys of the set
// with Add (keys decorated beforehand, as an SSTable writer hands the
// builder decorated keys) and, whenever the set is exhausted, calls
// Complete and starts a new index (Reset) in the same in-memory sink. So
// ns/op, B/op and allocs/op are per key, with Complete and the writes
// amortised: the warm, steady-state cost. Params: the set's, then path.
// Info adds index-bytes, the size of the last completed index.
func Build(set *Set, path buildpath.Path) jmhstyle.Benchmark {
	var indexBytes atomic.Int64
	return jmhstyle.Benchmark{
		Name:   "build",
		Params: set.withPath(path),
		Setup: func() (func(n int), func(), error) {
			ks, err := set.Keys()
			if err != nil {
				return nil, nil, err
			}
			sink := newSink(ks)
			b := NewPathBuilder(sink, partitionindex.Options{Partitioner: ks.Keys[0].Partitioner}, path)
			next := 0
			op := func(n int) {
				for range n {
					if err := b.Add(&ks.Keys[next], ks.Pos[next]); err != nil {
						panic(err) // the keys were checked when loaded: a bug
					}
					if next++; next == len(ks.Keys) {
						if _, err := b.Complete(); err != nil {
							panic(err)
						}
						indexBytes.Store(int64(sink.Len()))
						next = 0
						sink.Reset()
						b.Reset(sink)
					}
				}
			}
			return op, nil, nil
		},
		Info: func() []jmhstyle.Param {
			info := set.info()
			if n := indexBytes.Load(); n > 0 {
				info = append(info, jmhstyle.Param{Key: "index-bytes", Value: strconv.FormatInt(n, 10)})
			}
			return info
		},
	}
}

// PathBuilder is a Partitions.db builder on either path (internal/buildpath):
// the production partitionindex.Builder, or the reference builder of
// internal/refpartitions. The build workloads and `bti build --path` drive
// it. Its methods branch on the path and call the builder directly (a
// predictable branch, where an interface would make every Add an indirect
// call).
type PathBuilder struct {
	opts    partitionindex.Options
	scratch *partitionindex.Builder
	ref     *refpartitions.Builder
}

// NewPathBuilder returns a builder on path writing to w.
func NewPathBuilder(w io.Writer, opts partitionindex.Options, path buildpath.Path) *PathBuilder {
	b := &PathBuilder{opts: opts}
	if path == buildpath.Reference {
		b.ref = refpartitions.NewBuilder(w, refpartitions.Options(opts))
	} else {
		b.scratch = partitionindex.NewBuilder(w, opts)
	}
	return b
}

// Add is partitionindex.Builder.Add.
func (b *PathBuilder) Add(key *partitioner.Key, pos int64) error {
	if b.ref != nil {
		return b.ref.Add(key, pos)
	}
	return b.scratch.Add(key, pos)
}

// Complete is partitionindex.Builder.Complete.
func (b *PathBuilder) Complete() (partitionindex.Metadata, error) {
	if b.ref != nil {
		m, err := b.ref.Complete()
		return partitionindex.Metadata(m), err
	}
	return b.scratch.Complete()
}

// BuildPartialSynced is partitionindex.Builder.BuildPartialSynced.
func (b *PathBuilder) BuildPartialSynced(rowIndexEnd, dataEnd int64) (*partitionindex.PartialIndex, error) {
	if b.ref != nil {
		v, err := b.ref.BuildPartialSynced(rowIndexEnd, dataEnd)
		return (*partitionindex.PartialIndex)(v), err
	}
	return b.scratch.BuildPartialSynced(rowIndexEnd, dataEnd)
}

// Reset starts a new index on w with the same options.
func (b *PathBuilder) Reset(w io.Writer) {
	if b.ref != nil {
		b.ref.Reset(w, refpartitions.Options(b.opts))
		return
	}
	b.scratch.Reset(w, b.opts)
}

// withPath returns the set's params with the builder path appended, the
// params of every build workload.
func (s *Set) withPath(path buildpath.Path) []jmhstyle.Param {
	return append(slices.Clone(s.Params), jmhstyle.Param{Key: "path", Value: path.String()})
}

// wholeBuild is what BuildCold and BuildStream share: an invocation builds
// one whole index of set on the scratch path, timed once (SingleShot) and
// reported per key (OpsPerInvocation is the set's size). The caller adds
// Setup and Info.
func wholeBuild(name string, set *Set) jmhstyle.Benchmark {
	return jmhstyle.Benchmark{
		Name:             name,
		Params:           set.withPath(buildpath.Scratch),
		SingleShot:       true,
		OpsPerInvocation: set.Count,
	}
}

// newSink returns an output buffer large enough for the whole index, so
// growing it is not measured (bti build does the same).
func newSink(ks *Keys) *bytes.Buffer {
	sink := new(bytes.Buffer)
	sink.Grow(16*len(ks.Keys) + int(ks.Raw/4) + 1<<17)
	return sink
}

// BuildCold measures what "bti build" pays: one whole index from a fresh
// Builder, once per process (jmhstyle SingleShot), reported per key
// (OpsPerInvocation = the set size). The keys are loaded and the output
// buffer reserved (but not touched) in Setup, as bti build does before its
// clock starts; the builder's allocations, its page faults and cold caches
// are measured. Run it in fresh processes, one iteration each, without
// warmup: a second iteration in the same process is no longer cold.
//
// Info adds peak-rss-bytes and rss-before-bytes (Linux only): the peak
// resident set during the build (the kernel's high-water mark, reset just
// before it) and the resident set just before it, so their difference is
// what the build added.
func BuildCold(set *Set) jmhstyle.Benchmark {
	var rssBefore, peakRSS atomic.Int64
	bm := wholeBuild("build-cold", set)
	bm.Setup = func() (func(n int), func(), error) {
		ks, err := set.Keys()
		if err != nil {
			return nil, nil, err
		}
		if len(ks.Keys) != set.Count {
			return nil, nil, fmt.Errorf("set of %d keys, %d expected", len(ks.Keys), set.Count)
		}
		opts := partitionindex.Options{Partitioner: ks.Keys[0].Partitioner}
		sink := newSink(ks)
		op := func(int) {
			before, peakOK := resetPeakRSS()
			b := partitionindex.NewBuilder(sink, opts)
			for i := range ks.Keys {
				if err := b.Add(&ks.Keys[i], ks.Pos[i]); err != nil {
					panic(err)
				}
			}
			if _, err := b.Complete(); err != nil {
				panic(err)
			}
			if peakOK {
				if peak, ok := readStatusBytes("VmHWM:"); ok {
					rssBefore.Store(before)
					peakRSS.Store(peak)
				}
			}
			sink.Reset()
		}
		return op, nil, nil
	}
	bm.Info = func() []jmhstyle.Param {
		info := set.info()
		if p := peakRSS.Load(); p > 0 {
			info = append(info,
				jmhstyle.Param{Key: "rss-before-bytes", Value: strconv.FormatInt(rssBefore.Load(), 10)},
				jmhstyle.Param{Key: "peak-rss-bytes", Value: strconv.FormatInt(p, 10)})
		}
		return info
	}
	return bm
}

// NewBuilder measures creating a fresh Builder and building a one-key
// index with it: the fixed cost a caller pays per small index (an SSTable
// with one partition) when it does not reuse builders. B/op and allocs/op
// are the point; params: keys=1, set and path.
func NewBuilder(set *Set) jmhstyle.Benchmark {
	return jmhstyle.Benchmark{
		Name:   "new-builder",
		Params: set.withPath(buildpath.Scratch),
		Setup: func() (func(n int), func(), error) {
			ks, err := set.Keys()
			if err != nil {
				return nil, nil, err
			}
			opts := partitionindex.Options{Partitioner: ks.Keys[0].Partitioner}
			sink := newSink(ks)
			op := func(n int) {
				for range n {
					sink.Reset()
					b := partitionindex.NewBuilder(sink, opts)
					if err := b.Add(&ks.Keys[0], ks.Pos[0]); err != nil {
						panic(err)
					}
					if _, err := b.Complete(); err != nil {
						panic(err)
					}
				}
			}
			return op, nil, nil
		},
		Info: set.info,
	}
}
