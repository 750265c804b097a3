package trie

// Walker runs point lookups (Exact, Ceiling, Floor, First, Last) on one
// trie (and ExactBatch, many Exacts at once). It holds only a decoded node
// and where the last walk stopped, never allocates, and is meant to be kept
// per goroutine: copy it by value or embed it. The zero Walker must be
// Reset before use.
type Walker struct {
	t  *Trie
	nv nodeView
	// The payload of the node the last exact walk stopped at (flags 0: not
	// a candidate).
	flags   uint8
	payload []byte
	touch   byte // the bytes touchBelow reads, kept so the loads stay
}

// Walker returns a walker over t.
func (t *Trie) Walker() Walker { return Walker{t: t} }

// Reset points w at t.
func (w *Walker) Reset(t *Trie) { *w = Walker{t: t} }

// keyByte returns key[i] as an int, or eos past the end.
func keyByte(key []byte, i int) int {
	if i < len(key) {
		return int(key[i])
	}
	return eos
}

// descend loads the child c of the current node, turning the sentinels of
// nodeView.child into errors.
func (w *Walker) descend(c int64) error {
	if c < 0 {
		if c == badPointer {
			return corrupt(w.nv.pos, reasonBadPointer)
		}
		return corrupt(w.nv.pos, reasonMissingChild)
	}
	return w.nv.load(&w.t.src, c)
}

// Exact follows key from the root as Cassandra's Walker.follow does and
// applies the structural part of exactCandidate (docs/format.md §9.3): the node the walk
// stopped at is a candidate if the whole key was consumed or the node has no
// children, and it carries payload flags. A candidate only shares a stored
// prefix with key; the caller confirms it (hash byte, then the real key).
// After a hit, Payload returns the candidate's payload without decoding the
// node again.
func (w *Walker) Exact(key []byte) (node int64, ok bool, err error) {
	node, ok, _, err = w.exact(key, false)
	return node, ok, err
}

// ExactPrefix is Exact for a caller that has encoded only a prefix of the key
// (a Murmur3 key's token part, say, which is all a walk over a million keys
// ever reads). When the walk stops inside prefix the answer is Exact's for
// any key that starts with prefix and more is false; when it needs the byte
// after prefix, more is true, node and ok mean nothing, and the caller runs
// Exact on the whole key.
func (w *Walker) ExactPrefix(prefix []byte) (node int64, ok, more bool, err error) {
	return w.exact(prefix, true)
}

// Payload returns the payload flags and bytes (to the end of the node's
// segment, aliasing the source) of the node the last Exact or ExactPrefix hit
// stopped at; it is what Trie.Payload returns for that node.
func (w *Walker) Payload() (flags uint8, payload []byte) { return w.flags, w.payload }

func (w *Walker) exact(key []byte, partial bool) (node int64, ok, more bool, err error) {
	if w.t.src.Tail == nil {
		return w.exactFile(key, partial) // walkfile.go
	}
	return w.exactFrom(key, partial, w.t.root, 0)
}

// exactFrom is exact's loop from the node at pos with k key bytes consumed.
func (w *Walker) exactFrom(key []byte, partial bool, pos int64, k int) (node int64, ok, more bool, err error) {
	// Each step consumes a key byte, and a node never matches eos, so the
	// loop runs at most len(key)+1 times.
	for ; ; k++ {
		b := eos
		if k < len(key) {
			b = int(key[k])
		} else if partial {
			return -1, false, true, nil
		}
		seg, _ := w.t.src.segment(pos)
		next, err := w.exactStep(pos, seg, b)
		if err != nil {
			return -1, false, false, err
		}
		if next < 0 {
			if w.flags == 0 {
				return -1, false, false, nil
			}
			return pos, true, false, nil
		}
		pos = next
	}
}

