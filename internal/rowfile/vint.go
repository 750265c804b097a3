package rowfile

import "math/bits"

// Cassandra's VIntCoding, used by the partition entries in Rows.db: the
// number of leading 1 bits of the first byte is the number of bytes that
// follow, then the value big-endian (9 bytes in all for values >= 2^56: FF
// and the 8 bytes).
//
//	0..127        0xxxxxxx
//	128..16383    10xxxxxx xxxxxxxx
//	...
//	>= 2^56       11111111 <8 bytes>
//
// Signed values are zigzag encoded first (0, -1, 1, -2 -> 0, 1, 2, 3).

func AppendUvarint(dst []byte, v uint64) []byte {
	extra := (63 - bits.LeadingZeros64(v|1)) / 7 // bytes after the first
	if extra >= 8 {
		dst = append(dst, 0xFF)
		for shift := 56; shift >= 0; shift -= 8 {
			dst = append(dst, byte(v>>shift))
		}
		return dst
	}
	dst = append(dst, byte(v>>(8*extra))|byte(uint(0xFF00)>>extra))
	for shift := 8*extra - 8; shift >= 0; shift -= 8 {
		dst = append(dst, byte(v>>shift))
	}
	return dst
}

func AppendVarint(dst []byte, v int64) []byte {
	return AppendUvarint(dst, uint64(v<<1^v>>63))
}

// ReadUvarint decodes one AppendUvarint encoding; n is 0 if b is too
// short. Like Cassandra's reader it accepts non-minimal encodings.
func ReadUvarint(b []byte) (v uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	extra := bits.LeadingZeros8(^b[0])
	if len(b) < 1+extra {
		return 0, 0
	}
	if extra < 8 {
		v = uint64(b[0] & (0xFF >> extra))
	}
	for _, c := range b[1 : 1+extra] {
		v = v<<8 | uint64(c)
	}
	return v, 1 + extra
}

func ReadVarint(b []byte) (int64, int) {
	u, n := ReadUvarint(b)
	return int64(u>>1) ^ -int64(u&1), n
}
