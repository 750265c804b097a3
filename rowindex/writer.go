package rowindex

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/ring"
	"github.com/bti-go/bti/trie"
)

// Path selects how the writer produces separators. Both write identical
// files.
type Path uint8

const (
	// PathScratch encodes each clustering once into a slot of a three-slot
	// ring and makes each separator in place from the previous block's last
	// clustering: no allocation per block.
	PathScratch Path = iota
	// PathReference allocates: clusterings are kept as values and encoded
	// afresh for every use, and separators are built a byte at a time the
	// way Cassandra's streams produce them. It exists to check the scratch
	// path.
	PathReference
)

func (p Path) String() string {
	if p == PathReference {
		return "reference"
	}
	return "scratch"
}

// ParsePath parses "scratch" or "reference".
func ParsePath(s string) (Path, error) {
	switch s {
	case "scratch":
		return PathScratch, nil
	case "reference":
		return PathReference, nil
	}
	return 0, errors.New("rowindex: unknown path " + strconv.Quote(s) + " (want scratch or reference)")
}

// Options configures a Writer.
type Options struct {
	// Columns are the table's clustering columns, in order.
	Columns []bytecomparable.Column
	Path    Path
	// PageSize is for tests only: anything but 0 (4096) gives files
	// Cassandra did not write.
	PageSize int
}

// Block is one index block of a partition: its first and last clustering
// (serialized values, one per clustering column), its offset relative to
// the partition's start in Data.db, and the range tombstone open before it.
//
// A block may also start or end with a range tombstone marker, whose
// clustering is a bound or boundary, possibly of fewer components: its
// kind goes in FirstKind or LastKind (the zero value, Clustering, is a
// row). Boundaries encode as the bound of the same terminator
// (ExclusiveEnd for an exclusive-end-inclusive-start boundary,
// InclusiveEnd for the other).
type Block struct {
	First, Last         [][]byte
	FirstKind, LastKind bytecomparable.PrefixKind
	Offset              int64
	OpenDeletion        DeletionTime
}

// Result is what a finished partition adds to the partition index.
type Result struct {
	// Value is what Partitions.db stores for the key: the Rows.db position
	// of the partition's entry, or ^dataPosition (negative) when the
	// partition has at most one block and so no row index.
	Value  int64
	Root   int64 // the row index root, -1 when not indexed
	Blocks int
}

// Writer writes a Rows.db file: for each partition, Add its index blocks in
// clustering order, then FinishPartition (or CompletePartition and
// AppendEntry, then ResetPartition); Complete ends the file. The verbs mean
// what they mean for every writer of the module: Add one item, Complete the
// file, Reset(w, opts) to start a new file; the per-partition steps carry
// "Partition" in their names. Like Cassandra's RowIndexWriter it stores, per block, the
// separator s with prevMax < s <= first that separatorGt makes (the common
// prefix and prevMax's next byte plus one; the empty key for the first
// block), with the block's offset and open deletion as payload, and
// at CompletePartition one more key just above the last block's last clustering
// carrying the partition's end position. The trie of each partition is
// laid out in 4 KiB pages aligned to the file, right after the previous
// partition's entry.
//
// Memory: the unwritten part of one partition's trie plus three encoded
// clusterings. A warm Writer allocates nothing per block on the scratch
// path.
//
// Caller memory: Add copies what it keeps.
//
// Errors: a refused block (*BlockError) or a failed write leaves the writer
// exactly as before the call, so the caller may retry or go on. Bytes are
// handed to the sink in batches at the start of a later call or by Flush;
// a sink error is returned from that call and a retry writes the rest.
// After Complete, Add and FinishPartition return ErrFinished.
type Writer struct {
	opts Options
	trie *trie.Writer
	// out holds the file's bytes not yet taken by the sink: each
	// partition's trie appends its nodes to it and AppendEntry the entry
	// after them, so a byte is copied once, into the sink.
	out indexfile.Buffer

	count      int   // blocks added to this partition
	lastOffset int64 // offset of the last block
	completed  bool  // the trie was completed (ResetPartition before the next Add)
	finished   bool  // Complete was called: the file is ended
	root       int64

	// Scratch path: Current is the last block's last clustering (prevMax);
	// Previous's first sepLen bytes are the last separator, made in place
	// from the clustering that slot held (the trie keeps reading it until
	// the next Add).
	keys    ring.Ring
	sepLen  int
	first   []byte // the new block's first clustering; the nudged end key
	payload [32]byte

	ref refState // reference path
}

