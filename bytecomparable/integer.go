package bytecomparable

import (
	"encoding/binary"
	"math/bits"
)

// fullFormThreshold is IntegerType.FULL_FORM_THRESHOLD: integers with at
// least this many significant bytes use the sign/length/digits form, shorter
// ones a single variable-length integer.
const fullFormThreshold = 7

// AppendBigInt appends the OSS50 encoding of a CQL varint (Cassandra's
// IntegerType, also the RandomPartitioner token), given as Java
// BigInteger.toByteArray() bytes: big-endian two's complement. See the
// package documentation for the layout.
//
// twos must not be empty: Cassandra encodes an empty varint as a null
// component, which is the caller's business (see AppendBigIntTokenKey).
func AppendBigInt(dst, twos []byte) []byte {
	if len(twos) == 0 {
		return dst
	}
	// Skip leading sign-only bytes the way IntegerType does: every leading
	// byte equal to a 00/FF first byte, but never the last byte.
	sign := twos[0]
	p := 0
	if sign == 0x00 || sign == 0xFF {
		for p+1 < len(twos) {
			p++
			if twos[p] != sign {
				break
			}
		}
	}
	if len(twos)-p < fullFormThreshold {
		// At most 7 bytes in all (6 significant plus one sign byte), so the
		// value fits an int64. Cassandra reads all of twos here, not twos[p:].
		var v int64
		if twos[0] >= 0x80 {
			v = -1
		}
		for _, c := range twos {
			v = v<<8 | int64(c)
		}
		return appendVarInt(dst, v)
	}
	var flip byte // 00 for positive, FF for negative
	if sign >= 0x80 {
		flip = 0xFF
	}
	dst = append(dst, ^flip)
	start := len(dst)
	dst = appendVarUint(dst, uint64(len(twos)-p-fullFormThreshold))
	for i := start; i < len(dst); i++ {
		dst[i] ^= flip // longer negatives must sort lower
	}
	return append(dst, twos[p:]...)
}

// appendVarInt appends Cassandra's ByteSource.variableLengthInteger: like
// UTF-8, the first byte carries the inverted sign bit, then one bit per extra
// byte (equal to the sign), then the two's complement value; 1 to 9 bytes.
func appendVarInt(dst []byte, v int64) []byte {
	neg := uint64(v >> 63) // all ones for negative numbers
	w := uint64(v) ^ neg   // non-negative, top bit clear
	nbits := 64 - bits.LeadingZeros64(w|1)
	n := nbits/7 + 1
	if n >= 9 {
		// The marker needs a ninth bit: a whole FF/00 byte, then the top bit
		// of the 8-byte value.
		dst = append(dst, byte(^neg))
		return binary.BigEndian.AppendUint64(dst, (w|1<<63)^neg)
	}
	mask := uint64(0xFF00>>n) & 0xFF // n leading ones in a byte
	w |= mask << (8*n - 8)
	w ^= neg
	// The n bytes, big-endian, in one store: shifted to the top of a word,
	// written whole, and the 8-n bytes after them cut off.
	dst = binary.BigEndian.AppendUint64(dst, w<<(64-8*n))
	return dst[:len(dst)-8+n]
}

// appendVarUint appends Cassandra's VariableLengthUnsignedInteger: as many
// leading one bits in the first byte as there are extra bytes, then a zero.
// Only values below 2^56 are needed (a varint length); Java's shift quirks
// above that are not reproduced.
func appendVarUint(dst []byte, v uint64) []byte {
	extra := (63 - bits.LeadingZeros64(v|1)) / 7
	if extra > 7 {
		extra = 7
	}
	first := byte(v>>(8*extra)) | byte(uint(0xFF00)>>extra)
	dst = append(dst, first)
	for shift := 8*extra - 8; shift >= 0; shift -= 8 {
		dst = append(dst, byte(v>>shift))
	}
	return dst
}

// AppendBigIntTokenKey appends the decorated key of a RandomPartitioner
// (BigIntegerToken) partition: 40 <AppendBigInt(token)> 40 <escaped key> 38.
// token holds BigInteger.toByteArray() bytes; an empty token stands for a
// null component (3E in place of 40 and no bytes), as in Cassandra.
func AppendBigIntTokenKey(dst, token, key []byte) []byte {
	dst = appendBigIntComponent(dst, token)
	dst = append(dst, NextComponent)
	dst = AppendEscaped(dst, key)
	return append(dst, Terminator)
}

// AppendBigIntTokenBound appends the min (20) or max (60) bound of a
// RandomPartitioner token: 40 <AppendBigInt(token)> 20|60.
func AppendBigIntTokenBound(dst, token []byte, max bool) []byte {
	dst = appendBigIntComponent(dst, token)
	return append(dst, boundTerminator(max))
}

