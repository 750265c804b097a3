package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

const benchUsage = `usage: bti bench [--benchmark build|lookup|all] [--size small|default|large] [--in keys.tsv --partitioner P]
                 [--forks N --warmup N --iterations N --iter-time D] [--format text|json|csv|benchfmt]
       bti bench --compare [--rounds N] [--in keys.tsv ...]

Runs JMH-style benchmarks (package jmhstyle): every benchmark in --forks fresh
processes (0: in this process), --warmup discarded and --iterations measured
iterations of --iter-time each; scores are mean ns/op ± the 99.9% confidence
interval, with heap bytes and allocations per op.

Benchmarks:
  build              one op is ONE KEY: op(n) adds the next n keys of the set
                     with AddEntry (keys decorated beforehand), and whenever the
                     set is exhausted calls Complete and starts a new index
                     (Reset), writing into an in-memory sink. ns/op, B/op and
                     allocs/op are therefore per key, with Complete and the
                     writes amortised. Param path: scratch or reference.
  lookup-hit         Reader.Get of present keys in random order (up to 262,144
                     distinct probes, cycled)
  lookup-miss        Reader.Get of absent keys (each a present key plus one
                     random byte)
  ceiling            Reader.CeilingCandidates of those absent keys: the walk
                     only, without confirming against a data file
  binary-search-hit  baseline: sort.Search over the sorted byte-comparable
                     encodings of the same keys; the probe is encoded inside the
                     op, as the index does
  Lookups run with threads=1 and threads=GOMAXPROCS; builds with threads=1.

Built-in key sets (--size):
  small    build: Murmur3 UUID 10,000; ByteOrdered blob 16,384 keys with 0, 64
           and 4096-byte shared prefixes. lookups: Murmur3 UUID 100,000.
  default  build: Murmur3 UUID 10,000 and 100,000, the three prefix sets.
           lookups: Murmur3 UUID 1,000,000. About 2-4 minutes on 2 cores with
           the default settings (every fork generates its key set).
  large    default plus build at Murmur3 UUID 1,000,000 (slow: add ~1 min).
With --in, every benchmark runs on that key set instead.

--compare runs the A/B comparison of the build benchmark, baseline
path=reference against candidate path=scratch, in --rounds alternating rounds
(jmhstyle.Compare) on Murmur3 UUID 100,000 keys (or --in), and prints its table.
`

// benchOptions are the parsed flags of bench.
type benchOptions struct {
	which      string
	size       string
	in         string
	part       partitioner.Partitioner
	cfg        jmhstyle.Config
	format     string
	compare    bool
	rounds     int
	lookupKeys int // override of the lookup set size (tests); 0: by size
}

func parseBenchFlags(args []string, stdout io.Writer) (*benchOptions, error) {
	fs := newFlags("bench", benchUsage)
	o := &benchOptions{}
	fs.StringVar(&o.which, "benchmark", "all", "which benchmarks: build, lookup or all")
	fs.StringVar(&o.size, "size", "default", "built-in key sets: small, default or large")
	fs.StringVar(&o.in, "in", "", "run every benchmark on this keys.tsv (or .bz2) instead of the built-in sets")
	part := addPartitionerFlag(fs, false)
	fs.IntVar(&o.cfg.Forks, "forks", 1, "fresh processes per benchmark (0: run in this process)")
	warmup := fs.Int("warmup", 3, "warmup iterations per fork (0: none)")
	fs.IntVar(&o.cfg.Measurement, "iterations", 5, "measurement iterations per fork")
	fs.DurationVar(&o.cfg.IterTime, "iter-time", 200*time.Millisecond, "duration of one iteration")
	fs.StringVar(&o.format, "format", "text", "output: text, json, csv or benchfmt")
	fs.BoolVar(&o.compare, "compare", false, "A/B-compare the build benchmark, reference vs scratch")
	fs.BoolVar(&o.compare, "ab", false, "same as --compare")
	fs.IntVar(&o.rounds, "rounds", 5, "--compare: rounds per side")
	fs.IntVar(&o.lookupKeys, "lookup-keys", 0, "size of the built-in lookup set (0: by --size)")
	verbose := fs.Bool("v", false, "print JMH-style progress to stderr (default when stderr is a terminal)")
	rest, err := parseFlags(fs, args, stdout)
	if err != nil {
		return nil, err
	}
	if err := noArgs(rest); err != nil {
		return nil, err
	}
	if err := oneOf("benchmark", o.which, "build", "lookup", "all"); err != nil {
		return nil, err
	}
	if err := oneOf("size", o.size, "small", "default", "large"); err != nil {
		return nil, err
	}
	if err := oneOf("format", o.format, "text", "json", "csv", "benchfmt"); err != nil {
		return nil, err
	}
	if o.part, err = parsePartitioner(*part); err != nil {
		return nil, err
	}
	switch {
	case o.cfg.Forks < 0:
		return nil, usagef("--forks %d: want >= 0", o.cfg.Forks)
	case *warmup < 0:
		return nil, usagef("--warmup %d: want >= 0", *warmup)
	case o.cfg.Measurement < 1:
		return nil, usagef("--iterations %d: want >= 1", o.cfg.Measurement)
	case o.cfg.IterTime <= 0:
		return nil, usagef("--iter-time %v: want > 0", o.cfg.IterTime)
	case o.rounds < 1:
		return nil, usagef("--rounds %d: want >= 1", o.rounds)
	case o.lookupKeys < 0:
		return nil, usagef("--lookup-keys %d: want >= 0", o.lookupKeys)
	}
	// jmhstyle reads 0 as "default" and a negative count as "none".
	o.cfg.Warmup = *warmup
	if *warmup == 0 {
		o.cfg.Warmup = -1
	}
	if *verbose {
		o.cfg.Log = os.Stderr
	}
	return o, nil
}

