package bytecomparable

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
)

// Byte values with a fixed meaning in the encoding (Cassandra's ByteSource).
// Separators and terminators all lie in MinSeparator..MaxSeparator, so they
// sort below the FE/FF that continue an escaped zero run and above the 00 that
// starts one.
const (
	Escape       = 0x00 // ends an escaped string; starts the escape of a zero run
	Escaped0Cont = 0xFE // one more zero in the run, or the run reached the end of the input
	Escaped0Done = 0xFF // the zero run is over and a non-zero byte follows

	MinSeparator = 0x10
	MaxSeparator = 0xEF

	NextComponent              = 0x40 // before each non-null component
	NextComponentEmpty         = 0x3F // an empty value whose type treats empty as null (unused for keys)
	NextComponentEmptyReversed = 0x41 // the same for reversed types (unused for keys)
	NextComponentNull          = 0x3E // a null component (unused for decorated keys)
	MinNextComponent           = 0x3C // reserved range, never a terminator
	MaxNextComponent           = 0x44

	Terminator        = 0x38 // ends a full decorated key
	LtNextComponent   = 0x20 // ends a bound that sorts before everything with its prefix
	GtNextComponent   = 0x60 // ends a bound that sorts after everything with its prefix
	LtLtNextComponent = 0x1F // artificial bounds (unused here)
	GtGtNextComponent = 0x61
	Excluded          = 0x18 // static rows (unused here)
)

// AppendEscaped appends the OSS50 escaped form of b (a variable-length
// component: partition key bytes, or a ByteOrdered token) to dst.
func AppendEscaped(dst, b []byte) []byte {
	dst = slices.Grow(dst, maxEscapedLen(len(b)))
	out := dst[:cap(dst)]
	n, escaped := escapeInto(out, len(dst), b, false)
	return out[:endEscaped(out, n, escaped)]
}

// maxEscapedLen bounds the escaped size of n input bytes. The worst case is
// "00 01 00 01 ...": three bytes out for every two in, plus the end marker.
// (n is a length: halved unsigned, it is a shift, without the fix-up a
// signed division by 2 needs for negative numbers.)
func maxEscapedLen(n int) int { return n + int(uint(n)/2) + 2 }

// escapeInto writes the escaped form of b, without the end marker, into
// out[n:], continuing from the escaper state escaped (the previous input
// byte was a zero). out must have room for maxEscapedLen(len(b)) more bytes.
// It returns the new output length and state.
func escapeInto(out []byte, n int, b []byte, escaped bool) (int, bool) {
	return escapeFrom(out, n, b, 0, escaped)
}

// escapeFrom is escapeInto for b[i:]. The bytes of b before i are not
// escaped but may be read: a caller resuming in the middle of a key passes
// the whole key, so that its last bytes can be read as one word.
//
// Zero runs are the only bytes that change. Outside a run the loop copies a
// word of eight bytes up to and including its first zero (all eight when it
// has none: the common case for text, numbers and hashes), the last 1..7
// bytes as the word that ends at b's end, shifted down to them (a b shorter
// than a word is read as one too); after a zero it writes the run's escape
// at once (escapeRun: FE for each further zero, FF before the byte that
// ends it) and the next word starts at that byte. A word whose only zero
// is followed by a byte of the same word, a zero run of one, is escaped
// in register: the FF goes in after the zero (oneZeroEscaped) and the loop
// moves on by the whole word. So a zero costs a short step, whatever its
// neighbours, and keys dense in zero bytes (blobs, packed integers) need no
// byte loop beyond their runs.
func escapeFrom(out []byte, n int, b []byte, i int, escaped bool) (int, bool) {
	if escaped {
		var open bool
		if n, i, open = escapeRun(out, n, b, i); open {
			return n, true
		}
	}
	for i < len(b) {
		if len(b)-i >= 8 {
			// (b[i:i+8] and out[n:n+8], not b[i:] and out[n:]: the
			// compiler then checks the bounds once.)
			w := binary.LittleEndian.Uint64(b[i : i+8])
			// The lowest set bit of zeros marks the first zero byte of w.
			// Higher bits may be false positives, but only above a zero
			// (a borrow turns a following 01 into FF), so a zeros with
			// one bit set flags w's only zero.
			zeros := (w - 0x0101010101010101) &^ w & 0x8080808080808080
			if zeros == 0 {
				binary.LittleEndian.PutUint64(out[n:n+8], w)
				n += 8
				i += 8
				continue
			}
			if zeros&(zeros-1) == 0 && zeros>>63 == 0 {
				// One zero, and not the word's last byte: its escape is
				// complete within the word. Of the 9 bytes out, the
				// word's last byte is the 9th.
				binary.LittleEndian.PutUint64(out[n:n+8], oneZeroEscaped(w, zeros))
				out[n+8] = byte(w >> 56)
				n += 9
				i += 8
				continue
			}
			// Keep the bytes up to and including the first zero, which
			// is written as-is: it is the escape.
			binary.LittleEndian.PutUint64(out[n:n+8], w)
			k := bits.TrailingZeros64(zeros)/8 + 1
			n += k
			i += k
		} else if rem := uint(len(b) - i); len(out)-n >= 8 {
			// The last 1..7 bytes: the word ending at b's end, shifted
			// down to them (or, for a b shorter than a word, b's bytes
			// read as one). The bytes above them are zero, and the zero
			// test's borrow runs upwards, so they flag nothing below
			// them; they are masked off, and the store's bytes past
			// n+rem are spare room. (The shifts are taken mod 64 so that
			// the compiler adds no check for counts of 64 and over.)
			var w uint64
			if len(b) >= 8 {
				w = binary.LittleEndian.Uint64(b[len(b)-8:]) >> ((64 - 8*rem) & 63)
			} else {
				w = loadShort(b) >> ((8 * uint(i)) & 63)
			}
			zeros := (w - 0x0101010101010101) &^ w & 0x8080808080808080 & (1<<((8*rem)&63) - 1)
			if zeros == 0 {
				binary.LittleEndian.PutUint64(out[n:n+8], w)
				return n + int(rem), false
			}
			if zeros&(zeros-1) == 0 {
				// One zero: the rem+1 <= 8 bytes of its escape, as in
				// the loop above, or, when it is b's last byte, the
				// bytes as they are, ending in an open run.
				if zeros>>((8*rem-1)&63) != 0 {
					binary.LittleEndian.PutUint64(out[n:n+8], w)
					return n + int(rem), true
				}
				binary.LittleEndian.PutUint64(out[n:n+8], oneZeroEscaped(w, zeros))
				return n + int(rem) + 1, false
			}
			binary.LittleEndian.PutUint64(out[n:n+8], w)
			k := bits.TrailingZeros64(zeros)/8 + 1
			n += k
			i += k
		} else {
			// No room for a whole word's store: one byte.
			c := b[i]
			i++
			out[n] = c
			n++
			if c != 0 {
				continue
			}
		}
		// A zero was the last byte written.
		var open bool
		if n, i, open = escapeRun(out, n, b, i); open {
			return n, true
		}
	}
	return n, false
}

