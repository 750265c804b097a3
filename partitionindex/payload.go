package partitionindex

import (
	"encoding/binary"
	"math/bits"

	"github.com/bti-go/bti/internal/indexfile"
)

// Payload layout, as Cassandra's PartitionIndexSerializer writes it after a
// leaf node:
//
//	header low nibble: 8 | (size-1)      bit 3: a hash byte follows
//	+--------+------------------------+
//	| hash:1 | position: size bytes   |  size = 1..8, big-endian two's
//	+--------+------------------------+  complement, minimal length
//
// hash is the low byte of the key's Murmur3 h2 (a 1-in-256 filter for
// exact lookups). position >= 0 is a Rows.db offset; position < 0 is
// ^dataPosition, a Data.db offset.

// notFound is Cassandra's NOT_FOUND: no position can be stored as it.
const notFound = indexfile.NotFound

// flagHasHashByte is bit 3 of the payload flags.
const flagHasHashByte = 8

// positionSize is the number of bytes needed for v as a signed big-endian
// integer, at least 1 (Cassandra's SizedInts.nonZeroSize).
func positionSize(v int64) int {
	u := uint64(v)
	if v < 0 {
		u = ^u
	}
	return (64 - bits.LeadingZeros64(u) + 1 + 7) / 8
}

// appendPayload appends the hash byte and position and returns the header
// flags for them.
func appendPayload(dst []byte, hash byte, v int64) ([]byte, byte) {
	size := positionSize(v)
	// The position's size bytes, shifted to the top of an 8-byte
	// big-endian word: one store, then the rest cut off.
	dst = append(dst, hash)
	dst = binary.BigEndian.AppendUint64(dst, uint64(v)<<(64-8*size))
	return dst[:len(dst)-8+size], byte(flagHasHashByte | (size - 1))
}

// decodePayload reads a payload with the given flags from b (the bytes from
// the payload position on). Flags 1..7 are the hash-less form Cassandra can
// read but never writes. ok is false when b is too short or the flags are 0.
func decodePayload(flags byte, b []byte) (hash byte, hasHash bool, v int64, ok bool) {
	if flags >= flagHasHashByte && len(b) > 8 {
		// The form Cassandra writes, with 8 bytes readable after the hash
		// byte (every entry but those within 9 bytes of the trie's end):
		// one load, the n = flags-7 position bytes at the top of the
		// big-endian word, sign-extended by the shift.
		return b[0], true, int64(binary.BigEndian.Uint64(b[1:])) >> (64 - 8*uint(flags-7)), true
	}
	return decodePayloadSlow(flags, b)
}

// decodePayloadSlow is decodePayload for the hash-less form and for
// payloads near the end of the trie.
func decodePayloadSlow(flags byte, b []byte) (hash byte, hasHash bool, v int64, ok bool) {
	n := int(flags)
	if flags >= flagHasHashByte {
		if len(b) == 0 {
			return 0, false, 0, false
		}
		hash, hasHash = b[0], true
		b = b[1:]
		n = int(flags) - 7
	}
	if n == 0 || len(b) < n {
		return 0, false, 0, false
	}
	// Sign-extend from n bytes.
	shift := uint(64 - 8*n)
	var u uint64
	for _, c := range b[:n] {
		u = u<<8 | uint64(c)
	}
	v = int64(u<<shift) >> shift
	return hash, hasHash, v, true
}
