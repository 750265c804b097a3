package partitionfile

import (
	"bytes"

	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/internal/invariants"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// Early open. While a long compaction writes an sstable, Cassandra may want
// to read what is written so far. The builder then takes a partial view of
// the trie (everything not yet in the file goes into an in-memory tail), and
// hands it out once the data, row-index and partition-index files have been
// flushed far enough for the view to be readable. The protocol is Cassandra's
// PartitionIndexBuilder.buildPartial with its markXSynced notifications;
// partitionindex.Builder.BuildPartial documents it for callers.

// View has partitionindex.PartialIndex's fields, which that type documents,
// in its order (a *View converts to a *PartialIndex).
type View struct {
	Partitioner         partitioner.Partitioner
	Root, Cutoff, Count int64
	Tail                []byte
	FirstKey, LastKey   []byte
}

// EarlyOpen is a writer's early-open state: the view waiting for the files
// to be synced, and how far each file is. The zero value has no view.
type EarlyOpen struct {
	consumer  func(*View)
	view      *View
	trieCount int64 // keys in the trie when the last view was taken
	dataEnd   int64
	rowEnd    int64
	indexEnd  int64
	// How far each file is known to be flushed.
	dataSynced, rowSynced, indexSynced int64
}

// Request takes a view of t, the writer's trie, for ready, to be handed out
// once the data file is synced to dataEnd, the row index to rowIndexEnd and
// the index to t's position now. first and last are the raw partition keys
// of the view's first and last entries (copied). It returns false, and does
// nothing, when no key reached the trie since the previous view or a view
// is still waiting.
func (e *EarlyOpen) Request(t *trie.Writer, p partitioner.Partitioner, first, last []byte, rowIndexEnd, dataEnd int64, ready func(*View)) (bool, error) {
	if t.Count() == e.trieCount || e.consumer != nil {
		return false, nil
	}
	tail, err := t.MakePartialRoot()
	if err != nil {
		return false, err
	}
	e.view = &View{
		Partitioner: p, Root: tail.Root, Cutoff: tail.Cutoff, Count: tail.Count, Tail: tail.Tail,
		FirstKey: bytes.Clone(first), LastKey: bytes.Clone(last),
	}
	e.trieCount = t.Count()
	e.dataEnd, e.rowEnd, e.indexEnd = dataEnd, rowIndexEnd, t.Position()
	e.consumer = ready
	return true, nil
}

// Drop forgets a waiting view: it never fires (Complete calls it).
func (e *EarlyOpen) Drop() { e.consumer, e.view = nil, nil }

// MarkDataSynced records that the data file is flushed up to position.
func (e *EarlyOpen) MarkDataSynced(position int64) {
	e.dataSynced = position
	e.refresh()
}

// MarkRowIndexSynced records that the row index file is flushed up to position.
func (e *EarlyOpen) MarkRowIndexSynced(position int64) {
	e.rowSynced = position
	e.refresh()
}

// MarkPartitionIndexSynced records that the index file is flushed up to
// position (bytes the writer handed to its io.Writer).
func (e *EarlyOpen) MarkPartitionIndexSynced(position int64) {
	e.indexSynced = position
	e.refresh()
}

func (e *EarlyOpen) refresh() {
	if e.consumer == nil || e.dataSynced < e.dataEnd || e.rowSynced < e.rowEnd || e.indexSynced < e.indexEnd {
		return
	}
	ready, view := e.consumer, e.view
	e.consumer, e.view = nil, nil
	ready(view)
}

// RequestSynced is the sequence Cassandra's compaction runs when it opens an
// sstable early, for a writer whose three files are synced together: it
// flushes out (the writer's buffer, which t appends to), takes the view
// (Request's arguments) and marks all three files synced, so the view is
// returned ready. It returns a nil view and no error when the request is
// declined. The flush comes first so that a write error leaves no view
// waiting.
func (e *EarlyOpen) RequestSynced(t *trie.Writer, out *indexfile.Buffer, p partitioner.Partitioner, first, last []byte, rowIndexEnd, dataEnd int64) (*View, error) {
	if err := out.Flush(); err != nil {
		return nil, err
	}
	flushed := out.Position()
	var view *View
	accepted, err := e.Request(t, p, first, last, rowIndexEnd, dataEnd, func(v *View) { view = v })
	if err != nil {
		return nil, err
	}
	// Taking a view writes nothing (its unwritten nodes go to its own
	// tail), so the position is still the flushed one the view needs.
	if invariants.Enabled && out.Position() != flushed {
		panic("partitionfile: taking an early-open view buffered file bytes; the index is not synced to its position")
	}
	e.MarkDataSynced(dataEnd)
	e.MarkRowIndexSynced(rowIndexEnd)
	e.MarkPartitionIndexSynced(out.Position())
	if invariants.Enabled && accepted && view == nil {
		panic("partitionfile: an accepted early-open view was not ready after all three files were marked synced")
	}
	return view, nil
}
