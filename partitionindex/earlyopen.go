package partitionindex

import "github.com/bti-go/bti/internal/invariants"

// BuildPartialSynced takes an early-open view for a caller whose three files
// are synced together: the data file is already flushed to dataEnd and the
// row index to rowIndexEnd. It flushes this index's buffered bytes, takes the
// view (BuildPartial) and reports all three files synced, so the view is
// ready when it returns. This is the sequence Cassandra's compaction runs
// when it opens an sstable early, written once:
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
	if err := b.Flush(); err != nil {
		return nil, err
	}
	flushed := b.Position()
	var view *PartialIndex
	accepted, err := b.BuildPartial(rowIndexEnd, dataEnd, func(p *PartialIndex) { view = p })
	if err != nil {
		return nil, err
	}
	// BuildPartial writes nothing (the view's unwritten nodes go to its own
	// tail), so Position is still the flushed position the view needs.
	if invariants.Enabled && b.Position() != flushed {
		panic("partitionindex: BuildPartial buffered file bytes; the index is not synced to Position")
	}
	b.MarkDataSynced(dataEnd)
	b.MarkRowIndexSynced(rowIndexEnd)
	b.MarkPartitionIndexSynced(b.Position())
	if invariants.Enabled && accepted && view == nil {
		panic("partitionindex: an accepted early-open view was not ready after all three files were marked synced")
	}
	return view, nil
}
