package partitionindex

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// The file does not name its partitioner, but its footer holds the raw first
// and last keys. Under the partitioner the index was written with, their
// encodings walk to the trie's first and last entries (and those entries'
// hash bytes are the keys'); under another partitioner the encodings differ
// and, but for indexes too small to tell, the walks end elsewhere. Opening
// checks this (two walks), so a wrong partitioner is an error instead of
// lookups that find nothing.

// partitioners are the ones DetectPartitioner tries, Cassandra's default
// first.
var partitioners = [...]partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random}

// PartitionerMismatchError reports that the footer's first or last key does
// not resolve to the trie's first or last entry under Partitioner: the index
// was written with another partitioner (or the file is damaged). It matches
// ErrPartitionerMismatch with errors.Is.
type PartitionerMismatchError struct {
	Partitioner partitioner.Partitioner // the partitioner tried
	Which       string                  // "first" or "last"
	Key         []byte                  // the footer's raw key
	Reason      string                  // where the key's walk ended instead

	order bool // the keys sort the wrong way round under Partitioner
}

func (e *PartitionerMismatchError) Error() string {
	return fmt.Sprintf("%v: not written with the %v partitioner (or damaged): the footer's %s key %s %s",
		ErrPartitionerMismatch, e.Partitioner, e.Which, shortHex(e.Key), e.Reason)
}

func (e *PartitionerMismatchError) Is(target error) bool { return target == ErrPartitionerMismatch }

// DetectError reports that DetectPartitioner found no partitioner, or more
// than one, under which the footer's keys resolve. It matches
// ErrNoPartitioner or ErrAmbiguousPartitioner with errors.Is.
type DetectError struct {
	Err     error                     // ErrNoPartitioner or ErrAmbiguousPartitioner
	Count   int64                     // keys in the index
	Matches []partitioner.Partitioner // for ErrAmbiguousPartitioner, every one that fits
	Tried   []error                   // for ErrNoPartitioner, why each was refused
}

func (e *DetectError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Err == ErrAmbiguousPartitioner {
		fmt.Fprintf(&b, ": the footer's keys resolve under each of")
		for i, p := range e.Matches {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %v", p)
		}
		fmt.Fprintf(&b, " (an index of %d keys cannot tell them apart)", e.Count)
		return b.String()
	}
	for _, err := range e.Tried {
		fmt.Fprintf(&b, "; %v", err)
	}
	return b.String()
}

func (e *DetectError) Unwrap() error { return e.Err }

// DetectPartitioner returns the one partitioner under which the footer's
// first and last keys resolve to the trie's first and last entries.
//
// An index of zero keys, or of one key (whose stored prefix is empty, so
// every key walks to it), fits every partitioner; so may, rarely, a small
// index. Then the error is a *DetectError matching ErrAmbiguousPartitioner
// and listing the partitioners that fit, and the caller must choose. If
// none fits, it matches ErrNoPartitioner; a damaged footer is a
// *CorruptError.
func DetectPartitioner(data []byte) (partitioner.Partitioner, error) {
	v, fileEnd, err := parseFooter(data)
	if err != nil {
		return 0, err
	}
	var matches []partitioner.Partitioner
	var tried []error
	for _, p := range partitioners {
		ix, err := newIndexOver(data[:fileEnd], p, v)
		if err == nil {
			err = ix.checkPartitioner()
		}
		switch {
		case err == nil:
			matches = append(matches, p)
		case errors.Is(err, ErrPartitionerMismatch):
			tried = append(tried, err)
		default:
			return 0, err // corruption shows whatever the partitioner
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return 0, &DetectError{Err: ErrNoPartitioner, Count: v.count, Tried: tried}
	}
	return 0, &DetectError{Err: ErrAmbiguousPartitioner, Count: v.count, Matches: matches}
}

// checkPartitioner checks that the view's first and last keys, encoded
// under the index's partitioner, walk to the trie's first and last entries
// and that those entries carry the keys' hash bytes. An empty view must
// have an empty trie.
func (ix *Index) checkPartitioner() error {
	w := ix.trie.Walker()
	first, err := w.First()
	if err != nil {
		return err
	}
	last, err := w.Last()
	if err != nil {
		return err
	}
	if ix.v.count == 0 {
		if first >= 0 {
			return &CorruptError{Offset: first, Reason: "the key count is 0 but the trie holds entries"}
		}
		return nil
	}
	if first < 0 {
		return &CorruptError{Offset: ix.v.root, Reason: fmt.Sprintf("the key count is %d but the trie is empty", ix.v.count)}
	}
	return footerResolves(ix, &w, ix.part, first, last)
}

// footerResolves is the footer-key rule, the one implementation that Open,
// DetectPartitioner and Check all apply: under p, the view's first key sorts
// before its last (with two or more keys), and each, encoded, walks to the
// trie's first and last entry (the nodes first and last) respectively,
// whose hash byte, where it has one, is the key's. A key that sorts wrong
// or walks elsewhere is a *PartitionerMismatchError; a hash byte that
// differs at the right entry is damage, a *CorruptError, since the hash
// does not depend on the partitioner. An empty trie (first < 0) has
// nothing to resolve.
func footerResolves(ix *Index, w *trie.Walker, p partitioner.Partitioner, first, last int64) error {
	v := &ix.v
	if v.count == 0 || first < 0 {
		return nil
	}
	fk, lk := p.Decorate(v.firstKey), p.Decorate(v.lastKey)
	if v.count >= 2 && partitioner.Compare(fk, lk) >= 0 {
		return &PartitionerMismatchError{Partitioner: p, Which: "first", Key: bytes.Clone(v.firstKey),
			Reason: fmt.Sprintf("does not sort before the last key %s", shortHex(v.lastKey)), order: true}
	}
	var enc []byte
	for _, end := range [2]struct {
		which string
		key   partitioner.Key
		node  int64
	}{{"first", fk, first}, {"last", lk, last}} {
		enc = end.key.AppendComparable(enc[:0])
		node, found, err := w.Exact(enc)
		if err != nil {
			return err
		}
		if !found || node != end.node {
			reason := "walks to no entry"
			if found {
				reason = fmt.Sprintf("walks to the entry at %d, not the trie's %s entry at %d", node, end.which, end.node)
			}
			return &PartitionerMismatchError{Partitioner: p, Which: end.which, Key: bytes.Clone(end.key.Raw), Reason: reason}
		}
		flags, b, err := ix.trie.Payload(node)
		if err != nil {
			return err
		}
		hash, hasHash, _, ok := decodePayload(flags, b)
		if !ok {
			return &CorruptError{Offset: node, Reason: fmt.Sprintf("payload with flags %#x does not fit in the file", flags)}
		}
		if hasHash && hash != end.key.HashByte() {
			return &CorruptError{Offset: node, Reason: fmt.Sprintf("the trie's %s entry has hash byte %02x, the footer's %s key %s hashes to %02x", end.which, hash, end.which, shortHex(end.key.Raw), end.key.HashByte())}
		}
	}
	return nil
}

// shortHex is the hex of key, cut to 32 bytes for messages.
func shortHex(key []byte) string {
	const max = 32
	if len(key) <= max {
		return fmt.Sprintf("%x", key)
	}
	return fmt.Sprintf("%x...(%d bytes)", key[:max], len(key))
}
