package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/partitioner"
)

const benchUsage = `usage: bti bench [--benchmark build|lookup|all] [--size small|default|huge] [--run REGEXP]
                 [--in keys.tsv --partitioner P] [--forks N --warmup N --count N --iter-time D]
                 [--format text|json|csv|benchfmt] [--jump-slots]
       bti bench --benchmark lookup --partitions Partitions.db --in keys.tsv [--partitioner P] [--cold] ...
       bti bench --size huge [--benchmark build|lookup] [--cold] ...
       bti bench --compare=BASE..CAND [--rounds N] [--out PREFIX] [--repo DIR] [bench flags]
       bti bench --compare [--rounds N] [--in keys.tsv ...]

Runs JMH-style benchmarks (package jmhstyle): every benchmark in --forks fresh
processes (0: in this process), --warmup discarded and --count measured
iterations of --iter-time each; scores are mean ns/op ± the 99.9% confidence
interval, with heap bytes and allocations per op. The workloads (names,
parameters, seeds) are those of "go test -bench" in partitionindex
(internal/workload), and --format benchfmt names them as go test does, so
benchstat compares the two outputs line by line. The default --count of 6
gives benchstat enough samples for a confidence interval. Every output
carries provenance: revision and dirty flag, Go version, CPU, GOMAXPROCS,
the command, seeds and the SHA-256 of each key set (as keys.tsv).

Benchmarks:
  build              one op is ONE KEY: op(n) adds the next n keys of the set
                     with Add (keys decorated beforehand), and whenever the
                     set is exhausted calls Complete and starts a new index
                     (Reset), writing into an in-memory sink. ns/op, B/op and
                     allocs/op are therefore per key, with Complete and the
                     writes amortised. Param path: scratch or reference.
  build-cold         what "bti build" pays: one whole index from a fresh builder
                     in a fresh process, reported per key; every sample is its
                     own process (--count processes, no warmup).
  new-builder        a fresh NewBuilder, one key, Complete: the fixed cost of a
                     small index (B/op and allocs/op are the point)
  lookup-hit         Reader.Get of present keys in random order (up to 262,144
                     distinct probes, cycled)
  lookup-miss        Reader.Get of absent keys (each a present key plus one
                     random byte)
  lookup-batch       lookup-hit through Reader.GetBatch, 16 keys per call; one op
                     is one key, so ns/op compares with lookup-hit
  ceiling            Reader.CeilingCandidates of those absent keys: the walk
                     only, without confirming against a data file
  binary-search-hit  baseline: sort.Search over the sorted byte-comparable
                     encodings of the same keys; the probe is encoded inside the
                     op, as the index does
  build-stream       (--size huge) one op is ONE KEY: every iteration builds a
                     whole index, adding every key of a streamed set as the
                     generator yields it and calling Complete, into a sink
                     that only counts bytes; ns/op includes the generator
                     (internal/sortedkeys). Info: generator-ns-per-key (its
                     cost alone, timed in the same process, to subtract),
                     index-bytes, peak-heap-bytes and peak-live-heap-bytes
                     (the largest rise, during a build, of the heap's
                     objects, garbage included, and of the live heap as of
                     each GC; runtime/metrics, sampled every 65,536 keys)
                     and peak-rss-bytes.
  lookup-hit-cold, lookup-miss-cold, ceiling-cold, lookup-batch-cold
                     (--cold) the lookups on a file just evicted from the page
                     cache: before every iteration (untimed) the index is
                     closed, its file fadvise(DONTNEED)-evicted and reopened;
                     an iteration is 1,024 lookups of fresh probes
                     (lookup-batch-cold: Reader.GetBatchCold, 256 keys per
                     call, which reads each lane's next page ahead). Info:
                     major-faults-per-op (getrusage ru_majflt: pages read
                     from the device per lookup) and resident-pages-after-open
                     (mincore: what Open read, or another mapping pinned).
  Lookups run with threads=1 and threads=GOMAXPROCS; builds and cold lookups
  with threads=1. --jump-slots opens every lookup index with
  partitionindex.OpenOptions.JumpSlots (built at Open when the trie is at
  least 4 MiB: 4 MiB more memory; Get and ceiling use it); the IDs stay the
  same, so a run with and one without compare row by row.

Built-in key sets (--size):
  small    build: Murmur3 UUID 10,000; ByteOrdered blob 16,384 keys with 0, 64
           and 4096-byte shared prefixes; cold: the prefix-0 set.
           lookups: Murmur3 UUID 100,000.
  default  build: Murmur3 UUID 10,000, 100,000 and 1,000,000, the three prefix
           sets; cold: Murmur3 UUID 1,000,000 and the prefix-0 set.
           lookups: Murmur3 UUID 1,000,000. ("large" is accepted as default.)
  huge     the scale benchmarks, on "murmur3-sorted16" sets: 16-byte Murmur3
           keys generated in order one at a time (internal/sortedkeys), so
           no key list is ever held. build: build-stream of 1, 10 and 100
           million keys (holds the builder only: a few MB). lookups:
           lookup-hit, -miss, -batch and ceiling (and with --cold their cold
           variants) on index files of 10 and 100 million keys, built on
           first use into $BTI_BENCH_CACHE (default bti-bench under the user
           cache directory; 90 MB and 957 MB, named by generator
           version, size, seed and layout) and reused; probes are
           regenerated by index (holds the 262,144 probes, ~50 MB, and the
           mapped file). A 100M build iteration took 29 s (293 ns/key) on
           a busy 2-core machine (revision 6bb7927, "bti bench --size huge
           --benchmark build --warmup 0 --count 2 --run keys=100000000/"),
           so the default 3 warmup + 6 iterations take minutes; building
           the 100M index file the first time took under a minute there.
With --in, every benchmark runs on that key set instead.
With --partitions and --in, the lookups run on that existing index file, whose
keys keys.tsv lists (decorated with --partitioner); the file is neither
built nor loaded: one streaming pass reservoir-samples 262,144 probes, each
of which must be in the index at its line's position (else the error names
the line; with fewer keys every line is checked); misses are sampled keys
with one random byte appended, and a second pass drops any keys.tsv holds.
Every fork process samples again (two passes over keys.tsv each, about
13 processes with --cold): on a large keys.tsv, --forks 0 reads it twice
in all.
--cold (with --size huge or --partitions) adds the cold lookups.
--run keeps only the benchmarks whose ID (name/param=value/...) matches.

--compare=BASE..CAND (or --baseline REV --candidate REV) is the revision A/B
mode: both git revisions of the repository containing the working directory
(or --repo) are checked out into temporary worktrees and built into two
binaries, which then run "bti bench <bench flags> --format json" as
alternating fresh processes (A B, B A, ...) for --rounds rounds. The bench
flags are those given explicitly on this command line, passed to both sides
unchanged (so both revisions must understand them). It prints, per benchmark,
both medians, both ranges, whether the ranges are disjoint and the change, and
writes every measurement to PREFIX.csv and the provenance of both sides, the
commands and their order to PREFIX.json. Worktrees and binaries are removed
on exit, on error and on interrupt.

--compare alone compares builder paths instead: baseline path=reference
against candidate path=scratch, in --rounds alternating rounds
(jmhstyle.Compare) on Murmur3 UUID 100,000 keys (or --in).
`

