package partitionindex

import (
	"bytes"

	"github.com/bti-go/bti/partitioner"
)

// Ceiling and floor. The index stores prefixes, so a walk toward a key ends
// with two candidates (Cassandra's ceiling and floor do the same): the
// entry on the key's own path, whose real key may lie on either side of the
// probe, and the nearest entry beyond it, which certainly lies on the
// wanted side. Only the real key at the first candidate's position decides
// between them. Ceiling and Floor ask KeyAt for it and return a confirmed
// answer; CeilingCandidates and FloorCandidates return both candidates
// for callers that confirm on their own.

// Candidates are the two entries a ceiling or floor walk narrows the answer
// to. The answer is OnPath if it exists and the key stored at its position
// lies on the wanted side of the probe (>= for a ceiling, <= for a floor),
// else Beyond if it exists, else there is none.
type Candidates struct {
	// OnPath is the position of the entry whose stored prefix lies on the
	// probe's path. Its key may be smaller or greater than the probe.
	OnPath    int64
	HasOnPath bool
	// Beyond is the position of the nearest entry certainly on the wanted
	// side: the smallest key greater than the probe (ceiling) or the
	// largest smaller (floor), among the entries other than OnPath.
	Beyond    int64
	HasBeyond bool
}

// Ceiling returns the position of the smallest key >= key. The entry on
// key's own path may stand for a smaller key: keyAt is asked for the key
// stored at its position, and the entry is skipped if that key is smaller.
// The entry beyond is certainly greater and is not checked. keyAt is
// required (ErrNoKeyAt otherwise); CeilingCandidates returns the
// unconfirmed candidates.
func (r *Reader) Ceiling(key partitioner.Key, keyAt KeyAt) (pos int64, ok bool, err error) {
	if keyAt == nil {
		return 0, false, ErrNoKeyAt
	}
	enc, err := r.encode(key)
	if err != nil {
		return 0, false, err
	}
	return r.confirmed(enc, &key, keyAt, +1)
}

// Floor returns the position of the largest key <= key, confirming the entry
// on key's own path with keyAt as Ceiling does (keyAt is required).
func (r *Reader) Floor(key partitioner.Key, keyAt KeyAt) (pos int64, ok bool, err error) {
	if keyAt == nil {
		return 0, false, ErrNoKeyAt
	}
	enc, err := r.encode(key)
	if err != nil {
		return 0, false, err
	}
	return r.confirmed(enc, &key, keyAt, -1)
}

// CeilingEncoded is Ceiling for any byte-comparable position: a key's
// encoding (Key.AppendComparable) or a token bound, which sorts before
// (AppendMinBound) or after (AppendMaxBound) every key of its token; range
// reads by token start there, as with Cassandra's PartitionPosition.
func (r *Reader) CeilingEncoded(position []byte, keyAt KeyAt) (pos int64, ok bool, err error) {
	if keyAt == nil {
		return 0, false, ErrNoKeyAt
	}
	if r.closed {
		return 0, false, ErrClosed
	}
	return r.confirmed(position, nil, keyAt, +1)
}

// FloorEncoded is Floor for any byte-comparable position (see
// CeilingEncoded).
func (r *Reader) FloorEncoded(position []byte, keyAt KeyAt) (pos int64, ok bool, err error) {
	if keyAt == nil {
		return 0, false, ErrNoKeyAt
	}
	if r.closed {
		return 0, false, ErrClosed
	}
	return r.confirmed(position, nil, keyAt, -1)
}

// CeilingCandidates returns the unconfirmed candidates for the smallest key
// >= key (see Candidates). Neither is checked against a real key.
func (r *Reader) CeilingCandidates(key partitioner.Key) (Candidates, error) {
	enc, err := r.encode(key)
	if err != nil {
		return Candidates{}, err
	}
	return r.candidates(enc, +1)
}

// FloorCandidates returns the unconfirmed candidates for the largest key <=
// key (see Candidates).
func (r *Reader) FloorCandidates(key partitioner.Key) (Candidates, error) {
	enc, err := r.encode(key)
	if err != nil {
		return Candidates{}, err
	}
	return r.candidates(enc, -1)
}

// CeilingCandidatesEncoded is CeilingCandidates for any byte-comparable
// position (see CeilingEncoded).
func (r *Reader) CeilingCandidatesEncoded(position []byte) (Candidates, error) {
	if r.closed {
		return Candidates{}, ErrClosed
	}
	return r.candidates(position, +1)
}

// FloorCandidatesEncoded is FloorCandidates for any byte-comparable
// position.
func (r *Reader) FloorCandidatesEncoded(position []byte) (Candidates, error) {
	if r.closed {
		return Candidates{}, ErrClosed
	}
	return r.candidates(position, -1)
}

// candidates walks toward position: dir is +1 for a ceiling, -1 for a
// floor.
func (r *Reader) candidates(position []byte, dir int) (Candidates, error) {
	var onPath, beyond int64
	var err error
	if dir > 0 {
		onPath, beyond, err = r.walker.Ceiling(position)
	} else {
		onPath, beyond, err = r.walker.Floor(position)
	}
	if err != nil {
		return Candidates{}, fromTrie(err)
	}
	var c Candidates
	if onPath >= 0 {
		if _, _, c.OnPath, err = r.payload(onPath); err != nil {
			return Candidates{}, err
		}
		c.HasOnPath = true
	}
	if beyond >= 0 {
		if _, _, c.Beyond, err = r.payload(beyond); err != nil {
			return Candidates{}, err
		}
		c.HasBeyond = true
	}
	return c, nil
}

// confirmed picks between the candidates. The stored key must sort at or
// after position (dir +1) or at or before it (dir -1). Keys are compared by
// their encodings, so positions that are token bounds work the same way.
//
// keyAt may use the handle itself (a Get, a scan), which overwrites the
// handle's scratch: when position lives there (key != nil), it is encoded
// again from key, the caller's, after keyAt returns.
func (r *Reader) confirmed(position []byte, key *partitioner.Key, keyAt KeyAt, dir int) (int64, bool, error) {
	c, err := r.candidates(position, dir)
	if err != nil {
		return 0, false, err
	}
	if c.HasOnPath {
		raw, err := keyAt(c.OnPath)
		if err != nil {
			return 0, false, err
		}
		if key != nil {
			r.enc = key.AppendComparable(r.enc[:0])
			position = r.enc
		}
		r.stored = r.ix.part.Decorate(raw).AppendComparable(r.stored[:0])
		if cmp := bytes.Compare(r.stored, position); cmp == 0 || (cmp > 0) == (dir > 0) {
			return c.OnPath, true, nil
		}
	}
	return c.Beyond, c.HasBeyond, nil
}
