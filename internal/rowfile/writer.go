// Package rowfile is the half of a Rows.db writer that does not depend on
// how separators are made, shared by the production writer (package
// rowindex, separators made in place in a ring of encoded clusterings) and
// the reference writer (internal/refrows, separators made a byte at a time
// from clusterings kept as values): the block checks and the errors they
// return, the payload, deletion and partition-entry encodings, the trie
// writer each partition's separators go to, the retry-safe output buffer
// (internal/indexfile.Buffer) and the per-partition and per-file state.
// Both paths therefore refuse the same blocks with the same errors and
// write the same bytes for the same separators.
package rowfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// Writer holds a Rows.db file's state below the separators: a path's
// writer checks a block with Check and OrderError, makes its separator,
// and hands it over with Add; it completes a partition's trie with
// CheckComplete and CompleteTrie, around its own end key.
//
// Memory: the unwritten part of one partition's trie and the bytes not yet
// taken by the sink.
type Writer struct {
	trie *trie.Writer
	// out holds the file's bytes not yet taken by the sink: each
	// partition's trie appends its nodes to it and AppendEntry the entry
	// after them, so a byte is copied once, into the sink.
	out      indexfile.Buffer
	pageSize int

	count      int   // blocks added to this partition
	lastOffset int64 // offset of the last block
	completed  bool  // the trie was completed (ResetPartition before the next Add)
	finished   bool  // Complete was called: the file is ended
	root       int64
	payload    [32]byte
}

// Reset starts a new Rows.db on dst, keeping allocated memory; pageSize 0
// is Cassandra's 4096.
func (w *Writer) Reset(dst io.Writer, pageSize int) {
	if w.trie == nil {
		w.trie = trie.NewWriter(nil, trie.Options{PageSize: pageSize})
	}
	w.pageSize = pageSize
	w.out.Reset(dst, 0, "rowindex")
	w.finished = false
	w.ResetPartition()
}

// ResetPartition starts a new partition's trie at the current position.
func (w *Writer) ResetPartition() {
	w.trie.Reset(&w.out, trie.Options{PageSize: w.pageSize, StartPosition: w.Position()})
	w.count = 0
	w.lastOffset = 0
	w.completed = false
	w.root = -1
}

// Position returns the file position the next byte will have.
func (w *Writer) Position() int64 { return w.out.Position() }

// Blocks returns the number of blocks added to the current partition.
func (w *Writer) Blocks() int { return w.count }

// Flush hands every buffered byte to the sink. On error the bytes the sink
// did not take stay buffered for the next attempt.
func (w *Writer) Flush() error { return w.out.Flush() }

// maybeFlush flushes when enough bytes are buffered; it is called before
// any state changes.
func (w *Writer) maybeFlush() error {
	if w.out.Full() {
		return w.out.Flush()
	}
	return nil
}

func (w *Writer) blockError(err error, reason string) error {
	return &BlockError{Err: err, Block: w.count, Reason: reason}
}

// Ready reports whether Check would accept a block at offset with open
// without work: the file and partition are open, no batch is due for the
// sink, and the offset and deletion are storable. It is the per-block
// fast path (small enough to inline); when it says no, Check says why.
func (w *Writer) Ready(offset int64, open Deletion) bool {
	return !w.finished && !w.completed && !w.out.Full() &&
		uint64(offset) < 1<<55 && // 0 <= offset and SizedIntSize(offset) < 8
		(offset > w.lastOffset || w.count == 0) &&
		(!open.Deleted || open.MarkedForDeleteAt >= 0)
}

