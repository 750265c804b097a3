package bytecomparable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
)

// ErrMalformed is the sentinel for every decoding failure:
// errors.Is(err, ErrMalformed) holds for each *DecodeError.
var ErrMalformed = errors.New("bytecomparable: malformed encoding")

// DecodeError reports where and why an encoding could not be decoded.
type DecodeError struct {
	Offset int    // byte offset in the decoded input
	Reason string // what was wrong there
}

func (e *DecodeError) Error() string {
	return "bytecomparable: malformed encoding at offset " + strconv.Itoa(e.Offset) + ": " + e.Reason
}

// Is makes errors.Is(err, ErrMalformed) true.
func (e *DecodeError) Is(target error) bool { return target == ErrMalformed }

func malformed(off int, reason string) error {
	return &DecodeError{Offset: off, Reason: reason}
}

// shift moves a DecodeError's offset by base, so errors from a component
// decoder point into the whole key.
func shift(err error, base int) error {
	var de *DecodeError
	if errors.As(err, &de) {
		de.Offset += base
	}
	return err
}

// DecodeEscaped undoes AppendEscaped for the component at the start of src.
// It appends the raw bytes to dst and returns the result and n, the number of
// bytes of src that belong to the component, including its final escape
// (00, or 00 FE… for a trailing zero run). src[n:] starts with whatever
// follows the component (a separator, or nothing).
//
// Only canonical encodings are accepted: after 00 FE…FF a non-zero byte must
// follow, since AppendEscaped would have merged another zero into the run.
// Hence AppendEscaped(nil, out[len(dst):]) equals src[:n].
func DecodeEscaped(dst, src []byte) (out []byte, n int, err error) {
	start := len(dst)
	i := 0
	for {
		j := bytes.IndexByte(src[i:], Escape)
		if j < 0 {
			return dst[:start], 0, malformed(len(src), "escaped string without end marker")
		}
		dst = append(dst, src[i:i+j]...)
		i += j + 1 // past the 00
		zeros := 1
		for i < len(src) && src[i] == Escaped0Cont {
			zeros++
			i++
		}
		if i == len(src) || src[i] != Escaped0Done {
			// 00 FE×k not followed by FF ends the component with k zeros
			// (the 00 alone is the plain end marker).
			for range zeros - 1 {
				dst = append(dst, 0)
			}
			return dst, i, nil
		}
		i++ // past the FF
		if i == len(src) || src[i] == 0 {
			return dst[:start], 0, malformed(i, "zero run end (FF) not followed by a non-zero byte")
		}
		for range zeros {
			dst = append(dst, 0)
		}
	}
}

// DecodeLongTokenKey decodes a full Murmur3 decorated key
// (40 <8 token bytes> 40 <escaped key> 38) that spans all of enc. Like
// append, it returns dst extended by the raw key bytes, so with an empty dst
// (nil or buf[:0]) key is exactly the partition key.
func DecodeLongTokenKey(dst, enc []byte) (token int64, key []byte, err error) {
	if len(enc) < 10 || enc[0] != NextComponent || enc[9] != NextComponent {
		return 0, nil, malformed(0, "Murmur3 key must start 40 <8 bytes> 40")
	}
	token = int64(binary.BigEndian.Uint64(enc[1:9]) ^ (1 << 63))
	key, err = decodeKeyTail(dst, enc, 10)
	return token, key, err
}

// DecodeBytesTokenKey decodes a full ByteOrdered decorated key
// (40 <escaped token> 40 <escaped key> 38) that spans all of enc and, like
// append, returns dst extended by the raw key bytes. The token must equal the
// key, as it does for every key ByteOrderedPartitioner decorates.
func DecodeBytesTokenKey(dst, enc []byte) (key []byte, err error) {
	if len(enc) == 0 || enc[0] != NextComponent {
		return nil, malformed(0, "ByteOrdered key must start with 40")
	}
	start := len(dst)
	buf, n, err := DecodeEscaped(dst, enc[1:])
	if err != nil {
		return nil, shift(err, 1)
	}
	tokenLen := len(buf) - start
	pos := 1 + n
	if pos >= len(enc) || enc[pos] != NextComponent {
		return nil, malformed(pos, "expected 40 after the token")
	}
	buf, err = decodeKeyTail(buf, enc, pos+1)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(buf[start:start+tokenLen], buf[start+tokenLen:]) {
		return nil, malformed(1, "ByteOrdered token differs from the key")
	}
	// Keep only the key: slide it over the token (copy handles the overlap).
	n = copy(buf[start:], buf[start+tokenLen:])
	return buf[:start+n], nil
}

// DecodeBytesTokenHead decodes the head of a ByteOrdered decorated key
// (40 <escaped key> 40, see BytesKeyEncoder.AppendHead) that spans all of
// head and, like append, returns dst extended by the raw key bytes.
func DecodeBytesTokenHead(dst, head []byte) (key []byte, err error) {
	if len(head) == 0 || head[0] != NextComponent {
		return nil, malformed(0, "ByteOrdered key must start with 40")
	}
	out, n, err := DecodeEscaped(dst, head[1:])
	if err != nil {
		return nil, shift(err, 1)
	}
	if pos := 1 + n; pos+1 != len(head) || head[pos] != NextComponent {
		return nil, malformed(pos, "a ByteOrdered key's head ends with 40 after the token")
	}
	return out, nil
}

// decodeKeyTail decodes "<escaped key> 38" from enc[pos:] to the end of enc
// and returns dst with the key bytes appended.
func decodeKeyTail(dst, enc []byte, pos int) ([]byte, error) {
	out, n, err := DecodeEscaped(dst, enc[pos:])
	if err != nil {
		return nil, shift(err, pos)
	}
	pos += n
	if pos >= len(enc) || enc[pos] != Terminator {
		return nil, malformed(pos, "expected terminator 38 after the key")
	}
	if pos+1 != len(enc) {
		return nil, malformed(pos+1, "trailing bytes after the terminator")
	}
	return out, nil
}
