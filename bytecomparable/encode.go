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
// The escape rewrites each byte by what precedes it: a zero after a zero
// becomes FE (the run goes on), a non-zero byte after a zero gets an FF
// before it (the run is over), and every other byte stays. So a word of
// eight input bytes is escaped in register, without a branch on its bytes
// in the common cases: the mask of its zeros (zeroBytes) shifted up one
// byte, with the state carried in from the word before, flags the bytes
// that follow a zero; the zeros among them turn into FE by an OR, and when
// at most one run ends in the word its FF goes in by masks and shifts that
// leave the word as it is when none does (escapeOneEnd). A word in which
// two or more runs end goes out in pieces (escapeEnds). The last 1..7
// bytes are the word that ends at b's end, shifted down to them (a b
// shorter than a word is read as one too), escaped the same way with the
// bytes past the input masked off. Near the end of out, where a word's
// stores would not fit, it goes on a byte at a time (escapeBytes).
//
// Branches on the bytes are what costs here, more than instructions: for
// blob keys dense in zeros (bti gen --kind blob: 10% zeros, 5% FF), whose
// words a test for zeros splits about evenly, the earlier loop (copy up to
// a word's first zero, then a byte at a time to the end of its run)
// mispredicted more. Whole warm builds of the 16,384-key blob sets behind
// a shared prefix of 0 and 64 bytes ran 809.0 and 1,056.2 instructions and
// 7.53 and 7.25 simulated mispredicted branches per key with it, 867.2 and
// 1,114.4 instructions and 5.44 and 5.26 mispredicts with the first
// version of this one (callgrind --branch-sim=yes, driver as in
// Builder.Add of partitionindex, at 2358467 and 79999af), and took 108.9
// to 111.0 and 99.8 to 101.8 ns per key (prefix 0, the same driver timing
// both binaries in turn); with this one and the builder's other changes
// of that round, 812.9 and 1,014.8 instructions and 5.42 and 4.99
// mispredicts (at 4442019).
//
// Where the CPU has AVX-512 and out has escapeVectorRoom, escapeVector
// does it all in assembly instead, 32 bytes at a time, with no branch on
// the bytes or the length (up to 32 bytes): warm builds of the 16,384-key
// blob sets behind a shared prefix of 0 and 64 bytes took 89.2 to 91.9
// and 103.3 to 112.1 ns per key through the word loop, 76.8 to 79.2 and
// 91.3 to 93.1 with it (medians of 9 builds, 4 alternating runs of each
// binary; driver /tmp/drv/tm of the issue-22 note of 2026-12-06, at
// 49f4351 and the commit that added escapeVector). BenchmarkEscape
// compares the two paths on their own.
func escapeFrom(out []byte, n int, b []byte, i int, escaped bool) (int, bool) {
	if haveEscapeVector && len(out)-n >= escapeVectorRoom(len(b)-i) {
		m, escaped := escapeVector(out[n:], b[i:], escaped)
		return n + m, escaped
	}
	var carry uint64 // the zero mask's bit of the byte before the word
	if escaped {
		carry = 0x80
	}
	lastWord, room := len(b)-8, len(out)-escapeWordRoom
	for i <= lastWord && n <= room {
		// (b[i:i+8], not b[i:]: the compiler then checks the bounds
		// once.)
		w := binary.LittleEndian.Uint64(b[i : i+8])
		nonzero := nonzeroBytes(w)
		zeros := ^nonzero & 0x8080808080808080
		i += 8
		after := zeros<<8 | carry
		carry = zeros >> 56 & 0x80
		w |= (zeros & after >> 7) * Escaped0Cont
		ends := after & nonzero
		if ends&(ends-1) != 0 {
			n = escapeEnds(out, n, w, ends, 8)
			continue
		}
		n = escapeOneEnd(out, n, w, ends, 8)
	}
	if i >= len(b) {
		return n, carry != 0
	}
	if len(out)-n < escapeWordRoom {
		return escapeBytes(out, n, b[i:], carry != 0)
	}
	// The last 1..7 bytes, read as one word: the bytes above them are
	// zero and masked off. (The shifts are taken mod 64 so that the
	// compiler adds no check for counts of 64 and over.) The steps are
	// the loop's, written out again with the mask: one function for both
	// is too large to be inlined, and its call cost the blob builds of
	// Builder.Add 41.6 and 41.7 instructions per key (prefix 0 and 64,
	// callgrind as below, at f9589d3).
	rem := uint(len(b) - i)
	var w uint64
	if len(b) >= 8 {
		w = binary.LittleEndian.Uint64(b[len(b)-8:]) >> ((64 - 8*rem) & 63)
	} else {
		w = loadShort(b) >> ((8 * uint(i)) & 63)
	}
	in := uint64(1)<<((8*rem)&63) - 1
	zeros := zeroBytes(w) & in
	after := zeros<<8 | carry
	w |= (zeros & after >> 7) * Escaped0Cont
	ends := after &^ zeros & in
	escaped = zeros>>((8*rem-1)&63) != 0
	if ends&(ends-1) != 0 {
		return escapeEnds(out, n, w, ends, rem), escaped
	}
	return escapeOneEnd(out, n, w, ends, rem), escaped
}

