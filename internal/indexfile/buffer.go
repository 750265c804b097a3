package indexfile

import (
	"fmt"
	"io"
)

// FlushThreshold is how many pending bytes a Buffer's producers gather
// before handing them to the writer, at the start of their next call.
const FlushThreshold = 64 << 10

// Buffer holds the bytes of one file that are produced but not yet taken by
// the file's io.Writer. Producers append to B directly (and may write into
// its spare capacity); Flush hands B to the writer.
//
// Retry contract: a producer flushes at the start of a call, before it
// changes any state of its own, so a writer's error reaches the caller of a
// call that did nothing else; the bytes the writer did not take stay in B,
// and the next Flush retries them. A Buffer never fails an append: every
// error comes from the writer, at a point where the producer can return it
// unchanged. That is what lets partitionindex.Builder and rowindex.Writer
// promise that a failed call leaves them as before.
//
// Several producers may share one Buffer: a Rows.db writer's tries, one per
// partition, append to the buffer that also receives each partition's
// entry, and a Partitions.db builder appends its footer after its trie's
// last node.
type Buffer struct {
	// B holds the pending bytes; they start at file position Flushed().
	B       []byte
	dst     io.Writer
	flushed int64  // file position of B[0]: the start plus what dst took
	owner   string // the package named in write errors
}

// Reset starts the buffer for a file written to dst from file position
// start, keeping B's memory. owner is the package name write errors begin
// with ("partitionindex", "rowindex", "trie").
func (b *Buffer) Reset(dst io.Writer, start int64, owner string) {
	b.B = b.B[:0]
	b.dst = dst
	b.flushed = start
	b.owner = owner
}

// Position returns the file position of the next byte appended.
func (b *Buffer) Position() int64 { return b.flushed + int64(len(b.B)) }

// Flushed returns the file position of the first pending byte: everything
// before it has been taken by the writer.
func (b *Buffer) Flushed() int64 { return b.flushed }

// Write appends p to the pending bytes. It never fails; it makes a Buffer
// an io.Writer for producers that take one.
func (b *Buffer) Write(p []byte) (int, error) {
	b.B = append(b.B, p...)
	return len(p), nil
}

// Full reports whether enough bytes are pending to hand them over.
func (b *Buffer) Full() bool { return len(b.B) >= FlushThreshold }

// Flush hands every pending byte to the writer in one Write call. On error
// the bytes the writer did not take stay pending for the next attempt; a
// writer that reports taking more than it was given, or fewer without an
// error, is treated as having taken nothing or that many with
// io.ErrShortWrite.
func (b *Buffer) Flush() error {
	if len(b.B) == 0 {
		return nil
	}
	n, err := b.dst.Write(b.B)
	if n < 0 || n > len(b.B) {
		n = 0
		if err == nil {
			err = io.ErrShortWrite
		}
	}
	b.flushed += int64(n)
	rest := copy(b.B, b.B[n:])
	b.B = b.B[:rest]
	if err == nil && rest > 0 {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("%s: writing at offset %d: %w", b.owner, b.flushed, err)
	}
	return nil
}
