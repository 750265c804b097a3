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
	part   partitioner.Partitioner // ix.part, read by every lookup's check without a load through ix
	t      *trie.Trie
	walker trie.Walker
	enc    []byte               // the encoded lookup key
	tok    [tokenPrefixLen]byte // a Murmur3 key's token prefix (fastpath.go)
	stored []byte               // the encoding of a candidate's key, to confirm it
	it     Iterator
	check  closeCheck // -tags invariants: reports a Reader dropped unclosed (not last: a zero-size last field is padded)
	closed bool
	batch  *batchState // GetBatch's scratch (batch.go)
}

// KeyAt returns the raw partition key stored at an index position (read from
// Rows.db or Data.db by the caller). Ceiling and Floor use it to confirm
// candidates.
type KeyAt func(position int64) (rawKey []byte, err error)

// Close releases the handle. Further lookups on it return ErrClosed. It
// returns nil: a failure to release a mapping is Index.Close's to report
// (the result makes a Reader an io.Closer).
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.check.disarm()
	r.ix.handleClosed() // a failure to unmap is Index.Close's to report
	return nil
}

// Index returns the index the handle reads.
func (r *Reader) Index() *Index { return r.ix }

// payload decodes the position stored at a payload node.
func (r *Reader) payload(node int64) (hash byte, hasHash bool, pos int64, err error) {
	flags, b, err := r.t.Payload(node)
	if err != nil {
		return 0, false, 0, err
	}
	if flags >= flagHasHashByte && len(b) > 8 {
		// decodePayload's leading case, written here so that the usual
		// payload (a hashed key's) takes no call.
		return b[0], true, leafPosition(flags, b), nil
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
// Every lookup takes its key by pointer (8 bytes copied, not 80), reads it
// only during the call and does not retain it; key must not be nil.
func (r *Reader) Get(key *partitioner.Key) (pos int64, ok bool, err error) {
	return r.get(key) // fastpath.go
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
		return 0, false, err
	}
	flags, _, err := r.t.Payload(node)
	if err != nil || flags == 0 {
		return 0, false, err // flags 0: an empty index, the root has no payload
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
// A scan yields every entry whose key lies between the bounds, inclusive.
// Like Cassandra's IndexPosIterator it may also yield, at either end, the
// one neighbour just outside a bound that is not itself a key of the index
// (entries are prefixes: a neighbour's stored prefix may be a prefix of the
// bound); the caller checks the real keys at both ends. Bounds with start
// after end are an empty range and yield nothing.
//
// The iterator keeps copies of its bounds, so the caller's bound memory need
// only live for the call that starts the scan, and the handle's other
// lookups (Get, Ceiling, Floor, First, Last and their variants) may run
// between Next calls. It belongs to its handle: starting another scan on the
// handle restarts it.
type Iterator struct {
	r       *Reader
	fwd     trie.Iterator
	rev     trie.ReverseIterator
	reverse bool
	// The bounds' encodings, owned by the iterator: trie iterators read
	// one bound lazily (end forward, start in reverse) until restarted.
	startBuf, endBuf []byte
	// only >= 0: the scan's whole answer is this one entry (see
	// reset); it is yielded once, then the iterator is done.
	only int64
	done bool
	pos  int64
	err  error
}

// Scan iterates from start to end inclusive (nil for unbounded). Bounds
// with start after end are an empty range.
func (r *Reader) Scan(start, end *partitioner.Key) *Iterator {
	return r.scan(start, end, false)
}

// ScanReverse iterates from end down to start inclusive (nil for
// unbounded).
func (r *Reader) ScanReverse(start, end *partitioner.Key) *Iterator {
	return r.scan(start, end, true)
}

// ScanEncoded is Scan between byte-comparable positions (keys' encodings or
// token bounds, see CeilingEncoded; nil for unbounded). The bounds are
// copied.
func (r *Reader) ScanEncoded(start, end []byte) *Iterator {
	it := r.restart(false)
	if it.err == nil {
		it.reset(it.keep(&it.startBuf, start), it.keep(&it.endBuf, end))
	}
	return it
}

// ScanReverseEncoded is ScanReverse between byte-comparable positions.
func (r *Reader) ScanReverseEncoded(start, end []byte) *Iterator {
	it := r.restart(true)
	if it.err == nil {
		it.reset(it.keep(&it.startBuf, start), it.keep(&it.endBuf, end))
	}
	return it
}

func (r *Reader) scan(start, end *partitioner.Key, reverse bool) *Iterator {
	it := r.restart(reverse)
	if it.err != nil {
		return it
	}
	var startEnc, endEnc []byte
	for _, b := range [2]struct {
		key *partitioner.Key
		buf *[]byte
		enc *[]byte
	}{{start, &it.startBuf, &startEnc}, {end, &it.endBuf, &endEnc}} {
		if b.key == nil {
			continue
		}
		if b.key.Partitioner != r.ix.part {
			it.err = fmt.Errorf("%w: index is %v, key is %v", ErrPartitioner, r.ix.part, b.key.Partitioner)
			return it
		}
		*b.buf = b.key.AppendComparable((*b.buf)[:0])
		*b.enc = *b.buf
	}
	it.reset(startEnc, endEnc)
	return it
}

// restart clears the handle's iterator for a new scan.
func (r *Reader) restart(reverse bool) *Iterator {
	it := &r.it
	it.r, it.reverse, it.only, it.done, it.pos, it.err = r, reverse, -1, false, 0, nil
	if r.closed {
		it.err = ErrClosed
	}
	return it
}

// keep copies a bound into buf, keeping nil (unbounded) apart from empty.
func (it *Iterator) keep(buf *[]byte, bound []byte) []byte {
	if bound == nil {
		return nil
	}
	*buf = append((*buf)[:0], bound...)
	if *buf == nil {
		*buf = []byte{}
	}
	return *buf
}

// reset starts the trie iteration between the iterator's own bound copies.
func (it *Iterator) reset(start, end []byte) {
	r := it.r
	if start != nil && end != nil && bytes.Compare(start, end) > 0 {
		it.done = true // start after end: an empty range
		return
	}
	if !it.reverse {
		it.fwd.Reset(r.t, start, end, true)
		return
	}
	if end == nil && start != nil {
		// Cassandra's reverse iterator without an end bound skips the
		// entry on start's path when it would be the first result
		// (docs/format.md §9.5, Q16). That entry can only be the largest
		// one, when start walks down to it: then it is the whole answer,
		// since everything else is a prefix of start passed over by it or
		// below start.
		last, err := r.walker.Last()
		if err != nil {
			it.err = err
			return
		}
		if last >= 0 {
			node, found, err := r.walker.Exact(start)
			if err != nil {
				it.err = err
				return
			}
			if found && node == last {
				it.only = last
				return
			}
		}
	}
	it.rev.Reset(r.t, start, end, true)
}

// Next advances to the next entry.
func (it *Iterator) Next() bool {
	if it.err != nil || it.done {
		return false
	}
	if it.r.closed {
		// The handle no longer pins the index: its memory may be gone.
		it.err = ErrClosed
		return false
	}
	var node int64
	switch {
	case it.only >= 0:
		node, it.only, it.done = it.only, -1, true
	case it.reverse:
		if !it.rev.Next() {
			return false
		}
		node = it.rev.Node()
	default:
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
	case it.done:
		return nil
	case it.reverse:
		return it.rev.Err()
	default:
		return it.fwd.Err()
	}
}
