package trie

import "encoding/binary"

// The one-loop walks: exact and ceiling over a complete file. When a trie
// has no early-open tail (Source.Tail is nil), every readable node lies in
// File, so a step needs no segment lookup: the node at pos is File[pos:] once
// pos < len(File). exactFile and ceilingFile are manually inlined versions
// of exactWalk and ceilingWalk (walker.go) for that case, with the steps of
// the node types a partition index of hashed keys consists of written into
// the loop, so a walk of five or six nodes makes no call and decodes only the
// bytes it reads. At a million Murmur3 keys those are the SINGLE_NOPAYLOAD_12
// root (the 0x40 that starts every key), one DENSE_16 for the first token
// byte, 256 DENSE_24 for the second, 94,178 SPARSE_8 and 210 DENSE_12 below
// them, 115 SINGLE_NOPAYLOAD_4 and 1,000,000 PAYLOAD_ONLY leaves (bti gen
// --kind uuid --count 1000000 --seed 7, bti build, bti dump, at 0cff3b9).
// At ten million the level below the jump table is 65,536 SPARSE_12 nodes
// of about 150 children (bti gen --kind uuid --count 10000000 --seed 1, bti
// build, bti dump, at e6e0db5), so the loops decode SPARSE_12 and SPARSE_16
// too: every walk there took a general step before.
//
// A node of any other type, and every irregular case (a position outside
// the file, a node that does not fit, a pointer that does not go strictly
// backwards), takes one general step (exactStep, ceilingStep: nodeView), and
// the walk goes on in its loop from the child that step returns. So the
// answers and errors are the general walks', node by node:
// TestHotLoopsMatchGeneral and FuzzExactFastPath compare them.

// exactFile is exact over a complete file: a manually inlined version of
// exactWalk (see above). A trie with a jump table starts the walk where the
// table says, and with jump slots steps the node there from its slot
// (jump.go, slotStep).
func (w *Walker) exactFile(key []byte, partial bool) (node int64, ok, more bool, err error) {
	if w.t.src.Tail != nil {
		return w.exactWalk(key, partial) // here, so that Exact and ExactPrefix make one call
	}
	f := w.t.src.File
	pos, k := w.t.root, 0
	j, v := w.t.jump, entryOfWord(w.t.jump, key)
	if v == byteEntry {
		v = j.entry(key)
	}
	if v >= 0 {
		pos, k = int64(j.next[uint16(v)])-1, j.depth
		if s := j.slot(v); s == nil {
			w.touch ^= touchAround(f, pos)
		} else if k < len(key) {
			// The node a jump slot holds, stepped from the slot.
			c := slotStepFile(s, f, pos, int(key[k]), &w.touch)
			if c < 0 {
				w.flags = 0 // no child for a byte, and no payload
				return -1, false, false, nil
			}
			if c != pos {
				pos, k = c, k+1
			}
		}
	}
	// Each step consumes a key byte, and a node never matches eos, so the
	// loop runs at most len(key)+1 times.
	for ; ; k++ {
		b := eos
		if k < len(key) {
			b = int(key[k])
		} else if partial {
			return -1, false, true, nil
		}
		if uint64(pos) < uint64(len(f)) {
			seg := f[pos:]
			h := seg[0]
			flags := h & 0xF
			switch t := nodeType(h >> 4); t {
			case payloadOnly:
				// No children: a candidate whatever b is.
				w.flags, w.payOff = flags, pos+1
				if flags == 0 {
					return -1, false, false, nil
				}
				return pos, true, false, nil
			case singleNoPayload4, singleNoPayload12:
				// One child, no payload: never a candidate.
				first, d, fits := singleChild(t, seg)
				if !fits {
					break
				}
				if b != first {
					w.flags = 0
					return -1, false, false, nil
				}
				if d != 0 && d <= pos {
					pos -= d
					continue
				}
			case sparse8, sparse12, sparse16:
				if len(seg) < 2 {
					break
				}
				n := int(seg[1])
				ppos := sparseFixed(t, n)
				if len(seg) < ppos {
					break
				}
				// The search (sparsesearch.go). searchIncreasing makes the
				// node's range tests itself, so that no path here skips its
				// call: the values live across it then stay in their stack
				// slots, and each is loaded where a path uses it, not all
				// at a join with a path without the call.
				found := searchIncreasing(seg, n, b)
				if found == notIncreasing {
					found = searchSparse(seg[2:2+n], b)
				}
				if found < 0 {
					if b != eos && n != 0 {
						flags = 0
					}
					w.flags, w.payOff = flags, pos+int64(ppos)
					if flags == 0 {
						return -1, false, false, nil
					}
					return pos, true, false, nil
				}
				d := int64(sparseSlot(t, seg, n, found))
				if d == 0 || d > pos {
					break // the general step reports the bad pointer
				}
				pos -= d
				// The child is most often a leaf (every child of the
				// SPARSE_8 nodes of a hashed index is): answer it here as
				// the loop's next turn would, which reads key[k+1] only to
				// know the key goes on (or, for a partial key, that the
				// walk needs more).
				if k+1 < len(key) || !partial {
					if uint64(pos) < uint64(len(f)) && f[pos]>>4 == byte(payloadOnly) {
						flags := f[pos] & 0xF
						w.flags, w.payOff = flags, pos+1
						if flags == 0 {
							return -1, false, false, nil
						}
						return pos, true, false, nil
					}
				}
				continue
			case dense12, dense16, dense24:
				if len(seg) < 3 {
					break
				}
				first, n := int(seg[1]), int(seg[2])+1
				ppos := denseFixed(t, n)
				if len(seg) < ppos {
					break
				}
				var d uint64
				if i := b - first; i >= 0 && i < n {
					d = denseSlot(t, seg, i)
				}
				if d == 0 { // no slot for b, or a hole: no child for b
					if b != eos {
						flags = 0 // a DENSE node has children
					}
					w.flags, w.payOff = flags, pos+int64(ppos)
					if flags == 0 {
						return -1, false, false, nil
					}
					return pos, true, false, nil
				}
				if d > uint64(pos) {
					break // the general step reports the bad pointer
				}
				pos -= int64(d)
				w.touch ^= touchAround(f, pos)
				continue
			}
		}
		// One general step, then on in this loop.
		next, err := w.exactStep(pos, b)
		if err != nil || next < 0 {
			return w.exactStopped(pos, err)
		}
		pos = next
	}
}

