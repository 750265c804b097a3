package trie

// childRef is one entry of a node's child list: the transition byte on top,
// then one of three kinds, by the two flag bits below it:
//
//	pending node  (neither flag)  low 32 bits: the child's index in Writer.nodes
//	pending leaf  (refLeaf)       bits 32..36: its size (header and payload);
//	                              its bytes are in the leaf slot beside the ref
//	written       (refWritten)    low 55 bits: its file position
//
// A parent reads its written children's positions and transitions from its
// own list, so a node is released the moment it is written, and
// serializing a node touches no other node. A childless node with a small
// payload (every entry of a partition index) never becomes a node: it is
// a leaf ref from the start: its size, all that closing and laying out
// its parent read of it, sits in the ref, and its header and payload in
// the leaf slot beside the ref (childLists.leaf), written when the key
// arrives, copied out once when the parent's branch is written, and freed
// with the list, so a leaf costs no allocation or release of its own.
type childRef uint64

const (
	refWritten childRef = 1 << 55
	refLeaf    childRef = 1 << 54
	refPos     childRef = refWritten - 1 // a written child's position
)

func pendingRef(transition byte, node int32) childRef {
	return childRef(transition)<<56 | childRef(uint32(node))
}

func leafRef(transition byte, size int) childRef {
	return childRef(transition)<<56 | refLeaf | childRef(size)<<32
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

// leafSize is the size of a pending leaf (leaf() true).
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
//
// A list that holds a leaf is a leaf list (its class has leafList set):
// it is cut from a leaf chunk, which has a leaf slot beside each ref
// (leaves, parallel to refs), and a pending leaf's bytes live in the slot
// at its ref's offset. Other lists are cut from plain chunks, without
// slots, so the lists of nodes above the leaves (a 1M-key Murmur3 index
// keeps 256 lists of 256 node refs pending) pay no 16 bytes per ref. A
// leaf of its own store, as before, paid a slot allocation, a release and
// two two-level address computations; slots beside every ref, as in
// 9295708 (reverted in dcfecc8), paid 16 bytes for every ref of every list.
//
// Measured on 1M Murmur3 UUID keys (workload.MurmurUUID): a warm Add took
// 707.5 instructions with the leaf store (at e87eb5b), 669.8 to 673.1 in
// three runs with leaf lists (the commit that added them), by callgrind
// (GODEBUG=asyncpreemptoff=1 GOGC=off valgrind --tool=callgrind
// --toggle-collect='*addOne' on a test that builds the set once and again
// through a //go:noinline wrapper addOne of partitionindex.Builder.Add);
// the cold build of partitionindex's TestColdBuildAllocations allocated
// 1,187,768 bytes before, 1,149,320 after, its small ByteOrdered build
// (TestColdSmallBuildAllocations) 56.4 B/key before, 57.2 after.
type childLists struct {
	refs   []*[chunkRefs]childRef
	leaves []*[chunkRefs]leafSlot // nil for a plain chunk
	pools  [2]listPool            // plain, leaf
	free   [2 * leafList][]int32  // by class (see listCap)
}

// listPool cuts lists of one kind, plain or leaf, from its chunks.
type listPool struct {
	chunks []int32 // the chunks it cuts lists from, in the order it takes them
	cur    int     // index in chunks of the one being cut; -1 before the first
	next   int32   // refs cut from it so far
}

// maxListClass is the class of a 256-ref list, the most children a node
// has; leafList is set in the class of a leaf list (1 | leafList ...
// maxListClass | leafList).
const (
	maxListClass = 9
	leafList     = 16
)

// chunkRefs is the size of a chunk, a multiple of the largest list. A
// small index keeps its whole trie pending, so a cold build's memory is
// its lists' chunks, rounded up to a whole chunk of each kind: a leaf chunk
// of 2,048 refs takes 48 KiB with its slots. Cold builds allocated, with
// 4,096-ref chunks and with these (TestColdBuildAllocations, 1M Murmur3
// keys; TestColdSmallBuildAllocations, 16,384 ByteOrdered keys; at 5618a9f
// and the commit that made this change): 1.15 and 1.09 B/key, 57.3 and
// 56.2; `bti build --stats json` of the side-by-side sets (bti gen
// --partitioner byteordered --kind blob --prefix-bytes 0|64 --count 16384
// --seed 5): 56.8 and 55.8, 58.1 and 57.1. A warm build's instructions
// per key do not change (callgrind as in the comment above).
const (
	chunkShift = 11
	chunkRefs  = 1 << chunkShift
)

func (l *childLists) reset() {
	for p := range l.pools {
		l.pools[p].cur, l.pools[p].next = -1, 0
	}
	for c := range l.free {
		l.free[c] = l.free[c][:0]
	}
}

// list returns the n refs at off.
func (l *childLists) list(off int32, n int) []childRef {
	i := int(off & (chunkRefs - 1))
	return l.refs[off>>chunkShift][i : i+n : i+n]
}

// at returns the ref at off.
func (l *childLists) at(off int32) *childRef {
	return &l.refs[off>>chunkShift][off&(chunkRefs-1)]
}

// leafSlots returns the n leaf slots beside the refs at off, a leaf list's.
func (l *childLists) leafSlots(off int32, n int) []leafSlot {
	i := int(off & (chunkRefs - 1))
	return l.leaves[off>>chunkShift][i : i+n : i+n]
}

// leaf returns the leaf slot beside the ref at off, in a leaf list.
func (l *childLists) leaf(off int32) *leafSlot {
	return &l.leaves[off>>chunkShift][off&(chunkRefs-1)]
}

// move copies the n refs at src to dst, and the leaf slots beside them
// when both are leaf lists (a plain list holds no leaf: see growList).
func (l *childLists) move(dst int32, dstClass uint8, src int32, srcClass uint8, n int) {
	copy(l.list(dst, n), l.list(src, n))
	if dstClass&srcClass&leafList != 0 {
		copy(l.leafSlots(dst, n), l.leafSlots(src, n))
	}
}

// alloc returns the offset of an unused list of class c.
func (l *childLists) alloc(c uint8) int32 {
	if k := len(l.free[c]); k > 0 {
		off := l.free[c][k-1]
		l.free[c] = l.free[c][:k-1]
		return off
	}
	p := &l.pools[c/leafList]
	size := int32(1) << (c&(leafList-1) - 1)
	if p.cur < 0 || chunkRefs-p.next < size {
		l.nextChunk(p, c)
	}
	off := p.chunks[p.cur]<<chunkShift + p.next
	p.next += size
	return off
}

// nextChunk moves pool p to its next chunk, making one if it has none
// left. A list never spans chunks: what is left of the current one is
// handed out as smaller lists of class c's kind.
func (l *childLists) nextChunk(p *listPool, c uint8) {
	if p.cur >= 0 {
		rest := chunkRefs - p.next
		for k := c&(leafList-1) - 1; k >= 1 && rest > 0; k-- {
			if s := int32(1) << (k - 1); rest >= s {
				l.free[k|c&leafList] = append(l.free[k|c&leafList], p.chunks[p.cur]<<chunkShift+p.next)
				p.next += s
				rest -= s
			}
		}
	}
	p.cur++
	p.next = 0
	if p.cur == len(p.chunks) {
		p.chunks = append(p.chunks, int32(len(l.refs)))
		l.refs = append(l.refs, new([chunkRefs]childRef))
		var slots *[chunkRefs]leafSlot
		if c&leafList != 0 {
			slots = new([chunkRefs]leafSlot)
		}
		l.leaves = append(l.leaves, slots)
	}
}

// release recycles the list of class c at off (class 0: no list).
func (l *childLists) release(off int32, c uint8) {
	if c > 0 {
		l.free[c] = append(l.free[c], off)
	}
}