// exactStep moves an exact walk through the node at pos, whose segment bytes
// are seg (nil when pos is not readable), with key byte b (a byte or eos). It returns the child to visit next, or -1 when the walk stops
// here; then w.flags and w.payload are the stopping node's candidate payload
// (flags 0 when the node is not a candidate: Exact's rule, the key consumed or
// a node without children, is applied here).
//
// The node types a partition index of hashed keys consists of are decoded
// inline, reading only the bytes the step needs. At a million Murmur3 keys
// those are the SINGLE_NOPAYLOAD_12 root (the 0x40 that starts every key),
// one DENSE_16 for the first token byte, 256 DENSE_24 for the second, 94,178
// SPARSE_8 and 210 DENSE_12 below them, 115 SINGLE_NOPAYLOAD_4 and 1,000,000
// PAYLOAD_ONLY leaves (bti dump). Every other type, and every irregular case
// (a node that does not fit its segment, a pointer that does not go strictly
// backwards), goes through nodeView, so the answers and errors are the
// general decoder's.
func (w *Walker) exactStep(pos int64, seg []byte, b int) (int64, error) {
	if len(seg) == 0 {
		return -1, corrupt(pos, reasonOutOfRange)
	}
	h := seg[0]
	flags := h & 0xF
	switch nodeType(h >> 4) {
	case payloadOnly:
		// No children: a candidate whatever b is.
		w.flags, w.payload = flags, seg[1:]
		return -1, nil
	case singleNoPayload4:
		if len(seg) < 2 {
			break
		}
		if b != int(seg[1]) {
			w.flags = 0 // one child, no payload: never a candidate
			return -1, nil
		}
		if d := int64(flags); d != 0 && d <= pos {
			return pos - d, nil
		}
	case singleNoPayload12:
		if len(seg) < 3 {
			break
		}
		if b != int(seg[2]) {
			w.flags = 0
			return -1, nil
		}
		if d := int64(flags)<<8 | int64(seg[1]); d != 0 && d <= pos {
			return pos - d, nil
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
		if m := searchSparse(seg[2:2+n], b); m >= 0 {
			if d := int64(seg[2+n+m]); d != 0 && d <= pos {
				return pos - d, nil
			}
			return w.exactGeneric(pos, b)
		}
		w.setStop(flags, b, n, seg[ppos:])
		return -1, nil
	case dense12, dense16, dense24:
		if len(seg) < 3 {
			break
		}
		first, n := int(seg[1]), int(seg[2])+1
		t := nodeType(h >> 4)
		var ppos int
		switch t {
		case dense12:
			ppos = 3 + (3*n+1)/2
		case dense16:
			ppos = 3 + 2*n
		default:
			ppos = 3 + 3*n
		}
		if len(seg) < ppos {
			break
		}
		if i := b - first; i >= 0 && i < n {
			if d := denseSlot(t, seg, i); d != 0 { // 0 is a hole: no child for b
				if d > uint64(pos) {
					return -1, corrupt(pos, reasonBadPointer)
				}
				c := pos - int64(d)
				w.touchBelow(c)
				return c, nil
			}
		}
		w.setStop(flags, b, n, seg[ppos:])
		return -1, nil
	}
	return w.exactGeneric(pos, b)
}

// denseSlot reads slot i of a DENSE_12, DENSE_16 or DENSE_24 node whose
// fixed part the caller has checked to lie in seg.
func denseSlot(t nodeType, seg []byte, i int) uint64 {
	switch t {
	case dense12:
		return read12(seg[3:], i)
	case dense16:
		return uint64(seg[3+2*i])<<8 | uint64(seg[4+2*i])
	}
	return uint64(seg[3+3*i])<<16 | uint64(seg[4+3*i])<<8 | uint64(seg[5+3*i])
}

// setStop records the node a walk stopped at without a child for b: a
// candidate if the key was consumed (b is eos) or the node has no children.
func (w *Walker) setStop(flags uint8, b, n int, payload []byte) {
	if b != eos && n != 0 {
		flags = 0
	}
	w.flags, w.payload = flags, payload
}

// exactGeneric is exactStep through the general decoder.
func (w *Walker) exactGeneric(pos int64, b int) (int64, error) {
	if err := w.nv.load(&w.t.src, pos); err != nil {
		return -1, err
	}
	i := w.nv.search(b)
	if i < 0 {
		w.setStop(w.nv.flags, b, w.nv.n, w.nv.b[w.nv.ppos:])
		return -1, nil
	}
	c := w.nv.child(i)
	if c < 0 {
		if c == badPointer {
			return -1, corrupt(pos, reasonBadPointer)
		}
		return -1, corrupt(pos, reasonMissingChild)
	}
	return c, nil
}

// Ceiling finds the candidates for the smallest entry >= key (docs/format.md §9.4):
// atKey is the node the walk stopped at if the key was consumed there or the
// node has no children, and it has a payload (its stored prefix may stand for
// a key below, at or above key: the caller compares real keys); greater is
// the smallest entry of the nearest branch entirely above key. Either is -1
// when absent. The caller tries atKey first, then greater.
func (w *Walker) Ceiling(key []byte) (atKey, greater int64, err error) {
	atKey, greater, _, err = w.ceiling(key, false)
	return atKey, greater, err
}

// CeilingPrefix is Ceiling for a caller that has encoded only a prefix of
// the key, as ExactPrefix is for Exact: when more is true the walk needs the
// byte after prefix and the caller runs Ceiling on the whole key.
func (w *Walker) CeilingPrefix(prefix []byte) (atKey, greater int64, more bool, err error) {
	return w.ceiling(prefix, true)
}

func (w *Walker) ceiling(key []byte, partial bool) (atKey, greater int64, more bool, err error) {
	if w.t.src.Tail == nil {
		return w.ceilingFile(key, partial) // walkfile.go
	}
	return w.ceilingFrom(key, partial, w.t.root, 0, none)
}

// ceilingFrom is ceiling's loop from the node at pos with k key bytes
// consumed and greater the greater branch passed so far (none at the root).
func (w *Walker) ceilingFrom(key []byte, partial bool, pos int64, k int, greater int64) (atKey, _ int64, more bool, err error) {
	atKey = -1
	for ; ; k++ {
		b := eos
		if k < len(key) {
			b = int(key[k])
		} else if partial {
			return -1, -1, true, nil
		}
		seg, _ := w.t.src.segment(pos)
		next, err := w.ceilingStep(pos, seg, b, &greater)
		if err != nil {
			return -1, -1, false, err
		}
		if next < 0 {
			if w.flags != 0 {
				atKey = pos
			}
			break
		}
		pos = next
	}
	if greater != none {
		if greater, err = w.goMin(greater); err != nil {
			return -1, -1, false, err
		}
	}
	return atKey, greater, false, nil
}

// ceilingStep is exactStep for Ceiling: it also moves *greater to the first
// child after b's slot when the node has one. Like exactStep it decodes the
// common node types inline and sends every other type and every irregular
// case (an invalid pointer among those it reads included) to the general
// decoder, which gives the answer and error Ceiling always gave.
func (w *Walker) ceilingStep(pos int64, seg []byte, b int, greater *int64) (int64, error) {
	if len(seg) == 0 {
		return -1, corrupt(pos, reasonOutOfRange)
	}
	h := seg[0]
	flags := h & 0xF
	switch nodeType(h >> 4) {
	case payloadOnly:
		w.flags = flags
		return -1, nil
	case singleNoPayload4, singleNoPayload12:
		// One child, no payload: descend on its byte; below it, the child
		// is the next entry up; above it, nothing here is.
		var first int
		var d int64
		if nodeType(h>>4) == singleNoPayload4 {
			if len(seg) < 2 {
				break
			}
			first, d = int(seg[1]), int64(flags)
		} else {
			if len(seg) < 3 {
				break
			}
			first, d = int(seg[2]), int64(flags)<<8|int64(seg[1])
		}
		if d == 0 || d > pos {
			break
		}
		w.flags = 0
		switch {
		case b == first:
			return pos - d, nil
		case b < first:
			*greater = pos - d
		}
		return -1, nil
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
				*greater = g
			}
			return pos - d, nil
		}
		if g >= 0 {
			*greater = g
		}
		w.setStop(flags, b, n, nil)
		return -1, nil
	case dense12, dense16, dense24:
		if len(seg) < 3 {
			break
		}
		first, n := int(seg[1]), int(seg[2])+1
		t := nodeType(h >> 4)
		var ppos int
		switch t {
		case dense12:
			ppos = 3 + (3*n+1)/2
		case dense16:
			ppos = 3 + 2*n
		default:
			ppos = 3 + 3*n
		}
		if len(seg) < ppos {
			break
		}
		i := b - first
		var d uint64
		if i >= 0 && i < n {
			d = denseSlot(t, seg, i)
		}
		// The first child after b's slot: slots from i+1 (from 0 when b
		// is below the node's range), holes skipped.
		for j := max(i+1, 0); j < n; j++ {
			if gd := denseSlot(t, seg, j); gd != 0 {
				if gd > uint64(pos) {
					return -1, corrupt(pos, reasonBadPointer)
				}
				*greater = pos - int64(gd)
				break
			}
		}
		if d != 0 {
			if d > uint64(pos) {
				return -1, corrupt(pos, reasonBadPointer)
			}
			c := pos - int64(d)
			w.touchBelow(c)
			return c, nil
		}
		w.setStop(flags, b, n, nil)
		return -1, nil
	}
	if err := w.nv.load(&w.t.src, pos); err != nil {
		return -1, err
	}
	i := w.nv.search(b)
	g := w.nv.greaterTransition(i, *greater)
	if g == badPointer {
		return -1, corrupt(pos, reasonBadPointer)
	}
	*greater = g
	if i < 0 {
		w.setStop(w.nv.flags, b, w.nv.n, nil)
		return -1, nil
	}
	c := w.nv.child(i)
	if c < 0 {
		if c == badPointer {
			return -1, corrupt(pos, reasonBadPointer)
		}
		return -1, corrupt(pos, reasonMissingChild)
	}
	return c, nil
}