// singleChild decodes the SINGLE_NOPAYLOAD_4 or SINGLE_NOPAYLOAD_12 node
// at the start of seg: its transition byte and the distance to its child,
// or ok false when the node does not fit in seg (nodeView.load's need, and
// distance, for them).
func singleChild(t nodeType, seg []byte) (first int, d int64, ok bool) {
	d = int64(seg[0] & 0xF)
	if t == singleNoPayload4 {
		if len(seg) < 2 {
			return 0, 0, false
		}
		return int(seg[1]), d, true
	}
	if len(seg) < 3 {
		return 0, 0, false
	}
	return int(seg[2]), d<<8 | int64(seg[1]), true
}

// sparseFixed is the size of the fixed part of a SPARSE_8, SPARSE_12 or
// SPARSE_16 node of n children (nodeView.load's need for them): the header,
// n, n transition bytes, then n pointers of 1, 1.5 or 2 bytes.
func sparseFixed(t nodeType, n int) int {
	switch t {
	case sparse8:
		return 2 + 2*n
	case sparse12:
		return 2 + n + (3*n+1)/2
	}
	return 2 + 3*n
}

// sparseSlot reads the pointer of slot i (0 <= i < n) of a SPARSE_8,
// SPARSE_12 or SPARSE_16 node of n children whose fixed part the caller has
// checked to lie in seg (nodeView.distance for them; SPARSE_12 packs its
// pointers as read12 reads them).
func sparseSlot(t nodeType, seg []byte, n, i int) uint64 {
	j := 2 + n + i // the slot of a SPARSE_8 in the pointer area at 2+n
	if t == sparse8 {
		return uint64(seg[j])
	}
	if t == sparse12 {
		j = 2 + n + 3*i/2 // read12's 16-bit word
	} else {
		j += i
	}
	v := uint64(seg[j])<<8 | uint64(seg[j+1])
	if t == sparse12 {
		return v >> (uint(^i&1) << 2) & 0xFFF // even i: the top 12 bits; odd: the low 12
	}
	return v
}

// denseFixed is the size of the fixed part of a DENSE_12, DENSE_16 or
// DENSE_24 node of span n (nodeView.load's need for them).
func denseFixed(t nodeType, n int) int {
	switch t {
	case dense12:
		return 3 + (3*n+1)/2
	case dense16:
		return 3 + 2*n
	}
	return 3 + 3*n
}

