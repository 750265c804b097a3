package partitioner

import (
	"encoding/binary"
	"errors"

	"github.com/bti-go/bti/bytecomparable"
)

// decodeRandomKey decodes 40 <varint token> 40 <escaped key> 38 spanning
// all of enc and appends the key bytes to dst.
func decodeRandomKey(dst, enc []byte) (RandomToken, []byte, error) {
	if len(enc) == 0 || enc[0] != bytecomparable.NextComponent {
		return RandomToken{}, nil, &bytecomparable.DecodeError{Offset: 0, Reason: "Random key must start with 40"}
	}
	var tbuf [24]byte
	twos, n, err := bytecomparable.DecodeBigInt(tbuf[:0], enc[1:])
	if err != nil {
		return RandomToken{}, nil, at(err, 1)
	}
	tok, ok := randomTokenFromTwos(twos)
	if !ok {
		// Well-formed, but negative other than -1 or wider than 128 bits.
		return RandomToken{}, nil, &bytecomparable.DecodeError{Offset: 1, Reason: "varint is not a RandomPartitioner token"}
	}
	pos := 1 + n
	if pos >= len(enc) || enc[pos] != bytecomparable.NextComponent {
		return RandomToken{}, nil, &bytecomparable.DecodeError{Offset: pos, Reason: "expected 40 after the token"}
	}
	out, m, err := bytecomparable.DecodeEscaped(dst, enc[pos+1:])
	if err != nil {
		return RandomToken{}, nil, at(err, pos+1)
	}
	end := pos + 1 + m
	if end >= len(enc) || enc[end] != bytecomparable.Terminator {
		return RandomToken{}, nil, &bytecomparable.DecodeError{Offset: end, Reason: "expected terminator 38 after the key"}
	}
	if end+1 != len(enc) {
		return RandomToken{}, nil, &bytecomparable.DecodeError{Offset: end + 1, Reason: "trailing bytes after the terminator"}
	}
	return tok, out, nil
}

// at moves the offset of a component decoder's error to the whole key.
func at(err error, base int) error {
	var de *bytecomparable.DecodeError
	if errors.As(err, &de) {
		de.Offset += base
	}
	return err
}

// randomTokenFromTwos converts BigInteger.toByteArray() bytes back to a
// RandomToken.
func randomTokenFromTwos(twos []byte) (RandomToken, bool) {
	if twos[0] >= 0x80 {
		return RandomToken{Min: true}, len(twos) == 1 && twos[0] == 0xFF
	}
	if twos[0] == 0 {
		twos = twos[1:] // sign byte of a positive number
	}
	if len(twos) > 16 {
		return RandomToken{}, false
	}
	var buf [16]byte
	copy(buf[16-len(twos):], twos)
	return RandomToken{Hi: binary.BigEndian.Uint64(buf[:8]), Lo: binary.BigEndian.Uint64(buf[8:])}, true
}
