package partitionindex

import (
	"errors"

	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/internal/partitionfile"
)

// The builder's refusal sentinels (ErrKeyTooLong, ErrPosition,
// ErrPartitioner, ErrFinished) are defined in internal/partitionfile, so
// that the reference builder the tests compare with returns the same values.
// This block mirrors rowindex's errors.go, which re-exports
// internal/rowfile's sentinels the same way for Rows.db: each package
// exports the values its writers below it return, and the two lists stay
// separate because the errors are not the same.
var (
	// ErrKeyOrder: a key is not strictly greater than the previous one in
	// the partitioner's decorated-key order (this includes duplicates).
	// It is the module's one key-order sentinel (trie.ErrKeyOrder and
	// tableindex.ErrKeyOrder are the same value).
	ErrKeyOrder = indexfile.ErrKeyOrder
	// ErrKeyTooLong: a partition key longer than partitioner.MaxKeyLength
	// bytes, the most the footer's (and Cassandra's) unsigned 16-bit length
	// can hold.
	ErrKeyTooLong = partitionfile.ErrKeyTooLong
	// ErrPosition: a position that cannot be stored (math.MinInt64 is
	// Cassandra's "not found" marker).
	ErrPosition = partitionfile.ErrPosition
	// ErrPartitioner: a key decorated by another partitioner than the
	// builder's or reader's, or a partitioner value that names none.
	ErrPartitioner = partitionfile.ErrPartitioner
	// ErrFinished: the builder was completed (or closed).
	ErrFinished = partitionfile.ErrFinished
	// ErrClosed: the index or reader handle was closed.
	ErrClosed = errors.New("partitionindex: index closed")
	// ErrNoKeyAt: Ceiling or Floor was called without the KeyAt that
	// confirms its answer; CeilingCandidates and FloorCandidates return
	// the unconfirmed candidates.
	ErrNoKeyAt = errors.New("partitionindex: Ceiling and Floor need a KeyAt to confirm their answer (CeilingCandidates and FloorCandidates return unconfirmed candidates)")
	// ErrPartitionerMismatch: the index was not written with the
	// partitioner it is opened with (see PartitionerMismatchError).
	ErrPartitionerMismatch = errors.New("partitionindex: wrong partitioner")
	// ErrCorrupt: the file is not a valid partition index. It is the
	// module's one corruption marker (trie.ErrCorrupt and
	// rowindex.ErrCorrupt are the same value).
	ErrCorrupt = indexfile.ErrCorrupt
)

// KeyError reports a key the builder refused: Err is ErrKeyOrder,
// ErrKeyTooLong, ErrPosition or ErrPartitioner, which it matches with
// errors.Is; Index is the 0-based number of the Add call, Key the raw
// partition key and, for ErrKeyOrder, Prev the previous one (copies), Pos
// the position passed with the key. It is the module's one KeyError type
// (trie.KeyError and tableindex.KeyError are the same type).
type KeyError = indexfile.KeyError

// CorruptError reports where and why a file is not a valid index. It
// matches ErrCorrupt with errors.Is. It is the module's one corruption error
// type, the same as trie.CorruptError and rowindex.CorruptError: a trie
// node's corruption found through this package's lookups comes back as the
// trie reported it, and one errors.As target catches both.
type CorruptError = indexfile.CorruptError
