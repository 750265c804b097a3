package partitionindex

import (
	"strconv"
	"strings"

	"github.com/bti-go/bti/trie"
)

// Metadata describes a finished Partitions.db file, as Builder.Complete
// returns it (pebble's sstable writer reports its metadata the same way).
// Every field comes from what the builder tracked while writing; nothing is
// read back from the sink.
type Metadata struct {
	Keys int64 // partitions in the index (the footer's key count)
	Size int64 // bytes of the whole file, footer included
	Root int64 // position of the trie's root node (the footer's root)
	// FirstKeyPos is where the footer's keys start, right after the root
	// node: the trie (nodes and page padding) takes the bytes before it.
	FirstKeyPos int64
	PageSize    int64 // the page the layout packed nodes into (4096 unless Options.PageSize)
	Pages       int64 // pages of PageSize the file spans: ceil(Size / PageSize)
}

// The builder does not count nodes by type: trie.Writer exposes no such
// counter and a count taken from the sink would mean reading the file back.
// An open Index counts them by walking its trie (Index.NodeCounts); that is
// O(nodes), so it is a separate call rather than a cost of every Complete.

// metadata fills Metadata for a trie whose root is at root and whose footer
// starts at firstKeyPos, once the footer is appended: the file ends at the
// builder's position.
func (b *Builder) metadata(root, firstKeyPos int64) Metadata {
	page := int64(b.opts.PageSize)
	if page == 0 {
		page = trie.DefaultPageSize
	}
	size := b.out.Position()
	return Metadata{
		Keys:        b.trie.Count(),
		Size:        size,
		Root:        root,
		FirstKeyPos: firstKeyPos,
		PageSize:    page,
		Pages:       (size + page - 1) / page,
	}
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
		b.WriteString(trie.NodeTypeName(byte(t << 4)))
		b.WriteByte('=')
		b.WriteString(strconv.FormatInt(v, 10))
	}
	return b.String()
}

// NodeCounts walks every node reachable from the root (iteratively, each
// node at most once, so any depth and any bytes are safe) and counts them by
// type. It reads the index's memory: call it only while the index is open.
func (ix *Index) NodeCounts() (NodeCounts, error) {
	st, err := ix.trie.Stats()
	if err != nil {
		return NodeCounts{}, err
	}
	return NodeCounts(st.ByType), nil
}