// escapeRun goes on from a zero byte just written, the zero run's escape:
// FE for each zero of b[i:] that follows, then FF before the first non-zero
// byte, which it leaves to the caller (not escaped). It returns the new
// output length and input position, and open when b ended within the run.
func escapeRun(out []byte, n int, b []byte, i int) (int, int, bool) {
	for ; i < len(b); i++ {
		if b[i] != 0 {
			out[n] = Escaped0Done
			return n + 1, i, false
		}
		out[n] = Escaped0Cont
		n++
	}
	return n, i, true
}

// oneZeroEscaped returns the first 8 bytes of the escape of the word w, whose
// only zero byte is the one zeros flags (its high bit), not w's last byte: the
// bytes up to and including the zero, FF, then the bytes after it moved up
// one byte (w's last byte drops out of the word). The zero ends after s = 8
// to 56 bits.
func oneZeroEscaped(w, zeros uint64) uint64 {
	s := uint(bits.TrailingZeros64(zeros)+1) & 63
	low := uint64(1)<<s - 1
	return w&low | Escaped0Done<<s | (w&^low)<<8
}

// loadShort returns the bytes of b, 1 to 7 of them, as the low bytes of a
// little-endian word whose other bytes are zero: two loads that overlap (or
// three single bytes), not a loop.
func loadShort(b []byte) uint64 {
	n := uint(len(b))
	if n >= 4 {
		return uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<((8*n-32)&63)
	}
	return uint64(b[0]) | uint64(b[n/2])<<((8*(n/2))&63) | uint64(b[n-1])<<((8*n-8)&63)
}

// endEscaped writes the end marker of an escaped component at out[n] and
// returns the length. An input that ends inside a zero run ends with one more
// FE and no 00 (LEGACY would add a 00), so that "x 00" < "x 00 00".
func endEscaped(out []byte, n int, escaped bool) int {
	if escaped {
		out[n] = Escaped0Cont
	} else {
		out[n] = Escape
	}
	return n + 1
}

// AppendInt64 appends the 8-byte fixed-length encoding of v: big-endian with
// the sign bit flipped, so unsigned byte order equals signed numeric order.
func AppendInt64(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
}

// AppendLongTokenKey appends the decorated key of a Murmur3 (LongToken)
// partition: 40 <AppendInt64(token)> 40 <AppendEscaped(key)> 38.
func AppendLongTokenKey(dst []byte, token int64, key []byte) []byte {
	// One Grow and stores by index: this runs once per key of a Murmur3
	// build, most of whose keys are short.
	dst = slices.Grow(dst, MaxLongTokenKeyLen(len(key)))
	out := dst[:cap(dst)]
	n := len(dst)
	out[n] = NextComponent
	binary.BigEndian.PutUint64(out[n+1:], uint64(token)^(1<<63))
	out[n+9] = NextComponent
	m, escaped := escapeInto(out, n+10, key, false)
	m = endEscaped(out, m, escaped)
	out[m] = Terminator
	return out[:m+1]
}

