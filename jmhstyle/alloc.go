package jmhstyle

import (
	"runtime"
	"runtime/metrics"
)

// allocCounts are cumulative heap allocation counters of the process.
type allocCounts struct {
	bytes, objects uint64
}

// Metric names. runtime/metrics counts allocations of tiny objects (< 16 B,
// pointer-free) by 16-byte block only, so tiny objects are added back to
// match what testing.B and runtime.MemStats.Mallocs report.
var allocMetrics = [...]string{
	"/gc/heap/allocs:bytes",
	"/gc/heap/allocs:objects",
	"/gc/heap/tiny/allocs:objects",
}

// readAllocs reads the allocation counters. runtime/metrics is preferred
// because, unlike runtime.ReadMemStats, it does not stop the world; if a
// metric is unsupported by this runtime we fall back to MemStats, whose
// TotalAlloc and Mallocs have the same meaning.
func readAllocs() allocCounts {
	var s [len(allocMetrics)]metrics.Sample
	for i, name := range allocMetrics {
		s[i].Name = name
	}
	metrics.Read(s[:])
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			return allocCounts{bytes: ms.TotalAlloc, objects: ms.Mallocs}
		}
	}
	return allocCounts{
		bytes:   s[0].Value.Uint64(),
		objects: s[1].Value.Uint64() + s[2].Value.Uint64(),
	}
}
