package trie

import "math"

// Stream items and sentinels. Key bytes are read as int so that eos sorts
// below every byte (docs/format.md §2.4, Q4).
const (
	eos        = -1            // end of a key stream
	noByte     = math.MaxInt32 // transitionByte of a slot past the last one
	none       = int64(-1)     // no child (DENSE hole, PAYLOAD_ONLY, no branch)
	badPointer = int64(-2)     // a pointer that does not point strictly backwards
)

// nodeView is one decoded node. load checks that the node's fixed part lies
// inside its segment, so every accessor below reads within b without further
// checks. Pointers are checked when followed (child).
type nodeView struct {
	pos   int64    // file position of the node
	b     []byte   // segment bytes from the node's header to the segment end
	typ   nodeType // high nibble of the header
	flags uint8    // payload flags (0 for the NOPAYLOAD singles)
	n     int      // transitionRange: 0, 1, the SPARSE count or the DENSE span
	first int      // SINGLE: the transition byte; DENSE: the first byte
	ptrs  int      // offset in b of the pointer area (unused by the 4/12-bit singles)
	ppos  int      // offset in b of the payload (= size of the fixed part)
}

// load decodes the node at pos into nv.
func (nv *nodeView) load(src *Source, pos int64) error {
	b, ok := src.segment(pos)
	if !ok {
		return corrupt(pos, reasonOutOfRange)
	}
	h := b[0]
	nv.pos, nv.b, nv.typ, nv.flags = pos, b, nodeType(h>>4), h&0xF
	var need int
	switch nv.typ {
	case payloadOnly:
		nv.n, need = 0, 1
	case singleNoPayload4:
		nv.flags, nv.n, need = 0, 1, 2
		if len(b) >= need {
			nv.first = int(b[1])
		}
	case singleNoPayload12:
		nv.flags, nv.n, need = 0, 1, 3
		if len(b) >= need {
			nv.first = int(b[2])
		}
	case single8, single16:
		nv.n, nv.ptrs = 1, 2
		need = 2 + int(pointerBits[nv.typ])/8
		if len(b) >= need {
			nv.first = int(b[1])
		}
	case sparse8, sparse12, sparse16, sparse24, sparse40:
		if len(b) < 2 {
			return corrupt(pos, reasonTruncated)
		}
		nv.n = int(b[1])
		nv.ptrs = 2 + nv.n
		if nv.typ == sparse12 {
			need = 2 + (5*nv.n+1)/2
		} else {
			need = 2 + nv.n*(1+int(pointerBits[nv.typ])/8)
		}
	default: // dense12 .. longDense
		if len(b) < 3 {
			return corrupt(pos, reasonTruncated)
		}
		nv.first, nv.n, nv.ptrs = int(b[1]), int(b[2])+1, 3
		if nv.typ == dense12 {
			need = 3 + (3*nv.n+1)/2
		} else {
			need = 3 + nv.n*int(pointerBits[nv.typ])/8
		}
	}
	if len(b) < need {
		return corrupt(pos, reasonTruncated)
	}
	nv.ppos = need
	return nil
}

// transitionByte returns the byte of slot i (i >= 0), or noByte past the last
// slot. DENSE holes still report first+i (docs/format.md Q14).
func (nv *nodeView) transitionByte(i int) int {
	if i >= nv.n {
		return noByte
	}
	switch {
	case nv.typ.isSparse():
		return int(nv.b[2+i])
	case nv.typ.isDense():
		return nv.first + i
	default: // single
		return nv.first
	}
}

// distance returns the stored pointer of slot i, 0 <= i < n.
func (nv *nodeView) distance(i int) uint64 {
	switch nv.typ {
	case singleNoPayload4:
		return uint64(nv.b[0] & 0xF)
	case singleNoPayload12:
		return uint64(nv.b[0]&0xF)<<8 | uint64(nv.b[1])
	case sparse12, dense12:
		return read12(nv.b[nv.ptrs:], i)
	default:
		w := int(pointerBits[nv.typ]) / 8
		return readUint(nv.b[nv.ptrs+i*w:], w)
	}
}

// child returns the position slot i (0 <= i < n) points to, none for a DENSE
// hole, or badPointer when the pointer would not go strictly backwards to a
// non-negative position (the self-pointer of a zero SINGLE/SPARSE distance
// included), which is what makes every walk terminate.
func (nv *nodeView) child(i int) int64 {
	d := nv.distance(i)
	if d == 0 && nv.typ.isDense() {
		return none
	}
	if d == 0 || d > uint64(nv.pos) {
		return badPointer
	}
	return nv.pos - int64(d)
}

// searchSparse finds b among a SPARSE node's transition bytes t: its slot,
// or -i-1 when b is absent and i slots hold bytes below it. It is a binary
// search even on the walks' hot paths, so that unsorted (corrupt)
// transitions get the same answer from every walk and from the general
// decoder. Small enough to be inlined there.
func searchSparse(t []byte, b int) int {
	// Invariant: slots < lo hold bytes < b, slots >= hi hold bytes > b.
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := int(t[m]); {
		case b < c:
			hi = m
		case b > c:
			lo = m + 1
		default:
			return m
		}
	}
	return -lo - 1
}

// search returns the slot index of byte b (which may be eos or 256) if the
// node has a child for it, else -(insertion point)-1, as in docs/format.md §4.5. Unlike
// Cassandra, a DENSE child at distance 1 is found (docs/format.md §4.6, Q15).
func (nv *nodeView) search(b int) int {
	switch {
	case nv.n == 0:
		return -1
	case nv.typ.isSparse():
		return searchSparse(nv.b[2:2+nv.n], b)
	case nv.typ.isDense():
		i := b - nv.first
		if i < 0 {
			return -1
		}
		if i >= nv.n {
			return -nv.n - 1
		}
		if nv.distance(i) == 0 {
			return -i - 1
		}
		return i
	default: // single
		switch {
		case b == nv.first:
			return 0
		case b < nv.first:
			return -1
		}
		return -2
	}
}

// greaterTransition returns the first child strictly after the byte whose
// search index is si, or dflt when there is none.
func (nv *nodeView) greaterTransition(si int, dflt int64) int64 {
	j := si + 1
	if si < 0 {
		j = -1 - si
	}
	for ; j < nv.n; j++ {
		if c := nv.child(j); c != none {
			return c
		}
	}
	return dflt
}

// lesserTransition returns the last child strictly before the byte whose
// search index is si, or dflt when there is none (si is 0 or -1).
func (nv *nodeView) lesserTransition(si int, dflt int64) int64 {
	if si == 0 || si == -1 {
		return dflt
	}
	j := si - 1
	if si < 0 {
		j = -2 - si
	}
	if j >= nv.n {
		j = nv.n - 1
	}
	for ; j >= 0; j-- {
		if c := nv.child(j); c != none {
			return c
		}
	}
	return dflt
}
