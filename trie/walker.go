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
	// a candidate): flags, and where its bytes start, as a position in the
	// trie (payOff), not as a slice, so that a walk's answer is two plain
	// stores (a slice is three, with a write barrier on its pointer).
	// Payload builds the slice: in a trie without an early-open tail the
	// bytes run from payOff to the end of File; with a tail, to payEnd, the
	// end of the stopping node's segment (setStop sets both).
	flags  uint8
	touch  byte // the bytes the walks read ahead (touchAround, prefetches), kept so the loads stay
	payOff int64
	payEnd int64
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
	node, ok, _, err = w.exactFile(key, false) // walkfile.go; it hands a trie with a tail to exactWalk
	return node, ok, err
}

// ExactPrefix is Exact for a caller that has encoded only a prefix of the key
// (a Murmur3 key's token part, say, which is all a walk over a million keys
// ever reads). When the walk stops inside prefix the answer is Exact's for
// any key that starts with prefix and more is false; when it needs the byte
// after prefix, more is true, node and ok mean nothing, and the caller runs
// Exact on the whole key.
func (w *Walker) ExactPrefix(prefix []byte) (node int64, ok, more bool, err error) {
	return w.exactFile(prefix, true)
}

// Payload returns the payload flags and bytes (to the end of the node's
// segment, aliasing the source) of the node the last Exact or ExactPrefix hit
// stopped at; it is what Trie.Payload returns for that node. The walk
// checked that the payload's start lies in the segment, so the slice
// expression cannot fail.
func (w *Walker) Payload() (flags uint8, payload []byte) {
	if w.t.src.Tail == nil {
		return w.flags, w.t.src.File[w.payOff:]
	}
	return w.flags, w.tailPayload()
}

// tailPayload is Payload's slice in a trie with an early-open tail: the
// bytes from payOff to payEnd, in the segment setStop found them in.
func (w *Walker) tailPayload() []byte {
	s := &w.t.src
	if w.payEnd > s.Cutoff { // a segment of File ends at Cutoff at the latest
		return s.Tail[w.payOff-s.Cutoff : w.payEnd-s.Cutoff]
	}
	return s.File[w.payOff:w.payEnd]
}

// exactWalk is exact through the general decoder alone: a loop of
// exactStep from the root. It walks tries with an early-open tail, and it is
// the function exactFile and the batch lane loop (batch.go) are manually
// inlined versions of.
func (w *Walker) exactWalk(key []byte, partial bool) (node int64, ok, more bool, err error) {
	pos := w.t.root
	// Each step consumes a key byte, and a node never matches eos, so the
	// loop runs at most len(key)+1 times.
	for k := 0; ; k++ {
		b := keyByte(key, k)
		if b == eos && partial {
			return -1, false, true, nil
		}
		next, err := w.exactStep(pos, b)
		if err != nil || next < 0 {
			return w.exactStopped(pos, err)
		}
		pos = next
	}
}

// exactStopped is an exact walk's answer when its general step at pos
// failed with err or stopped there (exactStep returned -1).
func (w *Walker) exactStopped(pos int64, err error) (node int64, ok, more bool, _ error) {
	if err != nil || w.flags == 0 {
		return -1, false, false, err
	}
	return pos, true, false, nil
}

// exactStep moves an exact walk through the node at pos with key byte b (a
// byte or eos), through the general decoder (nodeView). It returns the child
// to visit next, or -1 when the walk stops here; then w.flags and w.payOff
// are the stopping node's candidate payload (flags 0 when the node is not a
// candidate: Exact's rule, the key consumed or a node without children, is
// applied here). It is the one step every exact walk takes for a node its
// hot loop does not decode (walkfile.go, batch.go).
func (w *Walker) exactStep(pos int64, b int) (int64, error) {
	if err := w.nv.load(&w.t.src, pos); err != nil {
		return -1, err
	}
	return w.exactNext(b)
}

// exactNext is exactStep on the node already loaded in w.nv.
func (w *Walker) exactNext(b int) (int64, error) {
	i := w.nv.search(b)
	if i < 0 {
		w.setStop(w.nv.flags, b, w.nv.n)
		return -1, nil
	}
	return w.childOf(i)
}

// childOf returns the child in slot i of w.nv (i >= 0, a slot search
// found), turning nodeView.child's sentinels into errors.
func (w *Walker) childOf(i int) (int64, error) {
	c := w.nv.child(i)
	if c < 0 {
		if c == badPointer {
			return -1, corrupt(w.nv.pos, reasonBadPointer)
		}
		return -1, corrupt(w.nv.pos, reasonMissingChild)
	}
	return c, nil
}

// setStop records the node loaded in w.nv, where a walk stopped without a
// child for b: a candidate if the key was consumed (b is eos) or the node
// has no children; its payload runs from its payload position to the end of
// its segment (nv.b).
func (w *Walker) setStop(flags uint8, b, n int) {
	if b != eos && n != 0 {
		flags = 0
	}
	w.flags = flags
	w.payOff = w.nv.pos + int64(w.nv.ppos)
	w.payEnd = w.nv.pos + int64(len(w.nv.b))
}

