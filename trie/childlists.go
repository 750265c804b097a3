package trie

// childRef is one entry of a node's child list: the transition byte on top,
// then one of three kinds, by the two flag bits below it:
//
//	pending node  (neither flag)  low 32 bits: the child's index in Writer.nodes
//	pending leaf  (refLeaf)       low 32 bits: its slot in Writer.leaves,
//	                              bits 32..36: its size (header and payload)
//	written       (refWritten)    low 55 bits: its file position
//
// A parent reads its written children's positions and transitions from its
// own list, so a node is released the moment it is written, and
// serializing a node touches no other node. A childless node with a small
// payload (every entry of a partition index) never becomes a node: it is
// a leaf ref from the start, and its size, all that closing and laying out
// its parent read of it, sits in the ref.
type childRef uint64

const (
	refWritten childRef = 1 << 55
	refLeaf    childRef = 1 << 54
	refPos     childRef = refWritten - 1 // a written child's position
)

func pendingRef(transition byte, node int32) childRef {
	return childRef(transition)<<56 | childRef(uint32(node))
}

func leafRef(transition byte, slot int32, size int) childRef {
	return childRef(transition)<<56 | refLeaf | childRef(size)<<32 | childRef(uint32(slot))
}

func writtenRef(transition byte, pos int64) childRef {
	return childRef(transition)<<56 | refWritten | childRef(pos)
}

func (r childRef) transition() byte { return byte(r >> 56) }
func (r childRef) written() bool    { return r&refWritten != 0 }

// leaf reports whether r is a pending leaf.
func (r childRef) leaf() bool { return r&(refWritten|refLeaf) == refLeaf }

// node is the index of a pending child that is a node (written() and
// leaf() false).
func (r childRef) node() int32 { return int32(uint32(r)) }

// slot and leafSize describe a pending leaf (leaf() true).
func (r childRef) slot() int32     { return int32(uint32(r)) }
func (r childRef) leafSize() int32 { return int32(r>>32) & 0x1F }

// pos is the position of a written child (written() true).
func (r childRef) pos() int64 { return int64(r & refPos) }

// childLists holds every node's child list in chunks of chunkRefs refs,
// cut into lists whose capacity is a power of two (1 ... 256), recycled by
// capacity class. A node's list grows while keys arrive below it and is
// returned when the node is written, so the chunks hold what the widest
// moment of the build needed, and a warm writer allocates none. Chunks,
// rather than one array grown by doubling, keep a cold build's allocation
// at what it uses (doubling allocates twice that, and copies it). Lists
// are addressed by offset, so nothing holds a pointer into a chunk.
type childLists struct {
	chunks [][]childRef
	used   int32       // refs handed out from the chunks so far
	free   [10][]int32 // by class: a list of class c holds 1<<(c-1) refs
}

// maxListClass is the class of a 256-ref list, the most children a node
// has.
const maxListClass = 9

// chunkRefs is the size of a chunk, a multiple of the largest list.
const (
	chunkShift = 12
	chunkRefs  = 1 << chunkShift
)

func (l *childLists) reset() {
	l.used = 0
	for c := range l.free {
		l.free[c] = l.free[c][:0]
	}
}

// list returns the n refs at off.
func (l *childLists) list(off int32, n int) []childRef {
	c := l.chunks[off>>chunkShift]
	i := int(off & (chunkRefs - 1))
	return c[i : i+n : i+n]
}

// at returns the ref at off.
func (l *childLists) at(off int32) *childRef {
	return &l.chunks[off>>chunkShift][off&(chunkRefs-1)]
}

// alloc returns the offset of an unused list of class c.
func (l *childLists) alloc(c uint8) int32 {
	if k := len(l.free[c]); k > 0 {
		off := l.free[c][k-1]
		l.free[c] = l.free[c][:k-1]
		return off
	}
	size := int32(1) << (c - 1)
	if rest := chunkRefs - l.used&(chunkRefs-1); rest < size {
		// A list never spans chunks: hand the rest of this one out as
		// smaller lists and start the next.
		for k := uint8(c - 1); k >= 1 && rest > 0; k-- {
			if s := int32(1) << (k - 1); rest >= s {
				l.free[k] = append(l.free[k], l.used)
				l.used += s
				rest -= s
			}
		}
	}
	if int(l.used>>chunkShift) == len(l.chunks) {
		l.chunks = append(l.chunks, make([]childRef, chunkRefs))
	}
	off := l.used
	l.used += size
	return off
}

// release recycles the list of class c at off (class 0: no list).
func (l *childLists) release(off int32, c uint8) {
	if c > 0 {
		l.free[c] = append(l.free[c], off)
	}
}
