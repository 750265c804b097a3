package rowindex_test

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bti-go/bti/internal/rowgen"
	"github.com/bti-go/bti/jmhstyle"
)

// benchBlocks is the partition size of the benchmarks.
const benchBlocks = 10000

// BenchmarkRowsBuild builds the row index of one partition of 10,000 index
// blocks ((bigint, text) clusterings under a 72-byte shared prefix, every
// 7th block with an open deletion) on each path; one op is one block, the
// completion and entry amortised (rowgen.Benchmarks), as in bti rows bench.
func BenchmarkRowsBuild(b *testing.B) { runRowsBenchmarks(b, rowgen.BuildName) }

// BenchmarkRowsLookup finds the block of a clustering in that partition's
// row index: by its encoding (SeparatorFloor) and by value (encode, then
// floor); one op is one lookup.
func BenchmarkRowsLookup(b *testing.B) { runRowsBenchmarks(b, rowgen.LookupName) }

func runRowsBenchmarks(b *testing.B, name string) {
	var bad atomic.Int64
	found := false
	for _, bm := range rowgen.Benchmarks(benchBlocks, &bad) {
		if bm.Name != name {
			continue
		}
		found = true
		var parts []string
		for _, p := range bm.Params {
			parts = append(parts, p.Key+"="+p.Value)
		}
		b.Run(strings.Join(append(parts, "threads=1"), "/"), func(b *testing.B) {
			// The suites must stay comparable: the name is bti rows bench's.
			if want := jmhstyle.BenchName(bm.Name, bm.Params, 1); b.Name() != want {
				b.Fatalf("benchmark named %s, but bti rows bench names this workload %s", b.Name(), want)
			}
			op, teardown, err := bm.Setup()
			if err != nil {
				b.Fatal(err)
			}
			if teardown != nil {
				b.Cleanup(teardown)
			}
			before := bad.Load()
			b.ReportAllocs()
			b.ResetTimer()
			op(b.N)
			b.StopTimer()
			if n := bad.Load() - before; n > 0 {
				b.Fatalf("%d operations failed", n)
			}
			for _, p := range bm.Info() {
				if p.Key == "index-bytes" {
					size, _ := strconv.ParseFloat(p.Value, 64)
					b.ReportMetric(size/benchBlocks, "B/block")
				}
			}
		})
	}
	if !found {
		b.Fatalf("rowgen has no benchmark %q", name)
	}
}