// forkBenchmarks is the benchmark list a fork child needs: the same list
// the parent built from the same arguments. Outside a fork child it does
// nothing.
func forkBenchmarks(args []string) []jmhstyle.Benchmark {
	if _, ok := os.LookupEnv(jmhstyle.EnvFork); !ok || len(args) == 0 || args[0] != "bench" {
		return nil
	}
	o, err := parseBenchFlags(args[1:], io.Discard)
	if err != nil {
		return nil
	}
	s := newSuite(o)
	builds, err1 := s.builds()
	lookups, err2 := s.lookups()
	base, cand, err3 := s.comparePair()
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil // the child reports the benchmark as missing
	}
	var out []jmhstyle.Benchmark
	seen := map[string]bool{}
	for _, b := range slices.Concat(builds, lookups, []jmhstyle.Benchmark{base, cand}) {
		if !seen[b.ID()] {
			seen[b.ID()] = true
			out = append(out, b)
		}
	}
	return out
}

func runBench(args []string, stdout, stderr io.Writer) error {
	o, err := parseBenchFlags(args, stdout)
	if err != nil {
		return err
	}
	if o.cfg.Log == nil && isTerminal(stderr) {
		o.cfg.Log = stderr
	}
	s := newSuite(o)
	if o.compare {
		base, cand, err := s.comparePair()
		if err != nil {
			return err
		}
		c, err := jmhstyle.Compare(base, cand, o.rounds, o.cfg)
		if err != nil {
			return err
		}
		if err := s.failures(); err != nil {
			return err
		}
		if o.format == "json" {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(c)
		}
		return jmhstyle.WriteComparison(stdout, c)
	}

	var results []jmhstyle.Result
	runSet := func(bs []jmhstyle.Benchmark, threads int) error {
		cfg := o.cfg
		cfg.Threads = threads
		rs, err := jmhstyle.Run(bs, cfg)
		results = append(results, rs...)
		return err
	}
	if o.which != "lookup" {
		builds, err := s.builds()
		if err != nil {
			return err
		}
		if err := runSet(builds, 1); err != nil {
			return err
		}
	}
	if o.which != "build" {
		lookups, err := s.lookups()
		if err != nil {
			return err
		}
		if err := runSet(lookups, 1); err != nil {
			return err
		}
		if n := runtime.GOMAXPROCS(0); n > 1 {
			if err := runSet(lookups, n); err != nil {
				return err
			}
		}
	}
	if err := s.failures(); err != nil {
		return err
	}
	switch o.format {
	case "json":
		return jmhstyle.WriteJSON(stdout, results)
	case "csv":
		return jmhstyle.WriteCSV(stdout, results)
	case "benchfmt":
		return jmhstyle.WriteBenchfmt(stdout, results)
	}
	if err := jmhstyle.WriteText(stdout, results); err != nil {
		return err
	}
	if o.which != "lookup" {
		fmt.Fprintln(stdout, "\nbuild: one op is one key (ns/op, B/op and allocs/op are per key, Complete and writes amortised).")
	}
	return nil
}

