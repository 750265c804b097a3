package partitionindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// footerLength is the fixed tail of a Partitions.db file: three big-endian
// int64s, firstKeyPos, key count and root position.
const footerLength = 24

// view is what a reader needs besides the file bytes: where the trie's root
// is, which keys it holds, and for an early-open view the in-memory tail.
type view struct {
	root              int64
	cutoff            int64
	tail              []byte
	count             int64
	firstKey, lastKey []byte
}

// Index is an open Partitions.db: immutable after opening and safe for
// concurrent use. Lookups go through Reader handles (OpenReader), one per
// goroutine; a handle pins the index once, so lookups themselves do no
// synchronization. Close releases the index when the last handle is closed.
type Index struct {
	part partitioner.Partitioner
	trie *trie.Trie
	v    view
	// For complete files: the whole file and where the footer's keys start.
	data        []byte
	firstKeyPos int64

	check closeCheck // -tags invariants: reports an Index from Open dropped unclosed (not last: a zero-size last field is padded)

	mu      sync.Mutex
	handles int
	closed  bool
	release func() error // unmaps a mapped file; nil for caller-owned bytes
	// releaseErr is the error of a release the last Reader's Close made
	// after Close: Close reports it when called again.
	releaseErr error
}

// newIndexChecked opens the complete file in data as opts says and checks
// opts.Partitioner against the footer keys.
func newIndexChecked(data []byte, opts OpenOptions) (*Index, error) {
	ix, err := newIndexUnchecked(data, opts)
	if err != nil {
		return nil, err
	}
	if err := ix.checkPartitioner(); err != nil {
		return nil, err
	}
	return ix, nil
}

// newIndexUnchecked opens the complete file in data as opts says, without
// the partitioner check.
func newIndexUnchecked(data []byte, opts OpenOptions) (*Index, error) {
	v, fileEnd, err := parseFooter(data)
	if err != nil {
		return nil, err
	}
	ix, err := newIndexOver(data[:fileEnd], opts.Partitioner, v)
	if err != nil {
		return nil, err
	}
	ix.data, ix.firstKeyPos = data, fileEnd
	switch {
	case opts.JumpSlots && fileEnd >= jumpSlotsMinBytes:
		ix.trie = ix.trie.WithJumpSlots()
	case fileEnd >= jumpMinBytes:
		ix.trie = ix.trie.WithJumpTable()
	}
	return ix, nil
}

// jumpMinBytes is the trie size from which an index builds the trie's jump
// table at open (trie.WithJumpTable): trie.JumpTableBytes (512 KiB) of
// memory, at most a quarter of the file, for walks that start below the top
// two branching levels (about 250,000 Murmur3 keys and up). Smaller tries
// stay in the caches and gain little.
const jumpMinBytes = 2 << 20

// jumpSlotsMinBytes is the trie size from which OpenOptions.JumpSlots
// builds the jump slots (trie.WithJumpSlots): trie.JumpSlotBytes (4 MiB),
// so that they never take more memory than the trie itself (about 500,000
// Murmur3 keys and up; at a million keys the trie is 8.3 MB: bti gen --kind
// uuid --count 1000000 --seed 1, bti build, at e87eb5b).
const jumpSlotsMinBytes = 4 << 20

// newIndex opens an early-open view over the file written so far, checking
// the partitioner against the view's own first and last keys.
func newIndex(file []byte, p partitioner.Partitioner, v view) (*Index, error) {
	if int64(len(file)) > v.cutoff {
		file = file[:v.cutoff]
	}
	ix, err := newIndexOver(file, p, v)
	if err != nil {
		return nil, err
	}
	if err := ix.checkPartitioner(); err != nil {
		return nil, err
	}
	return ix, nil
}

func newIndexOver(file []byte, p partitioner.Partitioner, v view) (*Index, error) {
	if p.ClassName() == "" {
		return nil, fmt.Errorf("%w: unknown partitioner %v", ErrPartitioner, p)
	}
	src := trie.Source{File: file}
	if v.tail != nil {
		src.Cutoff, src.Tail = v.cutoff, v.tail
	}
	t, err := trie.New(src, v.root)
	if err != nil {
		return nil, err // a *CorruptError at the root: the footer's root points outside the trie
	}
	return &Index{part: p, trie: t, v: v}, nil
}

