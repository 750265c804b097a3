package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/rowgen"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/jmhstyle"
)

const rowsBenchUsage = `usage: bti rows bench [--benchmark build|lookup|all] [--blocks N | --in rows.tsv] [--forks F] [--format text|json|csv|benchfmt]
       bti rows bench --compare=BASE..CAND [--rounds N] [--out PREFIX] [--repo DIR] [rows bench flags]

Runs JMH-style benchmarks (package jmhstyle) of the row index on one wide
partition of N index blocks ((bigint, text) clusterings under a 72-byte
shared prefix; the workload of the rowindex package's go test benchmarks):

  rows-build   one op is ONE BLOCK: building the partition's row index and
               entry (Add per block, FinishPartition), on each path; the
               whole partition is N ops
  rows-lookup  one op is one block lookup: by the clustering's encoding
               (SeparatorFloor) and by value (encode, then floor)

With --in, rows-build times building the Rows.db of that rows.tsv (the
format bti rows build --in reads) instead, on each path: one invocation
writes the whole file on a warm writer (Reset, per partition every Add and
FinishPartition, Complete; the bytes go nowhere), the loop rows-oracle rows
ROWS.tsv OUTDIR --reps R times for Cassandra's RowIndexWriter, and ns/op is
per block. The file is built once and checked before the timing, so a bad
line fails with its number.

With --format benchfmt the names are those of go test -bench in rowindex
(BenchmarkRowsBuild/blocks=10000/path=scratch/threads=1, ...), so benchstat
compares the two suites line by line. Every benchmark runs in --forks fresh
processes (0: in this process). Exit status 1 if an operation failed (a
lookup that did not find its block).

--compare=BASE..CAND compares two git revisions as bti bench --compare
does: both built into binaries from temporary worktrees, then --rounds
rounds of alternating fresh processes (BASE first in odd rounds), each
running "bti rows bench" with the other flags given here; a table of
medians, ranges and whether the ranges are disjoint, PREFIX.csv (every
measurement) and PREFIX.json (provenance, commands, order). A revision
older than --in (stop 27) refuses it: compare those on --blocks.
`

type rowsBenchOpts struct {
	which  string
	blocks int
	in     string // rows.tsv to time instead of the synthetic partition
	format string
	cfg    jmhstyle.Config
	rev    revOptions // --compare=BASE..CAND
	rounds int
}

func parseRowsBenchFlags(args []string, stdout io.Writer) (rowsBenchOpts, error) {
	var o rowsBenchOpts
	fs := newFlags("rows bench", rowsBenchUsage)
	fs.StringVar(&o.which, "benchmark", "all", "which benchmarks: build, lookup or all")
	fs.IntVar(&o.blocks, "blocks", 10000, "index blocks of the partition")
	fs.StringVar(&o.in, "in", "", "rows.tsv whose Rows.db build to time (rows-build only)")
	fs.StringVar(&o.format, "format", "text", "report format: text, json, csv or benchfmt")
	fs.IntVar(&o.cfg.Forks, "forks", 1, "fresh processes per benchmark (0: run in this process)")
	fs.IntVar(&o.cfg.Warmup, "warmup", 0, "warm-up iterations per fork (0: default 5, negative: none)")
	fs.IntVar(&o.cfg.Measurement, "iterations", 0, "measured iterations per fork (0: default 5)")
	fs.DurationVar(&o.cfg.IterTime, "time", 0, "duration of one iteration (0: default 200ms)")
	var compare compareFlag
	fs.Var(&compare, "compare", "revision A/B: =BASE..CAND, two git revisions")
	fs.IntVar(&o.rounds, "rounds", 5, "revision A/B: rounds per side")
	fs.StringVar(&o.rev.out, "out", "", "revision A/B: write PREFIX.csv and PREFIX.json (default bti-compare-BASE-CAND)")
	fs.StringVar(&o.rev.repo, "repo", "", "revision A/B: the git repository (default: the one containing the working directory)")
	verbose := fs.Bool("v", false, "revision A/B: print progress to stderr")
	if err := parseCommand(fs, args, stdout); err != nil {
		return o, err
	}
	if compare.given && compare.revs == "" {
		return o, usagef("--compare needs two revisions: --compare=BASE..CAND (the row benchmarks time both writer paths already)")
	}
	if o.rounds < 1 {
		return o, usagef("--rounds %d: want >= 1", o.rounds)
	}
	if err := o.rev.resolve(fs, &compare); err != nil {
		return o, err
	}
	o.rev.command = []string{"rows", "bench"}
	if *verbose {
		o.cfg.Log = os.Stderr
	}
	if err := oneOf("benchmark", o.which, "build", "lookup", "all"); err != nil {
		return o, err
	}
	if err := oneOf("format", o.format, "text", "json", "csv", "benchfmt"); err != nil {
		return o, err
	}
	if o.blocks < 2 {
		return o, usagef("--blocks %d: want at least 2", o.blocks)
	}
	if o.in != "" {
		if o.which == "lookup" {
			return o, usagef("--in times rows-build only: --benchmark lookup has no rows.tsv workload")
		}
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "blocks" })
		if set {
			return o, usagef("--blocks and --in exclude each other: --in's blocks are the file's")
		}
	}
	if o.cfg.Forks < 0 || o.cfg.Measurement < 0 || o.cfg.IterTime < 0 {
		return o, usagef("--forks, --iterations and --time must not be negative")
	}
	return o, nil
}