// suite creates the benchmarks and the key sets they share. Key sets and
// indexes are built lazily, once per process, the first time a benchmark's
// Setup needs them, so listing benchmarks (as every fork child does) is
// cheap.
type suite struct {
	o    *benchOptions
	mu   sync.Mutex
	sets map[string]*dataset
	bad  atomic.Int64 // lookups that missed a present key (a failed check)

	in    *dataset // --in, once loaded
	inErr error
}

func newSuite(o *benchOptions) *suite {
	return &suite{o: o, sets: map[string]*dataset{}}
}

func (s *suite) failures() error {
	if n := s.bad.Load(); n > 0 {
		return &checkFailed{fmt.Sprintf("%d lookups of present keys did not find their position", n)}
	}
	return nil
}

// dataset is one key set with what the benchmarks derive from it.
type dataset struct {
	params []jmhstyle.Param // describes the set: keys, set, prefix
	load   func() (*keySet, error)

	once sync.Once
	ks   *keySet
	err  error

	lookupOnce sync.Once
	lk         *lookupData
	lookupErr  error
}

func (d *dataset) keys() (*keySet, error) {
	d.once.Do(func() {
		d.ks, d.err = d.load()
		if d.err == nil && len(d.ks.keys) == 0 {
			d.err = errors.New("the key set is empty")
		}
	})
	return d.ks, d.err
}

// generated returns the built-in key set of cfg.
func (s *suite) generated(cfg keygen.Config, set string) *dataset {
	params := []jmhstyle.Param{{Key: "keys", Value: strconv.Itoa(cfg.Count)}, {Key: "set", Value: set}}
	if cfg.PrefixBytes > 0 || cfg.Partitioner == partitioner.ByteOrdered {
		params = append(params, jmhstyle.Param{Key: "prefix", Value: strconv.Itoa(cfg.PrefixBytes)})
	}
	return s.dataset(params, func() (*keySet, error) { return generatedKeys(cfg, set) })
}

func generatedKeys(cfg keygen.Config, name string) (*keySet, error) {
	keys, err := cfg.Keys()
	if err != nil {
		return nil, err
	}
	ks := &keySet{name: name, keys: keys, pos: keygen.Positions(len(keys), cfg.Seed)}
	for _, k := range keys {
		ks.raw += int64(len(k.Raw))
	}
	return ks, nil
}

// input returns the --in key set, loading it on first use (its size is a
// parameter, so it must be known to name the benchmarks).
func (s *suite) input() (*dataset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.in == nil && s.inErr == nil {
		ks, err := loadKeys(s.o.in, s.o.part, &progress{})
		if err == nil && len(ks.keys) == 0 {
			err = fmt.Errorf("%s: no keys to benchmark", s.o.in)
		}
		if err != nil {
			s.inErr = err
		} else {
			params := []jmhstyle.Param{
				{Key: "keys", Value: strconv.Itoa(len(ks.keys))},
				{Key: "set", Value: filepath.Base(s.o.in)},
				{Key: "partitioner", Value: s.o.part.String()},
			}
			s.in = &dataset{params: params, load: func() (*keySet, error) { return ks, nil }}
		}
	}
	return s.in, s.inErr
}

func (s *suite) dataset(params []jmhstyle.Param, load func() (*keySet, error)) *dataset {
	id := jmhstyle.Benchmark{Params: params}.ID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.sets[id]; ok {
		return d
	}
	d := &dataset{params: params, load: load}
	s.sets[id] = d
	return d
}

func murmurUUID(n int) keygen.Config {
	return keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: n, Seed: 1}
}

func prefixBlob(prefix int) keygen.Config {
	return keygen.Config{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: 16384, Seed: 2,
		PrefixBytes: prefix, KeyLenMin: 8, KeyLenMax: 24}
}

// buildSets are the key sets the build benchmark runs on.
func (s *suite) buildSets() ([]*dataset, error) {
	if s.o.in != "" {
		d, err := s.input()
		return []*dataset{d}, err
	}
	sizes := []int{10_000, 100_000}
	switch s.o.size {
	case "small":
		sizes = sizes[:1]
	case "large":
		sizes = append(sizes, 1_000_000)
	}
	var ds []*dataset
	for _, n := range sizes {
		ds = append(ds, s.generated(murmurUUID(n), "murmur3-uuid"))
	}
	for _, p := range []int{0, 64, 4096} {
		ds = append(ds, s.generated(prefixBlob(p), "byteordered-blob"))
	}
	return ds, nil
}

