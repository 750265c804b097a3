//go:build !amd64

package trie

// slotStepFile is slotStep(s, pos, b) after touchBelow(f, pos), whose read
// bytes it keeps in *touch (see the amd64 version).
func slotStepFile(s *jumpSlot, f []byte, pos int64, b int, touch *byte) int64 {
	*touch ^= touchBelow(f, pos)
	return slotStep(s, pos, b)
}

// ceilingSlotStepFile is ceilingSlotStep(s, pos, greater, b) after
// touchBelow(f, pos), whose read bytes it keeps in *touch.
func ceilingSlotStepFile(s *jumpSlot, f []byte, pos, greater int64, b int, touch *byte) (next, g int64) {
	*touch ^= touchBelow(f, pos)
	return ceilingSlotStep(s, pos, greater, b)
}

// touchBelow reads the bytes 128, 64 and 1 below position c, when they lie
// in f, and returns them: the lines amd64's slot steps prefetch (see
// slotStepFile there), read the only portable way. Unlike a prefetch, a
// load holds up the end of a walk until its line arrives, so here a miss
// through a slot waits for the lines of leaves it does not read (on amd64
// that made such misses 40-80% slower); a hit gains as there.
func touchBelow(f []byte, c int64) byte {
	if c >= 128 && c <= int64(len(f)) {
		return f[c-128] ^ f[c-64] ^ f[c-1]
	}
	return 0
}