// rowsBenchmarks lists the benchmarks o selects (rowgen.Benchmarks, the
// workloads the rowindex package's go test benchmarks run too). Their
// setup builds the workload, so a fork child that rebuilds the list from
// the same flags measures the same thing.
func rowsBenchmarks(o rowsBenchOpts, bad *atomic.Int64) ([]jmhstyle.Benchmark, error) {
	if o.in != "" {
		f, err := readRowsBenchInput(o.in)
		if err != nil {
			return nil, err
		}
		return rowgen.FileBenchmarks(f, rowsInputName(o.in), bad), nil
	}
	var out []jmhstyle.Benchmark
	for _, b := range rowgen.Benchmarks(o.blocks, bad) {
		if o.which == "all" || b.Name == "rows-"+o.which {
			out = append(out, b)
		}
	}
	return out, nil
}

// rowsInputName names a rows.tsv in benchmark names: its base name without
// .tsv, or its folder's for a file called rows.tsv (a golden-rows case).
func rowsInputName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".tsv")
	if name == "rows" {
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
			name = dir
		}
	}
	return name
}

// readRowsBenchInput reads a rows.tsv for --in and builds its Rows.db once
// (scratch path, bytes discarded), so that a line that does not parse or a
// partition the writer refuses fails before the timing, named by its line,
// rather than as failed operations in every iteration.
func readRowsBenchInput(path string) (*rowstsv.File, error) {
	f, err := rowstsv.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Partitions) == 0 {
		return nil, fmt.Errorf("%s: no partitions to build", path)
	}
	if _, err := buildRows(f, io.Discard, nil, false, buildpath.Scratch, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

func runRowsBench(args []string, stdout, stderr io.Writer) error {
	o, err := parseRowsBenchFlags(args, stdout)
	if err != nil {
		return err
	}
	if o.rev.enabled() {
		return runRevisionCompare(&benchOptions{rev: o.rev, rounds: o.rounds, cfg: o.cfg}, stdout, stderr)
	}
	o.cfg.Log = stderr
	start := time.Now()
	var bad atomic.Int64
	benchmarks, err := rowsBenchmarks(o, &bad)
	if err != nil {
		return err
	}
	results, err := jmhstyle.Run(benchmarks, o.cfg)
	if err != nil {
		return err
	}
	if n := bad.Load(); n > 0 {
		return &checkFailed{fmt.Sprintf("%d row-index benchmark operations failed (first error above)", n)}
	}
	fmt.Fprintf(stderr, "# rows bench: %d benchmarks in %s\n", len(results), time.Since(start).Round(time.Millisecond))
	return writeBenchResults(stdout, o.format, "github.com/bti-go/bti/rowindex", results, "")
}

// forkRowsBenchmarks is forkBenchmarks for "bti rows bench": the list a
// fork child rebuilds from the parent's arguments.
func forkRowsBenchmarks(args []string) []jmhstyle.Benchmark {
	if _, ok := os.LookupEnv(jmhstyle.EnvFork); !ok || len(args) < 2 || args[0] != "rows" || args[1] != "bench" {
		return nil
	}
	o, err := parseRowsBenchFlags(args[2:], io.Discard)
	if err != nil {
		return nil
	}
	// A failed op prints its error; the parent cannot see this count.
	var bad atomic.Int64
	benchmarks, err := rowsBenchmarks(o, &bad)
	if err != nil {
		return nil
	}
	return benchmarks
}
