package workload

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/jmhstyle"
)

// Workload is one benchmark of the suite with how to schedule it.
type Workload struct {
	jmhstyle.Benchmark
	// Threads are the thread counts to run it with: 1 for builds, 1 and
	// GOMAXPROCS for lookups.
	Threads []int
	// Huge workloads (a million keys) are skipped under go test -short.
	Huge bool
	// Long workloads (10^8 keys: minutes, and a cached index file of
	// about 1 GB) run in go test only under BTI_LONG=1.
	Long bool
	// Cold workloads are single-shot and must run in fresh processes, one
	// measured iteration per process and no warmup.
	Cold bool
}

// Size selects the built-in key sets.
type Size string

const (
	// Small is quick: builds on 10,000 Murmur3 keys and the three
	// ByteOrdered prefix sets, lookups on 100,000 keys, the cold build on
	// the prefix-0 set.
	Small Size = "small"
	// Default holds the rows of the performance goals: builds on 10,000,
	// 100,000 and 1,000,000 Murmur3 keys and the prefix sets, cold builds
	// on 1,000,000 Murmur3 keys and the prefix-0 set, lookups on 1,000,000
	// keys.
	Default Size = "default"
	// Huge is the scale benchmarks (ScaleBuilds, ScaleLookups): whole
	// builds of 1, 10 and 100 million streamed keys, and lookups on cached
	// index files of 10 and 100 million keys, none of them held in memory.
	Huge Size = "huge"
	// All is what go test runs: the union of Small, Default and Huge
	// (huge workloads skip under -short, long ones without BTI_LONG=1).
	All Size = "all"
)

// ParseSize parses "small", "default" or "all"; "large" is accepted as
// Default, which it was before the 1M build became a default row.
func ParseSize(s string) (Size, error) {
	switch s {
	case "small", "default", "huge", "all":
		return Size(s), nil
	case "large":
		return Default, nil
	}
	return "", fmt.Errorf("unknown size %q (want small, default, huge or all)", s)
}

// buildSizes are the Murmur3 build set sizes of each Size.
func buildSizes(size Size) []int {
	switch size {
	case Small:
		return []int{10_000}
	default:
		return []int{10_000, 100_000, 1_000_000}
	}
}

// BlobPrefixes are the shared-prefix lengths of the ByteOrdered sets.
var BlobPrefixes = []int{0, 64, 4096}

// BuildSets returns the key sets the build workload runs on.
func BuildSets(c *Catalog, size Size) []*Set {
	var sets []*Set
	for _, n := range buildSizes(size) {
		sets = append(sets, c.Generated(MurmurUUID(n), SetMurmurUUID))
	}
	for _, p := range BlobPrefixes {
		sets = append(sets, c.Generated(PrefixBlob(p), SetByteOrderedBlob))
	}
	return sets
}

// ColdSets returns the key sets the cold build runs on.
func ColdSets(c *Catalog, size Size) []*Set {
	sets := []*Set{c.Generated(PrefixBlob(0), SetByteOrderedBlob)}
	if size != Small {
		sets = append([]*Set{c.Generated(MurmurUUID(1_000_000), SetMurmurUUID)}, sets...)
	}
	return sets
}

// LookupSets returns the key sets the lookups run on.
func LookupSets(c *Catalog, size Size) []*Set {
	switch size {
	case Small:
		return []*Set{c.Generated(MurmurUUID(100_000), SetMurmurUUID)}
	case Default:
		return []*Set{c.Generated(MurmurUUID(1_000_000), SetMurmurUUID)}
	}
	return []*Set{c.Generated(MurmurUUID(100_000), SetMurmurUUID), c.Generated(MurmurUUID(1_000_000), SetMurmurUUID)}
}

// BuildWorkloads returns build (every set and path), build-cold and
// new-builder on the given sets.
func BuildWorkloads(c *Catalog, builds, cold []*Set) []Workload {
	var ws []Workload
	for _, s := range builds {
		for _, p := range buildpath.All {
			ws = append(ws, Workload{Benchmark: Build(s, p), Threads: []int{1}, Huge: s.Huge})
		}
	}
	for _, s := range cold {
		ws = append(ws, Workload{Benchmark: BuildCold(s), Threads: []int{1}, Huge: s.Huge, Cold: true})
	}
	one := c.Generated(MurmurUUID(1), SetMurmurUUID)
	return append(ws, Workload{Benchmark: NewBuilder(one), Threads: []int{1}})
}

// LookupWorkloads returns the lookups (see Lookups) on the given sets, each
// on one thread and on GOMAXPROCS threads.
func LookupWorkloads(sets []*Set, bad *atomic.Int64) []Workload {
	threads := []int{1}
	if n := runtime.GOMAXPROCS(0); n > 1 {
		threads = append(threads, n)
	}
	var ws []Workload
	for _, s := range sets {
		for _, b := range Lookups(s, bad) {
			ws = append(ws, Workload{Benchmark: b, Threads: threads, Huge: s.Huge, Long: s.Long})
		}
	}
	return ws
}

// ScaleBuilds returns build-stream on the streamed sets of
// ScaleBuildSizes.
func ScaleBuilds(c *Catalog) []Workload {
	var ws []Workload
	for _, n := range ScaleBuildSizes {
		s := c.Streamed(n)
		ws = append(ws, Workload{Benchmark: BuildStream(s), Threads: []int{1}, Huge: s.Huge, Long: s.Long})
	}
	return ws
}

// ScaleLookups returns the lookups on the cached index files of the
// streamed sets of ScaleLookupSizes, and with cold their cold variants.
func ScaleLookups(c *Catalog, bad *atomic.Int64, cold bool) []Workload {
	var sets []*Set
	for _, n := range ScaleLookupSizes {
		sets = append(sets, c.Streamed(n))
	}
	ws := LookupWorkloads(sets, bad)
	if cold {
		ws = append(ws, ColdLookupWorkloads(sets, bad)...)
	}
	return ws
}

// ColdLookupWorkloads returns ColdLookups on the given sets (index files),
// on one thread.
func ColdLookupWorkloads(sets []*Set, bad *atomic.Int64) []Workload {
	var ws []Workload
	for _, s := range sets {
		for _, b := range ColdLookups(s, bad) {
			ws = append(ws, Workload{Benchmark: b, Threads: []int{1}, Huge: s.Huge, Long: s.Long})
		}
	}
	return ws
}

// Suite returns every workload of size: builds, then lookups (for All,
// then the scale workloads, cold lookups included).
func Suite(c *Catalog, size Size, bad *atomic.Int64) []Workload {
	if size == Huge {
		return append(ScaleBuilds(c), ScaleLookups(c, bad, false)...)
	}
	ws := append(BuildWorkloads(c, BuildSets(c, size), ColdSets(c, size)), LookupWorkloads(LookupSets(c, size), bad)...)
	if size == All {
		ws = append(append(ws, ScaleBuilds(c)...), ScaleLookups(c, bad, true)...)
	}
	return ws
}

// EnvLong is the environment variable that, set to 1, lets go test run
// the long workloads.
const EnvLong = "BTI_LONG"

// SkipReason says why go test skips w, or "" if it runs it: huge
// workloads skip under -short (short), long ones unless BTI_LONG=1
// (long).
func (w Workload) SkipReason(short, long bool) string {
	switch {
	case w.Huge && short:
		return "a million keys or more: skipped under -short"
	case w.Long && !long:
		return "10^8 keys (minutes, a 1 GB cached index file): set " + EnvLong + "=1 to run"
	}
	return ""
}
