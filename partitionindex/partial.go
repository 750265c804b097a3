package partitionindex

import (
	"fmt"

	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/partitioner"
)

// Early open. While a long compaction writes an sstable, Cassandra may want
// to read what is written so far. The builder then takes a partial view of
// the trie (everything not yet in the file goes into an in-memory tail), and
// hands it out once the data, row-index and partition-index files have been
// flushed far enough for the view to be readable. The protocol is Cassandra's
// PartitionIndexBuilder.buildPartial with its markXSynced notifications; its
// bookkeeping is internal/partitionfile.EarlyOpen, shared with the reference
// builder.

// PartialIndex is an early-open view of an index still being written: the
// keys that reached the trie so far (all but the most recent one, since the
// builder lags one key behind). Positions below Cutoff are read from the
// file, positions from Cutoff on from Tail. (The builder fills it as an
// internal/partitionfile.View, which has the same fields.)
type PartialIndex struct {
	Partitioner partitioner.Partitioner
	Root        int64
	Cutoff      int64
	Count       int64
	Tail        []byte
	FirstKey    []byte // raw partition keys
	LastKey     []byte
}

// NewIndex opens the view over file, the bytes of the Partitions.db file as
// written so far (for example a memory map of it, or the sink's buffer). It
// must hold every byte the view was taken over; bytes at or past Cutoff are
// ignored. (The file may end before Cutoff, which is the written position
// rounded up to a page.) It never panics, whatever the fields hold: a view
// whose fields cannot describe the file (a negative cutoff or count, a root
// outside both parts) is refused with a *CorruptError, an unknown
// Partitioner with ErrPartitioner, and FirstKey and LastKey that do not
// resolve to the view's first and last entries under Partitioner with a
// *PartitionerMismatchError, as NewIndex does for a complete file.
func (p *PartialIndex) NewIndex(file []byte) (*Index, error) {
	switch {
	case p.Cutoff < 0:
		return nil, &CorruptError{Offset: 0, Reason: fmt.Sprintf("early-open view with negative cutoff %d", p.Cutoff)}
	case p.Count < 0:
		return nil, &CorruptError{Offset: 0, Reason: fmt.Sprintf("early-open view with negative key count %d", p.Count)}
	}
	return newIndex(file, p.Partitioner, view{
		root: p.Root, cutoff: p.Cutoff, tail: p.Tail, count: p.Count,
		firstKey: p.FirstKey, lastKey: p.LastKey,
	})
}

// BuildPartial prepares an early-open view of the keys written so far and
// calls ready with it once the data file is flushed to dataEnd, the row index
// to rowIndexEnd and this index to the position it has now (see the MarkSynced
// methods); ready runs inside the next Mark call that finds all three
// conditions met (as in Cassandra, never inside BuildPartial). It returns false, and
// does nothing, when no key reached the trie since the previous view or a
// previous view is still waiting. Taking a view changes later layout
// decisions exactly as in Cassandra, so the final file depends on when views
// were taken.
func (b *Builder) BuildPartial(rowIndexEnd, dataEnd int64, ready func(*PartialIndex)) (bool, error) {
	if b.finishing {
		return false, ErrFinished
	}
	return b.partial.Request(&b.trie, b.opts.Partitioner, b.firstKey, b.lastTrieRaw(), rowIndexEnd, dataEnd,
		func(v *partitionfile.View) { ready((*PartialIndex)(v)) })
}

// MarkDataSynced records that the data file is flushed up to position.
func (b *Builder) MarkDataSynced(position int64) { b.partial.MarkDataSynced(position) }

// MarkRowIndexSynced records that the row index file is flushed up to position.
func (b *Builder) MarkRowIndexSynced(position int64) { b.partial.MarkRowIndexSynced(position) }

// MarkPartitionIndexSynced records that this index's file is flushed up to
// position (bytes the builder handed to its writer, see Flush).
func (b *Builder) MarkPartitionIndexSynced(position int64) {
	b.partial.MarkPartitionIndexSynced(position)
}
