package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/rowgen"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/rowindex"
)

const rowsBenchUsage = `usage: bti rows bench [--benchmark build|lookup|all] [--blocks N] [--forks F] [--format text|json|csv|benchfmt]

Runs JMH-style benchmarks (package jmhstyle) of the row index on one wide
partition of N index blocks ((bigint, text) clusterings under a 72-byte
shared prefix; the workload of the rowindex package's go test benchmarks):

  rows-build   one op is ONE BLOCK: building the partition's row index and
               entry (Add per block, FinishPartition), on each path
  rows-lookup  one op is one block lookup: by the clustering's encoding
               (SeparatorFloor) and by value (encode, then floor)

Every benchmark runs in --forks fresh processes (0: in this process).
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

// rowsBenchmarks lists the benchmarks o selects. Their setup builds the
// workload, so a fork child that rebuilds the list from the same flags
// measures the same thing.
func rowsBenchmarks(o rowsBenchOpts) []jmhstyle.Benchmark {
	cols, blocks := rowgen.Wide(o.blocks)
	n := strconv.Itoa(o.blocks)
	var out []jmhstyle.Benchmark
	if o.which != "lookup" {
		for _, path := range []rowindex.Path{rowindex.PathScratch, rowindex.PathReference} {
			out = append(out, jmhstyle.Benchmark{
				Name:   "rows-build",
				Params: []jmhstyle.Param{{Key: "blocks", Value: n}, {Key: "path", Value: path.String()}},
				Setup: func() (func(int), func(), error) {
					w := rowindex.NewWriter(io.Discard, rowindex.Options{Columns: cols, Path: path})
					next := 0
					var err error
					op := func(ops int) {
						for range ops {
							if err != nil {
								return
							}
							if err = w.Add(blocks[next]); err != nil {
								return
							}
							if next++; next == len(blocks) {
								_, err = w.FinishPartition([]byte("key"), 0, blocks[next-1].Offset+1, rowindex.Live)
								next = 0
							}
						}
					}
					return op, func() {
						if err != nil {
							fmt.Fprintln(os.Stderr, "rows-build:", err)
						}
					}, nil
				},
			})
		}
	}
	if o.which != "build" {
		for _, by := range []string{"encoding", "value"} {
			out = append(out, jmhstyle.Benchmark{
				Name:   "rows-lookup",
				Params: []jmhstyle.Param{{Key: "blocks", Value: n}, {Key: "by", Value: by}},
				Setup: func() (func(int), func(), error) {
					return rowsLookupOp(cols, blocks, by == "value")
				},
			})
		}
	}
	return out
}

func rowsLookupOp(cols []bytecomparable.Column, blocks []rowindex.Block, byValue bool) (func(int), func(), error) {
	var file bytes.Buffer
	w := rowindex.NewWriter(&file, rowindex.Options{Columns: cols})
	for _, b := range blocks {
		if err := w.Add(b); err != nil {
			return nil, nil, err
		}
	}
	res, err := w.FinishPartition([]byte("key"), 0, blocks[len(blocks)-1].Offset+1, rowindex.Live)
	if err != nil {
		return nil, nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, nil, err
	}
	p, err := rowindex.OpenPartition(file.Bytes(), res.Value, cols)
	if err != nil {
		return nil, nil, err
	}
	r := p.NewReader()
	keys := make([][]byte, len(blocks))
	for i, b := range blocks {
		keys[i], _ = bytecomparable.AppendClustering(nil, cols, b.Last, bytecomparable.Clustering)
	}
	order := rowgen.LookupOrder(len(blocks))
	var lookupErr error
	i := 0
	op := func(ops int) {
		for range ops {
			j := order[i&4095]
			i++
			var info rowindex.IndexInfo
			var err error
			if byValue {
				info, _, err = r.Floor(blocks[j].Last, bytecomparable.Clustering)
			} else {
				info, _, err = r.SeparatorFloor(keys[j])
			}
			if err == nil && info.Offset != blocks[j].Offset {
				err = fmt.Errorf("block %d found at offset %d, want %d", j, info.Offset, blocks[j].Offset)
			}
			if err != nil && lookupErr == nil {
				lookupErr = err
			}
		}
	}
	return op, func() {
		if lookupErr != nil {
			fmt.Fprintln(os.Stderr, "rows-lookup:", lookupErr)
		}
	}, nil
}

func runRowsBench(args []string, stdout, stderr io.Writer) error {
	o, err := parseRowsBenchFlags(args, stdout)
	if err != nil {
		return err
	}
	o.cfg.Log = stderr
	start := time.Now()
	results, err := jmhstyle.Run(rowsBenchmarks(o), o.cfg)
	if err != nil {
		return err
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
	return rowsBenchmarks(o)
}
