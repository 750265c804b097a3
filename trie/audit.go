package trie

// The low-level accessors tools build on (package audit's checks, dumps,
// node statistics and page paths; cmd/bti's drawings): one decoded node with
// the raw facts a reader does not need but a checker does (the header, the
// slot count, DENSE holes, the unused nibble of a packed 12-bit area), the
// bytes the trie reads, and the node type the writer would choose. They stay
// here, not in package audit, because they decode nodes with this package's
// own node view; everything built on them for tools lives in audit.

// Shape is one decoded node: where it is, its type and flags, the size of
// its fixed part (its payload starts right after), its children in
// transition order, and what an audit checks beyond that.
type Shape struct {
	Pos       int64
	Header    byte
	Type      uint8 // the header's high nibble, Cassandra's TrieNode.Types ordinal
	Flags     uint8 // payload flags (0 for the two NOPAYLOAD singles)
	FixedSize int   // bytes before the payload
	Slots     int   // 0, 1, the SPARSE count or the DENSE span
	// Children in slot order, DENSE holes skipped.
	Children []Child
	// Holes counts DENSE slots holding 0; EdgeHole is set when the first or
	// last DENSE slot is one (the writer spans exactly first..last child).
	Holes    int
	EdgeHole bool
	// BadPointers counts pointers that do not point strictly backwards to
	// a position >= 0 (left out of Children).
	BadPointers int
	// NibbleSet: a packed 12-bit area with an odd count has a non-zero
	// unused low nibble (the writer leaves it 0).
	NibbleSet bool
}

// Child is one transition of a node.
type Child struct {
	Transition byte
	Pos        int64
}

// Source returns the bytes the trie reads (for a scan of every node).
func (t *Trie) Source() Source { return t.src }

// Shape decodes the node at pos into s, reusing s.Children. It fails with a
// *CorruptError when the fixed part leaves its segment; a pointer that does
// not point strictly backwards is counted in BadPointers, not followed: a
// tool that walks the children treats BadPointers > 0 as corruption.
func (t *Trie) Shape(pos int64, s *Shape) error {
	var nv nodeView
	if err := nv.load(&t.src, pos); err != nil {
		return err
	}
	*s = Shape{Pos: pos, Header: nv.b[0], Type: uint8(nv.typ), Flags: nv.flags, FixedSize: nv.ppos, Slots: nv.n, Children: s.Children[:0]}
	for i := range nv.n {
		c := nv.child(i)
		if c == none {
			s.Holes++
			if i == 0 || i == nv.n-1 {
				s.EdgeHole = true
			}
			continue
		}
		if c < 0 {
			s.BadPointers++ // not followed, the rest is still checked
			continue
		}
		s.Children = append(s.Children, Child{Transition: byte(nv.transitionByte(i)), Pos: c})
	}
	if (nv.typ == sparse12 || nv.typ == dense12) && nv.n&1 == 1 {
		// The last byte of the packed area holds the odd value's low
		// nibble in its high half.
		s.NibbleSet = nv.b[nv.ppos-1]&0xF != 0
	}
	return nil
}

// WriterType returns the type the writer (ours and Cassandra's
// TrieNode.typeFor) gives a node with these children at its position:
// childCount children spanning span transition bytes (last - first + 1),
// whose farthest child is maxDist bytes back.
func WriterType(childCount, span int, hasPayload bool, maxDist int64) uint8 {
	return uint8(typeFor(childCount, span, hasPayload, maxDist))
}

// TypeName returns Cassandra's name of a node type (0..15).
func TypeName(typ uint8) string { return nodeType(typ).String() }
