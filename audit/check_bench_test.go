package audit

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/goldenindex"
	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// buildIndex builds an index of cfg's keys in memory, on default pages.
func buildIndex(tb testing.TB, cfg keygen.Config) []byte {
	tb.Helper()
	return buildIndexPaged(tb, cfg, 0)
}

// CheckPartitions allocates O(depth), not O(keys): the same few allocations for
// 1,000 keys as for 100,000 (a report, histograms, the walk's frames).
func TestCheckAllocatesByDepthNotKeys(t *testing.T) {
	if raceEnabled || testing.CoverMode() != "" {
		t.Skip("the race detector and coverage instrumentation allocate")
	}
	allocs := func(n int) float64 {
		cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: n, Seed: 5, PositionsIncreasing: true}
		ix, err := partitionindex.NewIndex(buildIndex(t, cfg), partitionindex.OpenOptions{Partitioner: cfg.Partitioner})
		require.NoError(t, err)
		return testing.AllocsPerRun(3, func() {
			rep, err := CheckPartitions(ix, Options{Positions: PositionsIncreasing})
			if err != nil || !rep.OK() {
				t.Fatalf("check: %v %+v", err, rep.Problems)
			}
		})
	}
	small, large := allocs(1_000), allocs(100_000)
	t.Logf("allocations per CheckPartitions: %.0f for 1,000 keys, %.0f for 100,000", small, large)
	require.LessOrEqual(t, large, small+8, "allocations must not grow with the key count")
	require.Less(t, large, 100.0)
}

// BenchmarkCheck: a full CheckPartitions of a 1,000,000-key Murmur3 index.
//
//	go test ./audit -run XXX -bench 'BenchmarkCheck/' -benchtime 5x
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run("keys="+strconv.Itoa(n)+"/set=murmur3-uuid", func(b *testing.B) {
			if n > 100_000 && testing.Short() {
				b.Skip("1M keys under -short")
			}
			cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: n, Seed: 1, PositionsIncreasing: true}
			data := buildIndex(b, cfg)
			ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: cfg.Partitioner})
			require.NoError(b, err)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				rep, err := CheckPartitions(ix, Options{Positions: PositionsIncreasing})
				if err != nil || !rep.OK() {
					b.Fatalf("check: %v %+v", err, rep.Problems)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}

// readFuzzCorpus reads a committed corpus of one []byte argument of
// partitionindex's fuzz targets (its reader corpus is the input the audit
// fuzz targets start from too).
func readFuzzCorpus(tb testing.TB, name string) [][]byte {
	paths, _ := filepath.Glob(filepath.Join("..", "partitionindex", "testdata", "fuzz", name, "*"))
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(tb, err)
		lines := strings.Split(string(data), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
			continue
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		require.NoError(tb, err, p)
		out = append(out, []byte(s))
	}
	return out
}

// FuzzCheck: CheckPartitions never panics and always finishes within its default
// budget (linear work), on the reader fuzz corpus and the golden files.
// While fuzzing, seeds stay small (the engine minimizes every new
// interesting input, for up to -fuzzminimizetime each):
//
//	go test ./audit -run XXX -fuzz FuzzCheck -fuzztime 60s -fuzzminimizetime 5s
func FuzzCheck(f *testing.F) {
	fuzzing := flag.Lookup("test.fuzz") != nil && flag.Lookup("test.fuzz").Value.String() != ""
	limit := 64 << 10
	if fuzzing {
		limit = 16 << 10
	}
	for _, d := range readFuzzCorpus(f, "FuzzIndexReader") {
		f.Add(d)
	}
	for _, file := range goldenindex.Files(f) {
		if len(file) <= limit {
			f.Add(file)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
			ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: p, SkipPartitionerCheck: true})
			if err != nil {
				continue
			}
			for _, opts := range []Options{{Positions: PositionsIncreasing}, {PageSize: 64, DetectPartitioner: true, MaxProblems: 3}} {
				rep, err := CheckPartitions(ix, opts)
				if err != nil {
					t.Fatalf("CheckPartitions gave up on %d bytes: %v", len(data), err)
				}
				if int64(len(rep.Problems)) > rep.ProblemCount || len(rep.Problems) > max(opts.MaxProblems, 100) {
					t.Fatalf("%d problems kept of %d", len(rep.Problems), rep.ProblemCount)
				}
			}
		}
	})
}
