package partitionindex

import (
	"encoding/binary"

	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/internal/partitionpayload"
)

// The payload a leaf carries; its layout is documented in package
// internal/partitionpayload, which holds the decoder the audit package
// uses as well. The encoder is the builder's alone and stays here. The
// forwarders below keep this package's call sites short; each inlines
// (go build -gcflags=-m), so a lookup makes the same single call to the
// decoder as before it moved.

// notFound is Cassandra's NOT_FOUND: no position can be stored as it.
const notFound = indexfile.NotFound

// flagHasHashByte is bit 3 of the payload flags.
const flagHasHashByte = partitionpayload.FlagHasHash

// positionSize is partitionpayload.PositionSize.
func positionSize(v int64) int { return partitionpayload.PositionSize(v) }

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

// decodePayload is partitionpayload.Decode.
func decodePayload(flags byte, b []byte) (hash byte, hasHash bool, v int64, ok bool) {
	return partitionpayload.Decode(flags, b)
}
