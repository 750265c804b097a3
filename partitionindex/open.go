package partitionindex

import (
	"fmt"

	"github.com/bti-go/bti/partitioner"
)

// OpenOptions says how Open and NewIndex open a Partitions.db. The zero
// value opens a Murmur3 file (Cassandra's default partitioner), checks the
// partitioner against the footer's keys, and reads nothing ahead. A file
// whose partitioner is not known is opened with the one the audit package
// detects (audit.DetectPartitioner, audit.OpenDetected).
type OpenOptions struct {
	// Partitioner is the partitioner the file was written with. Open
	// refuses a file whose footer keys do not resolve under it
	// (*PartitionerMismatchError) unless SkipPartitionerCheck is set.
	Partitioner partitioner.Partitioner

	// SkipPartitionerCheck opens the file under Partitioner without the
	// check, for tools that report a mismatch as a finding rather than
	// refuse the file (audit.CheckPartitions, bti dump). Lookups on such an
	// index may miss keys if Partitioner is not the file's.
	SkipPartitionerCheck bool

	// WarmUpBytes, if positive, makes Open read the last WarmUpBytes of the
	// file into the page cache before it returns, in 1 MiB reads (pread,
	// not page faults, so the disk sees large sequential requests). The
	// page-aware writer puts the upper levels of the trie last, so a
	// warm-up of a few MiB makes the first lookups on a cold file fault
	// only on their bottom pages. It costs WarmUpBytes of page cache and,
	// on a cold file, about WarmUpBytes / disk bandwidth at Open; a value
	// larger than the file warms the whole file. Open holds no memory of
	// its own for it (one 1 MiB buffer during the warm-up). NewIndex
	// ignores it: its bytes are the caller's.
	WarmUpBytes int64

	// JumpSlots, if set, makes Open and NewIndex keep in memory a copy of
	// the node below each entry of the jump table, one 64-byte slot per
	// entry (trie.WithJumpSlots). Get and the ceiling lookups (Ceiling,
	// CeilingCandidates and their Encoded forms) then step that node from
	// the slot instead of the file, and a miss whose token's third byte the
	// node lacks reads no byte of the file at all. A hit reads its leaf
	// from the file: the walk starts loading the lines below the node
	// (where its leaves lie) as it reads the slot, so the leaf is no
	// second miss waiting on the slot's pointer. On a million Murmur3 UUID
	// keys, without → with slots: lookup-miss 100.6 → 84.5 ns (−16.0%,
	// ranges disjoint), lookup-hit 114.8 → 113.4, ceiling 134.8 → 121.9
	// (ranges overlap) (medians of 7 alternating rounds of GOMAXPROCS=1
	// bti bench --benchmark lookup with and without --jump-slots, 1c07887;
	// script slots-ab.sh in the issue-22 note of 2026-12-06). Before
	// 1c07887 hits and ceilings waited for that second miss and took
	// 40% longer with slots than without. GetBatch (whose prefetches
	// overlap its misses already) and the floor lookups walk as without,
	// so a workload of misses gains most. The slots take
	// trie.JumpSlotBytes (4 MiB) besides the jump table, whatever the
	// index's size, and are built only for a trie of 4 MiB or more (about
	// 500,000 Murmur3 keys), so they never take more than the trie itself:
	// at a million keys about half of its 8.3 MB. Open builds them by
	// reading the 65,536 nodes below the table once: about 9 ms at a
	// million keys, against 1 ms without (best of five NewIndex of a bti
	// gen --kind uuid --count 1000000 --seed 1 index on this repository's
	// loaded 2-core machine, branch lookacc). Where those nodes are not
	// the SPARSE_8 nodes of up to 30 children a slot holds (ten million
	// Murmur3 keys and up: about 150 children each) no slots are built;
	// Index.Trie().JumpSlots() reports whether they were. Answers are the
	// same with and without.
	JumpSlots bool
}

// warmUpChunk is the size of one warm-up read.
const warmUpChunk = 1 << 20

// Open maps the Partitions.db file at path into memory (mmap where the
// platform has it, else reads it) and opens it as opts says (see
// NewIndex). The mapping is released when the index and every reader
// handle are closed.
//
// Open reads only the footer, the two keys it names, the root's chain and
// the two levels below it (the jump table, for files of 2 MiB or more:
// about 200 KiB at a million Murmur3 keys), plus opts.WarmUpBytes. It
// advises the kernel that lookups are random (MADV_RANDOM), so a fault
// reads one page, not a read-ahead window: a lookup on a cold file reads
// the pages its path crosses and no others.
func Open(path string, opts OpenOptions) (*Index, error) {
	return openFile(path, opts)
}

// NewIndex opens the complete index file in data, validating its footer
// and, unless opts.SkipPartitionerCheck, checking that it was written with
// opts.Partitioner: the footer's first and last keys, encoded under it,
// must walk to the trie's first and last entries (two walks). A wrong
// partitioner is a *PartitionerMismatchError (matching
// ErrPartitionerMismatch); audit.DetectPartitioner finds the right one.
// The bytes are used in place and must not change while the index is open.
func NewIndex(data []byte, opts OpenOptions) (*Index, error) {
	if opts.SkipPartitionerCheck {
		return newIndexUnchecked(data, opts)
	}
	return newIndexChecked(data, opts)
}

// indexOfFile is the end of openFile on every platform (mmap_unix.go maps
// the file, mmap_other.go reads it): it opens the index over data, the
// bytes of the file at path, with release to free them at Index.Close
// (nil: nothing to free), or frees them at once if the bytes are refused.
// Under the invariants tag a forgotten Close is reported (closecheck_on.go).
func indexOfFile(path string, data []byte, opts OpenOptions, release func() error) (*Index, error) {
	ix, err := NewIndex(data, opts)
	if err != nil {
		if release != nil {
			_ = release()
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ix.release = release
	armCloseCheck(&ix.check, ix, "Index from Open")
	return ix, nil
}