func appendBigIntComponent(dst, token []byte) []byte {
	if len(token) == 0 {
		return append(dst, NextComponentNull)
	}
	dst = append(dst, NextComponent)
	return AppendBigInt(dst, token)
}

// DecodeBigInt decodes one AppendBigInt encoding at the start of src. It
// appends the integer's minimal two's-complement bytes (Java's
// BigInteger.toByteArray()) to dst and returns the result and the number of
// bytes of src consumed. Only canonical encodings are accepted, so
// AppendBigInt(nil, out[len(dst):]) reproduces src[:n] exactly.
func DecodeBigInt(dst, src []byte) (out []byte, n int, err error) {
	if len(src) == 0 {
		return dst, 0, malformed(0, "varint: empty input")
	}
	if src[0] != 0x00 && src[0] != 0xFF {
		v, n, err := decodeVarInt(src)
		if err != nil {
			return dst, 0, err
		}
		// No range check is needed: encoders use this form for
		// -2^48 <= v < 2^48, and exactly those varints (at most 7 bytes)
		// start with a byte other than 00 and FF.
		size := (64 - bits.LeadingZeros64(uint64(v^(v>>63))) + 8) / 8
		for shift := 8*size - 8; shift >= 0; shift -= 8 {
			dst = append(dst, byte(v>>shift))
		}
		return dst, n, nil
	}
	flip := ^src[0] // 00 positive, FF negative
	if len(src) < 2 {
		return dst, 0, malformed(1, "varint: missing length")
	}
	length, ln, err := decodeVarUint(src[1:], flip)
	if err != nil {
		err.(*DecodeError).Offset++
		return dst, 0, err
	}
	pos := 1 + ln
	if len(src)-pos < fullFormThreshold || length > uint64(len(src)-pos-fullFormThreshold) {
		return dst, 0, malformed(pos, "varint: digits run past the end")
	}
	size := int(length) + fullFormThreshold
	digits := src[pos : pos+size]
	// Canonical digits start with a non-sign byte: IntegerType strips every
	// leading 00 (positive) or FF (negative).
	if digits[0] == flip {
		return dst, 0, malformed(pos, "varint: leading sign byte in digits")
	}
	// Put back the sign byte toByteArray needs when the first digit's top
	// bit disagrees with the sign.
	if flip == 0 && digits[0] >= 0x80 {
		dst = append(dst, 0x00)
	} else if flip == 0xFF && digits[0] < 0x80 {
		dst = append(dst, 0xFF)
	}
	return append(dst, digits...), pos + size, nil
}

// decodeVarInt reads one appendVarInt encoding and checks that it is the
// shortest one.
func decodeVarInt(src []byte) (v int64, n int, err error) {
	var neg uint64
	if src[0] < 0x80 {
		neg = ^uint64(0)
	}
	ones := bits.LeadingZeros8(^(src[0] ^ byte(neg)))
	n = ones
	if ones == 8 {
		if len(src) < 2 {
			return 0, 0, malformed(1, "varint: truncated")
		}
		if (src[1]^byte(neg))&0x80 != 0 {
			n = 9
		}
	}
	if len(src) < n {
		return 0, 0, malformed(len(src), "varint: truncated")
	}
	var w uint64
	if n == 9 {
		w = (binary.BigEndian.Uint64(src[1:9]) ^ neg) &^ (1 << 63)
	} else {
		for _, c := range src[:n] {
			w = w<<8 | uint64(c^byte(neg))
		}
		w &= 1<<(7*n) - 1 // drop the sign and length marker bits
	}
	if nbits := 64 - bits.LeadingZeros64(w|1); min(nbits/7+1, 9) != n {
		return 0, 0, malformed(0, "varint: non-minimal length")
	}
	return int64(w ^ neg), n, nil
}

// decodeVarUint reads one appendVarUint encoding whose bytes are XORed with
// flip, accepting only the minimal form and values below 2^56.
func decodeVarUint(src []byte, flip byte) (v uint64, n int, err error) {
	first := src[0] ^ flip
	extra := bits.LeadingZeros8(^first)
	if extra > 7 {
		return 0, 0, malformed(0, "varint: length too large")
	}
	if len(src) < 1+extra {
		return 0, 0, malformed(len(src), "varint: truncated length")
	}
	v = uint64(first & (0x7F >> extra))
	for _, c := range src[1 : 1+extra] {
		v = v<<8 | uint64(c^flip)
	}
	if (63-bits.LeadingZeros64(v|1))/7 != extra {
		return 0, 0, malformed(0, "varint: non-minimal length")
	}
	return v, 1 + extra, nil
}