// escapeVectorRoom is the room escapeVector needs in out to escape n bytes.
// Its last store is a 32-byte register from the end of its last chunk's
// first half, so it writes at most 32 bytes past the output, whose length
// is below maxEscapedLen(n) (which counts an end marker it does not write):
// TestEscapeVector's canary fails with 30 bytes of slack and passes with
// 31. Callers that keep an output buffer give it escapeSlack bytes past
// the escaped bytes' bound, so that escapeFrom takes the vector path.
func escapeVectorRoom(n int) int { return maxEscapedLen(n) + escapeSlack }

// escapeSlack is the room past maxEscapedLen that lets escapeFrom store
// whole registers: words (escapeWordRoom) or escapeVector's 32 bytes.
const escapeSlack = 32

// escapeWordRoom is the room escapeEnds and escapeOneEnd need in out: they
// write the first count <= 8 bytes of a word, at most 4 FF between them
// (one before each non-zero byte that follows a zero), and store whole
// words, the last starting at most 7 + 4 bytes in.
const escapeWordRoom = 7 + 4 + 8

// zeroBytes returns the high bit of each zero byte of w, exactly: a byte's
// low seven bits plus 7F carry into its high bit unless they are all zero,
// and stay within the byte.
func zeroBytes(w uint64) uint64 {
	return ^nonzeroBytes(w) & 0x8080808080808080
}

// nonzeroBytes returns a word whose bytes have their high bit set where
// w's bytes are not zero (their low bits are noise).
func nonzeroBytes(w uint64) uint64 {
	const low7 = 0x7F7F7F7F7F7F7F7F
	return w&low7 + low7 | w
}

// escapeOneEnd writes at out[n:] the first count bytes of w with an FF
// before the byte that ends flags (its high bit), if any, and returns the
// new length: the bytes from that one on move up a byte, the 8th going out
// as a 9th byte. Without a flag the word goes out as it is. out must have 9
// bytes from n on.
func escapeOneEnd(out []byte, n int, w, ends uint64, count uint) int {
	at := ends >> 7 // the flagged byte's low bit, or 0
	low := at - 1   // the bytes below it, or all
	o := (*[9]byte)(out[n : n+9])
	binary.LittleEndian.PutUint64(o[:8], w&low|at*Escaped0Done|(w&^low)<<8)
	o[8] = byte(w >> 56)
	if at != 0 {
		count++
	}
	return n + int(count)
}

// escapeEnds writes at out[n:] the first count bytes of w with an FF before
// each byte that ends flags (its high bit), and returns the new length: the
// bytes up to the next flagged one go out, then FF, and the word resumes at
// that byte. out must have escapeWordRoom bytes from n on.
func escapeEnds(out []byte, n int, w, ends uint64, count uint) int {
	pos := uint(0)
	for ends != 0 {
		at := uint(bits.TrailingZeros64(ends)) >> 3
		binary.LittleEndian.PutUint64(out[n:n+8], w>>((8*pos)&63))
		n += int(at - pos)
		out[n] = Escaped0Done
		n++
		pos = at
		ends &= ends - 1
	}
	binary.LittleEndian.PutUint64(out[n:n+8], w>>((8*pos)&63))
	return n + int(count-pos)
}

// escapeBytes is escapeFrom a byte at a time, for the end of an out too
// short for the stores of a word.
func escapeBytes(out []byte, n int, b []byte, escaped bool) (int, bool) {
	for _, c := range b {
		switch {
		case c == 0 && escaped:
			out[n] = Escaped0Cont
		case c == 0:
			out[n] = Escape
			escaped = true
		default:
			if escaped {
				out[n] = Escaped0Done
				n++
				escaped = false
			}
			out[n] = c
		}
		n++
	}
	return n, escaped
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
//
// One store of a selected byte, not a store in each arm of a branch: the
// state is the input's last byte, as unpredictable as the keys (blob keys
// end in a zero one time in ten).
func endEscaped(out []byte, n int, escaped bool) int {
	var run uint8 // escaped as 0 or 1: the compiler takes the bool as it is
	if escaped {
		run = 1
	}
	out[n] = -run & Escaped0Cont // Escape, 00, otherwise
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
