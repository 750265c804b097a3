package bytecomparable

import (
	"encoding/binary"
	"strconv"
)

// DecodeClustering undoes AppendClustering for an encoding that starts at
// enc[0]: it returns the serialized values (fresh memory; an empty value
// for 3F/41), the kind and the number of bytes consumed. The terminator
// alone cannot tell a start bound from an end bound (Cassandra asks the
// caller), so 20 decodes as InclusiveStart and 60 as ExclusiveStart.
// Decoding is for tests, dumps and tools: it allocates.
func DecodeClustering(cols []Column, enc []byte) (values [][]byte, kind PrefixKind, n int, err error) {
	pos := 0
	for {
		if pos >= len(enc) {
			return nil, 0, 0, malformed(pos, "clustering without a terminator")
		}
		sep := enc[pos]
		pos++
		switch sep {
		case Terminator:
			if len(values) != len(cols) {
				return nil, 0, 0, malformed(pos-1, "clustering terminator after "+strconv.Itoa(len(values))+" of "+strconv.Itoa(len(cols))+" components")
			}
			return values, Clustering, pos, nil
		case LtNextComponent:
			return values, InclusiveStart, pos, nil
		case GtNextComponent:
			return values, ExclusiveStart, pos, nil
		}
		i := len(values)
		if i == len(cols) {
			return nil, 0, 0, malformed(pos-1, "more components than the "+strconv.Itoa(len(cols))+" clustering columns")
		}
		c := cols[i]
		switch sep {
		case NextComponentEmpty, NextComponentEmptyReversed:
			if !c.Type.emptyIsNull() || (sep == NextComponentEmptyReversed) != c.Desc {
				return nil, 0, 0, malformed(pos-1, "empty-value separator "+strconv.FormatUint(uint64(sep), 16)+" for a "+c.Type.String()+" column")
			}
			values = append(values, []byte{})
		case NextComponent:
			v, m, err := DecodeValue(nil, c, enc[pos:])
			if err != nil {
				return nil, 0, 0, shift(err, pos)
			}
			values = append(values, v)
			pos += m
		default:
			return nil, 0, 0, malformed(pos-1, "unexpected separator "+strconv.FormatUint(uint64(sep), 16)+" in a clustering")
		}
	}
}

// DecodeValue decodes one component encoding of column c (without its
// separator) at the start of src, appends the serialized value to dst and
// returns it with the number of bytes consumed. Only canonical encodings
// are accepted, so AppendValue reproduces src[:n].
func DecodeValue(dst []byte, c Column, src []byte) (out []byte, n int, err error) {
	if c.Desc {
		// Decode an inverted copy: the inverted bytes are the ascending
		// encoding, and its length is the component's length.
		inv := make([]byte, len(src))
		for i, b := range src {
			inv[i] = ^b
		}
		src = inv
	}
	switch c.Type {
	case Int:
		if len(src) < 4 {
			return dst, 0, malformed(len(src), "int needs 4 bytes")
		}
		return append(dst, src[0]^0x80, src[1], src[2], src[3]), 4, nil
	case BigInt:
		if len(src) == 0 {
			return dst, 0, malformed(0, "bigint: empty input")
		}
		v, m, err := decodeVarInt(src)
		if err != nil {
			return dst, 0, err
		}
		return binary.BigEndian.AppendUint64(dst, uint64(v)), m, nil
	case UUID, TimeUUID:
		if len(src) < 16 {
			return dst, 0, malformed(len(src), c.Type.String()+" needs 16 bytes")
		}
		hi, lo := binary.BigEndian.Uint64(src), binary.BigEndian.Uint64(src[8:])
		version := hi >> 60
		switch {
		case c.Type == TimeUUID:
			if version != 1 {
				return dst, 0, malformed(0, "timeuuid of version "+strconv.Itoa(int(version)))
			}
			hi = reorderTimestampBack(hi)
			lo ^= 0x8080808080808080
		case version == 1:
			hi = reorderTimestampBack(hi)
		default:
			hi = hi<<4&0xFFFFFFFFFFFF0000 | version<<12 | hi&0xFFF
		}
		dst = binary.BigEndian.AppendUint64(dst, hi)
		return binary.BigEndian.AppendUint64(dst, lo), 16, nil
	case Text, Blob:
		return DecodeEscaped(dst, src)
	}
	return dst, 0, malformed(0, "unknown clustering type "+c.Type.String())
}
