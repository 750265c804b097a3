package workload

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/internal/sortedkeys"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

func infoOf(r jmhstyle.Result) map[string]string {
	m := map[string]string{}
	for _, p := range r.Info {
		m[p.Key] = p.Value
	}
	return m
}

// TestStreamedWorkloadsRun runs build-stream and the lookups, warm and
// cold, on a small streamed set and checks what they report; the index
// file lands in the cache directory and is reused.
func TestStreamedWorkloadsRun(t *testing.T) {
	t.Setenv(EnvCache, t.TempDir())
	c := NewCatalog()
	s := c.Streamed(20_000)
	if c.Streamed(20_000) != s {
		t.Fatal("the catalog made two streamed sets of one size")
	}
	var nim *NotInMemoryError
	if _, err := s.Keys(); !errors.As(err, &nim) {
		t.Fatalf("Keys of a streamed set: %v, want *NotInMemoryError", err)
	}
	var bad atomic.Int64
	ws := []Workload{{Benchmark: BuildStream(s), Threads: []int{1}}}
	ws = append(ws, LookupWorkloads([]*Set{s}, &bad)...)
	ws = append(ws, ColdLookupWorkloads([]*Set{s}, &bad)...)
	cfg := jmhstyle.Config{Warmup: -1, Measurement: 2, IterTime: 2e6}
	names := map[string]bool{}
	for _, w := range ws {
		names[w.Name] = true
		rs, err := jmhstyle.Run([]jmhstyle.Benchmark{w.Benchmark}, cfg)
		if err != nil {
			t.Fatalf("%s: %v", w.ID(), err)
		}
		info := infoOf(rs[0])
		if info["generator"] != sortedkeys.Version || info["seed"] != "1" {
			t.Errorf("%s: info %v", w.ID(), info)
		}
		switch {
		case w.Name == "build-stream":
			if rs[0].Samples[0].Ops != 20_000 {
				t.Errorf("%s: %d ops per shot, want one per key", w.ID(), rs[0].Samples[0].Ops)
			}
			if n, _ := strconv.Atoi(info["index-bytes"]); n < 20_000 {
				t.Errorf("%s: index of %d bytes", w.ID(), n)
			}
			if _, err := strconv.ParseInt(info["peak-heap-bytes"], 10, 64); err != nil {
				t.Errorf("%s: peak-heap-bytes: %v", w.ID(), err)
			}
		case strings.HasSuffix(w.Name, "-cold"):
			if rs[0].Samples[0].Ops != ColdOps {
				t.Errorf("%s: %d ops per shot, want %d", w.ID(), rs[0].Samples[0].Ops, ColdOps)
			}
			if _, err := strconv.ParseFloat(info["major-faults-per-op"], 64); err != nil || info["file-pages"] == "" {
				t.Errorf("%s: info %v", w.ID(), info)
			}
		}
	}
	if names["binary-search-hit"] {
		t.Error("binary-search-hit runs on a streamed set: it needs every key in memory")
	}
	if n := bad.Load(); n != 0 {
		t.Errorf("%d lookups of present keys failed", n)
	}
	files, _ := filepath.Glob(filepath.Join(os.Getenv(EnvCache), "*"))
	if len(files) != 1 || !strings.Contains(files[0], "keys20000-seed1") {
		t.Errorf("cache holds %v, want the one index file", files)
	}
}

// TestHugeSkippedUnderShort pins go test's schedule: everything on a
// million keys or more skips under -short, 10^8 keys without BTI_LONG=1,
// and the rest runs.
func TestHugeSkippedUnderShort(t *testing.T) {
	var bad atomic.Int64
	sawLong := false
	for _, w := range Suite(NewCatalog(), All, &bad) {
		keys, _ := strconv.Atoi(w.Params[0].Value)
		if got := w.SkipReason(true, true) != ""; got != (keys >= 1_000_000) {
			t.Errorf("%s: skipped under -short = %v", w.ID(), got)
		}
		if got := w.SkipReason(false, false) != ""; got != (keys >= LongKeys) {
			t.Errorf("%s: skipped without BTI_LONG = %v", w.ID(), got)
		}
		if w.SkipReason(false, true) != "" {
			t.Errorf("%s: skipped with BTI_LONG and without -short", w.ID())
		}
		sawLong = sawLong || keys >= LongKeys
	}
	if !sawLong {
		t.Error("the go test suite has no 10^8-key workload")
	}
}

