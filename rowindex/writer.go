package rowindex

import (
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/rowfile"
	"github.com/bti-go/bti/ring"
)

// Options configures a Writer.
type Options struct {
	// Columns are the table's clustering columns, in order.
	Columns []bytecomparable.Column
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
// clusterings. A warm Writer allocates nothing per block.
//
// Caller memory: Add copies what it keeps.
//
// Errors: a refused block (*BlockError) or a failed write leaves the writer
// exactly as before the call, so the caller may retry or go on. Bytes are
// handed to the sink in batches at the start of a later call or by Flush;
// a sink error is returned from that call and a retry writes the rest.
// After Complete, Add and FinishPartition return ErrFinished.
type Writer struct {
	core rowfile.Writer // checks, payloads, the trie, the sink
	cols []bytecomparable.Column

	// Current is the last block's last clustering (prevMax); Previous's
	// first sepLen bytes are the last separator, made in place from the
	// clustering that slot held (the trie keeps reading it until the next
	// Add).
	keys   ring.Ring
	sepLen int
	// firstLast is how many leading bytes the last block's first and
	// last clusterings share; with sepLen it gives the new separator's
	// shared length with the last one (sharedWithLastSep).
	firstLast int
	first     []byte // the new block's first clustering; the nudged end key
}

// NewWriter returns a Writer that writes to w, whose current position is
// taken as the start of the file.
func NewWriter(w io.Writer, opts Options) *Writer {
	rw := &Writer{}
	rw.Reset(w, opts)
	return rw
}

// Reset starts a new Rows.db on w, keeping allocated memory.
func (w *Writer) Reset(dst io.Writer, opts Options) {
	w.cols = opts.Columns
	w.core.Reset(dst, opts.PageSize)
	w.ResetPartition()
}

// ResetPartition starts a new partition at the current position,
// forgetting the blocks added since the last ResetPartition (Cassandra's
// RowIndexWriter.reset). FinishPartition calls it. Called in the middle of
// a partition it abandons that partition's trie; pages of it already
// written stay in the file, unreferenced, as they would in Cassandra's.
func (w *Writer) ResetPartition() {
	w.core.ResetPartition()
	w.keys.Reset()
	w.sepLen, w.firstLast = 0, 0
}

// Position returns the file position the next byte will have.
func (w *Writer) Position() int64 { return w.core.Position() }

// Blocks returns the number of blocks added to the current partition.
func (w *Writer) Blocks() int { return w.core.Blocks() }

// Flush hands every buffered byte to the sink. On error the bytes the sink
// did not take stay buffered for the next attempt.
func (w *Writer) Flush() error { return w.core.Flush() }

// Add adds the next index block of the current partition. Blocks come in
// clustering order, each starting after the previous one ends, at
// increasing offsets. b is read during the call only (a pointer, so the
// 80-byte Block is not copied per call) and may be reused afterwards.
//
// It encodes the block's clusterings once and makes the separator in
// place: prevMax[:d] is shared with first and prevMax[d] < first[d], so
// the separator is prevMax[:d+1] with its last byte incremented (it cannot
// overflow: it is below first[d]). prevMax is not needed after this block,
// so its slot becomes the separator's home; the trie reads it until the
// next Add, by which time the ring has made it Previous, not yet reused.
func (w *Writer) Add(b *Block) error {
	open := rowfile.Deletion(b.OpenDeletion)
	if !w.core.Ready(b.Offset, open) {
		if err := w.core.Check(b.Offset, open); err != nil {
			return err
		}
	}
	first, err := bytecomparable.AppendClustering(w.first[:0], w.cols, b.First, b.FirstKind)
	if err != nil {
		return w.core.EncodeError("first", err)
	}
	w.first = first
	last, err := bytecomparable.AppendClustering(w.keys.Scratch(), w.cols, b.Last, b.LastKind)
	if err != nil {
		return w.core.EncodeError("last", err)
	}
	// first <= last: they share e bytes, and first ends there or has the
	// smaller byte.
	e, ok := sharedLen(first, last)
	if !ok {
		e = bytecomparable.DiffPoint(first, last) - 1
	}
	prevMax := w.keys.Current()
	if e < len(first) && (e >= len(last) || first[e] > last[e]) {
		return w.core.OrderError(prevMax, first, last)
	}
	var sep []byte // the empty key for a partition's first block
	d, shared := 0, 0
	if w.core.Blocks() > 0 {
		// prevMax < first holds when they differ at some d with
		// prevMax[d] < first[d] (a prefix cannot happen: see OrderError,
		// which also says what is wrong when the test fails).
		if d, ok = sharedLen(prevMax, first); !ok {
			d = bytecomparable.DiffPoint(prevMax, first) - 1
		}
		if d >= len(prevMax) || d >= len(first) || prevMax[d] >= first[d] {
			return w.core.OrderError(prevMax, first, last)
		}
		shared = min(w.sharedWithLastSep(prevMax), d)
		// The separator is prevMax[:d+1] with its last byte incremented
		// (it cannot overflow: it is below first[d]).
		sep = prevMax[:d+1]
		sep[d]++
	}
	if err := w.core.AddShared(sep, shared, b.Offset, open); err != nil {
		if sep != nil {
			sep[d]--
		}
		return err
	}
	w.keys.Commit(last)
	w.sepLen = len(sep)
	w.firstLast = e
	return nil
}

// sharedLen returns how many leading bytes a and b share,
// bytecomparable.DiffPoint(a, b) - 1, when they differ in their first
// eight bytes (ok), as a block's first and last clusterings and its
// neighbour's mostly do under a short first component. It is a manually
// inlined version of DiffPoint's first case, so that Add's comparisons
// make no call when it decides; the caller asks DiffPoint otherwise.
// TestSharedLen ties the two.
func sharedLen(a, b []byte) (n int, ok bool) {
	if len(a) >= 8 && len(b) >= 8 {
		if x := binary.LittleEndian.Uint64(a) ^ binary.LittleEndian.Uint64(b); x != 0 {
			return bits.TrailingZeros64(x) / 8, true
		}
	}
	return 0, false
}

// sharedWithLastSep returns how many leading bytes the last separator s'
// shares with prevMax, the last block's last clustering, from what is
// known without comparing them: s' = P[:d'+1] with its last byte
// incremented, where P is the block before's last clustering and d' is
// where P and the last block's first clustering F' differ (so s' <= F'),
// and F' shares e' (firstLast) bytes with prevMax. If e' < d', s' agrees
// with F' and so with prevMax up to e' and no further; otherwise s'[:d']
// = F'[:d'] = prevMax[:d'], and s' (d'+1 bytes) is a prefix of prevMax
// when its last byte is prevMax[d'].
//
// The new separator s is prevMax[:d+1] with the last byte incremented,
// so it shares min(that, d) bytes with s': below d it is prevMax, at d it
// differs from prevMax, and s' cannot have s[d] there (s' <= prevMax
// would then be above it). The trie checks the count under the
// invariants tag (trie.Writer.AddShared).
func (w *Writer) sharedWithLastSep(prevMax []byte) int {
	if w.sepLen == 0 {
		return 0
	}
	d := w.sepLen - 1
	if w.firstLast < d {
		return w.firstLast
	}
	if d < len(prevMax) && w.keys.Previous()[d] == prevMax[d] {
		return d + 1
	}
	return d
}

// CompletePartition adds the end key (the last block's last clustering
// nudged up at the length of the last separator, so that larger keys are
// rejected quickly) with endPos as its offset, writes the rest of the
// partition's trie and returns its root. endPos is where the partition
// ends, relative to its start. Call it only for partitions of two or more
// blocks if the file is to be Cassandra's: a one-block partition gets no
// row index.
func (w *Writer) CompletePartition(endPos int64) (root int64, err error) {
	if root, done, err := w.core.CheckComplete(endPos); done {
		return root, err
	}
	prevMax := w.keys.Current()
	var prevSep []byte
	if w.core.Blocks() > 1 {
		prevSep = w.keys.Previous()[:w.sepLen]
	}
	i := bytecomparable.DiffPoint(prevMax, prevSep) - 1
	w.first = nudge(w.first[:0], prevMax, i)
	return w.core.CompleteTrie(w.first, endPos)
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
// completed row index trie and returns its position, the value
// Partitions.db holds for the key. Its layout:
//
//	+-------------+-----+----------------------+--------------------+
//	| key len <2> | key | dataPosition <uvint> | root - base <vint> |
//	+-------------+-----+----------------------+--------------------+
//	| blocks <uvint> | partition deletion <1 or 12>                  |
//	+----------------+-----------------------------------------------+
//
// base is the position right after the key; vints are Cassandra's
// VIntCoding, the root distance zigzag-signed (internal/rowfile).
func (w *Writer) AppendEntry(key []byte, dataPos, root int64, blocks int, deletion DeletionTime) (int64, error) {
	return w.core.AppendEntry(key, dataPos, root, blocks, rowfile.Deletion(deletion))
}

// FinishPartition ends the current partition as Cassandra's partition and
// table writers do: with more than one block, the trie is completed at
// endPos and the entry (key, dataPos, root, block count, partition
// deletion) appended; otherwise nothing is written and the partition index
// will point at Data.db directly. It then starts the next partition.
func (w *Writer) FinishPartition(key []byte, dataPos, endPos int64, deletion DeletionTime) (Result, error) {
	blocks := w.core.Blocks()
	value, root, err := w.core.FinishPartition(key, dataPos, endPos, rowfile.Deletion(deletion), w.CompletePartition)
	if err != nil {
		return Result{}, err
	}
	w.ResetPartition()
	return Result{Value: value, Root: root, Blocks: blocks}, nil
}

// Complete ends the file: it hands every buffered byte to the sink. The
// file ends after the last finished partition's entry; a partition with
// blocks but not finished is an error (ErrUnfinished), since its trie
// would be in the file without an entry to reach it. On a write error
// the bytes the sink did not take stay buffered and calling Complete
// again retries them. After Complete, Add and FinishPartition return
// ErrFinished.
func (w *Writer) Complete() error { return w.core.Complete() }
