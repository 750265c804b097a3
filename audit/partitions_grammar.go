package audit

import "github.com/bti-go/bti/partitioner"

// The key-encoding rule (RuleEncoding). Every stored prefix is a prefix of
// a decorated key's byte-comparable encoding (docs/format.md §2.3), so each
// transition must be a byte that encoding can have there:
//
//	Murmur3      40 <8 token bytes> 40 <escaped key> 38
//	ByteOrdered  40 <escaped key> 40 <escaped key> 38
//	Random       40 <token> ... (only the leading 40 is checked)
//
// An escaped byte string has no 00 but as an escape: 00 starts a zero run,
// which continues with FE, ends with FF before the next (non-zero) byte, or
// ends the string, followed by the next separator (40) or the terminator
// (38). Nothing follows the terminator. The walk keeps one state per frame.
//
// A stored prefix also ends no later than one byte past where its key's
// encoding first differs from a neighbour's. Two distinct ByteOrdered keys
// differ in their token, which is the escaped key itself, so a ByteOrdered
// prefix ends at the latest with the 40 after the token: nothing follows
// it, and a 38 cannot end the token. Murmur3's escaped key is the last
// component, so only the terminator can end it (two keys share their
// token and reach the key only on a token collision).

type encState uint8

const (
	encStart   encState = 0 // before the first byte: 40
	encToken1  encState = 1 // Murmur3: token byte 1 of 8 next (..encToken8)
	encToken8  encState = 8
	encKeySep  encState = 9  // Murmur3: the 40 before the key
	encBytes   encState = 10 // inside an escaped string
	encZeroRun encState = 11 // after 00 or FE
	encEscaped encState = 12 // after FF: a non-zero byte
	encEnd     encState = 13 // after the terminator
	encFree    encState = 14 // not checked further
	encBad     encState = 15 // the byte cannot be there
)

// encStep returns the state after byte b, or encBad.
func encStep(p partitioner.Partitioner, s encState, b byte) encState {
	switch {
	case s == encStart:
		if b != 0x40 {
			return encBad
		}
		switch p {
		case partitioner.Murmur3:
			return encToken1
		case partitioner.ByteOrdered:
			return encBytes
		}
		return encFree
	case s >= encToken1 && s < encToken8:
		return s + 1
	case s == encToken8:
		return encKeySep
	case s == encKeySep:
		if b != 0x40 {
			return encBad
		}
		return encBytes
	case s == encBytes:
		if b == 0x00 {
			return encZeroRun
		}
		return encBytes
	case s == encZeroRun:
		switch {
		case b == 0xFE:
			return encZeroRun
		case b == 0xFF:
			return encEscaped
		case b == 0x40 && p == partitioner.ByteOrdered:
			return encEnd // the token ended: keys differ before here
		case b == 0x38 && p == partitioner.Murmur3:
			return encEnd
		}
		return encBad
	case s == encEscaped:
		if b == 0x00 {
			return encBad
		}
		return encBytes
	case s == encEnd:
		return encBad
	}
	return encFree
}
