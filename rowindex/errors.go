package rowindex

import (
	"errors"
	"strconv"

	"github.com/bti-go/bti/internal/indexfile"
)

var (
	// ErrBlockOrder: a block's first clustering is not after the previous
	// block's last one (blocks out of order or overlapping), or a block's
	// first clustering is after its last.
	ErrBlockOrder = errors.New("rowindex: index blocks out of order")
	// ErrOffset: a block offset that is negative, not increasing, or an end
	// position not after the last block.
	ErrOffset = errors.New("rowindex: bad block offset")
	// ErrDeletion: a deletion time the format cannot store (negative
	// markedForDeleteAt).
	ErrDeletion = errors.New("rowindex: bad deletion time")
	// ErrNoBlocks: CompletePartition on a partition without blocks.
	ErrNoBlocks = errors.New("rowindex: partition has no index blocks")
	// ErrCompleted: Add after CompletePartition completed the partition's
	// trie (call ResetPartition to start the next partition).
	ErrCompleted = errors.New("rowindex: partition already completed")
	// ErrFinished: Add, FinishPartition or AppendEntry after Complete
	// ended the file (Reset starts a new one).
	ErrFinished = errors.New("rowindex: writer already completed")
	// ErrUnfinished: Complete while a partition has blocks but was not
	// finished (FinishPartition, or ResetPartition to abandon it).
	ErrUnfinished = errors.New("rowindex: partition not finished")
	// ErrKey: a partition key longer than partitioner.MaxKeyLength bytes.
	ErrKey = errors.New("rowindex: partition key too long")
	// ErrCorrupt is matched by every *CorruptError. It is the module's one
	// corruption marker (trie.ErrCorrupt and partitionindex.ErrCorrupt are
	// the same value).
	ErrCorrupt = indexfile.ErrCorrupt
)

// BlockError reports a block the writer refused. It matches its Err
// (ErrBlockOrder, ErrOffset, ErrDeletion, or bytecomparable.ErrValue for a
// clustering that does not fit the columns) with errors.Is.
type BlockError struct {
	Err    error
	Block  int    // index of the refused block in its partition
	Reason string // details
}

func (e *BlockError) Error() string {
	return "rowindex: block " + strconv.Itoa(e.Block) + ": " + e.Reason
}

func (e *BlockError) Unwrap() error { return e.Err }

// CorruptError reports bytes that are not a valid row index. It is the
// module's one corruption error type (trie.CorruptError and
// partitionindex.CorruptError are the same type).
type CorruptError = indexfile.CorruptError
