package partitionindex

import (
	"github.com/bti-go/bti/bytecomparable"
)

// sharedPrefix lets the scratch path encode a ByteOrdered key without
// escaping again the part it shares with the previous key. Keys under one
// long partition-key prefix (a tenant id, a 4 KiB blob) otherwise spend
// most of their time escaping the same bytes: the escaped output of an
// input prefix depends on that prefix alone, so the output up to the last
// whole stride the two raw keys share is copied from the previous encoding
// (still in the ring's Current slot) and escaping resumes from the mark
// recorded there.
//
// A ByteOrdered key encodes as 40 <E(key)> 40 <E(key)> 38: its token is the
// key. E(key) is computed once (reusing the previous key's E where shared)
// and the second copy is a memmove.
//
// The state is double-buffered like the ring: prev describes the key in
// Current, next the key being encoded; commit swaps them once the key is
// accepted, so a refused key or failed write leaves prev untouched.
type sharedPrefix struct {
	prevRaw, nextRaw     []byte
	prevMarks, nextMarks []bytecomparable.EscapeMark
	havePrev             bool
}

func (s *sharedPrefix) reset() {
	s.prevRaw, s.nextRaw = s.prevRaw[:0], s.nextRaw[:0]
	s.prevMarks, s.nextMarks = s.prevMarks[:0], s.nextMarks[:0]
	s.havePrev = false
}

// encode appends the encoding of the ByteOrdered key raw to dst; prevEnc is
// the previous key's encoding when hasPrev.
func (s *sharedPrefix) encode(dst, raw, prevEnc []byte, hasPrev bool) []byte {
	shared := 0
	var prevComp []byte
	if hasPrev && s.havePrev {
		shared = bytecomparable.DiffPoint(s.prevRaw, raw) - 1
		prevComp = prevEnc[1:] // after the leading 40
	}
	dst = append(dst, bytecomparable.NextComponent)
	start := len(dst)
	dst, s.nextMarks = bytecomparable.AppendEscapedReusing(dst, raw, prevComp, s.prevMarks, shared, s.nextMarks)
	end := len(dst)
	dst = append(dst, bytecomparable.NextComponent)
	dst = append(dst, dst[start:end]...) // safe even if append reallocates
	dst = append(dst, bytecomparable.Terminator)
	s.nextRaw = append(s.nextRaw[:0], raw...)
	return dst
}

// commit makes the key just encoded the previous one. A key encoded another
// way (not ByteOrdered) leaves nothing to reuse.
func (s *sharedPrefix) commit(byteOrdered bool) {
	if !byteOrdered {
		s.havePrev = false
		return
	}
	s.prevRaw, s.nextRaw = s.nextRaw, s.prevRaw
	s.prevMarks, s.nextMarks = s.nextMarks, s.prevMarks
	s.havePrev = true
}