// denseSlot reads slot i of a DENSE_12, DENSE_16 or DENSE_24 node whose
// fixed part the caller has checked to lie in seg (nodeView.distance for
// them).
func denseSlot(t nodeType, seg []byte, i int) uint64 {
	j := 3 + 2*i // the slot's first byte
	switch t {
	case dense12:
		j = 3 + 3*i/2 // read12's 16-bit word
	case dense24:
		j = 3 + 3*i
	}
	v := uint64(seg[j])<<8 | uint64(seg[j+1])
	switch t {
	case dense12:
		return v >> (uint(^i&1) << 2) & 0xFFF // even i: the top 12 bits; odd: the low 12
	case dense24:
		return v<<8 | uint64(seg[j+2])
	}
	return v
}

// slotStep is exactFile's SPARSE step for the node at pos that jump slot s
// holds (jump.go), with key byte b: the child to go on from; -1 when the
// node has no child for b, so the walk stops there without a candidate (it
// has no payload); or pos itself when the pointer is irregular, and the
// loop steps the node from the file (where the general step reports it).
// exactFile calls it through slotStepFile, which first starts loading the
// node's leaves (touchBelow); on amd64 slotStepFile does both in assembly.
func slotStep(s *jumpSlot, pos int64, b int) int64 {
	found := slotSearch(s, b)
	if found < 0 {
		return -1
	}
	if d := int64(s[(slotPointers+found)&(slotBytes-1)]); d != 0 && d <= pos { // the mask changes no index (found < 30)
		return pos - d
	}
	return pos
}

// ceilingSlotStep is ceilingFile's SPARSE step for the node slotStep
// steps, whose greater branch so far is greater: the child to go on from
// and the greater branch then; -1 and the greater branch when the node has
// no child for b (the walk ends there, with no entry at the key: the node
// has no payload); or pos itself when a pointer it reads is irregular, and
// the loop steps the node from the file. ceilingFile calls it through
// ceilingSlotStepFile, which first starts loading the node's leaves
// (touchBelow); on amd64 ceilingSlotStepFile does both in assembly.
func ceilingSlotStep(s *jumpSlot, pos, greater int64, b int) (next, g int64) {
	found := slotSearch(s, b)
	above := -found - 1 // the first slot above b
	if found >= 0 {
		above = found + 1
	}
	if above < int(s[0])-1 {
		d := int64(s[(slotPointers+above)&(slotBytes-1)])
		if d == 0 || d > pos {
			return pos, greater
		}
		greater = pos - d
	}
	if found < 0 {
		return -1, greater
	}
	if d := int64(s[(slotPointers+found)&(slotBytes-1)]); d != 0 && d <= pos {
		return pos - d, greater
	}
	return pos, greater
}

// slotSearch is searchSparse over the increasing transitions slot s holds,
// for a byte b (0..255), without a branch on the bytes: it counts the
// transitions below b eight at a time (lo: the slot b's transition has or
// would have), then compares the one at lo. The 0xFF pads are below no
// byte. The four words' lanes (lanesBelow) add up in one byte: at most 32.
func slotSearch(s *jumpSlot, b int) int {
	bb := uint64(b) * laneOnes
	t := (*[32]byte)(s[slotTransitions : slotTransitions+32])
	sum := lanesBelow(binary.LittleEndian.Uint64(t[0:]), bb) + lanesBelow(binary.LittleEndian.Uint64(t[8:]), bb) +
		lanesBelow(binary.LittleEndian.Uint64(t[16:]), bb) + lanesBelow(binary.LittleEndian.Uint64(t[24:]), bb)
	lo := int(sum * laneOnes >> 56)
	if lo < int(s[0])-1 && int(t[lo&31]) == b { // the mask changes no lo (<= 30)
		return lo
	}
	return -lo - 1
}

const (
	laneOnes = 0x0101010101010101 // 1 in every byte lane
	laneHigh = 0x8080808080808080 // every lane's top bit
)

// lanesBelow returns 1 in each byte lane of x whose byte is below the byte
// every lane of bb holds, 0 in the others (see slotSearch). With d a lane's
// (x|0x80) - (b&0x7F), which borrows from no other lane, d's top bit says
// x&0x7F >= b&0x7F; so x < b when x's top bit is below b's, or they are
// equal and d's is clear.
func lanesBelow(x, bb uint64) uint64 {
	d := (x | laneHigh) - (bb &^ laneHigh)
	// below = ^x&bb | ^(x^bb)&^d, with De Morgan's laws applied.
	return ^((x | ^bb) & (x ^ bb | d)) & laneHigh >> 7
}