// Check refuses a block the writer cannot take whatever its clusterings:
// after Complete or CompletePartition, an offset that is negative, not
// after the previous block's or too large, an open deletion that cannot
// be stored. It also hands full batches to the sink, before any state
// changes, so that a sink error leaves the writer as it was.
func (w *Writer) Check(offset int64, open Deletion) error {
	switch {
	case w.finished:
		return ErrFinished
	case w.completed:
		return ErrCompleted
	}
	if err := w.maybeFlush(); err != nil {
		return err
	}
	switch {
	case offset < 0:
		return w.blockError(ErrOffset, "negative offset "+strconv.FormatInt(offset, 10))
	case w.count > 0 && offset <= w.lastOffset:
		return w.blockError(ErrOffset, "offset "+strconv.FormatInt(offset, 10)+" is not after the previous block's "+strconv.FormatInt(w.lastOffset, 10))
	case SizedIntSize(offset) >= 8:
		return w.blockError(ErrOffset, "offset "+strconv.FormatInt(offset, 10)+" too large for the row index")
	case !open.Valid():
		return w.blockError(ErrDeletion, "open deletion with negative markedForDeleteAt "+strconv.FormatInt(open.MarkedForDeleteAt, 10))
	}
	return nil
}

// EncodeError wraps the error of a clustering that does not fit the
// columns; which is "first" or "last".
func (w *Writer) EncodeError(which string, err error) error {
	return &BlockError{Err: err, Block: w.count, Reason: which + " clustering: " + err.Error()}
}

// OrderError checks first <= last and prevMax < first over encodings
// (prevMax is ignored for a partition's first block). It also refuses a
// prevMax that is a proper prefix of first, which encoded clusterings
// never are (each ends in a terminator where a longer one has a separator
// or another terminator): the separator is made at the first byte where
// prevMax and first differ, so one must exist.
func (w *Writer) OrderError(prevMax, first, last []byte) error {
	if bytes.Compare(first, last) > 0 {
		return w.blockError(ErrBlockOrder, fmt.Sprintf("first clustering %x sorts after its last clustering %x", first, last))
	}
	if w.count > 0 && bytes.Compare(prevMax, first) >= 0 {
		return w.blockError(ErrBlockOrder, fmt.Sprintf("first clustering %x does not sort after the previous block's last clustering %x (blocks out of order or overlapping)", first, prevMax))
	}
	if w.count > 0 && bytes.HasPrefix(first, prevMax) {
		return w.blockError(ErrBlockOrder, fmt.Sprintf("the previous block's last clustering %x is a prefix of the first clustering %x", prevMax, first))
	}
	return nil
}

// Add hands a checked block's separator to the trie with the payload of
// its offset and open deletion. On error nothing changed; the trie may
// keep reading sep until the next Add.
func (w *Writer) Add(sep []byte, offset int64, open Deletion) error {
	return w.AddShared(sep, -1, offset, open)
}

// AddShared is Add for a path that knows how many leading bytes sep
// shares with the previous separator (trie.Writer.AddShared, whose
// warning holds: a wrong count corrupts the trie); -1 means unknown, and
// the trie compares the two.
func (w *Writer) AddShared(sep []byte, shared int, offset int64, open Deletion) error {
	// The payload goes straight into w.payload (AppendPayload's layout):
	// the offset word stored whole at its start, cut to its size.
	word, size := offsetWord(offset)
	binary.BigEndian.PutUint64(w.payload[:8], word)
	p, flags := appendOpen(w.payload[:size], size, open)
	var err error
	if shared < 0 {
		err = w.trie.Add(sep, flags, p)
	} else {
		err = w.trie.AddShared(sep, shared, flags, p)
	}
	if err != nil {
		return err
	}
	w.count++
	w.lastOffset = offset
	return nil
}

// CheckComplete is the start of a path's CompletePartition: done reports
// that the call ends here with root and err (the trie was completed
// already, or endPos or the partition is refused), otherwise the path
// makes its end key and calls CompleteTrie.
func (w *Writer) CheckComplete(endPos int64) (root int64, done bool, err error) {
	if w.completed {
		return w.root, true, nil
	}
	if w.count == 0 {
		return -1, true, ErrNoBlocks
	}
	if endPos <= w.lastOffset || SizedIntSize(endPos) >= 8 {
		return -1, true, &BlockError{Err: ErrOffset, Block: w.count, Reason: "end position " + strconv.FormatInt(endPos, 10) + " is not after the last block's offset " + strconv.FormatInt(w.lastOffset, 10)}
	}
	if err := w.maybeFlush(); err != nil {
		return -1, true, err
	}
	return 0, false, nil
}

