package trie

// Walks over a complete file. When a trie has no early-open tail (Source.Tail
// is nil), every readable node lies in File, so a step needs no segment
// lookup: the node at pos is File[pos:] once pos < len(File). exactFile is
// exact's loop for that case with the steps of the node types a partition
// index of hashed keys consists of (the payload-less singles, SPARSE_8,
// DENSE_16, DENSE_24 and the leaves) written into the loop, so a walk of five
// or six nodes makes no call and decodes only the bytes it reads; every other
// type, and every irregular case, goes through exactStep, so the answers and
// errors are exact's (FuzzExactFastPath checks this against the general
// decoder).

// exactFile is exact over a complete file. It makes no call: the first node
// type it does not decode, or the first irregular case, hands the walk to
// exactFrom at that node, whose steps give the same answers and errors from
// there. A trie with a jump table starts the walk where the table says
// (jump.go).
func (w *Walker) exactFile(key []byte, partial bool) (node int64, ok, more bool, err error) {
	f := w.t.src.File
	pos, k := w.t.root, 0
	if j := w.t.jump; j != nil && j.covers(key) {
		p := len(j.prefix)
		if e := j.next[int(key[p])<<8|int(key[p+1])]; e != 0 {
			pos, k = int64(e)-1, j.depth
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
		if pos < 0 || pos >= int64(len(f)) {
			return -1, false, false, corrupt(pos, reasonOutOfRange)
		}
		seg := f[pos:]
		h := seg[0]
		flags := h & 0xF
		switch nodeType(h >> 4) {
		case payloadOnly:
			// No children: a candidate whatever b is.
			w.flags, w.payload = flags, seg[1:]
			if flags == 0 {
				return -1, false, false, nil
			}
			return pos, true, false, nil
		case singleNoPayload4, singleNoPayload12:
			// One child, no payload: never a candidate.
			first, d := 0, int64(flags)
			if nodeType(h>>4) == singleNoPayload4 {
				if len(seg) < 2 {
					break
				}
				first = int(seg[1])
			} else {
				if len(seg) < 3 {
					break
				}
				first, d = int(seg[2]), d<<8|int64(seg[1])
			}
			if b != first {
				w.flags = 0
				return -1, false, false, nil
			}
			if d != 0 && d <= pos {
				pos -= d
				continue
			}
		case sparse8:
			if len(seg) < 2 {
				break
			}
			n := int(seg[1])
			ppos := 2 + 2*n
			if len(seg) < ppos {
				break
			}
			found := searchSparse(seg[2:2+n], b)
			if found < 0 {
				if b != eos && n != 0 {
					flags = 0
				}
				w.flags, w.payload = flags, seg[ppos:]
				if flags == 0 {
					return -1, false, false, nil
				}
				return pos, true, false, nil
			}
			if d := int64(seg[ppos-n+found]); d != 0 && d <= pos {
				pos -= d
				continue
			}
		case dense16, dense24:
			if len(seg) < 3 {
				break
			}
			first, n := int(seg[1]), int(seg[2])+1
			var ppos int
			var d uint64
			i := b - first
			if nodeType(h>>4) == dense16 {
				ppos = 3 + 2*n
				if len(seg) < ppos {
					break
				}
				if i >= 0 && i < n {
					d = uint64(seg[3+2*i])<<8 | uint64(seg[4+2*i])
				}
			} else {
				ppos = 3 + 3*n
				if len(seg) < ppos {
					break
				}
				if i >= 0 && i < n {
					d = uint64(seg[3+3*i])<<16 | uint64(seg[4+3*i])<<8 | uint64(seg[5+3*i])
				}
			}
			if d == 0 { // no slot for b, or a hole: no child for b
				if b != eos && n != 0 {
					flags = 0
				}
				w.flags, w.payload = flags, seg[ppos:]
				if flags == 0 {
					return -1, false, false, nil
				}
				return pos, true, false, nil
			}
			if d > uint64(pos) {
				return -1, false, false, corrupt(pos, reasonBadPointer)
			}
			pos -= int64(d)
			w.touch ^= touchAround(f, pos)
			continue
		}
		return w.exactFrom(key, partial, pos, k)
	}
}

// touchAround reads the bytes 128 and 64 below position c and 32 above it,
// when they lie in f, as touchBelow prefetches them: reading them right
// after learning c starts those cache misses along with c's own. The
// processor does not wait for a load nothing depends on before it goes on
// with the walk, so they overlap; and it reads only bytes, so it cannot
// change an answer.
func touchAround(f []byte, c int64) byte {
	if c >= 128 && c+32 < int64(len(f)) {
		return f[c-128] ^ f[c-64] ^ f[c+32]
	}
	return 0
}

// ceilingFile is ceiling over a complete file, as exactFile is exact: the
// steps of the common node types written into the loop, ceilingFrom from the
// first node it does not decode.
func (w *Walker) ceilingFile(key []byte, partial bool) (atKey, greater int64, more bool, err error) {
	f := w.t.src.File
	pos, k := w.t.root, 0
	greater = none
	if j := w.t.jump; j != nil && j.covers(key) {
		p := len(j.prefix)
		v := int(key[p])<<8 | int(key[p+1])
		if e := j.next[v]; e != 0 {
			pos, k, greater = int64(e)-1, j.depth, int64(j.greater[v])-1
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
		if pos < 0 || pos >= int64(len(f)) {
			return -1, -1, false, corrupt(pos, reasonOutOfRange)
		}
		seg := f[pos:]
		h := seg[0]
		flags := h & 0xF
		switch nodeType(h >> 4) {
		case payloadOnly:
			atKey = -1
			if flags != 0 {
				atKey = pos
			}
			return w.ceilingEnd(atKey, greater)
		case singleNoPayload4, singleNoPayload12:
			// One child, no payload: descend on its byte; below it, the
			// child is the next entry up; above it, nothing here is.
			first, d := 0, int64(flags)
			if nodeType(h>>4) == singleNoPayload4 {
				if len(seg) < 2 {
					break
				}
				first = int(seg[1])
			} else {
				if len(seg) < 3 {
					break
				}
				first, d = int(seg[2]), d<<8|int64(seg[1])
			}
			if d == 0 || d > pos {
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
		case sparse8:
			if len(seg) < 2 {
				break
			}
			n := int(seg[1])
			if len(seg) < 2+2*n {
				break
			}
			found := searchSparse(seg[2:2+n], b)
			next := -found - 1 // the first slot above b
			if found >= 0 {
				next = found + 1
			}
			g := int64(-1)
			if next < n {
				d := int64(seg[2+n+next])
				if d == 0 || d > pos {
					break
				}
				g = pos - d
			}
			if found >= 0 {
				d := int64(seg[2+n+found])
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
		case dense16, dense24:
			if len(seg) < 3 {
				break
			}
			first, n := int(seg[1]), int(seg[2])+1
			wide := nodeType(h>>4) == dense24
			ppos := 3 + 2*n
			if wide {
				ppos = 3 + 3*n
			}
			if len(seg) < ppos {
				break
			}
			slot := func(i int) uint64 {
				if wide {
					return uint64(seg[3+3*i])<<16 | uint64(seg[4+3*i])<<8 | uint64(seg[5+3*i])
				}
				return uint64(seg[3+2*i])<<8 | uint64(seg[4+2*i])
			}
			i := b - first
			var d uint64
			if i >= 0 && i < n {
				d = slot(i)
			}
			// The first child after b's slot: slots from i+1 (from 0
			// when b is below the node's range), holes skipped.
			for j := max(i+1, 0); j < n; j++ {
				if gd := slot(j); gd != 0 {
					if gd > uint64(pos) {
						return -1, -1, false, corrupt(pos, reasonBadPointer)
					}
					greater = pos - int64(gd)
					break
				}
			}
			if d != 0 {
				if d > uint64(pos) {
					return -1, -1, false, corrupt(pos, reasonBadPointer)
				}
				pos -= int64(d)
				w.touch ^= touchAround(f, pos)
				continue
			}
			atKey = -1
			if (b == eos || n == 0) && flags != 0 {
				atKey = pos
			}
			return w.ceilingEnd(atKey, greater)
		}
		return w.ceilingFrom(key, partial, pos, k, greater)
	}
}

// ceilingEnd finishes a ceiling walk that stopped with atKey: goMin of the
// greater branch it passed last, if any.
func (w *Walker) ceilingEnd(atKey, greater int64) (int64, int64, bool, error) {
	if greater == none {
		return atKey, -1, false, nil
	}
	g, err := w.goMin(greater)
	if err != nil {
		return -1, -1, false, err
	}
	return atKey, g, false, nil
}
