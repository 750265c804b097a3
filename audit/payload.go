package audit

import (
	"strconv"
	"strings"

	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/trie"
)

// NodePayload is the partition-index payload of one trie node: the hash
// byte (when HasHash) and the position (see partitionindex.IsDataPosition).
type NodePayload struct {
	Hash     byte
	HasHash  bool
	Position int64
	// Size is the number of payload bytes: the hash byte, if any, and
	// 1..8 position bytes.
	Size int
}

// Payload decodes the payload of the node at pos of ix (layout in
// internal/partitionpayload), for tools that draw or annotate the trie. ok
// is false for a node without a payload; bytes that do not decode are a
// *partitionindex.CorruptError.
func Payload(ix *partitionindex.Index, pos int64) (p NodePayload, ok bool, err error) {
	flags, b, err := ix.Trie().Payload(pos)
	if err != nil {
		return NodePayload{}, false, fromTrie(err)
	}
	if flags == 0 {
		return NodePayload{}, false, nil
	}
	hash, hasHash, v, fits := partitionpayload.Decode(flags, b)
	if !fits {
		return NodePayload{}, false, &partitionindex.CorruptError{Offset: pos, Reason: "payload does not fit"}
	}
	p = NodePayload{Hash: hash, HasHash: hasHash, Position: v, Size: int(flags)}
	if hasHash {
		p.Size = 1 + int(flags) - 7 // hash byte, then 1..8 position bytes
	}
	return p, true, nil
}

// NodeCounts counts trie nodes by type. The index is the type code, the high
// nibble of a node's header byte (0 PAYLOAD_ONLY ... 15 LONG_DENSE, as in
// Cassandra's TrieNode.Types; see package trie).
type NodeCounts [16]int64

// Total returns the number of nodes counted.
func (c NodeCounts) Total() int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

// String lists the non-zero counts in type-code order, with Cassandra's
// type names: "PAYLOAD_ONLY=3 SPARSE_8=1".
func (c NodeCounts) String() string {
	var b strings.Builder
	for t, v := range c {
		if v == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(trie.TypeName(uint8(t)))
		b.WriteByte('=')
		b.WriteString(strconv.FormatInt(v, 10))
	}
	return b.String()
}

// CountNodes walks every node of ix reachable from the root (iteratively,
// each node at most once, so any depth and any bytes are safe) and counts
// them by type. It reads the index's memory: call it only while the index
// is open.
func CountNodes(ix *partitionindex.Index) (NodeCounts, error) {
	st, err := CountTrie(ix.Trie())
	if err != nil {
		return NodeCounts{}, fromTrie(err)
	}
	return st.ByType, nil
}
