// Package partitionfile is what the two Partitions.db writers share below
// them: the production builder of package partitionindex and the reference
// builder of internal/refpartitions. They differ only in how they keep and
// encode keys; the refusal sentinels, the footer, the metadata of a finished
// file and the early-open bookkeeping do not depend on that, so they live
// here once. (The leaf payload codec is package internal/partitionpayload's.)
package partitionfile

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"

	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/partitioner"
)

// The sentinels a writer refuses a key or a call with; package
// partitionindex exports them under the same names (ErrKeyOrder is
// indexfile.ErrKeyOrder, shared with the other writers).
var (
	ErrKeyTooLong  = errors.New("partitionindex: key too long (more than " + strconv.Itoa(partitioner.MaxKeyLength) + " bytes)")
	ErrPosition    = errors.New("partitionindex: position cannot be encoded")
	ErrPartitioner = errors.New("partitionindex: key from another partitioner")
	ErrFinished    = errors.New("partitionindex: builder already completed")
)

// CheckEntry returns the *indexfile.KeyError a writer refuses key with for a
// reason other than order, or nil: a key of another partitioner than p's, a
// key longer than partitioner.MaxKeyLength, or a position equal to
// Cassandra's NOT_FOUND. index is the number of keys accepted so far.
func CheckEntry(p partitioner.Partitioner, index int64, key *partitioner.Key, position int64) error {
	var reason error
	switch {
	case key.Partitioner != p:
		reason = ErrPartitioner
	case len(key.Raw) > partitioner.MaxKeyLength:
		reason = ErrKeyTooLong
	case position == indexfile.NotFound:
		reason = ErrPosition
	default:
		return nil
	}
	return &indexfile.KeyError{Err: reason, Index: index, Key: slices.Clone(key.Raw), Pos: position}
}

// EntryOK reports whether CheckEntry accepts the entry (returns nil), in
// a test small enough to be inlined: a writer's fast path asks it first
// and calls CheckEntry only for an entry it may refuse.
// TestEntryOKIsCheckEntry ties the two.
func EntryOK(p partitioner.Partitioner, key *partitioner.Key, position int64) bool {
	return key.Partitioner == p && len(key.Raw) <= partitioner.MaxKeyLength && position != indexfile.NotFound
}

// OrderError is the error for a key that does not sort after prevRaw, the
// raw bytes of the writer's last key.
func OrderError(index int64, prevRaw []byte, key *partitioner.Key, position int64) error {
	return &indexfile.KeyError{Err: indexfile.ErrKeyOrder, Index: index, Key: slices.Clone(key.Raw), Prev: slices.Clone(prevRaw), Pos: position}
}

// FooterLength is the fixed tail of the file: three big-endian int64s.
const FooterLength = 24

// AppendFooter appends the footer that follows the trie's root node:
//
//	[u16 len][first partition key, raw bytes]  at firstKeyPos
//	[u16 len][last partition key, raw bytes]
//	[i64 firstKeyPos][i64 key count][i64 root position]   big-endian
//
// An empty index stores two zero lengths (first and last nil).
func AppendFooter(dst, first, last []byte, firstKeyPos, count, root int64) []byte {
	dst = slices.Grow(dst, 2+len(first)+2+len(last)+FooterLength)
	for _, key := range [2][]byte{first, last} {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(key)))
		dst = append(dst, key...)
	}
	for _, v := range [3]int64{firstKeyPos, count, root} {
		dst = binary.BigEndian.AppendUint64(dst, uint64(v))
	}
	return dst
}

// Metadata has partitionindex.Metadata's fields, which that type documents,
// in its order (the one converts to the other): the key count, the file's
// size, the root's position, where the footer's keys start, the page size
// and the pages the file spans.
type Metadata struct{ Keys, Size, Root, FirstKeyPos, PageSize, Pages int64 }

// Describe fills Metadata for a finished file of size bytes whose trie of
// keys entries has its root at root and ends at firstKeyPos; pageSize is the
// page the layout packed nodes into.
func Describe(keys, size, root, firstKeyPos, pageSize int64) Metadata {
	return Metadata{Keys: keys, Size: size, Root: root, FirstKeyPos: firstKeyPos, PageSize: pageSize, Pages: (size + pageSize - 1) / pageSize}
}
