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
func (r *Reader) Ceiling(key *partitioner.Key, keyAt KeyAt) (pos int64, ok bool, err error) {
	if keyAt == nil {
		return 0, false, ErrNoKeyAt
	}
	c, err := r.keyCandidates(key, +1)
	if err != nil {
		return 0, false, err
	}
	return r.pick(c, nil, key, keyAt, +1)
}

// Floor returns the position of the largest key <= key, confirming the entry
// on key's own path with keyAt as Ceiling does (keyAt is required).
func (r *Reader) Floor(key *partitioner.Key, keyAt KeyAt) (pos int64, ok bool, err error) {
	if keyAt == nil {
		return 0, false, ErrNoKeyAt
	}
	c, err := r.keyCandidates(key, -1)
	if err != nil {
		return 0, false, err
	}
	return r.pick(c, nil, key, keyAt, -1)
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
	c, err := r.candidates(position, +1)
	if err != nil {
		return 0, false, err
	}
	return r.pick(c, position, nil, keyAt, +1)
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
	c, err := r.candidates(position, -1)
	if err != nil {
		return 0, false, err
	}
	return r.pick(c, position, nil, keyAt, -1)
}

// CeilingCandidates returns the unconfirmed candidates for the smallest key
// >= key (see Candidates). Neither is checked against a real key.
func (r *Reader) CeilingCandidates(key *partitioner.Key) (Candidates, error) {
	return r.keyCandidates(key, +1)
}

// FloorCandidates returns the unconfirmed candidates for the largest key <=
// key (see Candidates).
func (r *Reader) FloorCandidates(key *partitioner.Key) (Candidates, error) {
	return r.keyCandidates(key, -1)
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

// keyCandidates walks toward key: dir is +1 for a ceiling, -1 for a floor.
// A Murmur3 ceiling walks with the key's token prefix alone whenever that
// decides the walk (fastpath.go), as Get does; every other walk encodes the
// whole key into r.enc.
func (r *Reader) keyCandidates(key *partitioner.Key, dir int) (Candidates, error) {
	if err := r.checkKey(key); err != nil {
		return Candidates{}, err
	}
	if dir > 0 && key.Partitioner == partitioner.Murmur3 {
		putTokenPrefix(&r.tok, key.Token)
		onPath, beyond, more, err := r.walker.CeilingPrefix(r.tok[:])
		if !more {
			return r.candidatesAt(onPath, beyond, err)
		}
	}
	r.enc = key.AppendComparable(r.enc[:0])
	return r.candidates(r.enc, dir)
}

// candidates walks toward position: dir is +1 for a ceiling, -1 for a
// floor.
func (r *Reader) candidates(position []byte, dir int) (Candidates, error) {
	if dir > 0 {
		return r.candidatesAt(r.walker.Ceiling(position))
	}
	return r.candidatesAt(r.walker.Floor(position))
}

// candidatesAt reads the positions of the nodes a ceiling or floor walk
// ended with (-1 for none).
func (r *Reader) candidatesAt(onPath, beyond int64, err error) (Candidates, error) {
	if err != nil {
		return Candidates{}, err
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

// pick chooses between the candidates. The stored key must sort at or
// after the probe (dir +1) or at or before it (dir -1). Keys are compared by
// their encodings, so positions that are token bounds work the same way.
//
// The probe is position, or key when key is not nil: keyAt may use the
// handle itself (a Get, a scan), which overwrites the handle's scratch, and
// a key walk may have encoded only a prefix, so a key is encoded after keyAt
// returns.
func (r *Reader) pick(c Candidates, position []byte, key *partitioner.Key, keyAt KeyAt, dir int) (int64, bool, error) {
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
