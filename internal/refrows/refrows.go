// Package refrows is the reference Rows.db writer: the straightforward
// allocating way to make rowindex.Writer's file, which exists to check the
// production writer byte for byte (the golden and model tests, the
// fuzzers, `bti rows build --path reference`) and to measure it against.
// Clusterings are kept as values (deep copies) and encoded afresh for every
// use, and each separator is built a byte at a time the way Cassandra's
// ByteSource.separatorGt streams it. Everything not about separators —
// block checks and errors, payloads, entries, the trie, the retry-safe
// buffer — is internal/rowfile, shared with rowindex, so both paths refuse
// the same blocks with the same errors.
package refrows

import (
	"io"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/rowfile"
	"github.com/bti-go/bti/rowindex"
)

// IndexWriter is what both Rows.db writers offer, for the tools and tests
// that build on either path: *rowindex.Writer and *Writer.
type IndexWriter interface {
	Reset(dst io.Writer, opts rowindex.Options)
	Add(b rowindex.Block) error
	CompletePartition(endPos int64) (int64, error)
	AppendEntry(key []byte, dataPos, root int64, blocks int, deletion rowindex.DeletionTime) (int64, error)
	FinishPartition(key []byte, dataPos, endPos int64, deletion rowindex.DeletionTime) (rowindex.Result, error)
	ResetPartition()
	Complete() error
	Flush() error
	Position() int64
	Blocks() int
}

// New returns the Rows.db writer of path p writing to w.
func New(p buildpath.Path, w io.Writer, opts rowindex.Options) IndexWriter {
	if p == buildpath.Reference {
		return NewWriter(w, opts)
	}
	return rowindex.NewWriter(w, opts)
}

// Writer is the reference Rows.db writer. It has rowindex.Writer's
// methods with the same meaning and errors and writes the same bytes; it
// allocates for every block.
type Writer struct {
	rowfile.Writer // checks, payloads, the trie, the sink
	cols           []bytecomparable.Column

	prevLast     [][]byte // the previous block's last clustering, as values
	prevLastKind bytecomparable.PrefixKind
	prevSep      []byte // the last separator (fresh memory the trie may keep reading)
}

// NewWriter returns a reference Writer that writes to w from position 0.
func NewWriter(w io.Writer, opts rowindex.Options) *Writer {
	rw := &Writer{}
	rw.Reset(w, opts)
	return rw
}

// Reset starts a new Rows.db on dst (rowindex.Writer.Reset).
func (w *Writer) Reset(dst io.Writer, opts rowindex.Options) {
	w.cols = opts.Columns
	w.Writer.Reset(dst, opts.PageSize)
	w.ResetPartition()
}

// ResetPartition starts a new partition (rowindex.Writer.ResetPartition).
func (w *Writer) ResetPartition() {
	w.Writer.ResetPartition()
	w.prevLast, w.prevLastKind, w.prevSep = nil, 0, nil
}

// Add adds the next block (rowindex.Writer.Add): fresh encodings for every
// use, and the separator made a byte at a time.
func (w *Writer) Add(b rowindex.Block) error {
	open := rowfile.Deletion(b.OpenDeletion)
	if err := w.Check(b.Offset, open); err != nil {
		return err
	}
	first, err := bytecomparable.AppendClustering(nil, w.cols, b.First, b.FirstKind)
	if err != nil {
		return w.EncodeError("first", err)
	}
	last, err := bytecomparable.AppendClustering(nil, w.cols, b.Last, b.LastKind)
	if err != nil {
		return w.EncodeError("last", err)
	}
	var prevMax []byte
	if w.Blocks() > 0 {
		prevMax, _ = bytecomparable.AppendClustering(nil, w.cols, w.prevLast, w.prevLastKind)
	}
	if err := w.OrderError(prevMax, first, last); err != nil {
		return err
	}
	sep := []byte{} // ByteComparable.EMPTY for the first block
	if w.Blocks() > 0 {
		sep = separatorGt(prevMax, first)
	}
	if err := w.Writer.Add(sep, b.Offset, open); err != nil {
		return err
	}
	w.prevSep = sep
	w.prevLast = cloneValues(b.Last)
	w.prevLastKind = b.LastKind
	return nil
}

// separatorGt is ByteSource.separatorGt over two byte strings: the common
// prefix, then prev's next byte plus one (end of stream counting as -1).
func separatorGt(prev, cur []byte) []byte {
	var out []byte
	for i := 0; ; i++ {
		p, c := streamByte(prev, i), streamByte(cur, i)
		if p == c {
			if c < 0 {
				return out
			}
			out = append(out, byte(c))
			continue
		}
		return append(out, byte(p+1))
	}
}

// streamByte returns b[i], or -1 (END_OF_STREAM) past the end.
func streamByte(b []byte, i int) int {
	if i < len(b) {
		return int(b[i])
	}
	return -1
}

// CompletePartition adds the end key and writes the rest of the
// partition's trie (rowindex.Writer.CompletePartition).
func (w *Writer) CompletePartition(endPos int64) (int64, error) {
	if root, done, err := w.CheckComplete(endPos); done {
		return root, err
	}
	return w.CompleteTrie(w.endKey(), endPos)
}

// endKey is the end key made as a stream: the position of the first
// difference between the last clustering and the last separator, then
// RowIndexWriter.nudge.
func (w *Writer) endKey() []byte {
	max, _ := bytecomparable.AppendClustering(nil, w.cols, w.prevLast, w.prevLastKind)
	i := 0
	for streamByte(max, i) == streamByte(w.prevSep, i) && streamByte(max, i) >= 0 {
		i++
	}
	var out []byte
	src := 0 // position in the stream of max
	for cur := 0; cur <= i; {
		b := streamByte(max, src)
		src++
		if cur == i {
			if b == 0xFF {
				// Cannot nudge here: keep it and nudge the next byte.
				out = append(out, 0xFF)
				continue
			}
			b++ // past the end: -1 + 1, a 00
		}
		out = append(out, byte(b))
		cur++
	}
	return out
}

// AppendEntry writes a partition entry (rowindex.Writer.AppendEntry).
func (w *Writer) AppendEntry(key []byte, dataPos, root int64, blocks int, deletion rowindex.DeletionTime) (int64, error) {
	return w.Writer.AppendEntry(key, dataPos, root, blocks, rowfile.Deletion(deletion))
}

// FinishPartition ends the partition (rowindex.Writer.FinishPartition).
func (w *Writer) FinishPartition(key []byte, dataPos, endPos int64, deletion rowindex.DeletionTime) (rowindex.Result, error) {
	res := rowindex.Result{Blocks: w.Blocks()}
	var err error
	res.Value, res.Root, err = w.Writer.FinishPartition(key, dataPos, endPos, rowfile.Deletion(deletion), w.CompletePartition)
	if err != nil {
		return rowindex.Result{}, err
	}
	w.ResetPartition()
	return res, nil
}

func cloneValues(vs [][]byte) [][]byte {
	out := make([][]byte, len(vs))
	for i, v := range vs {
		out[i] = append([]byte{}, v...)
	}
	return out
}