// parseFooter reads and checks the footer (see Builder.Complete for the
// layout). It returns the view and the end of the trie area (firstKeyPos).
// Cassandra checks nothing here; the checks below reject no file Cassandra
// writes and keep a reader from being sent outside the file.
func parseFooter(data []byte) (view, int64, error) {
	size := int64(len(data))
	if size < footerLength {
		return view{}, 0, &CorruptError{Offset: 0, Reason: fmt.Sprintf("file is %d bytes, too short for the %d-byte footer", size, footerLength)}
	}
	f := data[size-footerLength:]
	firstKeyPos := int64(binary.BigEndian.Uint64(f[0:]))
	count := int64(binary.BigEndian.Uint64(f[8:]))
	root := int64(binary.BigEndian.Uint64(f[16:]))
	footerPos := size - footerLength
	switch {
	case firstKeyPos <= 0 || firstKeyPos > footerPos:
		return view{}, 0, &CorruptError{Offset: footerPos, Reason: fmt.Sprintf("first-key position %d outside the file (trie must end before the footer at %d)", firstKeyPos, footerPos)}
	case count < 0:
		return view{}, 0, &CorruptError{Offset: footerPos + 8, Reason: fmt.Sprintf("negative key count %d", count)}
	case root < 0 || root >= firstKeyPos:
		return view{}, 0, &CorruptError{Offset: footerPos + 16, Reason: fmt.Sprintf("root position %d outside the trie area [0, %d)", root, firstKeyPos)}
	}
	keys := data[firstKeyPos:footerPos]
	first, rest, ok := cutShortLength(keys)
	if !ok {
		return view{}, 0, &CorruptError{Offset: firstKeyPos, Reason: "first key runs past the footer"}
	}
	last, rest, ok := cutShortLength(rest)
	if !ok {
		return view{}, 0, &CorruptError{Offset: firstKeyPos + 2 + int64(len(first)), Reason: "last key runs past the footer"}
	}
	if len(rest) != 0 {
		return view{}, 0, &CorruptError{Offset: footerPos - int64(len(rest)), Reason: fmt.Sprintf("%d unexpected bytes between the last key and the footer", len(rest))}
	}
	if count == 0 && (len(first) != 0 || len(last) != 0) {
		return view{}, 0, &CorruptError{Offset: firstKeyPos, Reason: "an empty index stores keys"}
	}
	// Copies: the keys must outlive a memory map that Close releases.
	return view{root: root, count: count, firstKey: bytes.Clone(first), lastKey: bytes.Clone(last)}, firstKeyPos, nil
}

// cutShortLength splits a [u16 length][bytes] item off b.
func cutShortLength(b []byte) (item, rest []byte, ok bool) {
	if len(b) < 2 {
		return nil, nil, false
	}
	n := int(binary.BigEndian.Uint16(b))
	if len(b) < 2+n {
		return nil, nil, false
	}
	return b[2 : 2+n], b[2+n:], true
}

// Partitioner returns the partitioner the index was opened with.
func (ix *Index) Partitioner() partitioner.Partitioner { return ix.part }

// Count returns the number of keys in the index.
func (ix *Index) Count() int64 { return ix.v.count }

// FirstKey and LastKey return the raw partition keys stored in the footer
// (empty for an empty index). They stay valid after Close; do not modify.
func (ix *Index) FirstKey() []byte { return ix.v.firstKey }
func (ix *Index) LastKey() []byte  { return ix.v.lastKey }

// FirstKeyPos returns where the footer's keys start, right after the root
// node (0 for an early-open view).
func (ix *Index) FirstKeyPos() int64 { return ix.firstKeyPos }

// Root returns the position of the trie's root node.
func (ix *Index) Root() int64 { return ix.v.root }

// Trie returns the underlying trie, for dumps and statistics. It reads the
// index's memory directly: use it only while the index is open (lookups that
// must survive a concurrent Close go through a Reader handle).
func (ix *Index) Trie() *trie.Trie { return ix.trie }

// OpenReader returns a handle for lookups from one goroutine. It fails with
// ErrClosed once the index is closed.
func (ix *Index) OpenReader() (*Reader, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil, ErrClosed
	}
	ix.handles++
	r := &Reader{ix: ix, part: ix.part, t: ix.trie}
	r.walker.Reset(ix.trie)
	armCloseCheck(&r.check, r, "Reader")
	return r, nil
}

// Close closes the index. New handles cannot be opened; the memory stays
// mapped until every open handle is closed, so lookups in flight finish.
//
// Close is the only call that reports a failure to release the mapping
// (munmap): with no handle open it releases it and returns the error; if
// handles are open, the last Reader.Close releases it, and calling Close
// again after that returns the error (Reader.Close reports only its own
// errors). Close is otherwise idempotent.
func (ix *Index) Close() error {
	ix.mu.Lock()
	if ix.closed {
		err := ix.releaseErr
		ix.mu.Unlock()
		return err
	}
	ix.closed = true
	ix.check.disarm()
	release := ix.handles == 0
	ix.mu.Unlock()
	if release {
		return ix.releaseMemory()
	}
	return nil
}

// handleClosed drops a handle; the last one after Close releases the
// memory, keeping the error for Close.
func (ix *Index) handleClosed() {
	ix.mu.Lock()
	ix.handles--
	release := ix.closed && ix.handles == 0
	ix.mu.Unlock()
	if release {
		err := ix.releaseMemory()
		ix.mu.Lock()
		ix.releaseErr = err
		ix.mu.Unlock()
	}
}

func (ix *Index) releaseMemory() error {
	if ix.release == nil {
		return nil
	}
	f := ix.release
	ix.release = nil
	return f()
}
