package main

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/workload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// streamWriteBuffer is the write buffer between the builder and the
// output: the builder hands over a page or a few at a time, and the file
// sees 1 MiB writes.
const streamWriteBuffer = 1 << 20

// streamResult is what a streamed build reports: the bytes written, the
// root, and its views, with the same measurements as a held build's over
// the whole stream (reading, decoding and writing included).
type streamResult struct {
	buildResult
	count int64
	size  int64
}

// countingWriter counts the bytes the builder has handed over, so a view
// knows how much of the file it covers.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// streamBuild builds the index of the keys in path straight into o, one
// line at a time: it holds the builder's working set (its pending nodes,
// bounded by the trie's depth and the page size, not the key count), the
// current and previous key, and the 1 MiB write buffer, whatever the
// number of keys. It checks each line as loadKeys does, naming the line;
// on any error, and on SIGINT or SIGTERM, it returns before o is
// committed, so the caller's deferred abort removes the temporary file
// and leaves the output as it was. requests are early-open views to take
// (--partial-at); each records how many bytes the file then held.
func streamBuild(path string, o *output, opts partitionindex.Options, bpath buildpath.Path, requests []int, prog *progress) (*streamResult, error) {
	ks, err := openKeyStream(path, opts.Partitioner, "building from", prog)
	if err != nil {
		return nil, err
	}
	defer ks.Close()
	bw := bufio.NewWriterSize(o, streamWriteBuffer)
	cw := &countingWriter{w: bw}
	b := workload.NewPathBuilder(cw, opts, bpath)
	res := &streamResult{buildResult: buildResult{partials: make([]partialRequest, len(requests))}}
	next := 0 // next request

	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	for ks.Next() {
		if err := b.Add(ks.Key(), ks.Pos()); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, ks.Line(), err)
		}
		for next < len(requests) && int64(requests[next]) == ks.Count() {
			if err := takePartial(b, func() int { return int(cw.n) }, &res.partials[next], requests[next]); err != nil {
				return nil, err
			}
			next++
		}
	}
	if err := ks.Err(); err != nil {
		return nil, err
	}
	if next < len(requests) {
		return nil, usagef("--partial-at %d: %s has only %d keys", requests[len(requests)-1], path, ks.Count())
	}
	meta, err := b.Complete()
	if err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	res.elapsed = time.Since(start)
	runtime.ReadMemStats(&m1)
	res.root, res.count, res.size = meta.Root, ks.Count(), cw.n
	res.allocBytes = m1.TotalAlloc - m0.TotalAlloc
	res.allocs = m1.Mallocs - m0.Mallocs
	return res, nil
}

// checkStreamedPartials checks the views of a streamed build (see
// checkPartials) on a second pass over keys.tsv: file maps the written
// index, each view reads its prefix, and every view is fed the keys it
// covers as they stream by, so nothing but the views' readers is held.
func checkStreamedPartials(path string, p partitioner.Partitioner, file []byte, partials []partialRequest, stderr io.Writer) error {
	checks, err := openViewChecks(file, partials, path)
	defer closeViewChecks(checks)
	if err != nil || len(checks) == 0 {
		return err
	}
	ks, err := openKeyStream(path, p, "checking early-open views against", newProgress(stderr))
	if err != nil {
		return err
	}
	defer ks.Close()
	for i := 0; ks.Next(); i++ {
		if !feedViewChecks(checks, i, ks.Key(), ks.Pos()) {
			break
		}
	}
	if err := ks.Err(); err != nil {
		return err
	}
	return viewVerdicts(checks, len(partials), stderr)
}