// Floor finds the candidates for the largest entry <= key (docs/format.md §9.4, Cassandra's
// prefixAndNeighbours): atKey is the nearest node on key's path that has a
// payload and after which the walk never branched left, i.e. a stored prefix
// of key (or key itself) with nothing stored between it and key; lesser is
// the largest entry of the nearest branch entirely below key. Either is -1
// when absent. The caller tries atKey first, then lesser.
func (w *Walker) Floor(key []byte) (atKey, lesser int64, err error) {
	atKey, lesser = -1, none
	if err := w.nv.load(&w.t.src, w.t.root); err != nil {
		return -1, -1, err
	}
	for k := 0; ; k++ {
		b := keyByte(key, k)
		i := w.nv.search(b)
		if i == 0 || i == -1 {
			if w.nv.flags != 0 {
				atKey = w.nv.pos
			}
		} else {
			lesser = w.nv.lesserTransition(i, lesser)
			if lesser == badPointer {
				return -1, -1, corrupt(w.nv.pos, reasonBadPointer)
			}
			atKey = -1
		}
		if i < 0 {
			break
		}
		if err := w.descend(w.nv.child(i)); err != nil {
			return -1, -1, err
		}
	}
	if lesser != none {
		if lesser, err = w.goMax(lesser, false); err != nil {
			return -1, -1, err
		}
	}
	return atKey, lesser, nil
}

