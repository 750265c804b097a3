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