// writeKeys writes n generated keys as keys.tsv and their index, and
// returns both paths.
func writeKeys(t *testing.T, n int) (keysPath, indexPath string) {
	t.Helper()
	dir := t.TempDir()
	gen, err := sortedkeys.New(n, 3)
	if err != nil {
		t.Fatal(err)
	}
	var tsv []byte
	f, err := os.Create(filepath.Join(dir, "Partitions.db"))
	if err != nil {
		t.Fatal(err)
	}
	b := partitionindex.NewBuilder(f, partitionindex.Options{Partitioner: partitioner.Murmur3})
	var raw [sortedkeys.KeyLen]byte
	for i := range n {
		k := gen.Key(i, &raw)
		if err := b.Add(&k, gen.Pos(i)); err != nil {
			t.Fatal(err)
		}
		tsv = keystsv.AppendLine(tsv, raw[:], gen.Pos(i))
	}
	if _, err := b.Complete(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	keysPath = filepath.Join(dir, "keys.tsv")
	if err := os.WriteFile(keysPath, tsv, 0o644); err != nil {
		t.Fatal(err)
	}
	return keysPath, f.Name()
}

func TestIndexedLookups(t *testing.T) {
	keysPath, indexPath := writeKeys(t, 3000)
	s, err := NewCatalog().Indexed(indexPath, keysPath, partitioner.Murmur3)
	if err != nil {
		t.Fatal(err)
	}
	if id := (jmhstyle.Benchmark{Params: s.Params}).ID(); id != "/keys=3000/set=keys.tsv/partitioner=murmur3" {
		t.Errorf("params %s", id)
	}
	lk, err := s.lookup()
	if err != nil {
		t.Fatal(err)
	}
	if len(lk.hits) != 3000 || len(lk.misses) < 2900 {
		t.Errorf("%d hits, %d misses from 3000 keys", len(lk.hits), len(lk.misses))
	}
	var bad atomic.Int64
	for _, b := range append(Lookups(s, &bad), ColdLookups(s, &bad)...) {
		if _, err := jmhstyle.Run([]jmhstyle.Benchmark{b}, jmhstyle.Config{Warmup: -1, Measurement: 1, IterTime: 1e6}); err != nil {
			t.Fatalf("%s: %v", b.ID(), err)
		}
	}
	if n := bad.Load(); n != 0 {
		t.Errorf("%d lookups of present keys failed", n)
	}
}

// TestIndexedRefusesForeignKeys: a keys.tsv line whose key the index does
// not hold (or holds at another position) stops the benchmark with an
// error naming the line.
func TestIndexedRefusesForeignKeys(t *testing.T) {
	keysPath, indexPath := writeKeys(t, 500)
	data, err := os.ReadFile(keysPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	foreign := keystsv.AppendLine(nil, []byte("not in the index"), 42)
	moved := strings.Replace(lines[99], "\t", "\t1", 1) // key of line 100, another position
	for _, tc := range []struct {
		name  string
		text  string
		line  int
		found bool
	}{
		{"absent key", strings.Join(lines[:300], "") + string(foreign) + strings.Join(lines[300:], ""), 301, false},
		{"wrong position", strings.Join(lines[:99], "") + moved + strings.Join(lines[100:], ""), 100, true},
	} {
		bad := filepath.Join(t.TempDir(), "keys.tsv")
		if err := os.WriteFile(bad, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := NewCatalog().Indexed(indexPath, bad, partitioner.Murmur3)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.lookup()
		var nie *NotInIndexError
		if !errors.As(err, &nie) || nie.Line != tc.line || nie.Found != tc.found || !strings.Contains(err.Error(), "line "+strconv.Itoa(tc.line)) {
			t.Errorf("%s: err = %v, want *NotInIndexError for line %d (found %v)", tc.name, err, tc.line, tc.found)
		}
	}
}

// TestScaleNames pins the IDs of the scale workloads, as TestSuiteNames
// does for the default suite.
func TestScaleNames(t *testing.T) {
	var bad atomic.Int64
	seen := map[string]bool{}
	for _, w := range Suite(NewCatalog(), All, &bad) {
		seen[w.ID()] = true
	}
	huge := map[string]bool{}
	for _, w := range Suite(NewCatalog(), Huge, &bad) {
		huge[w.ID()] = true
	}
	for _, want := range []string{
		"build-stream/keys=1000000/set=murmur3-sorted16/path=scratch",
		"build-stream/keys=100000000/set=murmur3-sorted16/path=scratch",
		"lookup-hit/keys=10000000/set=murmur3-sorted16",
		"lookup-batch/keys=100000000/set=murmur3-sorted16",
		"ceiling/keys=100000000/set=murmur3-sorted16",
		"lookup-hit-cold/keys=100000000/set=murmur3-sorted16",
		"lookup-miss-cold/keys=10000000/set=murmur3-sorted16",
	} {
		if !seen[want] {
			t.Errorf("the go test suite lacks %s", want)
		}
		if !huge[want] && !strings.HasSuffix(strings.SplitN(want, "/", 2)[0], "-cold") {
			t.Errorf("--size huge lacks %s", want)
		}
	}
	if seen["binary-search-hit/keys=100000000/set=murmur3-sorted16"] {
		t.Error("binary-search-hit on a streamed set")
	}
}
