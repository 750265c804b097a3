package trie

import "math/bits"

// childLists recycles the arrays that hold nodes' child indices, by
// capacity class (1, 2, 4 ... 256). A node's list grows while keys arrive
// below it and is returned when the node is released, so the memory held is
// what the widest moment of the build needed, and a warm writer allocates
// none. (Arrays kept on recycled nodes instead would drift: a node that was
// once 256 wide and is reused as a leaf would keep its array, and over a
// long build every free node would end up holding one.)
type childLists struct {
	free [9][][]int32
}

// grow returns list with room for one more index: list itself if it has
// room, else a list of the next class holding its indices (the old array is
// recycled).
func (p *childLists) grow(list []int32) []int32 {
	if len(list) < cap(list) {
		return list
	}
	class := 0
	if cap(list) > 0 {
		class = bits.Len(uint(cap(list))) // the next power of two
	}
	if len(p.free[class]) == 0 {
		p.refill(class)
	}
	n := len(p.free[class])
	next := append(p.free[class][n-1][:0], list...)
	p.free[class] = p.free[class][:n-1]
	p.put(list)
	return next
}

// put recycles list's array.
func (p *childLists) put(list []int32) {
	if c := cap(list); c > 0 {
		class := bits.Len(uint(c)) - 1
		p.free[class] = append(p.free[class], list[:0])
	}
}

// chunkInts is how many indices one allocation of new lists holds: lists
// are cut from chunks, so a cold writer makes one allocation per 16 KiB of
// lists rather than one per list.
const chunkInts = 4096

// refill adds lists of the class, cut from one new chunk, to the pool.
func (p *childLists) refill(class int) {
	size := 1 << class
	chunk := make([]int32, max(chunkInts, size))
	for off := 0; off+size <= len(chunk); off += size {
		p.free[class] = append(p.free[class], chunk[off:off:off+size])
	}
}