// NewWriter returns a Writer that writes to w, whose current position is
// taken as the start of the file.
func NewWriter(w io.Writer, opts Options) *Writer {
	rw := &Writer{trie: trie.NewWriter(nil, trie.Options{PageSize: opts.PageSize})}
	rw.Reset(w, opts)
	return rw
}

// Reset starts a new Rows.db on w, keeping allocated memory.
func (w *Writer) Reset(dst io.Writer, opts Options) {
	w.opts = opts
	w.out.Reset(dst, 0, "rowindex")
	w.finished = false
	w.ResetPartition()
}

// ResetPartition starts a new partition at the current position,
// forgetting the blocks added since the last ResetPartition (Cassandra's
// RowIndexWriter.reset). FinishPartition calls it. Called in the middle of
// a partition it abandons that partition's trie; pages of it already
// written stay in the file, unreferenced, as they would in Cassandra's.
func (w *Writer) ResetPartition() {
	w.trie.Reset(&w.out, trie.Options{PageSize: w.opts.PageSize, StartPosition: w.Position()})
	w.count = 0
	w.lastOffset = 0
	w.completed = false
	w.root = -1
	w.keys.Reset()
	w.sepLen = 0
	w.ref = refState{}
}

// Position returns the file position the next byte will have.
func (w *Writer) Position() int64 { return w.out.Position() }

// Blocks returns the number of blocks added to the current partition.
func (w *Writer) Blocks() int { return w.count }

// Flush hands every buffered byte to the sink. On error the bytes the sink
// did not take stay buffered for the next attempt.
func (w *Writer) Flush() error { return w.out.Flush() }

// maybeFlush flushes when enough bytes are buffered; it is called before
// any state changes.
func (w *Writer) maybeFlush() error {
	if w.out.Full() {
		return w.out.Flush()
	}
	return nil
}

// Add adds the next index block of the current partition. Blocks come in
// clustering order, each starting after the previous one ends, at
// increasing offsets.
func (w *Writer) Add(b Block) error {
	if w.finished {
		return ErrFinished
	}
	if w.completed {
		return ErrCompleted
	}
	if err := w.maybeFlush(); err != nil {
		return err
	}
	if err := w.checkBlock(b); err != nil {
		return err
	}
	if w.opts.Path == PathReference {
		return w.addReference(b)
	}
	return w.addScratch(b)
}

func (w *Writer) blockError(err error, reason string) error {
	return &BlockError{Err: err, Block: w.count, Reason: reason}
}

// checkBlock checks what does not need encodings.
func (w *Writer) checkBlock(b Block) error {
	switch {
	case b.Offset < 0:
		return w.blockError(ErrOffset, "negative offset "+strconv.FormatInt(b.Offset, 10))
	case w.count > 0 && b.Offset <= w.lastOffset:
		return w.blockError(ErrOffset, "offset "+strconv.FormatInt(b.Offset, 10)+" is not after the previous block's "+strconv.FormatInt(w.lastOffset, 10))
	case sizedIntSize(b.Offset) >= 8:
		return w.blockError(ErrOffset, "offset "+strconv.FormatInt(b.Offset, 10)+" too large for the row index")
	case !b.OpenDeletion.valid():
		return w.blockError(ErrDeletion, "open deletion with negative markedForDeleteAt "+strconv.FormatInt(b.OpenDeletion.MarkedForDeleteAt, 10))
	}
	return nil
}

// encodeError wraps a clustering that does not fit the columns.
func (w *Writer) encodeError(which string, err error) error {
	return &BlockError{Err: err, Block: w.count, Reason: which + " clustering: " + err.Error()}
}