// ceilingFile is ceiling over a complete file: a manually inlined version
// of ceilingWalk, decoding the node types exactFile does and taking one
// general step (ceilingStep) for any other node. A trie with an early-open
// tail it hands to ceilingWalk.
func (w *Walker) ceilingFile(key []byte, partial bool) (atKey, greater int64, more bool, err error) {
	if w.t.src.Tail != nil {
		return w.ceilingWalk(key, partial) // here, so that Ceiling and CeilingPrefix make one call
	}
	f := w.t.src.File
	pos, k := w.t.root, 0
	greater = none
	j, v := w.t.jump, entryOfWord(w.t.jump, key)
	if v == byteEntry {
		v = j.entry(key)
	}
	if v >= 0 {
		pos, k, greater = int64(j.next[uint16(v)])-1, j.depth, int64(j.greater[uint16(v)])-1
		if s := j.slot(v); s == nil {
			w.touch ^= touchAround(f, pos)
		} else if k < len(key) {
			// The node a jump slot holds, stepped from the slot.
			if c, g := ceilingSlotStepFile(s, f, pos, greater, int(key[k]), &w.touch); c < 0 {
				return w.ceilingEnd(-1, g) // no payload: no entry at the key
			} else if c != pos {
				pos, k, greater = c, k+1, g
			}
		}
	}
	for ; ; k++ {
		b := eos
		if k < len(key) {
			b = int(key[k])
		} else if partial {
			return -1, -1, true, nil
		}
		if uint64(pos) < uint64(len(f)) {
			seg := f[pos:]
			h := seg[0]
			flags := h & 0xF
			switch t := nodeType(h >> 4); t {
			case payloadOnly:
				atKey = -1
				if flags != 0 {
					atKey = pos
				}
				return w.ceilingEnd(atKey, greater)
			case singleNoPayload4, singleNoPayload12:
				// One child, no payload: descend on its byte; below it, the
				// child is the next entry up; above it, nothing here is.
				first, d, fits := singleChild(t, seg)
				if !fits || d == 0 || d > pos {
					break
				}
				if b == first {
					pos -= d
					continue
				}
				if b < first {
					greater = pos - d
				}
				return w.ceilingEnd(-1, greater)
			case sparse8, sparse12, sparse16:
				if len(seg) < 2 {
					break
				}
				n := int(seg[1])
				if len(seg) < sparseFixed(t, n) {
					break
				}
				found := searchIncreasing(seg, n, b) // as in exactFile
				if found == notIncreasing {
					found = searchSparse(seg[2:2+n], b)
				}
				next := -found - 1 // the first slot above b
				if found >= 0 {
					next = found + 1
				}
				g := int64(-1)
				if next < n {
					d := int64(sparseSlot(t, seg, n, next))
					if d == 0 || d > pos {
						break
					}
					g = pos - d
				}
				if found >= 0 {
					d := int64(sparseSlot(t, seg, n, found))
					if d == 0 || d > pos {
						break
					}
					if g >= 0 {
						greater = g
					}
					pos -= d
					continue
				}
				if g >= 0 {
					greater = g
				}
				atKey = -1
				if (b == eos || n == 0) && flags != 0 {
					atKey = pos
				}
				return w.ceilingEnd(atKey, greater)
			case dense12, dense16, dense24:
				if len(seg) < 3 {
					break
				}
				first, n := int(seg[1]), int(seg[2])+1
				if len(seg) < denseFixed(t, n) {
					break
				}
				i := b - first
				var d uint64
				if i >= 0 && i < n {
					d = denseSlot(t, seg, i)
				}
				// The first child after b's slot: slots from i+1 (from 0
				// when b is below the node's range), holes skipped.
				g := greater
				for j := max(i+1, 0); j < n; j++ {
					if gd := denseSlot(t, seg, j); gd != 0 {
						g = pos - int64(gd) // checked below
						if gd > uint64(pos) {
							g = badPointer
						}
						break
					}
				}
				if g == badPointer || d > uint64(pos) {
					break // the general step reports the bad pointer
				}
				greater = g
				if d != 0 {
					pos -= int64(d)
					w.touch ^= touchAround(f, pos)
					continue
				}
				atKey = -1
				if b == eos && flags != 0 {
					atKey = pos
				}
				return w.ceilingEnd(atKey, greater)
			}
		}
		// One general step, then on in this loop.
		next, err := w.ceilingStep(pos, b, &greater)
		if err != nil || next < 0 {
			return w.ceilingStopped(pos, greater, err)
		}
		pos = next
	}
}