// Ceiling finds the candidates for the smallest entry >= key (docs/format.md §9.4):
// atKey is the node the walk stopped at if the key was consumed there or the
// node has no children, and it has a payload (its stored prefix may stand for
// a key below, at or above key: the caller compares real keys); greater is
// the smallest entry of the nearest branch entirely above key. Either is -1
// when absent. The caller tries atKey first, then greater.
func (w *Walker) Ceiling(key []byte) (atKey, greater int64, err error) {
	atKey, greater, _, err = w.ceilingFile(key, false) // walkfile.go; it hands a trie with a tail to ceilingWalk
	return atKey, greater, err
}

// CeilingPrefix is Ceiling for a caller that has encoded only a prefix of
// the key, as ExactPrefix is for Exact: when more is true the walk needs the
// byte after prefix and the caller runs Ceiling on the whole key.
func (w *Walker) CeilingPrefix(prefix []byte) (atKey, greater int64, more bool, err error) {
	return w.ceilingFile(prefix, true)
}

// ceilingWalk is ceiling through the general decoder alone: a loop of
// ceilingStep from the root, then goMin of the greater branch. It walks
// tries with an early-open tail, and ceilingFile is a manually inlined
// version of it.
func (w *Walker) ceilingWalk(key []byte, partial bool) (atKey, greater int64, more bool, err error) {
	pos, greater := w.t.root, none
	for k := 0; ; k++ {
		b := keyByte(key, k)
		if b == eos && partial {
			return -1, -1, true, nil
		}
		next, err := w.ceilingStep(pos, b, &greater)
		if err != nil || next < 0 {
			return w.ceilingStopped(pos, greater, err)
		}
		pos = next
	}
}

// ceilingStopped is a ceiling walk's answer when its general step at pos
// failed with err or stopped there (ceilingStep returned -1).
func (w *Walker) ceilingStopped(pos, greater int64, err error) (atKey, _ int64, more bool, _ error) {
	if err != nil {
		return -1, -1, false, err
	}
	atKey = -1
	if w.flags != 0 {
		atKey = pos
	}
	return w.ceilingEnd(atKey, greater)
}

// ceilingStep is exactStep for Ceiling: it also moves *greater to the first
// child after b's slot when the node has one. It is the one step a ceiling
// walk takes for a node its hot loop does not decode (walkfile.go).
func (w *Walker) ceilingStep(pos int64, b int, greater *int64) (int64, error) {
	if err := w.nv.load(&w.t.src, pos); err != nil {
		return -1, err
	}
	return w.ceilingNext(b, greater)
}

// ceilingNext is ceilingStep on the node already loaded in w.nv.
func (w *Walker) ceilingNext(b int, greater *int64) (int64, error) {
	i := w.nv.search(b)
	g := w.nv.greaterTransition(i, *greater)
	if g == badPointer {
		return -1, corrupt(w.nv.pos, reasonBadPointer)
	}
	*greater = g
	if i < 0 {
		w.setStop(w.nv.flags, b, w.nv.n)
		return -1, nil
	}
	return w.childOf(i)
}

// ceilingEnd finishes a ceiling walk that stopped with atKey: goMin of the
// greater branch it passed last, if any.
func (w *Walker) ceilingEnd(atKey, greater int64) (int64, int64, bool, error) {
	if greater == none {
		return atKey, -1, false, nil
	}
	if f := w.t.src.File; w.t.src.Tail == nil && uint64(greater) < uint64(len(f)) {
		// goMinFrom's first case, a leaf with a payload (what the greater
		// branch of hashed keys usually is), without the call.
		if h := f[greater]; h>>4 == byte(payloadOnly) && h&0xF != 0 {
			return atKey, greater, false, nil
		}
	}
	g, err := w.goMin(greater)
	if err != nil {
		return -1, -1, false, err
	}
	return atKey, g, false, nil
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
	if seg, ok := w.t.src.segment(pos); ok {
		if seg[0]>>4 == byte(payloadOnly) && seg[0]&0xF != 0 {
			// A leaf with a payload, what a ceiling's greater branch of
			// hashed keys usually is: the answer the loop below gives it,
			// without decoding the node.
			return pos, nil
		}
		if c := sparse8FirstLeaf(&w.t.src, seg, pos); c >= 0 {
			return c, nil
		}
	}
	return w.goMinLoop(pos, isRoot)
}

// goMinLoop is goMinFrom without its shortcuts: the loop itself.
func (w *Walker) goMinLoop(pos int64, isRoot bool) (int64, error) {
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

// sparse8FirstLeaf returns the first child of the node at pos (seg, its
// segment from pos) when the node is a SPARSE_8 without payload whose fixed
// part fits in seg and whose first child is a leaf with a payload: the
// node goMinFrom's loop answers for it, found without decoding either node.
// That is the greater branch a ceiling below the jump table passes last
// when the key's byte is above the node's transitions (the next entry's
// SPARSE_8 node, at a million Murmur3 keys). It returns -1 for any other
// node, and the loop decides (TestGoMinShortcut compares).
func sparse8FirstLeaf(src *Source, seg []byte, pos int64) int64 {
	if seg[0] != byte(sparse8)<<4 || len(seg) < 2 {
		return -1
	}
	n := int(seg[1])
	if n == 0 || len(seg) < 2+2*n {
		return -1
	}
	// The first child's pointer. One of 0 leads to the node itself, no
	// leaf, and one above pos to a negative position, which segment
	// refuses: neither needs a test of its own.
	d := int64(seg[2+n])
	if c, ok := src.segment(pos - d); ok && c[0]>>4 == byte(payloadOnly) && c[0]&0xF != 0 {
		return pos - d
	}
	return -1
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
