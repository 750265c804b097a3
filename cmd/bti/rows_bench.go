package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/bti-go/bti/internal/rowgen"
	"github.com/bti-go/bti/jmhstyle"
)

const rowsBenchUsage = `usage: bti rows bench [--benchmark build|lookup|all] [--blocks N] [--forks F] [--format text|json|csv|benchfmt]

Runs JMH-style benchmarks (package jmhstyle) of the row index on one wide
partition of N index blocks ((bigint, text) clusterings under a 72-byte
shared prefix; the workload of the rowindex package's go test benchmarks):

  rows-build   one op is ONE BLOCK: building the partition's row index and
               entry (Add per block, FinishPartition), on each path; the
               whole partition is N ops
  rows-lookup  one op is one block lookup: by the clustering's encoding
               (SeparatorFloor) and by value (encode, then floor)

With --format benchfmt the names are those of go test -bench in rowindex
(BenchmarkRowsBuild/blocks=10000/path=scratch/threads=1, ...), so benchstat
compares the two suites line by line. Every benchmark runs in --forks fresh
processes (0: in this process). Exit status 1 if an operation failed (a
lookup that did not find its block).
`

type rowsBenchOpts struct {
	which  string
	blocks int
	format string
	cfg    jmhstyle.Config
}

func parseRowsBenchFlags(args []string, stdout io.Writer) (rowsBenchOpts, error) {
	var o rowsBenchOpts
	fs := newFlags("rows bench", rowsBenchUsage)
	fs.StringVar(&o.which, "benchmark", "all", "which benchmarks: build, lookup or all")
	fs.IntVar(&o.blocks, "blocks", 10000, "index blocks of the partition")
	fs.StringVar(&o.format, "format", "text", "report format: text, json, csv or benchfmt")
	fs.IntVar(&o.cfg.Forks, "forks", 1, "fresh processes per benchmark (0: run in this process)")
	fs.IntVar(&o.cfg.Warmup, "warmup", 0, "warm-up iterations per fork (0: default 5, negative: none)")
	fs.IntVar(&o.cfg.Measurement, "iterations", 0, "measured iterations per fork (0: default 5)")
	fs.DurationVar(&o.cfg.IterTime, "time", 0, "duration of one iteration (0: default 200ms)")
	if err := parseCommand(fs, args, stdout); err != nil {
		return o, err
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
	if o.cfg.Forks < 0 || o.cfg.Measurement < 0 || o.cfg.IterTime < 0 {
		return o, usagef("--forks, --iterations and --time must not be negative")
	}
	return o, nil
}

// rowsBenchmarks lists the benchmarks o selects (rowgen.Benchmarks, the
// workloads the rowindex package's go test benchmarks run too). Their
// setup builds the workload, so a fork child that rebuilds the list from
// the same flags measures the same thing.
func rowsBenchmarks(o rowsBenchOpts, bad *atomic.Int64) []jmhstyle.Benchmark {
	var out []jmhstyle.Benchmark
	for _, b := range rowgen.Benchmarks(o.blocks, bad) {
		if o.which == "all" || b.Name == "rows-"+o.which {
			out = append(out, b)
		}
	}
	return out
}

func runRowsBench(args []string, stdout, stderr io.Writer) error {
	o, err := parseRowsBenchFlags(args, stdout)
	if err != nil {
		return err
	}
	o.cfg.Log = stderr
	start := time.Now()
	var bad atomic.Int64
	results, err := jmhstyle.Run(rowsBenchmarks(o, &bad), o.cfg)
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
	return rowsBenchmarks(o, &bad)
}
