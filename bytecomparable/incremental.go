package bytecomparable

import (
	"bytes"
	"slices"
)

// BytesKeyEncoder appends the decorated keys of a ByteOrdered index, as
// AppendBytesTokenKey does, for a stream of keys where neighbours share long
// prefixes (a tenant id, a 4 KiB blob). Escaping is the only work that
// grows with the key, and the escaped output of an input prefix depends on
// that prefix alone: escaping is a left-to-right rewrite whose only state is
// whether the last input byte was a zero (a 00 opens a run, FE continues
// it, FF closes it before the next byte), and the end marker (00, or FE
// after a zero) is written only at the end of the input. So the output up
// to the last whole stride of escapeMarkEvery input bytes that a key shares
// with the previous one equals the previous key's output there, and
// escaping resumes from the mark (output offset and state) recorded at that
// stride. Only the input from that stride on is escaped; the 0 to
// escapeMarkEvery-1 shared bytes past it are escaped again, which keeps the
// marks the only state.
//
// Each key costs one comparison of its raw bytes with the previous key's (to
// find the shared strides), the escaping of its unshared strides and, for
// the shared part, whatever the output buffer lacks: with ReuseHead the
// caller says how many of the buffer's bytes already hold the previous
// key's output, and a buffer that held an older key under the same long
// prefix needs nothing copied at all (the partition index builder's ring
// tracks this, see ring.Ring.Reuse). AppendKey and AppendHead append to a
// buffer whose bytes are unknown and copy the whole shared part.
//
// Memory contract: the encoder keeps reading the output it produced for the
// last committed key (it copies from it), so the caller must leave those
// bytes alone until the next encoding call returns, as with a three-slot
// ring. It also reads the key passed to the last encoding call until Commit
// (which copies the part of it that differs from the previous key): call
// Commit before that key's memory changes.
//
// The state is double-buffered where it must be: an encoding call describes
// the new key on the side, Commit makes it the previous key. A key that is
// refused after it was encoded (out of order, or a failed write) is simply
// not committed, and the next call reuses the last committed key again.
type BytesKeyEncoder struct {
	// raw is the last committed key's whole strides (empty if it was
	// shorter than a stride: the next key can share no whole stride with
	// it). Commit rewrites it from the point the new key differs.
	raw []byte
	// marks[:valid] are the marks of raw's whole strides. marks is one
	// array: an encoding call writes the new key's marks over those of its
	// strides past the shared ones and lowers valid to the shared ones
	// (which both keys have), and Commit raises it to the new key's count.
	marks []escapeMark
	valid int
	// prevHead is the committed key's head, 40 <escaped key> 40, aliasing
	// the caller's output.
	prevHead []byte
	havePrev bool
	// lastShared is the strides the last encoded key shared with its
	// predecessor, the next call's first guess.
	lastShared int

	// The key of the last encoding call, until Commit: the caller's key
	// (read at Commit), how many leading bytes it shares with raw, how many
	// marks it has, and its head in the caller's output.
	next       []byte
	nextShared int
	nextMarks  int
	nextHead   []byte
	haveNext   bool
	// nextShort is set when that key is shorter than a stride, and then
	// the fields above but haveNext are not (see encodeHead).
	nextShort bool

	reused int // see Reused
}

// escapeMarkEvery is the input stride at which BytesKeyEncoder records
// where the output stood. 64 bytes reuse a 64-byte shared prefix (a tenant
// id, say), which 256-byte strides do not, for one mark per 64 bytes
// escaped. Self instructions per key outside the trie writer, building the
// 16,384-key blob sets behind a shared prefix of 0/64/4096 bytes (the
// callgrind driver of the CHANGELOG entry for this encoder, on dd92fbf with
// the change that wrote this comment): 32 gives 648/880/1830, 64 gives
// 648/880/1830, 256 gives 648/1508/1830.
const escapeMarkEvery = 64

// escapeMark records the escaper after an input prefix of a component: out
// bytes of output (counted from the component's start) and whether the
// prefix ended in a zero byte, in 4 bytes. (Output offsets stay below 2^31:
// a partition key has at most 65,535 bytes.)
type escapeMark uint32

func newEscapeMark(out int, escaped bool) escapeMark {
	m := escapeMark(out) << 1
	if escaped {
		m |= 1
	}
	return m
}

func (m escapeMark) out() int      { return int(m >> 1) }
func (m escapeMark) escaped() bool { return m&1 != 0 }

// Reset forgets the previous key, keeping memory for reuse.
func (e *BytesKeyEncoder) Reset() {
	e.raw = e.raw[:0]
	e.marks = e.marks[:0]
	e.valid, e.lastShared = 0, 0
	e.prevHead, e.nextHead, e.next = nil, nil, nil
	e.havePrev, e.haveNext, e.nextShort = false, false, false
	e.reused = 0
}