// First returns the smallest entry (goMin of the root), or -1 when the trie
// is empty (a root without payload or children).
func (w *Walker) First() (int64, error) { return w.goMinFrom(w.t.root, true) }

// Last returns the largest entry (goMax of the root), or -1 when the trie is
// empty.
func (w *Walker) Last() (int64, error) { return w.goMax(w.t.root, true) }

func (w *Walker) goMin(pos int64) (int64, error) { return w.goMinFrom(pos, false) }

// goMinFrom descends through first children until a node with a payload.
// Positions strictly decrease, so it stops. Reaching a leaf without payload
// is corruption, except for the root of an empty trie.
func (w *Walker) goMinFrom(pos int64, isRoot bool) (int64, error) {
	if seg, ok := w.t.src.segment(pos); ok && seg[0]>>4 == byte(payloadOnly) && seg[0]&0xF != 0 {
		return pos, nil // a leaf with payload, the usual answer: what the loop below returns for it
	}
	if err := w.nv.load(&w.t.src, pos); err != nil {
		return -1, err
	}
	for w.nv.flags == 0 {
		if w.nv.n == 0 {
			if isRoot && w.nv.pos == w.t.root {
				return -1, nil
			}
			return -1, corrupt(w.nv.pos, reasonNoPayload)
		}
		if err := w.descend(w.nv.child(0)); err != nil {
			return -1, err
		}
	}
	return w.nv.pos, nil
}

// goMax descends through last children until a leaf (payloads on the way are
// smaller than their children and are skipped).
func (w *Walker) goMax(pos int64, isRoot bool) (int64, error) {
	if err := w.nv.load(&w.t.src, pos); err != nil {
		return -1, err
	}
	for w.nv.n != 0 {
		if err := w.descend(w.nv.child(w.nv.n - 1)); err != nil {
			return -1, err
		}
	}
	if w.nv.flags == 0 {
		if isRoot && w.nv.pos == w.t.root {
			return -1, nil
		}
		return -1, corrupt(w.nv.pos, reasonNoPayload)
	}
	return w.nv.pos, nil
}

// touchBelow prefetches the two cache lines below position c, the node a
// DENSE node or the jump table sends the walk to, and the line 32 bytes
// above it, into which its transitions and pointers may spill. The writer
// lays a node out right after its children, so the leaf the next step will
// read usually lies below it: fetching those lines now starts their misses
// together with the node's own instead of one after the other (see
// prefetch_amd64.s; elsewhere the bytes are read). Within bounds it reads
// only bytes, so it cannot change an answer.
func (w *Walker) touchBelow(c int64) {
	f := w.t.src.File
	if c >= 128 && c+32 < int64(len(f)) {
		w.touch ^= prefetchSpan(f[c-128 : c+33])
	}
}
