package rowindex

import "math/bits"

// flagOpenMarker in a payload's flags says a DeletionTime follows the
// offset (RowIndexReader.FLAG_OPEN_MARKER).
const flagOpenMarker = 8

// sizedIntSize is SizedInts.nonZeroSize: the bytes a signed big-endian
// integer needs, at least 1 (0 takes one byte).
func sizedIntSize(v int64) int {
	if v < 0 {
		v = ^v
	}
	return (64 - bits.LeadingZeros64(uint64(v)) + 1 + 7) / 8
}

// appendPayload appends a separator's payload and returns its flags:
//
//	flags = size | 8 if a deletion is open     (size 1..7)
//	+----------------------+--------------------------------+
//	| offset <size, BE,    | open deletion <12>              |
//	|  signed>             |  (only with flag 8; see below)  |
//	+----------------------+--------------------------------+
//
// The deletion is written as appendDeletion does (never LIVE here: a LIVE
// open marker is left out along with its flag).
func appendPayload(dst []byte, offset int64, open DeletionTime) ([]byte, byte) {
	size := sizedIntSize(offset)
	for shift := 8*size - 8; shift >= 0; shift -= 8 {
		dst = append(dst, byte(offset>>shift))
	}
	flags := byte(size)
	if open.Deleted {
		flags |= flagOpenMarker
		dst = appendDeletion(dst, open)
	}
	return dst, flags
}

// AppendPayload appends the payload the writer stores for a block with
// this offset and open deletion and returns its flags (the layout above),
// for tools that rebuild a trie from its blocks (the audit package's
// layout check).
func AppendPayload(dst []byte, info IndexInfo) ([]byte, byte) {
	return appendPayload(dst, info.Offset, info.OpenDeletion)
}

// decodePayload reads a payload written by appendPayload. b runs to the
// end of the node's segment, so only the needed bytes are checked.
func decodePayload(flags byte, b []byte) (offset int64, open DeletionTime, reason string) {
	size := int(flags &^ flagOpenMarker)
	if size == 0 && flags&flagOpenMarker == 0 {
		return 0, Live, "node has no payload"
	}
	if len(b) < size {
		return 0, Live, "payload offset past the end"
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
		open, n, reason = decodeDeletion(b[size:])
		if n == 0 {
			return 0, Live, reason
		}
	}
	return offset, open, ""
}
