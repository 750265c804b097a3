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
	var next []int32
	if n := len(p.free[class]); n > 0 {
		next = p.free[class][n-1][:0]
		p.free[class] = p.free[class][:n-1]
	} else {
		next = make([]int32, 0, 1<<class)
	}
	next = append(next, list...)
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