// Reused returns how many leading bytes of the last encoded head (counted
// from its leading 40) are known to equal the last committed key's head:
// a caller comparing the two (for their diff point) may start there.
func (e *BytesKeyEncoder) Reused() int { return e.reused }

// AppendKey appends exactly AppendBytesTokenKey(dst, key):
// 40 <escaped key> 40 <escaped key> 38, escaping only what key does not
// share with the last committed key (whole strides of it).
func (e *BytesKeyEncoder) AppendKey(dst, key []byte) []byte {
	dst = slices.Grow(dst, 3+2*maxEscapedLen(len(key)))
	start := len(dst)
	dst = e.encodeHead(dst, start, 0, key)
	// The key component is the token again: copy it (appending from dst
	// itself is safe even if append reallocates, and Grow made room).
	dst = append(dst, dst[start+1:len(dst)-1]...)
	return append(dst, Terminator)
}

// AppendHead appends the head of AppendKey's output, 40 <escaped key> 40,
// without the key component that repeats the token. The head decides
// every comparison: the encodings of two different keys first differ
// within their heads (an escaped component ends in 00 or 00 FE…, never
// followed by 40 inside another), so DiffPoint of two heads is that of
// the encodings and at most the shorter head's length, and a prefix that
// tells a key from its neighbours lies in its head. The partition index
// builder keeps only heads.
func (e *BytesKeyEncoder) AppendHead(dst, key []byte) []byte {
	return e.encodeHead(dst, len(dst), 0, key)
}

// ReuseHead writes the head of key (AppendHead's bytes) over buf from its
// start and returns it (buf's memory, or a larger array if it lacks room),
// given that buf's first same bytes are known to equal the last committed
// key's head: those are kept, not copied. With same at least the shared
// part of the head, writing a key that shares a long prefix with the
// previous one costs the raw comparison and the escaping of the unshared
// strides only. same may exceed the shared part (the bytes past it are
// written over) and is 0 when nothing is known.
func (e *BytesKeyEncoder) ReuseHead(buf []byte, same int, key []byte) []byte {
	return e.encodeHead(buf, 0, min(same, len(buf)), key)
}

// encodeHead writes key's head into buf from base on and returns buf cut
// after it. buf[base:base+same] are known to equal prevHead[:same]; whatever
// else buf holds past base is overwritten.
func (e *BytesKeyEncoder) encodeHead(buf []byte, base, same int, key []byte) []byte {
	if len(key) < escapeMarkEvery {
		// A key shorter than a stride: there is no whole stride to copy
		// from the previous key, and the next key can copy none of this
		// one (what it shares is shorter still). It is escaped at once,
		// here rather than in a call of its own (most keys are short),
		// and records only that it was short: once committed, it leaves
		// no raw bytes for the next key to compare with, whose shared
		// length with it is 0, as it would have been.
		if need := base + 1 + maxEscapedLen(len(key)) + 1 + escapeSlack; need > cap(buf) {
			buf = slices.Grow(buf[:base], need-base)
		}
		out := buf[:cap(buf)]
		out[base] = NextComponent
		var n int
		var escaped bool
		if haveEscapeVector {
			// escapeFrom's vector path without its call and room test
			// (need above leaves escapeVectorRoom past base+1).
			n, escaped = escapeVector(out[base+1:], key, false)
			n += base + 1
		} else {
			n, escaped = escapeFrom(out, base+1, key, 0, false)
		}
		n = endEscaped(out, n, escaped)
		out[n] = NextComponent
		n++
		// Commit needs to know only that the key was short: the marks of
		// the committed key stay valid until then (a short key writes
		// none), and its head is never copied.
		e.haveNext, e.nextShort = true, true
		e.reused = 1
		return out[:n]
	}
	// Resume after the shared whole strides: r bytes into the head, in
	// state escaped, at input byte i.
	shared, k := 0, 0
	r, escaped := 1, false
	if e.havePrev && len(e.raw) > 0 {
		shared = sharedStrides(e.raw, key, e.lastShared)
		// (shared is a length: divided unsigned, it is a shift.)
		if k = min(int(uint(shared)/escapeMarkEvery), e.valid); k > 0 {
			m := e.marks[k-1]
			r, escaped = 1+m.out(), m.escaped()
			if r > len(e.prevHead) {
				k, r, escaped = 0, 1, false // cannot happen for marks this encoder made
			}
		}
	}
	keep := min(same, r) // bytes of the head buf already holds
	// Room for the head: the kept bytes, the copied ones up to r, the
	// escaped rest with its end marker, and the closing 40 (escapeSlack
	// bytes more let escapeFrom store whole registers).
	if need := base + r + maxEscapedLen(len(key)-k*escapeMarkEvery) + 1 + escapeSlack; need > cap(buf) {
		buf = slices.Grow(buf[:base+keep], need-base-keep)
	}
	out := buf[:cap(buf)]
	out[base] = NextComponent
	if from := max(keep, 1); from < r {
		copy(out[base+from:base+r], e.prevHead[from:r])
	}
	n := base + r
	// The new key's marks go over the old ones past the shared strides:
	// until Commit only the shared ones are valid for the committed key.
	// (e.marks may be longer than the marks of either key: valid and
	// nextMarks say how many count, and a key that adds none, the tail
	// of a long shared prefix, stores nothing.)
	marks := k
	e.valid = k
	for i := k * escapeMarkEvery; i < len(key); {
		// (The last part stride ends at the key's end: key[:end] is all
		// of key, whose last bytes the word loop reads as one word.)
		end := min(i+escapeMarkEvery, len(key))
		if haveEscapeVector {
			// escapeFrom's vector path without its call and room test:
			// need above leaves escapeVectorRoom for the rest of key,
			// and still does after each whole stride, whose 64 bytes
			// escape to at most 96 while maxEscapedLen(R) - 96 is
			// maxEscapedLen(R-64).
			var m int
			m, escaped = escapeVector(out[n:], key[i:end], escaped)
			n += m
		} else {
			n, escaped = escapeFrom(out, n, key[:end], i, escaped)
		}
		if end-i < escapeMarkEvery {
			break
		}
		e.marks = append(e.marks[:marks], newEscapeMark(n-base-1, escaped))
		marks++
		i = end
	}
	n = endEscaped(out, n, escaped)
	out[n] = NextComponent
	n++
	e.next, e.nextShared, e.nextMarks = key, shared, marks
	e.lastShared = shared
	e.nextHead = out[base:n]
	e.haveNext, e.nextShort = true, false
	e.reused = r
	return out[:n]
}

