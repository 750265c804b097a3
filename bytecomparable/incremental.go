package bytecomparable

import (
	"slices"
)

// BytesKeyEncoder appends the decorated keys of a ByteOrdered index, as
// AppendBytesTokenKey does, for a stream of keys where neighbours share long
// prefixes (a tenant id, a 4 KiB blob). Escaping is the only work that
// grows with the key, and the escaped output of an input prefix depends on
// that prefix alone, so the output up to the last whole stride of
// escapeMarkEvery input bytes that a key shares with the previous one is
// copied from the previous key's output and escaping resumes from the mark
// recorded there.
//
// Memory contract: AppendKey keeps reading the output it produced for the
// last committed key (it copies from it), so the caller must leave those
// bytes alone until the next AppendKey returns, as with a three-slot ring.
//
// The state is double-buffered: AppendKey describes the new key on the side,
// Commit makes it the previous key. A key that is refused after AppendKey
// (out of order, or a failed write) is simply not committed, and the next
// AppendKey reuses the last committed key again.
type BytesKeyEncoder struct {
	prevRaw, nextRaw     []byte
	prevOut, nextOut     []byte // the escaped component, aliasing the caller's output
	prevMarks, nextMarks []escapeMark
	havePrev, haveNext   bool
	reused               int // see Reused
}

// escapeMarkEvery is the input stride at which BytesKeyEncoder records
// where the output stood. 64 bytes reuse a 64-byte shared prefix (a
// tenant id, say), which 256-byte strides never did, for one mark more per
// 64 bytes escaped (callgrind per key, 16,384 ByteOrdered keys behind a
// shared prefix of 0/64/4096 bytes: 256 gives 1450/2575/4060 instructions,
// 64 gives 1438/1835/4122, 32 gives 1435/1835/4219).
const escapeMarkEvery = 64

// escapeMark records the escaper after an input prefix of a component: out
// bytes of output (counted from the component's start) and whether the
// prefix ended in a zero byte, in 4 bytes: a 4 KiB key has 64 marks, which
// the next key copies for the strides it shares. (Output offsets stay
// below 2^31: a partition key has at most 65,535 bytes.)
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
	e.prevRaw, e.nextRaw = e.prevRaw[:0], e.nextRaw[:0]
	e.prevOut, e.nextOut = nil, nil
	e.prevMarks, e.nextMarks = e.prevMarks[:0], e.nextMarks[:0]
	e.havePrev, e.haveNext = false, false
	e.reused = 0
}

// Reused returns how many leading bytes of the last AppendKey's output were
// copied from the last committed key's output and are therefore equal to
// it: a caller comparing the two keys' encodings (for their diff point)
// may start there.
func (e *BytesKeyEncoder) Reused() int { return e.reused }

// AppendKey appends exactly AppendBytesTokenKey(dst, key):
// 40 <escaped key> 40 <escaped key> 38, escaping only what key does not
// share with the last committed key (whole strides of it).
func (e *BytesKeyEncoder) AppendKey(dst, key []byte) []byte {
	dst = slices.Grow(dst, 3+2*maxEscapedLen(len(key)))
	dst, start, end := e.appendHead(dst, key)
	// The key component is the token again: copy it (appending from dst
	// itself is safe even if append reallocates, and Grow made room).
	dst = append(dst, dst[start:end]...)
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
	dst = slices.Grow(dst, 2+maxEscapedLen(len(key)))
	dst, _, _ = e.appendHead(dst, key)
	return dst
}

// appendHead appends the head and returns where the escaped component
// starts and ends in dst.
func (e *BytesKeyEncoder) appendHead(dst, key []byte) (out []byte, start, end int) {
	dst = append(dst, NextComponent)
	start = len(dst)
	if len(key) < escapeMarkEvery {
		// Shorter than a stride: there is no whole stride to copy from the
		// previous key, and the next key can copy none of this one (what
		// it shares is shorter still). Escape it at once, and keep neither
		// raw bytes nor marks for the next key to compare with: its shared
		// length with an empty previous key is 0, as it would have been.
		dst = AppendEscaped(dst, key)
		e.nextMarks = e.nextMarks[:0]
		e.nextRaw = e.nextRaw[:0]
		e.reused = 1 // the leading 40
	} else {
		shared := 0
		if e.havePrev {
			shared = DiffPoint(e.prevRaw, key) - 1
		}
		var copied int
		dst, e.nextMarks, copied = e.appendEscaped(dst, key, shared)
		e.nextRaw = append(e.nextRaw[:0], key...)
		e.reused = 1 + copied // the leading 40 and the copied output
	}
	end = len(dst)
	dst = append(dst, NextComponent)
	e.nextOut = dst[start:end]
	e.haveNext = true
	return dst, start, end
}

// Commit makes the key of the last AppendKey the previous key that the next
// AppendKey reuses.
func (e *BytesKeyEncoder) Commit() {
	if !e.haveNext {
		return
	}
	e.prevRaw, e.nextRaw = e.nextRaw, e.prevRaw
	e.prevMarks, e.nextMarks = e.nextMarks, e.prevMarks
	e.prevOut, e.nextOut = e.nextOut, nil
	e.havePrev, e.haveNext = true, false
}

// appendEscaped appends the escaped form of b, exactly as AppendEscaped
// does, copying the output of the first shared input bytes' whole strides
// from the previous key. It records b's marks into e.nextMarks (reusing its
// memory) and returns them with the number of output bytes copied.
func (e *BytesKeyEncoder) appendEscaped(dst, b []byte, shared int) ([]byte, []escapeMark, int) {
	base := len(dst)
	dst = slices.Grow(dst, maxEscapedLen(len(b)))
	out := dst[:cap(dst)]
	n, escaped, i, copied := base, false, 0, 0
	marks := e.nextMarks[:0]
	prevMarks := e.prevMarks
	if !e.havePrev {
		prevMarks = nil
	}
	if k := min(shared/escapeMarkEvery, len(prevMarks)); k > 0 && prevMarks[k-1].out() <= len(e.prevOut) {
		m := prevMarks[k-1]
		copied = copy(out[n:], e.prevOut[:m.out()])
		n += copied
		escaped, i = m.escaped(), k*escapeMarkEvery
		marks = append(marks, prevMarks[:k]...)
	}
	for i < len(b) {
		end := min(i+escapeMarkEvery, len(b))
		n, escaped = escapeInto(out, n, b[i:end], escaped)
		if end-i == escapeMarkEvery {
			marks = append(marks, newEscapeMark(n-base, escaped))
		}
		i = end
	}
	return out[:endEscaped(out, n, escaped)], marks, copied
}
