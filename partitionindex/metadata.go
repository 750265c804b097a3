package partitionindex

import (
	"github.com/bti-go/bti/internal/partitionfile"
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
// The audit package counts them on an open Index by walking its trie
// (audit.CountNodes); that is O(nodes), so it is a separate call rather
// than a cost of every Complete.

// metadata fills Metadata for a trie whose root is at root and whose footer
// starts at firstKeyPos, once the footer is appended: the file ends at the
// builder's position.
func (b *Builder) metadata(root, firstKeyPos int64) Metadata {
	page := int64(b.opts.PageSize)
	if page == 0 {
		page = trie.DefaultPageSize
	}
	return Metadata(partitionfile.Describe(b.trie.Count(), b.out.Position(), root, firstKeyPos, page))
}
