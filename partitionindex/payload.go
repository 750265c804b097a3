package partitionindex

import (
	"encoding/binary"

	"github.com/bti-go/bti/internal/partitionpayload"
)

// The payload a leaf carries; its layout is documented in package
// internal/partitionpayload, which holds the decoder the audit package
// uses as well, and the encoder, which the reference builder uses as well
// (the builder calls partitionpayload.Append directly: behind a forwarder
// it would cost 87 against the inliner's budget of 80, go build
// -gcflags=-m=2 at 88af10f, and the scratch Add would pay a call). The
// forwarders below keep this package's call sites short; each inlines
// (go build -gcflags=-m), so a lookup makes the same single call to the
// decoder as before it moved.

// flagHasHashByte is bit 3 of the payload flags.
const flagHasHashByte = partitionpayload.FlagHasHash

// positionSize is partitionpayload.PositionSize.
func positionSize(v int64) int { return partitionpayload.PositionSize(v) }

// decodePayload is partitionpayload.Decode, with Decode's leading case
// (the form Cassandra writes, 8 bytes readable after the hash byte) written
// here through leafPosition: Decode itself is not inlined (its other cases
// are a call), and a ceiling decodes a payload or two per lookup.
func decodePayload(flags byte, b []byte) (hash byte, hasHash bool, v int64, ok bool) {
	if flags >= flagHasHashByte && len(b) > 8 {
		return b[0], true, leafPosition(flags, b), true
	}
	return partitionpayload.Decode(flags, b)
}

// leafPosition is the position in the payload b of flags 8..15 whose hash
// byte has 8 readable bytes after it (len(b) > 8): the top flags-7 bytes of
// the big-endian word after the hash byte, sign-extended by the shift, as
// partitionpayload.Decode reads it (a manually inlined copy of its leading
// case; TestLeafPosition ties the two).
func leafPosition(flags byte, b []byte) int64 {
	return int64(binary.BigEndian.Uint64(b[1:9])) >> (8 * uint(15-flags) & 63) // 64-8*(flags-7)
}
