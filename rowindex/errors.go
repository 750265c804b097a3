package rowindex

import (
	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/internal/rowfile"
)

// The errors are internal/rowfile's values, which the writer of every
// path returns.
var (
	// ErrBlockOrder: a block's first clustering is not after the previous
	// block's last one (blocks out of order or overlapping), or a block's
	// first clustering is after its last.
	ErrBlockOrder = rowfile.ErrBlockOrder
	// ErrOffset: a block offset that is negative, not increasing, or an end
	// position not after the last block.
	ErrOffset = rowfile.ErrOffset
	// ErrDeletion: a deletion time the format cannot store (negative
	// markedForDeleteAt).
	ErrDeletion = rowfile.ErrDeletion
	// ErrNoBlocks: CompletePartition on a partition without blocks.
	ErrNoBlocks = rowfile.ErrNoBlocks
	// ErrCompleted: Add after CompletePartition completed the partition's
	// trie (call ResetPartition to start the next partition).
	ErrCompleted = rowfile.ErrCompleted
	// ErrFinished: Add, FinishPartition or AppendEntry after Complete
	// ended the file (Reset starts a new one).
	ErrFinished = rowfile.ErrFinished
	// ErrUnfinished: Complete while a partition has blocks but was not
	// finished (FinishPartition, or ResetPartition to abandon it).
	ErrUnfinished = rowfile.ErrUnfinished
	// ErrKey: a partition key longer than partitioner.MaxKeyLength bytes.
	ErrKey = rowfile.ErrKey
	// ErrCorrupt is matched by every *CorruptError. It is the module's one
	// corruption marker (trie.ErrCorrupt and partitionindex.ErrCorrupt are
	// the same value).
	ErrCorrupt = indexfile.ErrCorrupt
)

// BlockError reports a block the writer refused: Block is its index in
// its partition, Reason the details. It matches its Err (ErrBlockOrder,
// ErrOffset, ErrDeletion, or bytecomparable.ErrValue for a clustering that
// does not fit the columns) with errors.Is.
type BlockError = rowfile.BlockError

// CorruptError reports bytes that are not a valid row index. It is the
// module's one corruption error type (trie.CorruptError and
// partitionindex.CorruptError are the same type).
type CorruptError = indexfile.CorruptError
