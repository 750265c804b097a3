// Package partitionpayload is the payload codec of Partitions.db: the hash
// byte and position a leaf of the partition-index trie carries. The engine
// (package partitionindex: its builder and readers) and the tools (package
// audit: its checks and payload views) both decode it, and both
// Partitions.db writers (partitionindex's builder and the reference builder
// of internal/refpartitions) encode it, so it lives once, below them all.
//
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
package partitionpayload

import (
	"encoding/binary"
	"math/bits"
)

// FlagHasHash is bit 3 of the payload flags: a hash byte comes first.
const FlagHasHash = 8

// PositionSize is the number of bytes needed for v as a signed big-endian
// integer, at least 1 (Cassandra's SizedInts.nonZeroSize).
func PositionSize(v int64) int {
	u := uint64(v)
	if v < 0 {
		u = ^u
	}
	return (64 - bits.LeadingZeros64(u) + 1 + 7) / 8
}

// Append appends the hash byte and position v and returns the header flags
// for them.
func Append(dst []byte, hash byte, v int64) ([]byte, byte) {
	size := PositionSize(v)
	// The position's size bytes, shifted to the top of an 8-byte
	// big-endian word: one store, then the rest cut off.
	dst = append(dst, hash)
	dst = binary.BigEndian.AppendUint64(dst, uint64(v)<<(64-8*size))
	return dst[:len(dst)-8+size], byte(FlagHasHash | (size - 1))
}

// Put writes the hash byte and position v at the start of dst and returns
// how many bytes of dst the payload takes (2 to 9) and the header flags for
// them. It is Append into a fixed array, for the partition index builder's
// Murmur3 path: a store of the hash byte and one 8-byte word (the position
// bytes at its top, the rest cut off by the returned length), with no
// length to check and no slice header to build.
func Put(dst *[9]byte, hash byte, v int64) (n int, flags byte) {
	// PositionSize without its division and Append's shift without the
	// check of its count: u's top bit is clear (v, or ^v for v < 0), so
	// it has 1 to 64 leading zeros, lz, and the position takes
	// size = 8 - (lz-1)/8 bytes, the top ones of v shifted left by
	// 8*(8-size) = (lz-1) &^ 7, which the mask keeps below 64 for the
	// compiler too.
	u := uint64(v ^ v>>63)
	shift := uint(bits.LeadingZeros64(u)-1) & 56
	dst[0] = hash
	binary.BigEndian.PutUint64(dst[1:], uint64(v)<<shift)
	return 9 - int(shift/8), byte(FlagHasHash | (7 - shift/8))
}

// Decode reads a payload with the given flags from b (the bytes from the
// payload position on). Flags 1..7 are the hash-less form Cassandra can
// read but never writes. ok is false when b is too short or the flags are 0.
func Decode(flags byte, b []byte) (hash byte, hasHash bool, v int64, ok bool) {
	if flags >= FlagHasHash && len(b) > 8 {
		// The form Cassandra writes, with 8 bytes readable after the hash
		// byte (every entry but those within 9 bytes of the trie's end):
		// one load, the n = flags-7 position bytes at the top of the
		// big-endian word, sign-extended by the shift.
		return b[0], true, int64(binary.BigEndian.Uint64(b[1:])) >> (64 - 8*uint(flags-7)), true
	}
	return decodeSlow(flags, b)
}

// decodeSlow is Decode for the hash-less form and for payloads near the end
// of the trie.
func decodeSlow(flags byte, b []byte) (hash byte, hasHash bool, v int64, ok bool) {
	n := int(flags)
	if flags >= FlagHasHash {
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

// Length is the length of a payload with these flags: a hash byte and
// flags-7 position bytes for 8..15, flags bytes for the hash-less 1..7.
func Length(flags uint8) int64 {
	if flags >= FlagHasHash {
		return int64(flags) - 6
	}
	return int64(flags)
}
