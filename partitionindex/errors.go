package partitionindex

import (
	"errors"
	"fmt"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

var (
	// ErrKeyOrder: a key is not strictly greater than the previous one in
	// the partitioner's decorated-key order (this includes duplicates).
	ErrKeyOrder = errors.New("partitionindex: keys out of order")
	// ErrKeyTooLong: a partition key longer than partitioner.MaxKeyLength
	// bytes, the most the footer's (and Cassandra's) unsigned 16-bit length
	// can hold.
	ErrKeyTooLong = errors.New("partitionindex: key too long")
	// ErrPosition: a position that cannot be stored (math.MinInt64 is
	// Cassandra's "not found" marker).
	ErrPosition = errors.New("partitionindex: position cannot be encoded")
	// ErrPartitioner: a key decorated by another partitioner than the
	// builder's or reader's, or a partitioner value that names none.
	ErrPartitioner = errors.New("partitionindex: key from another partitioner")
	// ErrFinished: the builder was completed (or closed).
	ErrFinished = errors.New("partitionindex: builder already completed")
	// ErrClosed: the index or reader handle was closed.
	ErrClosed = errors.New("partitionindex: index closed")
	// ErrNoKeyAt: Ceiling or Floor was called without the KeyAt that
	// confirms its answer; CeilingCandidates and FloorCandidates return
	// the unconfirmed candidates.
	ErrNoKeyAt = errors.New("partitionindex: Ceiling and Floor need a KeyAt to confirm their answer (CeilingCandidates and FloorCandidates return unconfirmed candidates)")
	// ErrPartitionerMismatch: the index was not written with the
	// partitioner it is opened with (see PartitionerMismatchError).
	ErrPartitionerMismatch = errors.New("partitionindex: wrong partitioner")
	// ErrCorrupt: the file is not a valid partition index.
	ErrCorrupt = errors.New("partitionindex: corrupt index")
)

// KeyError reports a key the builder refused. It matches the sentinel in
// Err with errors.Is.
type KeyError struct {
	Err   error  // ErrKeyOrder, ErrKeyTooLong, ErrPosition or ErrPartitioner
	Index int64  // 0-based number of the AddEntry call
	Key   []byte // the raw partition key (a copy)
	Prev  []byte // for ErrKeyOrder, the previous raw key (a copy)
	Pos   int64  // the position passed with the key
}

func (e *KeyError) Error() string {
	switch e.Err {
	case ErrKeyOrder:
		return fmt.Sprintf("%v: key #%d %x does not sort after previous key %x", e.Err, e.Index, e.Key, e.Prev)
	case ErrKeyTooLong:
		return fmt.Sprintf("%v: key #%d is %d bytes, at most %d fit", e.Err, e.Index, len(e.Key), partitioner.MaxKeyLength)
	case ErrPosition:
		return fmt.Sprintf("%v: key #%d %x has position %d", e.Err, e.Index, e.Key, e.Pos)
	default:
		return fmt.Sprintf("%v: key #%d %x", e.Err, e.Index, e.Key)
	}
}

func (e *KeyError) Unwrap() error { return e.Err }

// CorruptError reports where and why a file is not a valid index. It
// matches ErrCorrupt with errors.Is.
type CorruptError struct {
	Offset int64
	Reason string
	err    error // the trie's *trie.CorruptError this one stands for, if any
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("partitionindex: corrupt index at offset %d: %s", e.Offset, e.Reason)
}

func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Unwrap returns the trie error a lookup met, so errors.Is(err,
// trie.ErrCorrupt) holds as well.
func (e *CorruptError) Unwrap() error { return e.err }

// fromTrie reports the trie's corruption errors as this package's
// *CorruptError, so that a caller matches one sentinel, ErrCorrupt, whatever
// layer found the bad bytes. Other errors (and nil) pass through.
func fromTrie(err error) error {
	if err == nil {
		return nil // before te escapes to errors.As: lookups must not allocate
	}
	var te *trie.CorruptError
	if errors.As(err, &te) {
		return &CorruptError{Offset: te.Offset, Reason: te.Reason, err: err}
	}
	return err
}
