//go:build !amd64

package trie

// slotStepFile is slotStep(s, pos, b) after touchBelow(f, pos), whose read
// bytes it keeps in *touch (see the amd64 version).
func slotStepFile(s *jumpSlot, f []byte, pos int64, b int, touch *byte) int64 {
	*touch ^= touchBelow(f, pos)
	return slotStep(s, pos, b)
}