func (s *suite) lookupSet() (*dataset, error) {
	if s.o.in != "" {
		return s.input()
	}
	n := 1_000_000
	if s.o.size == "small" {
		n = 100_000
	}
	if s.o.lookupKeys > 0 {
		n = s.o.lookupKeys
	}
	return s.generated(murmurUUID(n), "murmur3-uuid"), nil
}

func (s *suite) compareSet() (*dataset, error) {
	if s.o.in != "" {
		return s.input()
	}
	return s.generated(murmurUUID(100_000), "murmur3-uuid"), nil
}

func (s *suite) builds() ([]jmhstyle.Benchmark, error) {
	sets, err := s.buildSets()
	if err != nil {
		return nil, err
	}
	var bs []jmhstyle.Benchmark
	for _, d := range sets {
		for _, p := range []partitionindex.Path{partitionindex.PathScratch, partitionindex.PathReference} {
			bs = append(bs, buildBenchmark(d, p))
		}
	}
	return bs, nil
}

// comparePair returns the A/B pair of --compare: baseline reference,
// candidate scratch.
func (s *suite) comparePair() (base, cand jmhstyle.Benchmark, err error) {
	d, err := s.compareSet()
	if err != nil {
		return base, cand, err
	}
	return buildBenchmark(d, partitionindex.PathReference), buildBenchmark(d, partitionindex.PathScratch), nil
}

// buildBenchmark measures building per key (see benchUsage).
func buildBenchmark(d *dataset, path partitionindex.Path) jmhstyle.Benchmark {
	params := append(slices.Clone(d.params), jmhstyle.Param{Key: "path", Value: path.String()})
	return jmhstyle.Benchmark{
		Name:   "build",
		Params: params,
		Setup: func() (func(n int), func(), error) {
			ks, err := d.keys()
			if err != nil {
				return nil, nil, err
			}
			opts := partitionindex.Options{Partitioner: ks.keys[0].Partitioner, Path: path}
			sink := new(bytes.Buffer)
			sink.Grow(16*len(ks.keys) + int(ks.raw/4) + 1<<17)
			b := partitionindex.NewBuilder(sink, opts)
			next := 0
			op := func(n int) {
				for range n {
					if err := b.AddEntry(ks.keys[next], ks.pos[next]); err != nil {
						panic(err) // the keys were checked when loaded: a bug
					}
					if next++; next == len(ks.keys) {
						if _, err := b.Complete(); err != nil {
							panic(err)
						}
						next = 0
						sink.Reset()
						b.Reset(sink, opts)
					}
				}
			}
			return op, nil, nil
		},
	}
}

// lookupData is what the lookup benchmarks share: the index (in memory),
// the probes and, for the baseline, the sorted encodings. Probes are laid
// out in the order they are used, their raw bytes copied alongside, so a
// hit and a miss cost the same memory traffic outside the index.
type lookupData struct {
	ks     *keySet
	ix     *partitionindex.Index
	hits   []partitioner.Key // present keys in random order
	hitPos []int64           // their positions
	misses []partitioner.Key // absent keys

	encOnce sync.Once
	encs    [][]byte
}

// maxProbes bounds the probe sets (and their memory) of the lookups.
const maxProbes = 1 << 18

func (d *dataset) lookup() (*lookupData, error) {
	d.lookupOnce.Do(func() {
		d.lk, d.lookupErr = newLookupData(d)
	})
	return d.lk, d.lookupErr
}