// sharedStrides returns how many leading bytes a and b share, rounded down
// to whole strides of escapeMarkEvery bytes: all that resuming needs, and
// cheaper to find than the byte where they differ, since whole strides go
// to the runtime's vectorised comparison. Neighbours in a run of keys under
// one long prefix share about as much as the last two did: guess (whole
// strides) is tried first in one call, then big blocks, so that a 4 KiB
// shared prefix costs one call, or four; a block that differs costs its
// stride comparisons again, at most escapeMarkEvery*16 bytes more.
func sharedStrides(a, b []byte, guess int) int {
	const big = 16 * escapeMarkEvery
	n := min(len(a), len(b))
	i := 0
	if guess <= n && bytes.Equal(a[:guess], b[:guess]) {
		i = guess
		if n-i < escapeMarkEvery {
			// No whole stride left to compare: the common case
			// under a long shared prefix, where a's whole strides
			// (the previous key's, all a holds) are all shared.
			return i
		}
	}
	for i+big <= n && bytes.Equal(a[i:i+big], b[i:i+big]) {
		i += big
	}
	for i+escapeMarkEvery <= n && bytes.Equal(a[i:i+escapeMarkEvery], b[i:i+escapeMarkEvery]) {
		i += escapeMarkEvery
	}
	return i
}

// Commit makes the key of the last encoding call the previous key that the
// next call reuses. It reads that key's bytes past the part it shares with
// the previous key, so it must be called while they are unchanged.
func (e *BytesKeyEncoder) Commit() {
	if !e.haveNext {
		return
	}
	e.havePrev, e.haveNext = true, false
	if e.nextShort {
		// The next key shares no whole stride with a short one: an
		// empty raw says so, and then neither the marks nor prevHead
		// are read.
		e.raw = e.raw[:0]
		return
	}
	// Only the part that differs (the first nextShared bytes are the same
	// in both keys), and only its whole strides: the next key can share no
	// more than those with it, so the bytes after them are never compared.
	// A key of 64 to 127 bytes behind a 64-byte shared prefix copies
	// nothing. (nextShared is whole strides too, so end >= nextShared.)
	// Whole warm builds of the 16,384-key blob sets behind a 64- and a
	// 4,096-byte shared prefix took 1,070.1 and 2,076.4 instructions per
	// key copying the rest, 1,056.2 and 2,062.5 without (callgrind as in
	// partitionindex's Builder.Add, driver /tmp/drv of the issue-22 note
	// of 2026-12-06, at 829d184 and the commit that made this change).
	end := len(e.next) &^ (escapeMarkEvery - 1)
	if end > e.nextShared {
		e.raw = append(e.raw[:e.nextShared], e.next[e.nextShared:end]...)
	} else {
		// Nothing to copy (a short tail behind the shared strides, the
		// common case under a long shared prefix): only the length
		// changes, without append's set-up and the empty move. Warm
		// builds of the blob sets behind 64 and 4,096 shared bytes ran
		// 1,114.4 and 2,121.3 instructions per key with the append,
		// 1,082.4 and 2,089.3 without (callgrind as above, at 79999af
		// and the commit that made this change).
		e.raw = e.raw[:end]
	}
	e.valid = e.nextMarks
	e.prevHead = e.nextHead
	e.next, e.nextHead = nil, nil
}
