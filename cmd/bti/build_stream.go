package main

import (
	"bufio"
	"fmt"

	"github.com/bti-go/bti/partitionindex"
)

// streamWriteBuffer is the write buffer between the builder and the
// output: the builder hands over a page or a few at a time, and the file
// sees 1 MiB writes.
const streamWriteBuffer = 1 << 20

// streamBuild builds the index of the keys in path straight into o, one
// line at a time: it holds the builder's working set (its pending nodes,
// bounded by the trie's depth and the page size, not the key count), the
// current and previous key, and the 1 MiB write buffer, whatever the
// number of keys. It checks each line as loadKeys does, naming the line;
// on any error, and on SIGINT or SIGTERM, it returns before o is
// committed, so the caller's deferred abort removes the temporary file
// and leaves the output as it was.
func streamBuild(path string, o *output, opts partitionindex.Options, prog *progress) (count int64, err error) {
	ks, err := openKeyStream(path, opts.Partitioner, "building from", prog)
	if err != nil {
		return 0, err
	}
	defer ks.Close()
	bw := bufio.NewWriterSize(o, streamWriteBuffer)
	b := partitionindex.NewBuilder(bw, opts)
	for ks.Next() {
		if err := b.AddEntry(ks.Key(), ks.Pos()); err != nil {
			return 0, fmt.Errorf("%s line %d: %w", path, ks.Line(), err)
		}
	}
	if err := ks.Err(); err != nil {
		return 0, err
	}
	if _, err := b.Complete(); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return ks.Count(), nil
}