// LongTokenPrefixLen is the length of a Murmur3 key's encoding up to and
// including its token: the component separator and the 8 token bytes.
const LongTokenPrefixLen = 9

// AppendLongTokenPrefix appends the first LongTokenPrefixLen bytes of
// AppendLongTokenKey(dst, token, key), the part every key with this token
// shares.
func AppendLongTokenPrefix(dst []byte, token int64) []byte {
	return AppendInt64(append(dst, NextComponent), token)
}

// MaxLongTokenKeyLen bounds len(AppendLongTokenKey(nil, token, key)) for a
// key of n bytes.
func MaxLongTokenKeyLen(n int) int { return 11 + maxEscapedLen(n) }

// AppendBytesTokenKey appends the decorated key of a ByteOrdered partition,
// whose token is the key itself: 40 <escaped key> 40 <escaped key> 38.
func AppendBytesTokenKey(dst []byte, key []byte) []byte {
	dst = slices.Grow(dst, 5+2*len(key))
	dst = append(dst, NextComponent)
	start := len(dst)
	dst = AppendEscaped(dst, key)
	end := len(dst)
	dst = append(dst, NextComponent)
	// The key component is the token component again: copy, don't escape
	// twice. (Appending from dst itself is safe even if append reallocates.)
	dst = append(dst, dst[start:end]...)
	return append(dst, Terminator)
}

// AppendLongTokenBound appends the bound of a Murmur3 token:
// 40 <AppendInt64(token)> 20 (min, before every key with this token) or
// ... 60 (max, after every key with this token). Readers pass bounds to
// range lookups; the index never stores them.
func AppendLongTokenBound(dst []byte, token int64, max bool) []byte {
	dst = append(dst, NextComponent)
	dst = AppendInt64(dst, token)
	return append(dst, boundTerminator(max))
}

// AppendBytesTokenBound appends the bound of a ByteOrdered token:
// 40 <escaped token> 20 (min) or 60 (max).
func AppendBytesTokenBound(dst, token []byte, max bool) []byte {
	dst = append(dst, NextComponent)
	dst = AppendEscaped(dst, token)
	return append(dst, boundTerminator(max))
}

func boundTerminator(max bool) byte {
	if max {
		return GtNextComponent
	}
	return LtNextComponent
}

// DiffPoint returns Cassandra's ByteComparable.diffPoint of two encoded
// strings: 1 + the length of their common prefix. It is 1-based because
// Cassandra walks both streams and counts the position at which they first
// differ, where running off the end (EOS) counts as a difference only when
// the other stream still has a byte. Consequences:
//
//	DiffPoint(a, b) == k+1 when a[:k] == b[:k] and a[k] != b[k]
//	DiffPoint(x, x) == len(x)+1
//	DiffPoint("40 61 00 ...", "40 61 62 ...") == 3 (BOP "a" vs "ab")
//
// For two different prefix-free encodings it is the length of the shortest
// prefix of either that is not a prefix of the other, which is how the
// partition index chooses how much of a key to store.
func DiffPoint(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	// Most neighbours of a big index differ in their first word (a Murmur3
	// key's header and token bytes): answer those before the loops below
	// are set up.
	if n >= 8 {
		if x := binary.LittleEndian.Uint64(a) ^ binary.LittleEndian.Uint64(b); x != 0 {
			return bits.TrailingZeros64(x)/8 + 1
		}
	}
	i := 0
	// Keys under a long shared partition-key prefix agree for thousands of
	// bytes: skip equal blocks with the runtime's vectorised comparison,
	// big ones first so that a long prefix costs few calls.
	for ; i+8*diffBlock <= n && bytes.Equal(a[i:i+8*diffBlock], b[i:i+8*diffBlock]); i += 8 * diffBlock {
	}
	for ; i+diffBlock <= n && bytes.Equal(a[i:i+diffBlock], b[i:i+diffBlock]); i += diffBlock {
	}
	// Eight bytes at a time: the lowest set bit of the little-endian XOR is
	// in the first differing byte.
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8 + 1
		}
	}
	for ; i < n; i++ {
		if a[i] != b[i] {
			break
		}
	}
	return i + 1
}

// diffBlock is the block DiffPoint compares with bytes.Equal before it
// looks for the differing byte a word at a time.
const diffBlock = 128

// Cut returns the first n bytes of enc (all of it if n >= len(enc), none if
// n <= 0), which is Cassandra's ByteSource.cut applied to an encoded key. It
// is a plain re-slice and shares enc's memory.
func Cut(enc []byte, n int) []byte {
	return enc[:max(0, min(n, len(enc)))]
}
