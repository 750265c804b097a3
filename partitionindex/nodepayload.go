package partitionindex

// NodePayload is the partition-index payload of one trie node: the hash
// byte (when HasHash) and the position (see IsDataPosition).
type NodePayload struct {
	Hash     byte
	HasHash  bool
	Position int64
	// Size is the number of payload bytes: the hash byte, if any, and
	// 1..8 position bytes.
	Size int
}

// Payload decodes the payload of the node at pos (layout in payload.go),
// for tools that draw or annotate the trie. ok is false for a node without
// a payload.
func (ix *Index) Payload(pos int64) (p NodePayload, ok bool, err error) {
	flags, b, err := ix.trie.Payload(pos)
	if err != nil {
		return NodePayload{}, false, err
	}
	if flags == 0 {
		return NodePayload{}, false, nil
	}
	hash, hasHash, v, fits := decodePayload(flags, b)
	if !fits {
		return NodePayload{}, false, &CorruptError{Offset: pos, Reason: "payload does not fit"}
	}
	p = NodePayload{Hash: hash, HasHash: hasHash, Position: v, Size: int(flags)}
	if hasHash {
		p.Size = 1 + int(flags) - 7 // hash byte, then 1..8 position bytes
	}
	return p, true, nil
}
