package trie

// NodeInfo describes one node for tools (dumps, drawings, annotated hex):
// where it is, its type and flags, the size of its fixed part (its payload
// starts right after), and its children in transition order.
type NodeInfo struct {
	Pos       int64
	Type      string // Cassandra's name, e.g. "SPARSE_8"
	Flags     uint8  // payload flags (0: no payload)
	FixedSize int    // bytes of the node before its payload
	Children  []Child
}

// Child is one transition of a node.
type Child struct {
	Transition byte
	Pos        int64
}

// Node decodes the node at pos, reusing info's Children memory. Every child
// position is checked to point strictly backwards.
func (t *Trie) Node(pos int64, info *NodeInfo) error {
	var nv nodeView
	if err := nv.load(&t.src, pos); err != nil {
		return err
	}
	*info = NodeInfo{Pos: pos, Type: nv.typ.String(), Flags: nv.flags, FixedSize: nv.ppos, Children: info.Children[:0]}
	for i := range nv.n {
		c := nv.child(i)
		if c == none {
			continue // a DENSE hole
		}
		if c < 0 {
			return corrupt(pos, reasonBadPointer)
		}
		info.Children = append(info.Children, Child{Transition: byte(nv.transitionByte(i)), Pos: c})
	}
	return nil
}
