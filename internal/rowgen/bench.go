package rowgen

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/refrows"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/jmhstyle"
	"github.com/bti-go/bti/rowindex"
)

// Names of the row-index benchmarks. Both suites run them from Benchmarks,
// "go test -bench" in rowindex (BenchmarkRowsBuild, BenchmarkRowsLookup)
// and "bti rows bench", so that jmhstyle.BenchName gives one workload the
// same name in both and benchstat compares them line by line:
//
//	BenchmarkRowsBuild/blocks=10000/path=scratch/threads=1
//	BenchmarkRowsLookup/blocks=10000/by=encoding/threads=1
const (
	BuildName  = "rows-build"
	LookupName = "rows-lookup"
)

// BlockSize is the Data.db distance between two blocks of Wide.
const BlockSize = 16400

// Benchmarks returns the row-index workloads on one wide partition of n
// index blocks (Wide(n)):
//
//   - rows-build, params blocks and path (scratch, reference): one op is
//     ONE BLOCK, Writer.Add of the partition's next block; after the last
//     block FinishPartition completes the trie and appends the entry, and
//     the next op starts the partition again on the same warm Writer. So
//     ns/op, B/op and allocs/op are per block with the completion
//     amortised, and building the whole partition costs n ops.
//   - rows-lookup, params blocks and by (encoding, value): one op is one
//     block lookup in the partition's row index, Reader.SeparatorFloor of
//     a block's last clustering encoded beforehand (by=encoding) or
//     Reader.Floor of its values, which encodes them first (by=value), in
//     the fixed order of LookupOrder; each result is checked.
//
// Info reports index-bytes, the size of the partition's row index and
// entry. An op that fails (a build error, a lookup that does not find its
// block) adds one to bad and prints the first error to stderr; a runner
// checks bad after running, because a benchmark of a broken writer or
// lookup is worthless.
func Benchmarks(n int, bad *atomic.Int64) []jmhstyle.Benchmark {
	cols, blocks := Wide(n)
	blocksParam := jmhstyle.Param{Key: "blocks", Value: strconv.Itoa(n)}
	var indexBytes atomic.Int64
	info := func() []jmhstyle.Param {
		if v := indexBytes.Load(); v > 0 {
			return []jmhstyle.Param{{Key: "index-bytes", Value: strconv.FormatInt(v, 10)}}
		}
		return nil
	}
	var out []jmhstyle.Benchmark
	for _, path := range buildpath.All {
		out = append(out, jmhstyle.Benchmark{
			Name:   BuildName,
			Params: []jmhstyle.Param{blocksParam, {Key: "path", Value: path.String()}},
			Setup: func() (func(int), func(), error) {
				return buildOp(cols, blocks, path, bad, &indexBytes), nil, nil
			},
			Info: info,
		})
	}
	for _, by := range []string{"encoding", "value"} {
		out = append(out, jmhstyle.Benchmark{
			Name:   LookupName,
			Params: []jmhstyle.Param{blocksParam, {Key: "by", Value: by}},
			Setup: func() (func(int), func(), error) {
				return lookupOp(cols, blocks, by == "value", bad, &indexBytes)
			},
			Info: info,
		})
	}
	return out
}

// failer counts failed ops into bad and prints the first error.
type failer struct {
	bad     *atomic.Int64
	printed bool
}

func (f *failer) fail(name string, err error) {
	f.bad.Add(1)
	if !f.printed {
		f.printed = true
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	}
}

func buildOp(cols []bytecomparable.Column, blocks []rowindex.Block, path buildpath.Path, bad, indexBytes *atomic.Int64) func(int) {
	w := refrows.New(path, io.Discard, rowindex.Options{Columns: cols})
	f := failer{bad: bad}
	end := blocks[len(blocks)-1].Offset + BlockSize
	next := 0
	start := w.Position()
	return func(ops int) {
		for range ops {
			if err := w.Add(blocks[next]); err != nil {
				f.fail(BuildName, err)
			}
			if next++; next == len(blocks) {
				if _, err := w.FinishPartition([]byte("key"), 0, end, rowindex.Live); err != nil {
					f.fail(BuildName, err)
				}
				indexBytes.Store(w.Position() - start)
				start = w.Position()
				next = 0
			}
		}
	}
}

