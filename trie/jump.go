package trie

import (
	"encoding/binary"
	"math"
)

// The jump table is an in-memory accelerator for the top of a large trie,
// built from the file at open (WithJumpTable) and never written to disk.
//
// A walk first follows the chain of one-child, payload-less nodes below the
// root (the 0x40 every Murmur3 key starts with, say), then two branching
// levels (the token's first two bytes: one DENSE_16 and 256 DENSE_24 nodes at
// a million keys). Those levels are what every walk reads and they decide
// nothing but where the walk goes next, so the table records it: for each
// value v of the two bytes after the chain, the node the walk reaches after
// consuming chain+v, and for Ceiling, the greater branch it has passed by
// then (the nearest subtree above chain+v). A walk whose key starts with the
// chain and is long enough starts there, in the state a walk from the root
// would be in: one load from a 256 KiB array instead of three or four
// dependent node decodes.
//
//	prefix   the chain's transition bytes (at most maxJumpPrefix)
//	next     [65536]uint32: 1 + the node reached after prefix+v, or 0 when
//	         the walk stops, fails or ceiling and exact would part there:
//	         such keys walk from the root as without the table
//	greater  [65536]uint32: 1 + ceiling's greater branch after prefix+v,
//	         or 0 for none
//
// Each entry is what the walkers' general steps (exactStep, ceilingStep,
// which decode through nodeView) compute, so a walk through the table
// answers exactly as a walk from the root, on any bytes. Memory: 512 KiB
// (JumpTableBytes), independent of the trie's size, which is why a caller
// builds it only for large tries. Positions are stored in 32 bits: a file of
// 4 GiB or more gets no table.
type jumpTable struct {
	prefix []byte
	depth  int // len(prefix) + 2: the key bytes a jump consumes
	// When depth <= 8, entryWord tests the chain and reads the entry's
	// index from one big-endian load of the key's first 8 bytes: head is the
	// chain in the top len(prefix) bytes of that word, headMask those
	// bytes' bits (0 for no chain), and the entry's two bytes lie vShift =
	// 48 - 8*len(prefix) bits up. A mask and a shift below 64, where a
	// shift by 64 - 8*len(prefix) would need the compiler's guard for a
	// shift of 64 (no chain).
	head     uint64
	headMask uint64
	vShift   uint8
	next     *[jumpEntries]uint32
	greater  *[jumpEntries]uint32
	// slots is nil, or with WithJumpSlots one slot per entry (see
	// WithJumpSlots).
	slots []jumpSlot
}

const (
	// maxJumpPrefix bounds the one-child chain the table skips.
	maxJumpPrefix = 16
	jumpEntries   = 1 << 16
	// JumpTableBytes is the memory a jump table takes.
	JumpTableBytes = 2 * 4 * jumpEntries
	// slotBytes is the size of a jump slot: one cache line.
	slotBytes = 64
	// JumpSlotBytes is the memory WithJumpSlots adds to the jump table.
	JumpSlotBytes = slotBytes * jumpEntries
)

// jumpSlot is one slot of the jump slots (see WithJumpSlots).
type jumpSlot [slotBytes]byte

// WithJumpTable returns a copy of t that walks with a jump table (see
// jumpTable), or t itself when t has an early-open tail, is 4 GiB or larger,
// or no key gets past the two levels below the root's chain. It reads only
// the chain and those two levels (about 200 KiB at a million Murmur3 keys,
// under a millisecond). The table takes JumpTableBytes; JumpTable reports
// whether t has one.
func (t *Trie) WithJumpTable() *Trie {
	if t.src.Tail != nil || int64(len(t.src.File)) >= math.MaxUint32 || t.jump != nil {
		return t
	}
	j := buildJump(t)
	if j == nil {
		return t
	}
	c := *t
	c.jump = j
	return &c
}

// JumpTable reports whether walks on t start from a jump table.
func (t *Trie) JumpTable() bool { return t.jump != nil }

// Jump slots keep, beside each jump entry, the node the entry leads to,
// decoded, so that a walk through the table steps that node without
// reading the file: one dependent cache miss fewer per walk, since the slot
// is found from the key's bytes alone, as the entry is, and most misses
// read no byte of the file at all.
//
//	slots    [65536][64]byte, one per entry v, 64-byte aligned (Go
//	         places an allocation this large at a page boundary), so a
//	         slot is one cache line:
//	  [0]      n+1 for the node's n children, or 0: the slot holds no node
//	  [1:33]   the node's n transition bytes, then 0xFF up to 32 bytes
//	  [33:63]  the node's n one-byte pointers
//
// A slot holds only a SPARSE_8 node without payload (flags 0) of at most
// slotMaxChildren children whose transitions strictly increase: the node
// below the jump table of a large Murmur3 index. Its transitions, count and
// pointers are all a step reads of it. The walks step it with slotStepFile
// and ceilingSlotStepFile (slotstep_*), the SPARSE step of their loops on the
// slot's copy, and leave any irregular pointer to the loop, which reads the
// node from the file. Since the transitions are sorted, any search finds
// what searchSparse finds, so the slot steps count the transitions below
// the key byte eight at a time, without a branch on the bytes (slotSearch;
// a 0xFF pad is below no byte; on amd64 the steps compare all 32 at once,
// slotstep_amd64.s). So a walk answers, and fails, on any bytes
// exactly as without slots; a walk that stops there is no hit, so no
// payload is ever read from a slot. At a million Murmur3 keys the nodes
// below the table are SPARSE_8 of about 15 children, so nearly every slot
// is used; at ten million they are SPARSE_12 of about 150 children, and
// WithJumpSlots builds none.

