package trie

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
// table says (jump.go).
func (w *Walker) exactFile(key []byte, partial bool) (node int64, ok, more bool, err error) {
	f := w.t.src.File
	pos, k := w.t.root, 0
	var slot []byte // the first node's bytes, from its jump slot
	if j, v := w.t.jump, w.t.jump.entry(key); v >= 0 {
		pos, k = int64(j.next[v])-1, j.depth
		if slot = j.slot(v); slot == nil {
			w.touch ^= touchAround(f, pos)
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
			// The node's bytes: from the file, or for the node a jump
			// slot holds, from the slot, whose bytes are the file's and
			// cover the node's fixed part. A payload is always read from
			// the file (f[pos+ppos:]), as the slot may end before it.
			seg := f[pos:]
			if slot != nil {
				seg, slot = slot, nil
			}
			h := seg[0]
			flags := h & 0xF
			switch t := nodeType(h >> 4); t {
			case payloadOnly:
				// No children: a candidate whatever b is.
				w.flags, w.payload = flags, f[pos+1:]
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
				found := searchSparse(seg[2:2+n], b)
				if found < 0 {
					if b != eos && n != 0 {
						flags = 0
					}
					w.flags, w.payload = flags, f[pos+int64(ppos):]
					if flags == 0 {
						return -1, false, false, nil
					}
					return pos, true, false, nil
				}
				if d := int64(sparseSlot(t, seg, n, found)); d != 0 && d <= pos {
					pos -= d
					continue
				}
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
					w.flags, w.payload = flags, f[pos+int64(ppos):]
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

// touchAround reads the bytes 128 and 64 below position c and 32 above it,
// when they lie in f: the writer lays a node out right after its children,
// so the leaf the next step reads usually lies just below the node a DENSE
// step or the jump table sends the walk to, and its transitions may spill
// into the line above. Reading them right after learning c starts those
// cache misses along with c's own. The processor does not wait for a load
// nothing depends on before it goes on with the walk, so they overlap; and
// it reads only bytes, so it cannot change an answer.
func touchAround(f []byte, c int64) byte {
	if c >= 128 && c+32 < int64(len(f)) {
		return f[c-128] ^ f[c-64] ^ f[c+32]
	}
	return 0
}

// ceilingFile is ceiling over a complete file: a manually inlined version
// of ceilingWalk, decoding the node types exactFile does and taking one
// general step (ceilingStep) for any other node.
func (w *Walker) ceilingFile(key []byte, partial bool) (atKey, greater int64, more bool, err error) {
	f := w.t.src.File
	pos, k := w.t.root, 0
	greater = none
	var slot []byte // the first node's bytes, from its jump slot
	if j, v := w.t.jump, w.t.jump.entry(key); v >= 0 {
		pos, k, greater = int64(j.next[v])-1, j.depth, int64(j.greater[v])-1
		if slot = j.slot(v); slot == nil {
			w.touch ^= touchAround(f, pos)
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
			seg := f[pos:] // or the slot's copy, as in exactFile
			if slot != nil {
				seg, slot = slot, nil
			}
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
				found := searchSparse(seg[2:2+n], b)
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
