// Package refpartitions is the reference Partitions.db builder: the
// straightforward allocating way to write what partitionindex.Builder
// writes, as Cassandra did before it reused scratch bytes. It keeps the
// pending key as a decorated key (owning its raw bytes) and the trie's
// last key as its raw bytes, encodes a key afresh for every use (the
// comparison and the cut each encode it again) and finds diff points a
// byte at a time. It exists to check and measure the production builder,
// which must write the same bytes: the golden and model tests, the
// fuzzers and `bti build --path reference` build on both
// (internal/buildpath names the two). The file layout, the payload codec
// and the early-open bookkeeping are the production builder's own, shared
// below both in internal/partitionfile and internal/partitionpayload; only
// the key handling is written again here.
//
// It imports nothing of package partitionindex, so that package's own
// tests can import it: it returns partitionfile's Metadata and View, which
// convert to partitionindex.Metadata and *partitionindex.PartialIndex, and
// partitionfile's sentinels, which are partitionindex's.
package refpartitions

import (
	"bytes"
	"io"

	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// Options is partitionindex.Options: the keys' partitioner, and a page
// size for tests (0 means Cassandra's 4096).
type Options struct {
	Partitioner partitioner.Partitioner
	PageSize    int
}

// Builder writes a Partitions.db file with partitionindex.Builder's
// contract: Add in decorated-key order, then Complete; a refused key or a
// failed write leaves it as before the call; after a first Complete
// (failed or not) only Complete may be called. Memory per key is not
// bounded by design: every Add allocates its encodings and a copy of the
// key, four allocations (TestAddAllocations), and nothing more: the keys
// are held by value and the payload built in an array on the stack, so
// that measuring this path measures the reference way of handling keys.
type Builder struct {
	partitionfile.EarlyOpen // MarkDataSynced, MarkRowIndexSynced, MarkPartitionIndexSynced

	opts Options
	trie trie.Writer
	out  indexfile.Buffer

	count       int64
	firstKey    []byte
	pending     partitioner.Key // the key not yet in the trie (owns its bytes), if havePending
	inTrieRaw   []byte          // the raw key last added to the trie, or nil
	pendPos     int64
	lastDiff    int // the pending key's diff point with its predecessor
	havePending bool
	pendAdded   bool
	completed   bool
	finishing   bool
	meta        partitionfile.Metadata
}

// NewBuilder returns a Builder writing to w from its current position.
func NewBuilder(w io.Writer, opts Options) *Builder {
	var b Builder
	b.Reset(w, opts)
	return &b
}

// Reset starts a new index on w. It keeps no memory: every call allocates.
func (b *Builder) Reset(w io.Writer, opts Options) {
	*b = Builder{opts: opts}
	b.trie.Reset(&b.out, trie.Options{PageSize: opts.PageSize}) // only takes &b.out
	b.out.Reset(w, 0, "partitionindex")
}

// Count returns the number of keys accepted.
func (b *Builder) Count() int64 { return b.count }

// Position returns the file's length so far, buffered bytes included.
func (b *Builder) Position() int64 { return b.out.Position() }

// Flush hands the buffered bytes to the writer.
func (b *Builder) Flush() error { return b.out.Flush() }

// diffPoint is the 1-based index of the first byte where a and b differ (one
// past the shorter when one is a prefix of the other), compared a byte at a
// time.
func diffPoint(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i + 1
}

// Add adds a partition at position (see partitionindex.Builder.Add).
func (b *Builder) Add(key *partitioner.Key, position int64) error {
	if b.finishing {
		return partitionfile.ErrFinished
	}
	if err := partitionfile.CheckEntry(b.opts.Partitioner, b.count, key, position); err != nil {
		return err
	}
	diff := 0
	if b.havePending {
		prev, next := b.pending.AppendComparable(nil), key.AppendComparable(nil)
		diff = diffPoint(prev, next)
		if diff > len(next) || next[diff-1] < prev[diff-1] {
			return partitionfile.OrderError(b.count, b.pending.Raw, key, position)
		}
		// The pending key's stored prefix reaches one byte past both its
		// diff points; encoded again, as a cut of its own.
		cut := b.pending.AppendComparable(nil)
		cut = cut[:min(max(diff, b.lastDiff), len(cut))]
		// The trie copies the payload: an array on the stack serves.
		var payload [9]byte
		p, flags := partitionpayload.Append(payload[:0], b.pending.HashByte(), b.pendPos)
		if err := b.trie.Add(cut, flags, p); err != nil {
			return err
		}
		b.inTrieRaw = b.pending.Raw // a clone of its own, never written again
	}
	b.pending = *key
	b.pending.Raw = bytes.Clone(key.Raw)
	if b.count == 0 {
		b.firstKey = b.pending.Raw
	}
	b.havePending, b.pendPos, b.lastDiff = true, position, diff
	b.count++
	return nil
}

// BuildPartial takes an early-open view (see
// partitionindex.Builder.BuildPartial); the embedded EarlyOpen's Mark
// methods hand it to ready.
func (b *Builder) BuildPartial(rowIndexEnd, dataEnd int64, ready func(*partitionfile.View)) (bool, error) {
	if b.finishing {
		return false, partitionfile.ErrFinished
	}
	return b.Request(&b.trie, b.opts.Partitioner, b.firstKey, b.inTrieRaw, rowIndexEnd, dataEnd, ready)
}

// BuildPartialSynced is partitionindex.Builder.BuildPartialSynced.
func (b *Builder) BuildPartialSynced(rowIndexEnd, dataEnd int64) (*partitionfile.View, error) {
	if b.finishing {
		return nil, partitionfile.ErrFinished
	}
	return b.RequestSynced(&b.trie, &b.out, b.opts.Partitioner, b.firstKey, b.inTrieRaw, rowIndexEnd, dataEnd)
}

// Complete adds the pending key, completes the trie and appends the footer
// (see partitionindex.Builder.Complete); after a failed write a second call
// goes on where the first stopped.
func (b *Builder) Complete() (partitionfile.Metadata, error) {
	b.finishing = true
	b.Drop()
	if b.out.Full() {
		if err := b.out.Flush(); err != nil {
			return partitionfile.Metadata{}, err
		}
	}
	if b.havePending && !b.pendAdded {
		enc := b.pending.AppendComparable(nil)
		var payload [9]byte
		p, flags := partitionpayload.Append(payload[:0], b.pending.HashByte(), b.pendPos)
		if err := b.trie.Add(enc[:min(b.lastDiff, len(enc))], flags, p); err != nil {
			return partitionfile.Metadata{}, err
		}
		b.pendAdded = true
	}
	if !b.completed {
		root, err := b.trie.Complete()
		if err != nil {
			return partitionfile.Metadata{}, err
		}
		firstKeyPos := b.trie.Position()
		var last []byte
		if b.havePending {
			last = b.pending.Raw
		}
		b.out.B = partitionfile.AppendFooter(b.out.B, b.firstKey, last, firstKeyPos, b.trie.Count(), root)
		page := int64(b.opts.PageSize)
		if page == 0 {
			page = trie.DefaultPageSize
		}
		b.meta = partitionfile.Describe(b.trie.Count(), b.out.Position(), root, firstKeyPos, page)
		b.completed = true
	}
	if err := b.out.Flush(); err != nil {
		return partitionfile.Metadata{}, err
	}
	return b.meta, nil
}
