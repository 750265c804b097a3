package rowindex

import (
	"errors"
	"slices"
	"strconv"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/trie"
)

// IndexInfo is what a row index stores for a block: the block's offset
// from the partition's start in Data.db and the range tombstone open
// before it. End marks the extra entry after the last block, whose offset
// is the partition's end: a key that finds it is past every row.
type IndexInfo struct {
	Offset       int64
	OpenDeletion DeletionTime
	End          bool
}

// Partition is the row index of one partition: the trie of its entry in a
// Rows.db file. It is immutable and safe for concurrent use; lookups go
// through a Reader per goroutine.
type Partition struct {
	Entry   Entry
	cols    []bytecomparable.Column
	t       *trie.Trie
	endNode int64 // the end entry: the trie's largest
}

// OpenPartition reads the entry at pos of a Rows.db file's bytes (the value
// Partitions.db holds for the key) and opens its row index. cols are the
// table's clustering columns, used by the lookups that take values.
func OpenPartition(data []byte, pos int64, cols []bytecomparable.Column) (*Partition, error) {
	e, err := ReadEntry(data, pos)
	if err != nil {
		return nil, err
	}
	return openTrie(trie.Source{File: data[:e.Position]}, e, cols)
}

// openTrie opens e's trie over src: the file before the entry, or, for
// Walk, only the window between the previous entry and this one.
func openTrie(src trie.Source, e Entry, cols []bytecomparable.Column) (*Partition, error) {
	t, err := trie.New(src, e.Root)
	if err != nil {
		return nil, wrapTrie(err, e.Root)
	}
	w := t.Walker()
	end, err := w.Last()
	if err != nil {
		return nil, wrapTrie(err, e.Root)
	}
	if end < 0 {
		return nil, &CorruptError{Offset: e.Root, Reason: "row index trie is empty"}
	}
	return &Partition{Entry: e, cols: cols, t: t, endNode: end}, nil
}

// wrapTrie turns a trie corruption into a CorruptError of this package.
func wrapTrie(err error, at int64) error {
	var ce *trie.CorruptError
	if errors.As(err, &ce) {
		return &CorruptError{Offset: ce.Offset, Reason: "row index trie: " + ce.Reason}
	}
	return &CorruptError{Offset: at, Reason: err.Error()}
}

// Reader runs lookups and iterations on one partition's row index. It is
// not safe for concurrent use; after warm-up it does not allocate.
type Reader struct {
	p      *Partition
	w      trie.Walker
	key    []byte // lookups by value encode here
	iter   []byte // the key of the running iteration (the trie iterators keep it)
	fw     trie.Iterator
	rv     trie.ReverseIterator
	rev    bool
	queued int64 // forward: the floor block, returned by the first Next
	info   IndexInfo
	err    error
	active bool
}

// Trie returns the partition's trie, for dumps and audits (the audit
// package rebuilds it to compare the layout with the writer's).
func (p *Partition) Trie() *trie.Trie { return p.t }

// Info decodes the payload of the trie node at n: the block it indexes.
// Nodes come from the trie's walkers and iterators (Trie).
func (p *Partition) Info(n int64) (IndexInfo, error) { return p.info(n) }

// NewReader returns a Reader over p.
func (p *Partition) NewReader() *Reader {
	return &Reader{p: p, w: p.t.Walker()}
}

// info decodes the payload of node n.
func (p *Partition) info(n int64) (IndexInfo, error) {
	flags, b, err := p.t.Payload(n)
	if err != nil {
		return IndexInfo{}, wrapTrie(err, n)
	}
	off, open, reason := decodePayload(flags, b)
	if reason != "" {
		return IndexInfo{}, &CorruptError{Offset: n, Reason: reason}
	}
	return IndexInfo{Offset: off, OpenDeletion: open, End: n == p.endNode}, nil
}

// floorNode is Cassandra's separatorFloor on nodes: the payload on key's
// path after which the walk never branched left, else the largest entry of
// the nearest branch below key (RowIndexReader's note: with a prefix match
// a closer smaller entry is not looked for, and need not be).
func (r *Reader) floorNode(key []byte) (int64, error) {
	atKey, lesser, err := r.w.Floor(key)
	if err != nil {
		return -1, wrapTrie(err, r.p.t.Root())
	}
	if atKey >= 0 {
		return atKey, nil
	}
	return lesser, nil
}

