package trie

import (
	"errors"
	"strconv"
)

// ErrCorrupt is matched (via errors.Is) by every *CorruptError the reader
// returns.
var ErrCorrupt = errors.New("trie: corrupt node")

// CorruptError reports bytes that cannot be a trie written by Cassandra (or by
// this package): a node or one of its fixed fields outside its segment, a child
// pointer that does not point strictly backwards, a walk that needs a child that
// is not there, or an iteration that reaches more nodes than the bytes can hold.
type CorruptError struct {
	Offset int64  // file position of the offending node (or of the root)
	Reason string // what was wrong, in a few words
}

func (e *CorruptError) Error() string {
	return "trie: corrupt node at offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Reason
}

// Is reports whether target is ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Reasons, kept as constants so that the error paths allocate only the
// *CorruptError itself.
const (
	reasonOutOfRange   = "node position outside the readable bytes"
	reasonTruncated    = "node's fixed part runs past the end of its segment"
	reasonBadPointer   = "child pointer does not point strictly backwards"
	reasonMissingChild = "walk needs a child the node does not have"
	reasonNoPayload    = "leaf without payload"
	reasonNotATree     = "more nodes reached than the bytes can hold (shared or cyclic children)"
)

func corrupt(off int64, reason string) error {
	return &CorruptError{Offset: off, Reason: reason}
}
