package trie

import "github.com/bti-go/bti/internal/indexfile"

// ErrCorrupt is matched (via errors.Is) by every *CorruptError the reader
// returns. It is the module's one corruption marker, the same value as
// partitionindex.ErrCorrupt and rowindex.ErrCorrupt.
var ErrCorrupt = indexfile.ErrCorrupt

// CorruptError reports bytes that cannot be a trie written by Cassandra (or by
// this package): a node or one of its fixed fields outside its segment, a child
// pointer that does not point strictly backwards, a walk that needs a child that
// is not there, or an iteration that reaches more nodes than the bytes can hold.
// Offset is the file position of the offending node (or of the root). It is
// the module's one corruption error type (partitionindex.CorruptError and
// rowindex.CorruptError are the same type), so the index packages return
// the trie's errors as they are.
type CorruptError = indexfile.CorruptError

// Reasons, kept as constants so that the error paths allocate only the
// *CorruptError itself. Each names the trie, since the error type is
// shared with the file layers above.
const (
	reasonOutOfRange   = "trie node position outside the readable bytes"
	reasonTruncated    = "trie node's fixed part runs past the end of its segment"
	reasonBadPointer   = "trie child pointer does not point strictly backwards"
	reasonMissingChild = "trie walk needs a child the node does not have"
	reasonNoPayload    = "trie leaf without payload"
	reasonNotATree     = "more trie nodes reached than the bytes can hold (shared or cyclic children)"
)

func corrupt(off int64, reason string) error {
	return &CorruptError{Offset: off, Reason: reason}
}
