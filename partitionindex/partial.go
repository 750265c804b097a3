package partitionindex

import (
	"bytes"
	"fmt"

	"github.com/bti-go/bti/partitioner"
)

// Early open. While a long compaction writes an sstable, Cassandra may want
// to read what is written so far. The builder then takes a partial view of
// the trie (everything not yet in the file goes into an in-memory tail), and
// hands it out once the data, row-index and partition-index files have been
// flushed far enough for the view to be readable. The protocol is Cassandra's
// PartitionIndexBuilder.buildPartial with its markXSynced notifications.

// PartialIndex is an early-open view of an index still being written: the
// keys that reached the trie so far (all but the most recent one, since the
// builder lags one key behind). Positions below Cutoff are read from the
// file, positions from Cutoff on from Tail.
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

type partialState struct {
	consumer  func(*PartialIndex)
	view      *PartialIndex
	trieCount int64 // keys in the trie when the last view was taken
	dataEnd   int64
	rowEnd    int64
	indexEnd  int64
	// How far each file is known to be flushed.
	dataSynced, rowSynced, indexSynced int64
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
	if b.trie.Count() == b.partial.trieCount {
		return false, nil
	}
	if b.partial.consumer != nil {
		return false, nil
	}
	tail, err := b.trie.MakePartialRoot()
	if err != nil {
		return false, err
	}
	b.partial.view = &PartialIndex{
		Partitioner: b.opts.Partitioner,
		Root:        tail.Root,
		Cutoff:      tail.Cutoff,
		Count:       tail.Count,
		Tail:        tail.Tail,
		FirstKey:    bytes.Clone(b.firstKey),
		LastKey:     bytes.Clone(b.lastTrieRaw()),
	}
	b.partial.trieCount = b.trie.Count()
	b.partial.dataEnd = dataEnd
	b.partial.rowEnd = rowIndexEnd
	b.partial.indexEnd = b.trie.Position()
	b.partial.consumer = ready
	return true, nil
}

// MarkDataSynced records that the data file is flushed up to position.
func (b *Builder) MarkDataSynced(position int64) {
	b.partial.dataSynced = position
	b.refreshPartial()
}

// MarkRowIndexSynced records that the row index file is flushed up to position.
func (b *Builder) MarkRowIndexSynced(position int64) {
	b.partial.rowSynced = position
	b.refreshPartial()
}

// MarkPartitionIndexSynced records that this index's file is flushed up to
// position (bytes the builder handed to its writer, see Flush).
func (b *Builder) MarkPartitionIndexSynced(position int64) {
	b.partial.indexSynced = position
	b.refreshPartial()
}

func (b *Builder) refreshPartial() {
	s := &b.partial
	if s.consumer == nil || s.dataSynced < s.dataEnd || s.rowSynced < s.rowEnd || s.indexSynced < s.indexEnd {
		return
	}
	ready, view := s.consumer, s.view
	s.consumer, s.view = nil, nil
	ready(view)
}
