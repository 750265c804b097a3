package partitionindex

import "github.com/bti-go/bti/internal/partitionpayload"

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

// decodePayload is partitionpayload.Decode.
func decodePayload(flags byte, b []byte) (hash byte, hasHash bool, v int64, ok bool) {
	return partitionpayload.Decode(flags, b)
}
