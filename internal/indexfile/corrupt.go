package indexfile

import (
	"errors"
	"strconv"
)

// ErrCorrupt is the one corruption marker of the module: every
// *CorruptError matches it with errors.Is. trie.ErrCorrupt,
// partitionindex.ErrCorrupt and rowindex.ErrCorrupt are this value, so a
// caller matches corruption found by any layer with any of them.
var ErrCorrupt = errors.New("bti: corrupt index")

// CorruptError reports where and why bytes are not a valid index: a trie
// node, a Partitions.db footer or payload, a Rows.db entry. trie,
// partitionindex and rowindex alias it as their CorruptError, so one
// errors.As target catches what any of them found.
type CorruptError struct {
	Offset int64  // file position of the offending bytes
	Reason string // what was wrong, in a few words
}

func (e *CorruptError) Error() string {
	return "bti: corrupt index at offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Reason
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }
