package trie

import "math"

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
// Each entry is what the walker's own steps (exactStep, ceilingStep)
// compute, or for a DENSE node at the second level, the same thing read
// from its slots in one pass (denseEntries); so a walk through the table
// answers exactly as a walk from the root, on any bytes. Memory: 512 KiB
// (JumpTableBytes), independent of the trie's size, which is why a caller
// builds it only for large tries. Positions are stored in 32 bits: a file of
// 4 GiB or more gets no table.
type jumpTable struct {
	prefix  []byte
	depth   int // len(prefix) + 2: the key bytes a jump consumes
	next    []uint32
	greater []uint32
}

const (
	// maxJumpPrefix bounds the one-child chain the table skips.
	maxJumpPrefix = 16
	jumpEntries   = 1 << 16
	// JumpTableBytes is the memory a jump table takes.
	JumpTableBytes = 2 * 4 * jumpEntries
)

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
		next:    make([]uint32, jumpEntries),
		greater: make([]uint32, jumpEntries),
	}
	filled := 0
	for b1 := range 256 {
		n1, g1, ok := w.bothSteps(top, topGreater, []byte{byte(b1)})
		if !ok {
			continue
		}
		row := b1 << 8
		if w.denseEntries(n1, g1, j.next[row:row+256], j.greater[row:row+256]) {
			for _, e := range j.next[row : row+256] {
				if e != 0 {
					filled++
				}
			}
			continue
		}
		for b2 := range 256 {
			n2, g2, ok := w.bothSteps(n1, g1, []byte{byte(b2)})
			if !ok {
				continue
			}
			j.next[row|b2], j.greater[row|b2] = uint32(n2+1), uint32(g2+1)
			filled++
		}
	}
	if filled == 0 {
		return nil
	}
	return j
}

// denseEntries fills the 256 entries below the node at pos when it is a
// DENSE_16 or DENSE_24 whose slots lie in its segment, and reports whether it
// did; greater is ceiling's greater branch on arrival. Each entry is what
// bothSteps computes for its byte, read from the slots in one pass from the
// last: exactStep and ceilingStep descend to pos minus the slot's distance
// (a hole or a byte outside the span stops both walks: entry 0; a distance
// past pos fails both: entry 0), and ceilingStep takes the first non-hole
// slot after the byte as the greater branch (failing when its distance is
// past pos), or keeps greater when there is none.
func (w *Walker) denseEntries(pos, greater int64, next, gr []uint32) bool {
	seg, ok := w.t.src.segment(pos)
	if !ok {
		return false
	}
	t := nodeType(seg[0] >> 4)
	width := 2
	switch {
	case t == dense24:
		width = 3
	case t != dense16:
		return false
	}
	if len(seg) < 3 {
		return false
	}
	first, n := int(seg[1]), int(seg[2])+1
	if len(seg) < 3+width*n {
		return false
	}
	after, afterBad := greater, false // the greater branch for the slot before the one read
	for i := n - 1; i >= 0; i-- {
		d := readUint(seg[3+width*i:], width)
		if b := first + i; b < 256 && d != 0 && d <= uint64(pos) && !afterBad {
			next[b], gr[b] = uint32(pos-int64(d)+1), uint32(after+1)
		}
		if d != 0 {
			after, afterBad = pos-int64(d), d > uint64(pos)
		}
	}
	return true
}

// bothSteps walks bytes from the node at pos with exact's steps and with
// ceiling's (whose greater branch so far is greater), and returns the node
// both reach and ceiling's greater branch then; ok is false when either walk
// stops or fails, or they part.
func (w *Walker) bothSteps(pos, greater int64, bytes []byte) (int64, int64, bool) {
	for _, c := range bytes {
		seg, _ := w.t.src.segment(pos)
		next, err := w.exactStep(pos, seg, int(c))
		if err != nil || next < 0 {
			return -1, -1, false
		}
		cnext, err := w.ceilingStep(pos, seg, int(c), &greater)
		if err != nil || cnext != next {
			return -1, -1, false
		}
		pos = next
	}
	return pos, greater, true
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
