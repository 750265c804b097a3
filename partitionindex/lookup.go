package partitionindex

import (
	"bytes"
	"fmt"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// Reader is a lookup handle on an Index for one goroutine at a time. It owns
// the scratch memory its lookups encode keys into, so lookups do not
// allocate, and it pinned the index when it was opened, so lookups take no
// lock and do no atomic operation.
//
// What a hit means: the index stores only the shortest prefix of each key
// that tells it apart from its neighbours, so a position is a candidate. The
// caller confirms it against the key stored at that position in Rows.db (for
// positions >= 0) or Data.db (at ^position, for negative positions), as
// Cassandra does.
type Reader struct {
	ix     *Index
	t      *trie.Trie
	walker trie.Walker
	enc    []byte // the encoded lookup key
	stored []byte // the encoding of a candidate's key, to confirm it
	endEnc []byte // the encoded end bound of a scan
	it     Iterator
	closed bool
	batch  *batchState // GetBatch's scratch (batch.go)
}

// KeyAt returns the raw partition key stored at an index position (read from
// Rows.db or Data.db by the caller). Ceiling and Floor use it to confirm
// candidates.
type KeyAt func(position int64) (rawKey []byte, err error)

// Close releases the handle. Further lookups on it return ErrClosed.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	return r.ix.handleClosed()
}

// Index returns the index the handle reads.
func (r *Reader) Index() *Index { return r.ix }

func (r *Reader) encode(key partitioner.Key) ([]byte, error) {
	if r.closed {
		return nil, ErrClosed
	}
	if key.Partitioner != r.ix.part {
		return nil, fmt.Errorf("%w: index is %v, key is %v", ErrPartitioner, r.ix.part, key.Partitioner)
	}
	r.enc = key.AppendComparable(r.enc[:0])
	return r.enc, nil
}

// payload decodes the position stored at a payload node.
func (r *Reader) payload(node int64) (hash byte, hasHash bool, pos int64, err error) {
	flags, b, err := r.t.Payload(node)
	if err != nil {
		return 0, false, 0, fromTrie(err)
	}
	hash, hasHash, pos, ok := decodePayload(flags, b)
	if !ok {
		return 0, false, 0, &CorruptError{Offset: node, Reason: fmt.Sprintf("payload with flags %#x does not fit in the file", flags)}
	}
	return hash, hasHash, pos, nil
}

// Get returns the candidate position for key: the entry whose stored prefix
// key reaches, if its hash byte matches the key's (Cassandra's
// exactCandidate). ok is false when the index certainly lacks the key.
func (r *Reader) Get(key partitioner.Key) (pos int64, ok bool, err error) {
	return r.get(key) // fastpath.go
}

// Ceiling returns the position of the smallest key >= key. The entry on
// key's own path may stand for a smaller key: keyAt is asked for it and it is
// skipped if smaller. The next entry beyond is certainly greater and is not
// checked. With a nil keyAt the first candidate is returned unconfirmed.
func (r *Reader) Ceiling(key partitioner.Key, keyAt KeyAt) (pos int64, ok bool, err error) {
	if keyAt == nil {
		if pos, ok, done, err := r.ceilingNoConfirm(key); done { // fastpath.go
			return pos, ok, err
		}
	}
	enc, err := r.encode(key)
	if err != nil {
		return 0, false, err
	}
	return r.CeilingEncoded(enc, keyAt)
}

// Floor returns the position of the largest key <= key, confirming the entry
// on key's own path with keyAt as Ceiling does.
func (r *Reader) Floor(key partitioner.Key, keyAt KeyAt) (pos int64, ok bool, err error) {
	enc, err := r.encode(key)
	if err != nil {
		return 0, false, err
	}
	return r.FloorEncoded(enc, keyAt)
}

// CeilingEncoded is Ceiling for any byte-comparable position: a key's
// encoding (Key.AppendComparable) or a token bound, which sorts before
// (AppendMinBound) or after (AppendMaxBound) every key of its token; range
// reads by token start there, as with Cassandra's PartitionPosition.
func (r *Reader) CeilingEncoded(position []byte, keyAt KeyAt) (pos int64, ok bool, err error) {
	if r.closed {
		return 0, false, ErrClosed
	}
	atKey, greater, err := r.walker.Ceiling(position)
	if err != nil {
		return 0, false, fromTrie(err)
	}
	return r.confirm(position, atKey, greater, keyAt, +1)
}

// FloorEncoded is Floor for any byte-comparable position (see
// CeilingEncoded).
func (r *Reader) FloorEncoded(position []byte, keyAt KeyAt) (pos int64, ok bool, err error) {
	if r.closed {
		return 0, false, ErrClosed
	}
	atKey, lesser, err := r.walker.Floor(position)
	if err != nil {
		return 0, false, fromTrie(err)
	}
	return r.confirm(position, atKey, lesser, keyAt, -1)
}