// benchOptions are the parsed flags of bench.
type benchOptions struct {
	which      string
	size       workload.Size
	in         string
	part       partitioner.Partitioner
	run        *regexp.Regexp
	cfg        jmhstyle.Config
	format     string
	compare    compareFlag
	rounds     int
	lookupKeys int    // override of the lookup set size (tests); 0: by size
	index      string // --partitions: benchmark lookups on this existing file
	cold       bool   // --cold: add the cold lookups
	jumpSlots  bool   // --jump-slots: open lookup indexes with OpenOptions.JumpSlots
	rev        revOptions
}

// compareFlag is --compare: alone it selects the builder-path A/B, with a
// value (--compare=BASE..CAND) the revision A/B.
type compareFlag struct {
	set   bool
	revs  string
	given bool
}

func (c *compareFlag) String() string { return c.revs }

func (c *compareFlag) Set(v string) error {
	c.given = true
	switch v {
	case "true":
		c.set, c.revs = true, ""
	case "false":
		c.set, c.revs = false, ""
	default:
		c.set, c.revs = true, v
	}
	return nil
}

func (c *compareFlag) IsBoolFlag() bool { return true }

func parseBenchFlags(args []string, stdout io.Writer) (*benchOptions, error) {
	fs := newFlags("bench", benchUsage)
	o := &benchOptions{}
	fs.StringVar(&o.which, "benchmark", "all", "which benchmarks: build, lookup or all")
	size := fs.String("size", "default", "built-in key sets: small, default or huge")
	fs.StringVar(&o.in, "in", "", "run every benchmark on this keys.tsv (or .bz2) instead of the built-in sets")
	part := addPartitionerFlag(fs, false)
	runRE := fs.String("run", "", "run only benchmarks whose ID matches this regular expression")
	fs.IntVar(&o.cfg.Forks, "forks", 1, "fresh processes per benchmark (0: run in this process)")
	warmup := fs.Int("warmup", 3, "warmup iterations per fork (0: none)")
	fs.IntVar(&o.cfg.Measurement, "count", 6, "measurement iterations (samples) per fork, as go test -count")
	fs.IntVar(&o.cfg.Measurement, "iterations", 6, "same as --count")
	fs.DurationVar(&o.cfg.IterTime, "iter-time", 200*time.Millisecond, "duration of one iteration")
	fs.StringVar(&o.format, "format", "text", "output: text, json, csv or benchfmt")
	fs.Var(&o.compare, "compare", "A/B mode: alone, builder path reference vs scratch; =BASE..CAND, two git revisions")
	fs.BoolVar(&o.compare.set, "ab", false, "same as --compare")
	fs.StringVar(&o.rev.baseline, "baseline", "", "revision A/B: the baseline git revision")
	fs.StringVar(&o.rev.candidate, "candidate", "", "revision A/B: the candidate git revision")
	fs.IntVar(&o.rounds, "rounds", 5, "A/B: rounds per side")
	fs.StringVar(&o.rev.out, "out", "", "revision A/B: write PREFIX.csv and PREFIX.json (default bti-compare-BASE-CAND)")
	fs.StringVar(&o.rev.repo, "repo", "", "revision A/B: the git repository (default: the one containing the working directory)")
	fs.IntVar(&o.lookupKeys, "lookup-keys", 0, "size of the built-in lookup set (0: by --size)")
	partitionsFlagVar(fs, &o.index, "benchmark lookups on this existing Partitions.db, whose keys --in lists")
	fs.BoolVar(&o.jumpSlots, "jump-slots", false, "open lookup indexes with JumpSlots (partitionindex.OpenOptions: 4 MiB more memory for a trie of 4 MiB or more)")
	fs.BoolVar(&o.cold, "cold", false, "add cold lookups (file evicted before every iteration); needs --size huge or --partitions")
	verbose := fs.Bool("v", false, "print progress to stderr (default when stderr is a terminal)")
	err := parseCommand(fs, args, stdout)
	if err != nil {
		return nil, err
	}
	if err := oneOf("benchmark", o.which, "build", "lookup", "all"); err != nil {
		return nil, err
	}
	if o.size, err = workload.ParseSize(*size); err != nil {
		return nil, usagef("--size %q: want small, default or huge", *size)
	}
	switch {
	case o.index != "" && o.in == "":
		return nil, usagef("--partitions needs --in, the keys.tsv that lists its keys")
	case o.index != "" && o.which == "build":
		return nil, usagef("--partitions benchmarks lookups on an existing file: --benchmark lookup")
	case o.in != "" && o.index == "" && o.size == workload.Huge:
		return nil, usagef("--size huge runs on generated sets and --in replaces them: give one (or --partitions with --in)")
	case o.jumpSlots && o.which == "build":
		return nil, usagef("--jump-slots opens lookup indexes: --benchmark lookup or all")
	case o.cold && o.index == "" && o.size != workload.Huge:
		return nil, usagef("--cold needs an index file: --size huge or --partitions")
	}
	if err := oneOf("format", o.format, "text", "json", "csv", "benchfmt"); err != nil {
		return nil, err
	}
	if o.part, err = parsePartitioner(*part); err != nil {
		return nil, err
	}
	if *runRE != "" {
		if o.run, err = regexp.Compile(*runRE); err != nil {
			return nil, usagef("--run: %v", err)
		}
	}
	switch {
	case o.cfg.Forks < 0:
		return nil, usagef("--forks %d: want >= 0", o.cfg.Forks)
	case *warmup < 0:
		return nil, usagef("--warmup %d: want >= 0", *warmup)
	case o.cfg.Measurement < 1:
		return nil, usagef("--count/--iterations %d: want >= 1", o.cfg.Measurement)
	case o.cfg.IterTime <= 0:
		return nil, usagef("--iter-time %v: want > 0", o.cfg.IterTime)
	case o.rounds < 1:
		return nil, usagef("--rounds %d: want >= 1", o.rounds)
	case o.lookupKeys < 0:
		return nil, usagef("--lookup-keys %d: want >= 0", o.lookupKeys)
	}
	if err := o.rev.resolve(fs, &o.compare); err != nil {
		return nil, err
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
	ws, err := s.workloads()
	if err != nil {
		return nil // the child reports the benchmark as missing
	}
	var out []jmhstyle.Benchmark
	seen := map[string]bool{}
	add := func(b jmhstyle.Benchmark) {
		if !seen[b.ID()] {
			seen[b.ID()] = true
			out = append(out, b)
		}
	}
	for _, w := range ws {
		add(w.Benchmark)
	}
	if base, cand, err := s.comparePair(); err == nil {
		add(base)
		add(cand)
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
	if o.rev.enabled() {
		return runRevisionCompare(o, stdout, stderr)
	}
	s := newSuite(o)
	if o.compare.set {
		return s.comparePaths(stdout)
	}
	ws, err := s.workloads()
	if err != nil {
		return err
	}
	var results []jmhstyle.Result
	for _, w := range ws {
		for _, threads := range w.Threads {
			rs, err := jmhstyle.Run([]jmhstyle.Benchmark{w.Benchmark}, s.config(w, threads))
			results = append(results, rs...)
			if err != nil {
				return err
			}
		}
	}
	if err := s.failures(); err != nil {
		return err
	}
	// The same workloads are go test benchmarks of partitionindex: name that
	// package on benchfmt's pkg line, as go test does, so benchstat puts
	// both outputs in one table.
	return writeBenchResults(stdout, o.format, "github.com/bti-go/bti/partitionindex", results,
		"\nbuild, build-cold, build-stream: one op is one key (ns/op, B/op and allocs/op are per key);\n"+
			"*-cold lookups: one op is one lookup on a file evicted from the page cache before each 1,024.")
}

// writeBenchResults writes benchmark results in format (json, csv,
// benchfmt, or text: the table, then note if any, then the provenance),
// naming pkg as the package measured.
func writeBenchResults(w io.Writer, format, pkg string, results []jmhstyle.Result, note string) error {
	prov := jmhstyle.CollectProvenance()
	prov.Package = pkg
	switch format {
	case "json":
		return jmhstyle.WriteJSON(w, &prov, results)
	case "csv":
		return jmhstyle.WriteCSV(w, results)
	case "benchfmt":
		return jmhstyle.WriteBenchfmt(w, &prov, results)
	}
	if err := jmhstyle.WriteText(w, results); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(w, note)
	}
	return jmhstyle.WriteProvenance(w, prov, results)
}

// suite creates the workloads of the options.
type suite struct {
	o   *benchOptions
	cat *workload.Catalog
	bad atomic.Int64 // lookups that missed a present key (a failed check)

	in    *workload.Set // --in, once loaded
	inErr error
}

func newSuite(o *benchOptions) *suite {
	cat := workload.NewCatalog()
	cat.JumpSlots = o.jumpSlots
	return &suite{o: o, cat: cat}
}

func (s *suite) failures() error {
	if n := s.bad.Load(); n > 0 {
		return &checkFailed{fmt.Sprintf("%d lookups of present keys did not find their position", n)}
	}
	return nil
}

// config is the run configuration of one workload on threads threads. A
// cold workload gets one measured iteration per fork and --count forks (in
// this process, --count iterations, with --forks 0, which is then not
// cold).
func (s *suite) config(w workload.Workload, threads int) jmhstyle.Config {
	cfg := s.o.cfg
	cfg.Threads = threads
	if w.Cold {
		cfg.Warmup = -1
		if cfg.Forks > 0 {
			cfg.Forks = cfg.Measurement
			cfg.Measurement = 1
		}
	}
	return cfg
}

// workloads returns the selected workloads: --benchmark, --size or --in,
// --lookup-keys and --run applied.
func (s *suite) workloads() ([]workload.Workload, error) {
	if s.o.index != "" || s.o.size == workload.Huge {
		ws, err := s.fileWorkloads()
		if err != nil {
			return nil, err
		}
		return s.matching(ws)
	}
	var builds, cold, lookups []*workload.Set
	if s.o.in != "" {
		in, err := s.input()
		if err != nil {
			return nil, err
		}
		builds, cold, lookups = []*workload.Set{in}, []*workload.Set{in}, []*workload.Set{in}
	} else {
		builds = workload.BuildSets(s.cat, s.o.size)
		cold = workload.ColdSets(s.cat, s.o.size)
		lookups = workload.LookupSets(s.cat, s.o.size)
		if s.o.lookupKeys > 0 {
			lookups = []*workload.Set{s.cat.Generated(workload.MurmurUUID(s.o.lookupKeys), workload.SetMurmurUUID)}
		}
	}
	var ws []workload.Workload
	if s.o.which != "lookup" {
		ws = append(ws, workload.BuildWorkloads(s.cat, builds, cold)...)
	}
	if s.o.which != "build" {
		ws = append(ws, workload.LookupWorkloads(lookups, &s.bad)...)
	}
	return s.matching(ws)
}

// matching applies --run. A pattern that matches nothing is an error that
// lists some IDs, not an empty table with exit status 0: parameters come in
// declaration order and threads is never part of an ID, so a plausible
// pattern such as 'threads=1' or 'set=…/keys=…' silently selected nothing.
func (s *suite) matching(ws []workload.Workload) ([]workload.Workload, error) {
	if s.o.run == nil {
		return ws, nil
	}
	all := ws
	ws = slices.DeleteFunc(slices.Clone(ws), func(w workload.Workload) bool { return !s.o.run.MatchString(w.ID()) })
	if len(ws) == 0 && len(all) > 0 {
		ids := make([]string, 0, 4)
		for _, w := range all[:min(len(all), 4)] {
			ids = append(ids, w.ID())
		}
		more := ""
		if len(all) > len(ids) {
			more = fmt.Sprintf(", … (%d in all)", len(all))
		}
		return nil, fmt.Errorf("bench: --run %q matches no benchmark; IDs look like %s%s (threads is not part of an ID)",
			s.o.run.String(), strings.Join(ids, ", "), more)
	}
	return ws, nil
}

// fileWorkloads are the workloads that never hold their key set: --partitions
// (lookups on that file) or --size huge (ScaleBuilds, ScaleLookups).
func (s *suite) fileWorkloads() ([]workload.Workload, error) {
	if s.o.index != "" {
		set, err := s.cat.Indexed(s.o.index, s.o.in, s.o.part)
		if err != nil {
			return nil, err
		}
		// Sample and check the probes now, in this process: a keys.tsv
		// that is not the index's is refused before anything runs, with
		// its typed error, not as a failed fork child's message.
		if err := set.CheckLookups(); err != nil {
			return nil, err
		}
		ws := workload.LookupWorkloads([]*workload.Set{set}, &s.bad)
		if s.o.cold {
			ws = append(ws, workload.ColdLookupWorkloads([]*workload.Set{set}, &s.bad)...)
		}
		return ws, nil
	}
	var ws []workload.Workload
	if s.o.which != "lookup" {
		ws = append(ws, workload.ScaleBuilds(s.cat)...)
	}
	if s.o.which != "build" {
		ws = append(ws, workload.ScaleLookups(s.cat, &s.bad, s.o.cold)...)
	}
	return ws, nil
}

// input loads the --in key set. Its size is a parameter, so it must be
// known to name the benchmarks.
func (s *suite) input() (*workload.Set, error) {
	if s.in == nil && s.inErr == nil {
		s.in, s.inErr = s.loadInput()
	}
	return s.in, s.inErr
}

func (s *suite) loadInput() (*workload.Set, error) {
	ks, err := loadKeys(s.o.in, s.o.part, &progress{})
	if err == nil && len(ks.keys) == 0 {
		err = fmt.Errorf("%s: no keys to benchmark", s.o.in)
	}
	if err != nil {
		return nil, err
	}
	params := []jmhstyle.Param{
		{Key: "keys", Value: strconv.Itoa(len(ks.keys))},
		{Key: "set", Value: filepath.Base(s.o.in)},
		{Key: "partitioner", Value: s.o.part.String()},
	}
	return s.cat.Loaded(params, workload.NewKeys(ks.keys, ks.pos)), nil
}

// comparePair returns the builder-path A/B pair of --compare: baseline
// reference, candidate scratch, on Murmur3 UUID 100,000 keys or --in.
func (s *suite) comparePair() (base, cand jmhstyle.Benchmark, err error) {
	set := s.cat.Generated(workload.MurmurUUID(100_000), workload.SetMurmurUUID)
	if s.o.in != "" {
		if set, err = s.input(); err != nil {
			return base, cand, err
		}
	}
	return workload.Build(set, buildpath.Reference), workload.Build(set, buildpath.Scratch), nil
}

func (s *suite) comparePaths(stdout io.Writer) error {
	base, cand, err := s.comparePair()
	if err != nil {
		return err
	}
	c, err := jmhstyle.Compare(base, cand, s.o.rounds, s.o.cfg)
	if err != nil {
		return err
	}
	if s.o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	return jmhstyle.WriteComparison(stdout, c)
}

// generatedKeys returns the key set cfg generates as a keySet (bti demo).
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