// orderError checks first <= last and prevMax < first over encodings.
func (w *Writer) orderError(prevMax, first, last []byte) error {
	if bytes.Compare(first, last) > 0 {
		return w.blockError(ErrBlockOrder, fmt.Sprintf("first clustering %x sorts after its last clustering %x", first, last))
	}
	if w.count > 0 && bytes.Compare(prevMax, first) >= 0 {
		return w.blockError(ErrBlockOrder, fmt.Sprintf("first clustering %x does not sort after the previous block's last clustering %x (blocks out of order or overlapping)", first, prevMax))
	}
	return nil
}

// addScratch encodes the block's clusterings once and makes the separator
// in place: prevMax[:d] is shared with first and prevMax[d] < first[d], so
// the separator is prevMax[:d+1] with its last byte incremented (it cannot
// overflow: it is below first[d]). prevMax is not needed after this block,
// so its slot becomes the separator's home; the trie reads it until the
// next Add, by which time the ring has made it Previous, not yet reused.
func (w *Writer) addScratch(b Block) error {
	cols := w.opts.Columns
	first, err := bytecomparable.AppendClustering(w.first[:0], cols, b.First, b.FirstKind)
	if err != nil {
		return w.encodeError("first", err)
	}
	w.first = first
	last, err := bytecomparable.AppendClustering(w.keys.Scratch(), cols, b.Last, b.LastKind)
	if err != nil {
		return w.encodeError("last", err)
	}
	prevMax := w.keys.Current()
	if err := w.orderError(prevMax, first, last); err != nil {
		return err
	}
	p, flags := appendPayload(w.payload[:0], b.Offset, b.OpenDeletion)
	sepLen := 0
	if w.count == 0 {
		if err := w.trie.Add(nil, flags, p); err != nil {
			return err
		}
	} else {
		// Clustering prefixes of every kind are prefix-free (each ends in a
		// terminator where any longer one has a separator or another
		// terminator), so prevMax < first differ at some d < len(prevMax).
		d := bytecomparable.DiffPoint(prevMax, first) - 1
		orig := prevMax[d]
		prevMax[d]++
		if err := w.trie.Add(prevMax[:d+1], flags, p); err != nil {
			prevMax[d] = orig
			return err
		}
		sepLen = d + 1
	}
	w.keys.Commit(last)
	w.sepLen = sepLen
	w.count++
	w.lastOffset = b.Offset
	return nil
}

// CompletePartition adds the end key (the last block's last clustering nudged up
// at the length of the last separator, so that larger keys are rejected
// quickly) with endPos as its offset, writes the rest of the partition's
// trie and returns its root. endPos is where the partition ends, relative
// to its start. Call it only for partitions of two or more blocks if the
// file is to be Cassandra's: a one-block partition gets no row index.
func (w *Writer) CompletePartition(endPos int64) (root int64, err error) {
	if w.completed {
		return w.root, nil
	}
	if w.count == 0 {
		return -1, ErrNoBlocks
	}
	if endPos <= w.lastOffset || sizedIntSize(endPos) >= 8 {
		return -1, &BlockError{Err: ErrOffset, Block: w.count, Reason: "end position " + strconv.FormatInt(endPos, 10) + " is not after the last block's offset " + strconv.FormatInt(w.lastOffset, 10)}
	}
	if err := w.maybeFlush(); err != nil {
		return -1, err
	}
	var end []byte
	if w.opts.Path == PathReference {
		end = w.refEndKey()
	} else {
		prevMax := w.keys.Current()
		var prevSep []byte
		if w.count > 1 {
			prevSep = w.keys.Previous()[:w.sepLen]
		}
		i := bytecomparable.DiffPoint(prevMax, prevSep) - 1
		end = nudge(w.first[:0], prevMax, i)
		w.first = end
	}
	p, flags := appendPayload(w.payload[:0], endPos, Live)
	if err := w.trie.Add(end, flags, p); err != nil {
		return -1, err
	}
	// The trie appends its last part to w.out, handing full batches to
	// the sink as it goes. If a hand-over fails, the trie is complete all
	// the same and what the sink refused stays in w.out: the partition is
	// completed (a retry returns the root) and the next call that flushes
	// retries the bytes.
	root, err = w.trie.Complete()
	w.completed = true
	w.root = root
	return root, err
}