// confirm picks between the entry on the position's path and the neighbour
// beyond it. dir is +1 for ceiling (the stored key must sort at or after
// position) and -1 for floor (at or before). Keys are compared by their
// encodings, so positions that are token bounds work the same way.
func (r *Reader) confirm(position []byte, atKey, beyond int64, keyAt KeyAt, dir int) (int64, bool, error) {
	if atKey >= 0 {
		_, _, pos, err := r.payload(atKey)
		if err != nil {
			return 0, false, err
		}
		if keyAt == nil {
			return pos, true, nil
		}
		raw, err := keyAt(pos)
		if err != nil {
			return 0, false, err
		}
		r.stored = r.ix.part.Decorate(raw).AppendComparable(r.stored[:0])
		if c := bytes.Compare(r.stored, position); c == 0 || (c > 0) == (dir > 0) {
			return pos, true, nil
		}
	}
	if beyond < 0 {
		return 0, false, nil
	}
	_, _, pos, err := r.payload(beyond)
	if err != nil {
		return 0, false, err
	}
	return pos, true, nil
}

// First returns the position of the smallest key.
func (r *Reader) First() (int64, bool, error) {
	if r.closed {
		return 0, false, ErrClosed
	}
	node, err := r.walker.First()
	return r.endpoint(node, err)
}

// Last returns the position of the largest key.
func (r *Reader) Last() (int64, bool, error) {
	if r.closed {
		return 0, false, ErrClosed
	}
	node, err := r.walker.Last()
	return r.endpoint(node, err)
}

func (r *Reader) endpoint(node int64, err error) (int64, bool, error) {
	if err != nil || node < 0 {
		return 0, false, fromTrie(err)
	}
	flags, _, err := r.t.Payload(node)
	if err != nil || flags == 0 {
		return 0, false, fromTrie(err) // flags 0: an empty index, the root has no payload
	}
	_, _, pos, err := r.payload(node)
	if err != nil {
		return 0, false, err
	}
	return pos, true, nil
}

// Iterator yields index positions in key order (Scan) or in descending key
// order (ScanReverse). Use it Scanner style:
//
//	for it.Next() { use(it.Pos()) }
//	if err := it.Err(); err != nil { ... }
//
// Like Cassandra's IndexPosIterator, the first and last positions may stand
// for keys just outside the bounds (entries are prefixes); the caller checks
// the real keys at both ends.
type Iterator struct {
	r       *Reader
	fwd     trie.Iterator
	rev     trie.ReverseIterator
	reverse bool
	pos     int64
	err     error
}

// Scan iterates from start to end inclusive (nil for unbounded). The
// iterator is owned by the handle: a new Scan or ScanReverse restarts it.
func (r *Reader) Scan(start, end *partitioner.Key) *Iterator {
	return r.scan(start, end, false)
}

// ScanReverse iterates from end down to start inclusive (nil for unbounded).
func (r *Reader) ScanReverse(start, end *partitioner.Key) *Iterator {
	return r.scan(start, end, true)
}

// ScanEncoded is Scan between byte-comparable positions (keys' encodings or
// token bounds, see CeilingEncoded; nil for unbounded). The iterator keeps
// end until it is restarted.
func (r *Reader) ScanEncoded(start, end []byte) *Iterator {
	return r.scanEncoded(start, end, false, nil)
}

// ScanReverseEncoded is ScanReverse between byte-comparable positions.
func (r *Reader) ScanReverseEncoded(start, end []byte) *Iterator {
	return r.scanEncoded(start, end, true, nil)
}

func (r *Reader) scan(start, end *partitioner.Key, reverse bool) *Iterator {
	startEnc, endEnc, err := r.bounds(start, end)
	return r.scanEncoded(startEnc, endEnc, reverse, err)
}

func (r *Reader) scanEncoded(start, end []byte, reverse bool, err error) *Iterator {
	it := &r.it
	it.r, it.reverse, it.pos, it.err = r, reverse, 0, err
	switch {
	case err != nil:
	case r.closed:
		it.err = ErrClosed
	case reverse:
		it.rev.Reset(r.t, start, end, true)
	default:
		it.fwd.Reset(r.t, start, end, true)
	}
	return it
}

func (r *Reader) bounds(start, end *partitioner.Key) (startEnc, endEnc []byte, err error) {
	if r.closed {
		return nil, nil, ErrClosed
	}
	if end != nil {
		if _, err := r.encode(*end); err != nil {
			return nil, nil, err
		}
		r.endEnc = append(r.endEnc[:0], r.enc...)
		endEnc = r.endEnc
	}
	if start != nil {
		if startEnc, err = r.encode(*start); err != nil {
			return nil, nil, err
		}
	}
	return startEnc, endEnc, nil
}

// Next advances to the next entry.
func (it *Iterator) Next() bool {
	if it.err != nil {
		return false
	}
	var node int64
	if it.reverse {
		if !it.rev.Next() {
			return false
		}
		node = it.rev.Node()
	} else {
		if !it.fwd.Next() {
			return false
		}
		node = it.fwd.Node()
	}
	_, _, it.pos, it.err = it.r.payload(node)
	return it.err == nil
}

// Pos returns the current entry's position.
func (it *Iterator) Pos() int64 { return it.pos }

// Err returns the error that stopped the iteration, if any.
func (it *Iterator) Err() error {
	switch {
	case it.err != nil:
		return it.err
	case it.reverse:
		return fromTrie(it.rev.Err())
	default:
		return fromTrie(it.fwd.Err())
	}
}