func newLookupData(d *dataset) (*lookupData, error) {
	ks, err := d.keys()
	if err != nil {
		return nil, err
	}
	p := ks.keys[0].Partitioner
	res, err := buildIndex(ks, partitionindex.Options{Partitioner: p}, nil, &progress{})
	if err != nil {
		return nil, err
	}
	ix, err := partitionindex.NewIndex(res.data, p)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(7, 11))
	order := rng.Perm(len(ks.keys))[:min(len(ks.keys), maxProbes)]
	lk := &lookupData{ks: ks, ix: ix}
	var arena []byte
	clone := func(raw []byte, extra int) []byte {
		if cap(arena)-len(arena) < len(raw)+extra {
			arena = make([]byte, 0, max(1<<20, len(raw)+extra))
		}
		start := len(arena)
		arena = append(arena, raw...)
		for range extra {
			arena = append(arena, byte(rng.Uint32()))
		}
		return arena[start:len(arena):len(arena)]
	}
	for _, i := range order {
		lk.hits = append(lk.hits, p.Decorate(clone(ks.keys[i].Raw, 0)))
		lk.hitPos = append(lk.hitPos, ks.pos[i])
	}
	// Each miss is a present key with one byte appended: for hashed
	// partitioners a random token, for ByteOrdered a near miss.
	for _, i := range order {
		k := p.Decorate(clone(ks.keys[i].Raw, 1))
		if _, found := slices.BinarySearchFunc(ks.keys, k, partitioner.Compare); !found {
			lk.misses = append(lk.misses, k)
		}
	}
	if len(lk.misses) == 0 {
		lk.misses = lk.hits[:1] // degenerate set: measure something
	}
	return lk, nil
}

func (lk *lookupData) encodings() [][]byte {
	lk.encOnce.Do(func() {
		lk.encs = make([][]byte, len(lk.ks.keys))
		var arena []byte
		for i, k := range lk.ks.keys {
			if cap(arena)-len(arena) < len(k.Raw)+64 {
				arena = make([]byte, 0, 1<<20)
			}
			start := len(arena)
			arena = k.AppendComparable(arena)
			lk.encs[i] = arena[start:len(arena):len(arena)]
		}
	})
	return lk.encs
}

func (s *suite) lookups() ([]jmhstyle.Benchmark, error) {
	d, err := s.lookupSet()
	if err != nil {
		return nil, err
	}
	var threadSeq atomic.Uint64 // start each thread at another probe
	mk := func(name string, body func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int)) jmhstyle.Benchmark {
		return jmhstyle.Benchmark{
			Name:   name,
			Params: slices.Clone(d.params),
			Setup: func() (func(n int), func(), error) {
				lk, err := d.lookup()
				if err != nil {
					return nil, nil, err
				}
				rd, err := lk.ix.OpenReader()
				if err != nil {
					return nil, nil, err
				}
				start := int(threadSeq.Add(1) * 7919)
				return body(lk, rd, start), func() { _ = rd.Close() }, nil
			},
		}
	}
	hit := func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int) {
		probes, want := lk.hits, lk.hitPos
		j := start % len(probes)
		return func(n int) {
			bad := 0
			for range n {
				pos, ok, err := rd.Get(probes[j])
				if err != nil || !ok || pos != want[j] {
					bad++
				}
				if j++; j == len(probes) {
					j = 0
				}
			}
			if bad > 0 {
				s.bad.Add(int64(bad))
			}
		}
	}
	miss := func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int) {
		probes := lk.misses
		j := start % len(probes)
		return func(n int) {
			for range n {
				_, _, _ = rd.Get(probes[j])
				if j++; j == len(probes) {
					j = 0
				}
			}
		}
	}
	ceiling := func(lk *lookupData, rd *partitionindex.Reader, start int) func(n int) {
		probes := lk.misses
		j := start % len(probes)
		return func(n int) {
			for range n {
				_, _ = rd.CeilingCandidates(probes[j])
				if j++; j == len(probes) {
					j = 0
				}
			}
		}
	}
	binary := func(lk *lookupData, _ *partitionindex.Reader, start int) func(n int) {
		probes, want, encs, pos := lk.hits, lk.hitPos, lk.encodings(), lk.ks.pos
		j := start % len(probes)
		var scratch []byte
		return func(n int) {
			bad := 0
			for range n {
				scratch = probes[j].AppendComparable(scratch[:0])
				// sort.Search: the first x with encs[x] >= probe.
				x := sort.Search(len(encs), func(x int) bool { return bytes.Compare(encs[x], scratch) >= 0 })
				if x == len(encs) || !bytes.Equal(encs[x], scratch) || pos[x] != want[j] {
					bad++
				}
				if j++; j == len(probes) {
					j = 0
				}
			}
			if bad > 0 {
				s.bad.Add(int64(bad))
			}
		}
	}
	return []jmhstyle.Benchmark{
		mk("lookup-hit", hit),
		mk("lookup-miss", miss),
		mk("ceiling", ceiling),
		mk("binary-search-hit", binary),
	}, nil
}
