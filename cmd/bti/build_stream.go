package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// streamWriteBuffer is the write buffer between the builder and the
// output: the builder hands over a page or a few at a time, and the file
// sees 1 MiB writes.
const streamWriteBuffer = 1 << 20

// errInterrupted is the cause a build stopped by SIGINT or SIGTERM names.
var errInterrupted = errors.New("interrupted by a signal")

// streamBuild builds the index of the keys in path straight into o, one
// line at a time: it holds the builder's working set (its pending nodes,
// bounded by the trie's depth and the page size, not the key count), the
// current and previous key, and the 1 MiB write buffer, whatever the
// number of keys. It checks each line as loadKeys does, naming the line;
// on any error, and on SIGINT or SIGTERM, it returns before o is
// committed, so the caller's deferred abort removes the temporary file
// and leaves the output as it was.
func streamBuild(path string, o *output, opts partitionindex.Options, prog *progress) (count int64, err error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	r, err := keystsv.Open(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	bw := bufio.NewWriterSize(o, streamWriteBuffer)
	b := partitionindex.NewBuilder(bw, opts)
	p := opts.Partitioner
	kr := keystsv.NewReader(r)
	// The reader reuses its line buffer, so the previous key, which the
	// order check and its message need, lives in a buffer of its own.
	var prevRaw []byte
	var prev partitioner.Key
	for kr.Next() {
		line, raw := kr.Line(), kr.Key()
		if line&0xFFFF == 0 {
			if ctx.Err() != nil {
				return 0, fmt.Errorf("%s line %d: %w", path, line, errInterrupted)
			}
			prog.update("building from %s: %d keys", path, line)
		}
		if err := checkLine(path, line, raw, kr.Pos()); err != nil {
			return 0, err
		}
		k := p.Decorate(raw)
		if count > 0 {
			if err := checkOrder(path, line, prev, k); err != nil {
				return 0, err
			}
		}
		if err := b.AddEntry(&k, kr.Pos()); err != nil {
			return 0, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		prevRaw = append(prevRaw[:0], raw...)
		prev = k // token and hash carry over; only the bytes need a copy
		prev.Raw = prevRaw
		count++
	}
	prog.done()
	if err := kr.Err(); err != nil {
		return 0, readError(path, err)
	}
	if ctx.Err() != nil {
		return 0, fmt.Errorf("%s: %w", path, errInterrupted)
	}
	if _, err := b.Complete(); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return count, nil
}
