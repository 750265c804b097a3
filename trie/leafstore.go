package trie

// leafStore holds the pending leaves' slots (see leafSlot): in a
// partition index nearly every key is one, and a small index keeps all of
// them pending until its root closes, so this is the writer's largest
// working set. Slots are handed out from chunks of leafChunkSlots, the
// first of which starts small and doubles (a one-key index needs one
// slot), and the later ones are made whole: a cold build allocates about
// what it uses and copies only the first chunk, where one array grown by
// append allocates about five times its final size on the way there, all
// of it fresh memory that page-faults. The free list is a stack of slot
// numbers. (A list threaded through the freed slots themselves would cost
// no memory, but each allocation would then wait for a load from the slot
// it pops: the 1M-key Murmur3 build ran about 10% slower so.) Complete
// frees nothing (see release), which keeps the stack as short as the most
// leaves a build recycles at once, not as long as the index.
type leafStore struct {
	chunks [][]leafSlot
	slots  int32 // slots the chunks hold
	used   int32 // slots handed out from the chunks since reset
	free   []int32
}

const (
	leafChunkShift = 12 // 4096 slots, 64 KiB
	leafChunkSlots = 1 << leafChunkShift
	leafFirstSlots = 16
)

// reset frees every slot, keeping the chunks.
func (l *leafStore) reset() {
	l.used = 0
	l.free = l.free[:0]
}

// at returns slot i.
func (l *leafStore) at(i int32) *leafSlot {
	return &l.chunks[i>>leafChunkShift][i&(leafChunkSlots-1)]
}

// alloc returns a free slot, reusing the most recently freed one first
// (it is likely still in cache).
func (l *leafStore) alloc() int32 {
	if k := len(l.free); k > 0 {
		i := l.free[k-1]
		l.free = l.free[:k-1]
		return i
	}
	if l.used == l.slots {
		l.grow()
	}
	i := l.used
	l.used++
	return i
}

// grow adds room for at least one more slot: the first chunk doubles until
// it is whole, then whole chunks follow.
func (l *leafStore) grow() {
	switch {
	case len(l.chunks) == 0:
		l.chunks = append(l.chunks, make([]leafSlot, leafFirstSlots))
	case len(l.chunks) == 1 && len(l.chunks[0]) < leafChunkSlots:
		c := make([]leafSlot, 2*len(l.chunks[0]))
		copy(c, l.chunks[0])
		l.chunks[0] = c
	default:
		l.chunks = append(l.chunks, make([]leafSlot, leafChunkSlots))
	}
	l.slots = int32(len(l.chunks)-1)*leafChunkSlots + int32(len(l.chunks[len(l.chunks)-1]))
}

// release frees slot i once its leaf is written (or became a node). The
// writer does not call it while Complete writes what is left: no leaf is
// made after that, and reset frees every slot.
func (l *leafStore) release(i int32) {
	l.free = append(l.free, i)
}