// WithJumpSlots returns a copy of t that walks with a jump table and jump
// slots (see above), or what WithJumpTable returns when t gets no jump
// table or fewer than half of its entries lead to a node a slot holds.
// It reads the 65,536 nodes the table leads to once, at the call. The slots
// take JumpSlotBytes (4 MiB) besides the table's JumpTableBytes;
// JumpSlots reports whether t has them.
func (t *Trie) WithJumpSlots() *Trie {
	tj := t.WithJumpTable()
	if tj.jump == nil || tj.jump.slots != nil {
		return tj
	}
	slots := buildSlots(tj)
	if slots == nil {
		return tj
	}
	j := *tj.jump
	j.slots = slots
	c := *tj
	c.jump = &j
	return &c
}

// JumpSlots reports whether walks on t decode the node below the jump
// table from a jump slot (WithJumpSlots).
func (t *Trie) JumpSlots() bool { return t.jump != nil && t.jump.slots != nil }

// buildSlots fills the slots of t's jump table, or returns nil when fewer
// than half of the filled entries lead to a node a slot holds.
func buildSlots(t *Trie) []jumpSlot {
	j := t.jump
	slots := make([]jumpSlot, jumpEntries)
	var nv nodeView
	filled, used := 0, 0
	for v, nx := range j.next {
		if nx == 0 {
			continue
		}
		filled++
		if nv.load(&t.src, int64(nx)-1) != nil || nv.typ != sparse8 || nv.flags != 0 || nv.n > slotMaxChildren || !increasing(nv.b[2:2+nv.n]) {
			continue // the walk reads the node from the file
		}
		s, n := &slots[v], nv.n
		s[0] = byte(n + 1)
		copy(s[slotTransitions:], nv.b[2:2+n])
		for i := slotTransitions + n; i < slotPointers; i++ {
			s[i] = 0xFF
		}
		copy(s[slotPointers:], nv.b[2+n:2+2*n])
		used++
	}
	if used == 0 || 2*used < filled {
		return nil
	}
	return slots
}

// increasing reports whether the bytes of t strictly increase, as a
// SPARSE node's transitions do (a slot's search relies on it).
func increasing(t []byte) bool {
	for i := 1; i < len(t); i++ {
		if t[i] <= t[i-1] {
			return false
		}
	}
	return true
}

// slot returns slot v, or nil when it holds no node (no slots, or a node
// a slot does not hold).
func (j *jumpTable) slot(v int) *jumpSlot {
	if j.slots == nil {
		return nil
	}
	if s := &j.slots[v]; s[0] != 0 {
		return s
	}
	return nil
}

// The layout of a slot (see above).
const (
	slotTransitions = 1  // the transitions, padded with 0xFF
	slotPointers    = 33 // the pointers
	// slotMaxChildren is the most children of a node a slot holds.
	slotMaxChildren = slotBytes - 1 - slotPointers
)

// buildJump computes the table for t, or nil when no key gets past the two
// levels below the chain (an empty or tiny trie).
func buildJump(t *Trie) *jumpTable {
	w := t.Walker()
	// The chain: one-child nodes without payload.
	var prefix []byte
	pos := t.root
	var nv nodeView
	for len(prefix) < maxJumpPrefix {
		if err := nv.load(&t.src, pos); err != nil {
			return nil
		}
		if nv.n != 1 || nv.flags != 0 {
			break
		}
		c := nv.child(0)
		if c < 0 {
			return nil
		}
		prefix = append(prefix, byte(nv.first))
		pos = c
	}
	// Every entry is computed with the walkers' own steps, from the root
	// through the chain and both levels, so it is what a walk from the
	// root would compute on any bytes.
	top, topGreater, ok := w.bothSteps(t.root, none, prefix)
	if !ok {
		return nil
	}
	j := &jumpTable{
		prefix:  prefix,
		depth:   len(prefix) + 2,
		next:    new([jumpEntries]uint32),
		greater: new([jumpEntries]uint32),
	}
	if j.depth <= 8 {
		for i, c := range prefix {
			j.head |= uint64(c) << (56 - 8*i)
			j.headMask |= 0xFF << (56 - 8*i)
		}
		j.vShift = uint8(48 - 8*len(prefix))
	}
	filled := 0
	for b1 := range 256 {
		n1, g1, ok := w.bothSteps(top, topGreater, []byte{byte(b1)})
		if !ok {
			continue
		}
		// The 256 entries below n1, from its slots in one pass.
		if w.nv.load(&t.src, n1) != nil {
			continue // both steps fail at n1 for every byte: entries 0
		}
		row := b1 << 8
		filled += w.rowEntries(g1, j.next[row:row+256], j.greater[row:row+256])
	}
	if filled == 0 {
		return nil
	}
	return j
}

