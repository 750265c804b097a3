package partitionindex

import (
	"bytes"
	"fmt"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// The file does not name its partitioner, but its footer holds the raw first
// and last keys. Under the partitioner the index was written with, their
// encodings walk to the trie's first and last entries (and those entries'
// hash bytes are the keys'); under another partitioner the encodings differ
// and, but for indexes too small to tell, the walks end elsewhere. Opening
// checks this (two walks), so a wrong partitioner is an error instead of
// lookups that find nothing. The audit package detects the partitioner with
// the same rule, through ResolveFooter.

// PartitionerMismatchError reports that the footer's first or last key does
// not resolve to the trie's first or last entry under Partitioner: the index
// was written with another partitioner (or the file is damaged). It matches
// ErrPartitionerMismatch with errors.Is.
type PartitionerMismatchError struct {
	Partitioner partitioner.Partitioner // the partitioner tried
	Which       string                  // "first" or "last"
	Key         []byte                  // the footer's raw key
	Reason      string                  // where the key's walk ended instead
}

func (e *PartitionerMismatchError) Error() string {
	return fmt.Sprintf("%v: not written with the %v partitioner (or damaged): the footer's %s key %s %s",
		ErrPartitionerMismatch, e.Partitioner, e.Which, shortHex(e.Key), e.Reason)
}

func (e *PartitionerMismatchError) Is(target error) bool { return target == ErrPartitionerMismatch }

// ResolveFooter checks the footer's first and last keys against the trie
// under p, the rule Open applies to OpenOptions.Partitioner: with two or
// more keys the first sorts before the last, and each, encoded under p,
// walks to the trie's first and last entry respectively, whose hash byte,
// where it has one, is the key's (two walks). A key that sorts wrong or
// walks elsewhere is a *PartitionerMismatchError; a hash byte that differs
// at the right entry, or a count that disagrees with an empty or non-empty
// trie, is a *CorruptError. It is the low-level step the audit package
// detects a file's partitioner with (an index opened with
// SkipPartitionerCheck, tried under each partitioner).
func (ix *Index) ResolveFooter(p partitioner.Partitioner) error {
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
	return footerResolves(ix, &w, p, first, last)
}

// checkPartitioner checks the footer's keys under the index's own
// partitioner (ResolveFooter); an empty view must have an empty trie.
func (ix *Index) checkPartitioner() error { return ix.ResolveFooter(ix.part) }

// footerResolves is the footer-key rule, the one implementation that Open
// and (through ResolveFooter) the audit package's detection and check
// apply: under p, the view's first key sorts before its last (with two or
// more keys), and each, encoded, walks to the trie's first and last entry (the nodes first and last) respectively,
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
			Reason: fmt.Sprintf("does not sort before the last key %s", shortHex(v.lastKey))}
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
