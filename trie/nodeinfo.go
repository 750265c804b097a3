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
// position is checked to point strictly backwards. It is Shape with the
// audit's details dropped and a bad pointer made an error.
func (t *Trie) Node(pos int64, info *NodeInfo) error {
	s := Shape{Children: info.Children}
	if err := t.Shape(pos, &s); err != nil {
		return err
	}
	if s.BadPointers > 0 {
		return corrupt(pos, reasonBadPointer)
	}
	*info = NodeInfo{Pos: pos, Type: TypeName(s.Type), Flags: s.Flags, FixedSize: s.FixedSize, Children: s.Children}
	return nil
}
