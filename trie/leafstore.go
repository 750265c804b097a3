package trie

import "encoding/binary"

// leafStore holds the pending leaves' slots (see leafSlot): in a
// partition index nearly every key is one, and a small index keeps all of
// them pending until its root closes, so this is the writer's largest
// working set. Slots are handed out from chunks of leafChunkSlots, the
// first of which starts small and doubles (a one-key index needs one
// slot), and the later ones are made whole: a cold build allocates about
// what it uses and copies only the first chunk, where one array grown by
// append allocates about five times its final size on the way there, all
// of it fresh memory that page-faults. Freed slots form a list threaded
// through the slots themselves, so freeing costs no memory either.
type leafStore struct {
	chunks [][]leafSlot
	slots  int32 // slots the chunks hold
	used   int32 // slots handed out from the chunks since reset
	// free is 1 + the first free slot, 0 for none; a free slot's first 4
	// bytes hold the same for the next one.
	free int32
}

const (
	leafChunkShift = 12 // 4096 slots, 64 KiB
	leafChunkSlots = 1 << leafChunkShift
	leafFirstSlots = 16
)

// reset frees every slot, keeping the chunks.
func (l *leafStore) reset() {
	l.used = 0
	l.free = 0
}

// at returns slot i.
func (l *leafStore) at(i int32) *leafSlot {
	return &l.chunks[i>>leafChunkShift][i&(leafChunkSlots-1)]
}

// alloc returns a free slot, reusing the most recently freed one first
// (it is likely still in cache).
func (l *leafStore) alloc() int32 {
	if l.free > 0 {
		i := l.free - 1
		l.free = int32(binary.LittleEndian.Uint32(l.at(i)[:4]))
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

// release frees slot i once its leaf is written (or became a node).
func (l *leafStore) release(i int32) {
	binary.LittleEndian.PutUint32(l.at(i)[:4], uint32(l.free))
	l.free = i + 1
}
