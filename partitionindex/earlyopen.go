package partitionindex

// BuildPartialSynced takes an early-open view for a caller whose three files
// are synced together: the data file is already flushed to dataEnd and the
// row index to rowIndexEnd. It flushes this index's buffered bytes, takes the
// view (BuildPartial) and reports all three files synced, so the view is
// ready when it returns. This is the sequence Cassandra's compaction runs
// when it opens an sstable early, written once (in
// internal/partitionfile, for both builders):
//
//	Flush
//	BuildPartial(rowIndexEnd, dataEnd, ready)
//	MarkDataSynced(dataEnd)
//	MarkRowIndexSynced(rowIndexEnd)
//	MarkPartitionIndexSynced(Position())
//
// It returns a nil view, and no error, when the builder declines the request
// (no key reached the trie since the previous view, or a view requested with
// BuildPartial is still waiting: the sync marks then complete that view,
// whose own callback receives it). The flush comes first so that a write
// error leaves no view waiting: it is returned and nothing else has changed.
// Taking the view changes later layout decisions as BuildPartial does.
//
// Callers whose files are flushed at different times use BuildPartial and
// the Mark*Synced calls directly.
func (b *Builder) BuildPartialSynced(rowIndexEnd, dataEnd int64) (*PartialIndex, error) {
	if b.finishing {
		return nil, ErrFinished
	}
	v, err := b.partial.RequestSynced(&b.trie, &b.out, b.opts.Partitioner, b.firstKey, b.lastTrieRaw(), rowIndexEnd, dataEnd)
	return (*PartialIndex)(v), err
}
