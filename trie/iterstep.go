package trie

// The steps Iterator and ReverseIterator share: both walk a bounded path
// byte by byte and descend into children under the same node budget; only
// the direction differs.

// descendCharged loads child c of the node in nv into nv, charging one node
// to budget: a full pass reaches each node at most once, so on corrupt bytes
// whose pointers share or loop the walk stops after as many nodes as the
// trie has bytes.
func descendCharged(nv *nodeView, src *Source, budget *int64, c int64) error {
	if c < 0 {
		if c == badPointer {
			return corrupt(nv.pos, reasonBadPointer)
		}
		return corrupt(nv.pos, reasonMissingChild)
	}
	if *budget--; *budget < 0 {
		return corrupt(c, reasonNotATree)
	}
	return nv.load(src, c)
}

// nextBoundByte consumes the next byte of bound at *pos (eos once bound is
// exhausted, without moving on).
func nextBoundByte(bound []byte, pos *int) int {
	b := keyByte(bound, *pos)
	if b != eos {
		*pos++
	}
	return b
}