func lookupOp(cols []bytecomparable.Column, blocks []rowindex.Block, byValue bool, bad, indexBytes *atomic.Int64) (func(int), func(), error) {
	var file bytes.Buffer
	w := rowindex.NewWriter(&file, rowindex.Options{Columns: cols})
	for _, b := range blocks {
		if err := w.Add(b); err != nil {
			return nil, nil, err
		}
	}
	res, err := w.FinishPartition([]byte("key"), 0, blocks[len(blocks)-1].Offset+BlockSize, rowindex.Live)
	if err != nil {
		return nil, nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, nil, err
	}
	indexBytes.Store(int64(file.Len()))
	p, err := rowindex.OpenPartition(file.Bytes(), res.Value, cols)
	if err != nil {
		return nil, nil, err
	}
	r := p.NewReader()
	keys := make([][]byte, len(blocks))
	for i, b := range blocks {
		keys[i], _ = bytecomparable.AppendClustering(nil, cols, b.Last, bytecomparable.Clustering)
	}
	order := LookupOrder(len(blocks))
	f := failer{bad: bad}
	i := 0
	return func(ops int) {
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
			if err == nil && (info.Offset != blocks[j].Offset || info.OpenDeletion != blocks[j].OpenDeletion) {
				err = fmt.Errorf("block %d found at offset %d, want %d", j, info.Offset, blocks[j].Offset)
			}
			if err != nil {
				f.fail(LookupName, err)
			}
		}
	}, nil, nil
}

// FileBenchmarks returns rows-build over a given rows.tsv (bti rows bench
// --in), params in (name), blocks (the file's) and path: one invocation
// writes the whole file's Rows.db on a warm writer, the loop rows-oracle
// --reps times for Cassandra's RowIndexWriter — Reset to a new file, per
// partition every Add and, with more than one block, the completion and
// the entry (FinishPartition; a one-block partition writes nothing), then
// Complete — and ns/op is per block (OpsPerInvocation is the block
// count). The bytes go to io.Discard, where Java's go to a
// SequentialWriter over a scratch file. Info reports rows-bytes, the
// file's size.
func FileBenchmarks(f *rowstsv.File, name string, bad *atomic.Int64) []jmhstyle.Benchmark {
	blocks := 0
	for _, p := range f.Partitions {
		blocks += len(p.Blocks)
	}
	var fileBytes atomic.Int64
	info := func() []jmhstyle.Param {
		return []jmhstyle.Param{{Key: "rows-bytes", Value: strconv.FormatInt(fileBytes.Load(), 10)}}
	}
	var out []jmhstyle.Benchmark
	for _, path := range buildpath.All {
		out = append(out, jmhstyle.Benchmark{
			Name: BuildName,
			Params: []jmhstyle.Param{{Key: "in", Value: name}, {Key: "blocks", Value: strconv.Itoa(blocks)},
				{Key: "path", Value: path.String()}},
			Setup: func() (func(int), func(), error) {
				return fileOp(f, path, bad, &fileBytes), nil, nil
			},
			OpsPerInvocation: max(blocks, 1),
			Info:             info,
		})
	}
	return out
}

// fileOp writes f's Rows.db once per invocation (see FileBenchmarks).
func fileOp(f *rowstsv.File, path buildpath.Path, bad, fileBytes *atomic.Int64) func(int) {
	opts := rowindex.Options{Columns: f.Columns}
	w := refrows.New(path, io.Discard, opts)
	fl := failer{bad: bad}
	return func(invocations int) {
		for range invocations {
			w.Reset(io.Discard, opts)
			for _, p := range f.Partitions {
				for _, b := range p.Blocks {
					if err := w.Add(b); err != nil {
						fl.fail(BuildName, err)
					}
				}
				if _, err := w.FinishPartition(p.Key, p.DataPosition, p.EndPosition, p.Deletion); err != nil {
					fl.fail(BuildName, err)
				}
			}
			if err := w.Complete(); err != nil {
				fl.fail(BuildName, err)
			}
			fileBytes.Store(w.Position())
		}
	}
}