// nudge appends to dst the key Cassandra's RowIndexWriter.nudge makes from
// max: max[:at], then max[at]+1; a 0xFF there cannot be nudged, so it is
// kept and the next byte is nudged instead, and past the end of max the
// nudged "byte" is end-of-stream + 1, a 00.
func nudge(dst, max []byte, at int) []byte {
	for ; at < len(max) && max[at] == 0xFF; at++ {
	}
	dst = append(dst, max[:min(at, len(max))]...)
	if at < len(max) {
		return append(dst, max[at]+1)
	}
	return append(dst, 0)
}

// AppendEntry writes the partition entry the table writer appends after a
// completed row index trie (see appendEntry) and returns its position, the
// value Partitions.db holds for the key.
func (w *Writer) AppendEntry(key []byte, dataPos, root int64, blocks int, deletion DeletionTime) (int64, error) {
	switch {
	case w.finished:
		return -1, ErrFinished
	case len(key) > partitioner.MaxKeyLength:
		return -1, fmt.Errorf("%w: %d bytes", ErrKey, len(key))
	case dataPos < 0:
		return -1, fmt.Errorf("%w: negative data position %d", ErrOffset, dataPos)
	case !deletion.valid():
		return -1, fmt.Errorf("%w: partition deletion with negative markedForDeleteAt %d", ErrDeletion, deletion.MarkedForDeleteAt)
	}
	if err := w.maybeFlush(); err != nil {
		return -1, err
	}
	pos := w.Position()
	w.out.B = appendEntry(w.out.B, pos, key, dataPos, root, blocks, deletion)
	return pos, nil
}

// FinishPartition ends the current partition as Cassandra's partition and
// table writers do: with more than one block, the trie is completed at
// endPos and the entry (key, dataPos, root, block count, partition
// deletion) appended; otherwise nothing is written and the partition index
// will point at Data.db directly. It then starts the next partition.
func (w *Writer) FinishPartition(key []byte, dataPos, endPos int64, deletion DeletionTime) (Result, error) {
	if w.finished {
		return Result{}, ErrFinished
	}
	if dataPos < 0 {
		return Result{}, fmt.Errorf("%w: negative data position %d", ErrOffset, dataPos)
	}
	if len(key) > partitioner.MaxKeyLength {
		return Result{}, fmt.Errorf("%w: %d bytes", ErrKey, len(key))
	}
	if !deletion.valid() {
		return Result{}, fmt.Errorf("%w: partition deletion with negative markedForDeleteAt %d", ErrDeletion, deletion.MarkedForDeleteAt)
	}
	res := Result{Value: indexfile.DataPosition(dataPos), Root: -1, Blocks: w.count}
	if w.count > 1 {
		root, err := w.CompletePartition(endPos)
		if err != nil {
			return Result{}, err
		}
		pos, err := w.AppendEntry(key, dataPos, root, w.count, deletion)
		if err != nil {
			return Result{}, err
		}
		res.Value, res.Root = indexfile.RowIndexPosition(pos), root
	}
	w.ResetPartition()
	return res, nil
}

// Complete ends the file: it hands every buffered byte to the sink. The
// file ends after the last finished partition's entry; a partition with
// blocks but not finished is an error (ErrUnfinished), since its trie
// would be in the file without an entry to reach it. On a write error
// the bytes the sink did not take stay buffered and calling Complete
// again retries them. After Complete, Add and FinishPartition return
// ErrFinished.
func (w *Writer) Complete() error {
	if !w.finished && (w.count > 0 || w.completed) {
		return ErrUnfinished
	}
	w.finished = true
	return w.out.Flush()
}