// rowEntries fills the entries below the node loaded in w.nv, on which
// ceiling's greater branch is greater, and returns how many it filled: for
// each byte, what bothNext computes, read with nodeView's accessors in one
// pass from the last slot instead of 256 searches. A byte b gets an entry
// only from the slot search(b) finds (so duplicate or unsorted SPARSE
// transitions answer as the steps do) whose child is valid; exactNext
// descends there and so does ceilingNext, whose greater branch is that of
// greaterTransition: the child of the nearest slot after it that is not a
// DENSE hole (failing both when that pointer is bad), or greater when there
// is none.
func (w *Walker) rowEntries(greater int64, next, gr []uint32) int {
	filled := 0
	after := greater // greaterTransition of the slot before the one read
	for i := w.nv.n - 1; i >= 0; i-- {
		c := w.nv.child(i)
		if b := w.nv.transitionByte(i); b < 256 && c >= 0 && after != badPointer && w.nv.search(b) == i {
			next[b], gr[b] = uint32(c+1), uint32(after+1)
			filled++
		}
		if c != none {
			after = c
		}
	}
	return filled
}

// bothSteps walks bytes from the node at pos with exact's step and with
// ceiling's (whose greater branch so far is greater), and returns the node
// both reach and ceiling's greater branch then; ok is false when either walk
// stops or fails, or they part.
func (w *Walker) bothSteps(pos, greater int64, bytes []byte) (int64, int64, bool) {
	for _, c := range bytes {
		if w.nv.load(&w.t.src, pos) != nil {
			return -1, -1, false
		}
		next, g, ok := w.bothNext(greater, int(c))
		if !ok {
			return -1, -1, false
		}
		pos, greater = next, g
	}
	return pos, greater, true
}

// bothNext is one step of bothSteps on the node loaded in w.nv: exactNext
// and ceilingNext with byte b.
func (w *Walker) bothNext(greater int64, b int) (int64, int64, bool) {
	next, err := w.exactNext(b)
	if err != nil || next < 0 {
		return -1, -1, false
	}
	cnext, err := w.ceilingNext(b, &greater)
	if err != nil || cnext != next {
		return -1, -1, false
	}
	return next, greater, true
}

// entry returns the index in next of the entry a walk of key starts from,
// or -1 when it starts from the root: there is no table (j is nil), key is
// not covered, or the entry is 0.
func (j *jumpTable) entry(key []byte) int {
	if j == nil || !j.covers(key) {
		return -1
	}
	p := len(j.prefix)
	if v := int(key[p])<<8 | int(key[p+1]); j.next[v] != 0 {
		return v
	}
	return -1
}

// entryWord is entry for a key of 8 bytes or more whose first 8 are the
// big-endian x, on a table of depth 8 or less: the chain's test and the
// two bytes after it from one load, where entry tests the chain a byte at a
// time. exactFile and ceilingFile start through it (entryOfWord); the batch
// walk keeps entry.
func (j *jumpTable) entryWord(x uint64) int {
	if v := uint16(x >> (j.vShift & 63)); x&j.headMask == j.head && j.next[v] != 0 { // the mask changes no vShift (<= 48)
		return int(v)
	}
	return -1
}

// covers reports whether a walk of key may start from the table: key starts
// with the chain and has the two bytes after it.
func (j *jumpTable) covers(key []byte) bool {
	if len(key) < j.depth {
		return false
	}
	for i, c := range j.prefix {
		if key[i] != c {
			return false
		}
	}
	return true
}

// entryOfWord is j.entryWord of key's first 8 bytes, -1 when j is nil, or
// byteEntry when entryWord does not apply (key shorter than 8 bytes, or a
// table deeper than 8) and the caller asks j.entry. It and entry are each
// small enough to be inlined where exactFile and ceilingFile start; one
// function doing both is not.
func entryOfWord(j *jumpTable, key []byte) int {
	if j == nil {
		return -1
	}
	if len(key) < 8 || j.depth > 8 {
		return byteEntry
	}
	return j.entryWord(binary.BigEndian.Uint64(key))
}

// byteEntry is entryOfWord's answer when the entry is entry's to find.
const byteEntry = -2
