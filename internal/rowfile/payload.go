package rowfile

import (
	"encoding/binary"
	"math/bits"
)

// flagOpenMarker in a payload's flags says a DeletionTime follows the
// offset (RowIndexReader.FLAG_OPEN_MARKER).
const flagOpenMarker = 8

// SizedIntSize is SizedInts.nonZeroSize: the bytes a signed big-endian
// integer needs, at least 1 (0 takes one byte).
func SizedIntSize(v int64) int {
	if v < 0 {
		v = ^v
	}
	return (64 - bits.LeadingZeros64(uint64(v)) + 1 + 7) / 8
}

// AppendPayload appends a separator's payload and returns its flags:
//
//	flags = size | 8 if a deletion is open     (size 1..7)
//	+----------------------+--------------------------------+
//	| offset <size, BE,    | open deletion <12>              |
//	|  signed>             |  (only with flag 8; see below)  |
//	+----------------------+--------------------------------+
//
// The deletion is written as AppendDeletion does (never LIVE here: a LIVE
// open marker is left out along with its flag).
func AppendPayload(dst []byte, offset int64, open Deletion) ([]byte, byte) {
	word, size := offsetWord(offset)
	dst = binary.BigEndian.AppendUint64(dst, word)
	return appendOpen(dst[:len(dst)-8+size], size, open)
}

// offsetWord returns a payload's offset as its size (SizedIntSize) and
// its low size bytes at the top of a word: stored big-endian, whole, the
// 8-size zero bytes after them are cut off (one store instead of a loop
// of appends).
func offsetWord(offset int64) (word uint64, size int) {
	size = SizedIntSize(offset)
	return uint64(offset) << (64 - 8*size), size
}

// appendOpen ends a payload whose offset is p (size bytes): the open
// deletion, if any, and the flags.
func appendOpen(p []byte, size int, open Deletion) ([]byte, byte) {
	if open.Deleted {
		return AppendDeletion(p, open), byte(size) | flagOpenMarker
	}
	return p, byte(size)
}

// DecodePayload reads a payload written by AppendPayload. b runs to the
// end of the node's segment, so only the needed bytes are checked; on bad
// bytes reason says what is wrong.
func DecodePayload(flags byte, b []byte) (offset int64, open Deletion, reason string) {
	size := int(flags &^ flagOpenMarker)
	if size == 0 && flags&flagOpenMarker == 0 {
		return 0, Deletion{}, "node has no payload"
	}
	if len(b) < size {
		return 0, Deletion{}, "payload offset past the end"
	}
	for i := range size {
		offset = offset<<8 | int64(b[i])
	}
	if size > 0 && size < 8 {
		// Sign-extend, as SizedInts.read does.
		offset = offset << (64 - 8*size) >> (64 - 8*size)
	}
	if flags&flagOpenMarker != 0 {
		var n int
		open, n, reason = DecodeDeletion(b[size:])
		if n == 0 {
			return 0, Deletion{}, reason
		}
	}
	return offset, open, ""
}