// CompleteTrie adds the end key with endPos as its offset, writes the rest
// of the partition's trie and returns its root.
func (w *Writer) CompleteTrie(end []byte, endPos int64) (root int64, err error) {
	p, flags := AppendPayload(w.payload[:0], endPos, Deletion{})
	if err := w.trie.Add(end, flags, p); err != nil {
		return -1, err
	}
	// The trie appends its last part to w.out, handing full batches to
	// the sink as it goes. If a hand-over fails, the trie is complete all
	// the same and what the sink refused stays in w.out: the partition is
	// completed (a retry returns the root) and the next call that flushes
	// retries the bytes.
	root, err = w.trie.Complete()
	w.completed = true
	w.root = root
	return root, err
}

// AppendEntry writes the partition entry the table writer appends after a
// completed row index trie (see AppendEntry the function) and returns its
// position, the value Partitions.db holds for the key.
func (w *Writer) AppendEntry(key []byte, dataPos, root int64, blocks int, deletion Deletion) (int64, error) {
	switch {
	case w.finished:
		return -1, ErrFinished
	case len(key) > partitioner.MaxKeyLength:
		return -1, fmt.Errorf("%w: %d bytes", ErrKey, len(key))
	case dataPos < 0:
		return -1, fmt.Errorf("%w: negative data position %d", ErrOffset, dataPos)
	case !deletion.Valid():
		return -1, fmt.Errorf("%w: partition deletion with negative markedForDeleteAt %d", ErrDeletion, deletion.MarkedForDeleteAt)
	}
	if err := w.maybeFlush(); err != nil {
		return -1, err
	}
	pos := w.Position()
	w.out.B = AppendEntry(w.out.B, pos, key, dataPos, root, blocks, deletion)
	return pos, nil
}

// FinishPartition ends the current partition as Cassandra's partition and
// table writers do: with more than one block, the trie is completed at
// endPos by completePartition (the path's CompletePartition) and the
// entry appended; otherwise nothing is written. It returns the value
// Partitions.db stores for the key and the root (-1 without a row index).
// The caller starts the next partition (its ResetPartition) on success.
func (w *Writer) FinishPartition(key []byte, dataPos, endPos int64, deletion Deletion, completePartition func(int64) (int64, error)) (value, root int64, err error) {
	if w.finished {
		return 0, -1, ErrFinished
	}
	if dataPos < 0 {
		return 0, -1, fmt.Errorf("%w: negative data position %d", ErrOffset, dataPos)
	}
	if len(key) > partitioner.MaxKeyLength {
		return 0, -1, fmt.Errorf("%w: %d bytes", ErrKey, len(key))
	}
	if !deletion.Valid() {
		return 0, -1, fmt.Errorf("%w: partition deletion with negative markedForDeleteAt %d", ErrDeletion, deletion.MarkedForDeleteAt)
	}
	if w.count <= 1 {
		return indexfile.DataPosition(dataPos), -1, nil
	}
	root, err = completePartition(endPos)
	if err != nil {
		return 0, -1, err
	}
	pos, err := w.AppendEntry(key, dataPos, root, w.count, deletion)
	if err != nil {
		return 0, -1, err
	}
	return indexfile.RowIndexPosition(pos), root, nil
}

// Complete ends the file: it hands every buffered byte to the sink. A
// partition with blocks but not finished is ErrUnfinished. On a write
// error the bytes the sink did not take stay buffered and calling
// Complete again retries them.
func (w *Writer) Complete() error {
	if !w.finished && (w.count > 0 || w.completed) {
		return ErrUnfinished
	}
	w.finished = true
	return w.out.Flush()
}