// SeparatorFloor returns the block that may contain the clustering whose
// byte-comparable encoding is key (bytecomparable.AppendClustering), as
// RowIndexReader.separatorFloor does; ok is false only for a key below
// every block, which a well-formed index (first separator: the empty key)
// never has.
func (r *Reader) SeparatorFloor(key []byte) (info IndexInfo, ok bool, err error) {
	n, err := r.floorNode(key)
	if err != nil || n < 0 {
		return IndexInfo{}, false, err
	}
	info, err = r.p.info(n)
	return info, err == nil, err
}

// Floor is SeparatorFloor for a clustering prefix given as serialized
// values of kind kind (a clustering or a bound).
func (r *Reader) Floor(values [][]byte, kind bytecomparable.PrefixKind) (IndexInfo, bool, error) {
	key, err := bytecomparable.AppendClustering(r.key[:0], r.p.cols, values, kind)
	if err != nil {
		return IndexInfo{}, false, err
	}
	r.key = key
	return r.SeparatorFloor(key)
}

// Min returns the first block (RowIndexReader.min).
func (r *Reader) Min() (IndexInfo, error) {
	n, err := r.w.First()
	if err != nil {
		return IndexInfo{}, wrapTrie(err, r.p.t.Root())
	}
	if n < 0 {
		return IndexInfo{}, &CorruptError{Offset: r.p.t.Root(), Reason: "row index trie is empty"}
	}
	return r.p.info(n)
}

// emptyKey is the start bound of a reverse iteration, ByteComparable.EMPTY
// (not "no bound").
var emptyKey = []byte{}

// Forward starts an ascending iteration over the blocks from the one that
// may contain key (its SeparatorFloor) to the end entry:
//
//	for r.Forward(key); r.Next(); {
//		use(r.Info())
//	}
//	if err := r.Err(); err != nil { … }
//
// A nil key starts at the first block.
func (r *Reader) Forward(key []byte) {
	r.start(false)
	if key == nil {
		r.fw.Reset(r.p.t, nil, nil, false)
		return
	}
	r.setIter(key)
	n, err := r.floorNode(r.iter)
	if err != nil {
		r.err = err
		return
	}
	r.queued = n
	// The floor is at or below key; every later block's separator is
	// above key and not a prefix of it.
	r.fw.Reset(r.p.t, r.iter, nil, false)
}

// Reverse starts a descending iteration over the blocks whose separator is
// at or below key (or a prefix of it), as RowIndexReverseIterator does for
// a reversed query ending at key; the first result is the block that may
// contain key. A nil key starts at the end entry.
func (r *Reader) Reverse(key []byte) {
	r.start(true)
	end := []byte(nil)
	if key != nil {
		r.setIter(key)
		end = r.iter
	}
	r.rv.Reset(r.p.t, emptyKey, end, true)
}

// setIter copies key into the iteration's own buffer, which is never nil:
// to the trie iterators nil means "no bound", an empty key the empty key.
func (r *Reader) setIter(key []byte) {
	if r.iter == nil {
		r.iter = make([]byte, 0, 64)
	}
	r.iter = append(r.iter[:0], key...)
}

func (r *Reader) start(rev bool) {
	r.rev, r.queued, r.err, r.active = rev, -1, nil, true
	r.info = IndexInfo{}
}

// Next advances to the next block and reports whether there is one.
func (r *Reader) Next() bool {
	if !r.active || r.err != nil {
		return false
	}
	var n int64
	switch {
	case r.queued >= 0:
		n, r.queued = r.queued, -1
	case r.rev:
		if !r.rv.Next() {
			r.err = r.rv.Err()
			r.active = false
			return false
		}
		n = r.rv.Node()
	default:
		if !r.fw.Next() {
			r.err = r.fw.Err()
			r.active = false
			return false
		}
		n = r.fw.Node()
	}
	info, err := r.p.info(n)
	if err != nil {
		r.err, r.active = err, false
		return false
	}
	r.info = info
	return true
}

// Info returns the current block.
func (r *Reader) Info() IndexInfo { return r.info }

// Err returns the error that stopped the iteration, if any.
func (r *Reader) Err() error {
	if r.err != nil {
		return wrapTrie(r.err, r.p.t.Root())
	}
	return nil
}

