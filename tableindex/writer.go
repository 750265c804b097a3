// Package tableindex writes the two index files of a BTI sstable side by
// side, as Cassandra's BtiTableWriter.IndexWriter does: Rows.db (the row
// index of every partition with more than one index block, followed by its
// entry) and Partitions.db (each partition key with the position of its
// Rows.db entry, or ^its Data.db position when it has no row index).
package tableindex

import (
	"errors"
	"fmt"
	"io"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/rowindex"
)

// Options configures a Writer.
type Options struct {
	Partitioner partitioner.Partitioner
	Columns     []bytecomparable.Column // the table's clustering columns
	// PageSize is for tests only (0: Cassandra's 4096).
	PageSize int
}

var (
	// ErrKeyOrder: a partition key that does not sort after the previous one
	// under the partitioner. It is partitionindex.ErrKeyOrder: the
	// partition index builder checks the order.
	ErrKeyOrder = partitionindex.ErrKeyOrder
	// ErrState: calls out of sequence (a block before StartPartition, a
	// partition started before the previous one finished, …).
	ErrState = errors.New("tableindex: call out of sequence")
)

// KeyError reports a refused partition key (out of order, too long): it is
// partitionindex.KeyError, from the partition index builder's check.
type KeyError = partitionindex.KeyError

// Writer is driven per partition by an sstable writer:
//
//	w.StartPartition(key, dataPos, deletion)
//	w.AddBlock(block) …            // the partition's index blocks in order
//	res, err := w.FinishPartition(endPos)
//	…
//	w.Complete()
//
// Every call that fails leaves the Writer as it was, so it may be retried;
// FinishPartition in particular may be retried after a write error.
type Writer struct {
	opts  Options
	rows  *rowindex.Writer
	parts *partitionindex.Builder

	inPartition bool
	key         []byte          // the current partition's key (a copy)
	dkey        partitioner.Key // key decorated: its Raw is key
	dataPos     int64
	deletion    rowindex.DeletionTime
	// pending is a finished partition whose Rows.db part is written but
	// whose partition index entry is not yet added (that write failed).
	pending    rowindex.Result
	hasPending bool
	completed  bool
}

// NewWriter returns a Writer writing Partitions.db to partitions and
// Rows.db to rows, both from position 0.
func NewWriter(partitions, rows io.Writer, opts Options) *Writer {
	w := &Writer{}
	w.Reset(partitions, rows, opts)
	return w
}

// Reset starts new Partitions.db and Rows.db files on partitions and rows,
// keeping allocated memory.
func (w *Writer) Reset(partitions, rows io.Writer, opts Options) {
	rowOpts := rowindex.Options{Columns: opts.Columns, PageSize: opts.PageSize}
	partOpts := partitionindex.Options{Partitioner: opts.Partitioner, PageSize: opts.PageSize}
	if w.rows == nil {
		w.rows = rowindex.NewWriter(rows, rowOpts)
		w.parts = partitionindex.NewBuilder(partitions, partOpts)
	} else {
		w.rows.Reset(rows, rowOpts)
		w.parts.Reset(partitions, partOpts)
	}
	w.opts = opts
	w.inPartition, w.hasPending, w.completed = false, false, false
	w.key = w.key[:0]
}

// StartPartition begins a partition: its key, its position in Data.db and
// its partition-level deletion. Keys must come in the partitioner's order.
func (w *Writer) StartPartition(key []byte, dataPos int64, deletion rowindex.DeletionTime) error {
	if w.completed || w.inPartition || w.hasPending {
		return fmt.Errorf("%w: StartPartition while a partition is open or unfinished, or after Complete", ErrState)
	}
	if dataPos < 0 {
		return fmt.Errorf("%w: negative data position %d", rowindex.ErrOffset, dataPos)
	}
	// Refused here, before any of its blocks reach Rows.db, by the check
	// Add makes when the partition finishes. (Outside a partition w.key
	// means nothing, so a refused key may overwrite it.)
	w.key = append(w.key[:0], key...)
	w.dkey = w.opts.Partitioner.Decorate(w.key)
	if err := w.parts.Check(&w.dkey); err != nil {
		return err
	}
	w.dataPos = dataPos
	w.deletion = deletion
	w.inPartition = true
	return nil
}

// AddBlock adds the current partition's next index block.
func (w *Writer) AddBlock(b rowindex.Block) error {
	if !w.inPartition {
		return fmt.Errorf("%w: AddBlock outside a partition", ErrState)
	}
	return w.rows.Add(&b)
}

// FinishPartition ends the current partition at endPos (relative to its
// start): with more than one block its row index and entry go to Rows.db
// and the partition index gets the entry's position, otherwise the
// partition index gets ^dataPos. It returns what was stored.
func (w *Writer) FinishPartition(endPos int64) (rowindex.Result, error) {
	if !w.hasPending {
		if !w.inPartition {
			return rowindex.Result{}, fmt.Errorf("%w: FinishPartition outside a partition", ErrState)
		}
		res, err := w.rows.FinishPartition(w.key, w.dataPos, endPos, w.deletion)
		if err != nil {
			return rowindex.Result{}, err
		}
		w.pending, w.hasPending, w.inPartition = res, true, false
	}
	if err := w.parts.Add(&w.dkey, w.pending.Value); err != nil {
		return rowindex.Result{}, err
	}
	w.hasPending = false
	return w.pending, nil
}

// Complete finishes both files: Rows.db is flushed, Partitions.db completed
// with its footer. It returns the partition index's metadata. A failed
// Complete may be called again.
func (w *Writer) Complete() (partitionindex.Metadata, error) {
	if w.inPartition || w.hasPending {
		return partitionindex.Metadata{}, fmt.Errorf("%w: Complete with an unfinished partition", ErrState)
	}
	w.completed = true
	if err := w.rows.Complete(); err != nil {
		return partitionindex.Metadata{}, err
	}
	return w.parts.Complete()
}

// RowsPosition returns the current Rows.db position.
func (w *Writer) RowsPosition() int64 { return w.rows.Position() }
