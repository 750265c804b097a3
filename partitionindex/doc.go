// Package partitionindex writes and reads the partition index of Cassandra's
// BTI sstable format, the *-Partitions.db file, byte for byte as Cassandra's
// PartitionIndexBuilder and PartitionIndex do (checked against Cassandra
// trunk at commit 69a6dc6; see BtiFormat.md in Cassandra's source tree).
//
// # File layout
//
//	+-------------------------------------------+ 0
//	| trie nodes, children before parents,      |
//	| packed into 4096-byte pages (zero padding |
//	| where a branch does not fit); the root is |
//	| the last node                             |
//	+-------------------------------------------+ firstKeyPos
//	| u16 length | first partition key (raw)    |
//	| u16 length | last partition key (raw)     |
//	+-------------------------------------------+ file length - 24
//	| i64 firstKeyPos | i64 key count | i64 root|   big-endian
//	+-------------------------------------------+
//
// The trie maps the byte-comparable encoding (OSS50) of each decorated key,
// cut to the shortest prefix that differs from both neighbours, to a payload
// stored after the leaf node:
//
//	header low nibble 8|(size-1) | hash byte | position (size bytes, BE)
//
// The hash byte is the low byte of the key's Murmur3 h2; the position is a
// Rows.db offset when >= 0 and ^(Data.db offset) when negative; callers make
// and read positions with RowIndexPosition, DataPosition, IsDataPosition and
// PositionOffset rather than by hand. Node layouts are documented in package
// trie.
//
// # Contracts
//
// Key order: Builder.Add takes keys in strictly increasing
// decorated-key order of the partitioner (Murmur3: signed token, then raw
// bytes; ByteOrdered: raw bytes), which is the unsigned order of their
// encodings. A key that is equal or smaller is refused with a *KeyError
// matching ErrKeyOrder, and the builder is unchanged.
//
// Caller memory: the builder copies what it keeps (it encodes each key once
// into its own ring of three scratch slots); the caller's key bytes need
// only live for the duration of the call. Lookups likewise.
//
// Builder memory: a Builder holds the pending part of the trie (the nodes
// not yet written, bounded by the trie's depth and the page size), its key
// ring and its write batch, and none of the keys it has written, so its heap
// does not grow with the key count: about 1.4 MiB live after 13 million
// keys and 2.1 MiB after 130 million (TestOver4GiB, a 4.6 GB file, at
// 3d73acb), and 0 bytes allocated per key in steady state.
//
// Failures: a refused key or a failed write leaves the builder as it was
// before the call. The builder hands bytes to its writer in batches at the
// start of a later call (or on Flush/Complete), before changing any state,
// so a write error costs nothing but the error: retry the call, or Complete
// with the keys accepted so far. A failed Complete can be retried; after
// Complete (failed or not) Add returns ErrFinished.
//
// What a hit means: only distinguishing prefixes are stored, so Get returns
// a candidate. A key that shares a stored prefix and (1 in 256) the hash
// byte gets that entry's position; the caller confirms it by comparing the
// key stored at the position in Rows.db or Data.db, as Cassandra does.
// Ceiling and Floor take a KeyAt function to do that confirmation and
// return confirmed answers only; CeilingCandidates and FloorCandidates
// return the unconfirmed candidates for callers that confirm on their own.
// Scans
// yield every entry between their bounds plus at most one candidate just
// outside each bound (see Iterator).
//
// Concurrency: an Index is immutable and shared; each goroutine opens its
// own Reader handle, whose lookups take no lock, do no atomic operation and
// allocate nothing. Closing the Index waits for the last handle before the
// memory is unmapped.
//
// Memory: an index over caller bytes or a mapped file uses them in place.
// Open maps the file without reading it (MADV_RANDOM, no read-ahead of the
// whole file): it reads the footer, the first and last keys' paths to check
// the partitioner, and the jump table's levels, so its cost does not grow
// with the file. On a cold 957 MB index (100 million keys) "bti get" of two
// keys left 384 KiB of the file in the page cache and ran in 0.02 s
// (fincore, bti at 3dcf8a6). OpenOptions.WarmUpBytes reads a bounded tail of
// the file ahead for callers that want the upper levels resident.
// A complete index of jumpMinBytes (2 MiB, about 250,000 Murmur3 keys) or
// more also builds the trie's jump table at open (trie.WithJumpTable):
// trie.JumpTableBytes (512 KiB) on the heap, read from the top two branching
// levels of the trie in under a millisecond, after which every lookup starts
// below those levels; Index.Trie().JumpTable() reports it. Early-open views
// build none. OpenOptions.JumpSlots adds, for a trie of jumpSlotsMinBytes
// (4 MiB) or more, a copy of the node below each table entry (4 MiB,
// trie.WithJumpSlots), from which a lookup decodes that node without
// reading the file: faster for absent keys, slower for present ones (see
// OpenOptions.JumpSlots).
//
// Forgetting Close: nothing releases a mapping but Close. An Index from Open
// stays mapped until its Close and the Close of every Reader opened on it;
// if one of them is forgotten, the mapping (address space, and the file's
// pages in the page cache) stays until the process exits. There is no
// finalizer in normal builds, since unmapping behind the caller's back could
// pull memory from under a lookup. The file descriptor is not leaked: Open
// closes it once the file is mapped. An Index over caller bytes (NewIndex,
// PartialIndex.NewIndex) owns nothing and its Close only refuses new
// handles. Built with -tags invariants (as CI runs the tests), an Index from
// Open or any Reader that is garbage collected without Close panics with the
// stack that opened it, so a test that forgets Close fails (when a garbage
// collection finds it before the test binary exits, which is likely but not
// certain).
//
// Early open: Builder.BuildPartial prepares a readable view of the keys
// written so far (all but the most recent: the builder lags one key) and
// hands it out once the data, row-index and partition-index files are
// flushed far enough (the Mark*Synced calls), as Cassandra's compaction
// does. Taking a view changes later layout decisions exactly as in
// Cassandra, so files match Cassandra's only when views are taken after the
// same keys.
//
// Tools: what serves tools rather than a storage engine (the structural
// check of a file without its keys, partitioner detection, verification
// against the entries, the annotated hex dump, payload views and node
// counts) is in package audit, which this package does not import. It
// builds on Index.Trie and Index.ResolveFooter, the footer-key rule Open
// applies, under any partitioner.
package partitionindex