// Walk checks a Rows.db file's structure from the positions of its
// partition entries (the non-negative values of its Partitions.db, in any
// order) and calls visit for every entry with its blocks in order (the end
// entry last, End set; blocks is reused between calls). It checks what the
// writer guarantees: each entry lies in the file after the previous one
// and its trie between them, its root is the empty key's node (the first
// block), the trie holds exactly Blocks+1 entries, block offsets strictly
// increase and the last entry, the end, carries no open deletion. The first
// violation is returned as a *CorruptError (matching ErrCorrupt); an error
// from visit stops the walk and is returned as is.
func Walk(data []byte, positions []int64, visit func(e Entry, blocks []IndexInfo) error) error {
	sorted := append([]int64(nil), positions...)
	slices.Sort(sorted)
	var blocks []IndexInfo
	prevEnd := int64(0)
	for i, pos := range sorted {
		if i > 0 && pos == sorted[i-1] {
			return &CorruptError{Offset: pos, Reason: "two partitions share the entry at " + strconv.FormatInt(pos, 10)}
		}
		if pos < prevEnd {
			return &CorruptError{Offset: pos, Reason: "entry overlaps the previous one, which ends at " + strconv.FormatInt(prevEnd, 10)}
		}
		e, _, bl, err := WalkEntry(data, pos, prevEnd, blocks[:0])
		blocks = bl
		if err != nil {
			return err
		}
		if err := visit(e, blocks); err != nil {
			return err
		}
		prevEnd = e.End
	}
	return nil
}

// WalkEntry is Walk's step for one partition: it reads the entry at pos,
// whose trie lies at or after prevEnd (the end of the previous entry),
// opens the trie over that window alone and appends its blocks to dst,
// checking what Walk documents. It returns what it could read before a
// problem: the entry (whose End says where the next may start), the
// partition once its trie opened, and the blocks listed. It is the
// low-level step of the audit package's Rows.db check, which goes on to
// the next entry after a problem.
func WalkEntry(data []byte, pos, prevEnd int64, dst []IndexInfo) (Entry, *Partition, []IndexInfo, error) {
	e, err := ReadEntry(data, pos)
	if err != nil {
		return e, nil, dst, err
	}
	if e.Root < prevEnd {
		return e, nil, dst, &CorruptError{Offset: pos, Reason: "root " + strconv.FormatInt(e.Root, 10) + " lies in the previous partition's part of the file"}
	}
	if e.Blocks < 2 {
		return e, nil, dst, &CorruptError{Offset: pos, Reason: "indexed partition with " + strconv.Itoa(e.Blocks) + " blocks (the writer indexes only 2 or more)"}
	}
	// Only this partition's part of the file is readable (a Source whose
	// only segment is the window between the two entries), so a pointer
	// into another partition's trie is caught as out of range.
	window := trie.Source{Cutoff: prevEnd, Tail: data[prevEnd:e.Position:e.Position]}
	p, err := openTrie(window, e, nil)
	if err != nil {
		return e, nil, dst, err
	}
	if dst, err = p.blocks(dst, prevEnd); err != nil {
		return e, p, dst, err
	}
	if len(dst) != e.Blocks+1 {
		return e, p, dst, &CorruptError{Offset: pos, Reason: "entry says " + strconv.Itoa(e.Blocks) + " blocks, its trie holds " + strconv.Itoa(len(dst)-1) + " and the end"}
	}
	return e, p, dst, nil
}

// blocks lists p's entries in order and checks them (see Walk).
func (p *Partition) blocks(dst []IndexInfo, lowest int64) ([]IndexInfo, error) {
	if flags, _, err := p.t.Payload(p.t.Root()); err != nil || flags == 0 {
		return dst, &CorruptError{Offset: p.t.Root(), Reason: "root has no payload: the first block's separator is not the empty key"}
	}
	var it trie.Iterator
	for it.Reset(p.t, nil, nil, false); it.Next(); {
		n := it.Node()
		if n < lowest {
			return dst, &CorruptError{Offset: n, Reason: "node lies in the previous partition's part of the file"}
		}
		info, err := p.info(n)
		if err != nil {
			return dst, err
		}
		if k := len(dst); k > 0 && info.Offset <= dst[k-1].Offset {
			return dst, &CorruptError{Offset: n, Reason: "block offset " + strconv.FormatInt(info.Offset, 10) + " not after the previous block's " + strconv.FormatInt(dst[k-1].Offset, 10)}
		}
		if info.End && info.OpenDeletion.Deleted {
			return dst, &CorruptError{Offset: n, Reason: "end entry carries an open deletion"}
		}
		dst = append(dst, info)
	}
	if err := it.Err(); err != nil {
		return dst, wrapTrie(err, p.t.Root())
	}
	return dst, nil
}
