package trie

// childRef is one entry of a node's child list. The top byte is the
// transition; below it, a child that is written is its file position
// (refWritten set), one that is not is its index in Writer.nodes. A
// parent reads its written children's positions and transitions from its
// own list, so a node is released the moment it is written, and
// serializing a node touches no other node.
type childRef uint64

const (
	refWritten childRef = 1 << 55
	refValue   childRef = refWritten - 1 // positions and indices live below
)

func pendingRef(transition byte, node int32) childRef {
	return childRef(transition)<<56 | childRef(node)
}

func writtenRef(transition byte, pos int64) childRef {
	return childRef(transition)<<56 | refWritten | childRef(pos)
}

func (r childRef) transition() byte { return byte(r >> 56) }
func (r childRef) written() bool    { return r&refWritten != 0 }

// node is the index of a child that is not written (written() false).
func (r childRef) node() int32 { return int32(r & refValue) }

// pos is the position of a written child (written() true).
func (r childRef) pos() int64 { return int64(r & refValue) }

// childLists holds every node's child list in one array, cut into lists
// whose capacity is a power of two (1 ... 256), recycled by capacity class.
// A node's list grows while keys arrive below it and is returned when the
// node is written, so the array is as big as the widest moment of the build
// needed, and a warm writer allocates none. Lists are addressed by offset,
// so the array holds no pointers and may move when it grows.
type childLists struct {
	refs []childRef
	free [10][]int32 // by class: a list of class c holds 1<<(c-1) refs
}

func (l *childLists) reset() {
	l.refs = l.refs[:0]
	for c := range l.free {
		l.free[c] = l.free[c][:0]
	}
}

// alloc returns the offset of an unused list of class c.
func (l *childLists) alloc(c uint8) int32 {
	if k := len(l.free[c]); k > 0 {
		off := l.free[c][k-1]
		l.free[c] = l.free[c][:k-1]
		return off
	}
	off := len(l.refs)
	size := 1 << (c - 1)
	if off+size > cap(l.refs) {
		grown := make([]childRef, off, max(2*cap(l.refs), off+size, 64))
		copy(grown, l.refs)
		l.refs = grown
	}
	l.refs = l.refs[:off+size]
	return int32(off)
}

// release recycles the list of class c at off (class 0: no list).
func (l *childLists) release(off int32, c uint8) {
	if c > 0 {
		l.free[c] = append(l.free[c], off)
	}
}
