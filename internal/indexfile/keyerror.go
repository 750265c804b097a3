package indexfile

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrKeyOrder is the module's one key-order sentinel: a key that is not
// strictly greater than the previous one (this includes duplicates).
// trie.ErrKeyOrder, partitionindex.ErrKeyOrder and tableindex.ErrKeyOrder
// are this value.
var ErrKeyOrder = errors.New("bti: keys out of order")

// KeyError reports a key a writer refused: out of order (ErrKeyOrder), or
// refused for a reason of the writer's own (partitionindex.ErrKeyTooLong,
// ErrPosition, ErrPartitioner), in Err. It matches Err with errors.Is.
// trie.KeyError, partitionindex.KeyError and tableindex.KeyError are this
// type.
type KeyError struct {
	Err   error  // ErrKeyOrder, or the writer's sentinel
	Index int64  // 0-based number of the key among those the writer was given
	Key   []byte // the refused key (a copy): raw partition key, or trie key
	Prev  []byte // for ErrKeyOrder, the previous key (a copy)
	Pos   int64  // the position passed with the key, where there is one
}

// maxKeyHex is how many bytes of a key an error message shows.
const maxKeyHex = 64

func (e *KeyError) Error() string {
	switch {
	case e.Err == ErrKeyOrder && bytes.Equal(e.Key, e.Prev):
		return fmt.Sprintf("%v: key #%d %x equals the previous key", e.Err, e.Index, e.Key)
	case e.Err == ErrKeyOrder:
		// Both keys in full: where they differ may be past any cut.
		return fmt.Sprintf("%v: key #%d %x does not sort after previous key %x", e.Err, e.Index, e.Key, e.Prev)
	default:
		return fmt.Sprintf("%v: key #%d %s with position %d", e.Err, e.Index, shortHex(e.Key), e.Pos)
	}
}

func (e *KeyError) Unwrap() error { return e.Err }

// shortHex is k in hex, its first maxKeyHex bytes and its length when
// longer: a key refused for its length or position should not make a
// 128 KiB message.
func shortHex(k []byte) string {
	if len(k) <= maxKeyHex {
		return fmt.Sprintf("%x", k)
	}
	return fmt.Sprintf("%x… (%d bytes)", k[:maxKeyHex], len(k))
}
