// Package trie reads and writes the on-disk tries of Cassandra's BTI format
// (the trie part of Partitions.db, docs/format.md §4–§9), byte for byte as
// Cassandra does. The payload is opaque here: 4 flag bits in the node header
// plus bytes after the node, whose meaning belongs to the caller
// (partitionindex). The package knows nothing of tokens, keys or footers.
//
// # Node layouts
//
// Every node starts with a header byte: type code in the high nibble, payload
// flags in the low nibble (pointer bits for the two NOPAYLOAD singles).
// Integers are big-endian and unsigned. A pointer is the distance back from
// the node's own first byte to the child's first byte (child = pos - d);
// children always precede their parent, so d > 0. A DENSE slot holding 0
// has no child. The payload, if the flags are non-zero, starts right after
// the fixed part shown below (payloadPosition).
//
//	PAYLOAD_ONLY (0)         +--------+
//	                         |0000 ff |                      size 1
//	                         +--------+
//	SINGLE_NOPAYLOAD_4 (1)   +--------+--------+
//	                         |0001 dddd| trans |             size 2, d 1..15
//	                         +--------+--------+
//	SINGLE_NOPAYLOAD_12 (3)  +---------+--------+--------+
//	                         |0011 d11..8|d7..0 | trans |    size 3, d 1..4095
//	                         +---------+--------+--------+
//	SINGLE_8 (2), SINGLE_16 (4)
//	                         +--------+--------+---------+
//	                         |tttt ff | trans  | d <w>   |   w = 1 or 2 bytes
//	                         +--------+--------+---------+
//	SPARSE_8/16/24/40 (5,7,8,9)
//	                         +--------+-----+----------+------------------+
//	                         |tttt ff | <n> | t0..tn-1 | d0..dn-1 <w> each |  w = 1,2,3,5
//	                         +--------+-----+----------+------------------+
//	                         transitions strictly increasing; size 2 + n(1+w)
//	SPARSE_12 (6)            as SPARSE with 12-bit packed d: size 2 + ⌊(5n+1)/2⌋
//	DENSE_16/24/32/40, LONG_DENSE (11..15)
//	                         +--------+-------+--------+---------------------+
//	                         |tttt ff | first | span-1 | d per slot <w> each |  w = 2,3,4,5,8
//	                         +--------+-------+--------+---------------------+
//	                         slot i is byte first+i; size 3 + span·w
//	DENSE_12 (10)            as DENSE with 12-bit packed d: size 3 + ⌊(3·span+1)/2⌋
//
// 12-bit packing: values go in pairs into 3 bytes, [v0>>4][(v0&F)<<4|v1>>8]
// [v1&FF]; an odd last value takes two bytes with a zero low nibble. Value i
// is the 16-bit word at 3i/2, shifted right by 4 for even i, masked with
// 0xFFF for odd i.
//
// # Worked example
//
// docs/format.md §10.3: BOP keys "a", "ab", "b" stored as the prefixes
// 40 61 00, 40 61 62 and 40 62 (TestWorkedThreeKeys reads these bytes and
// TestDump pins the dump below):
//
//	@00 08 5A FF              PAYLOAD_ONLY flags 8, payload 5A FF   ("a")
//	@03 08 AD 64              PAYLOAD_ONLY flags 8, payload AD 64   ("ab")
//	@06 50 02 00 62 06 03     SPARSE_8 n=2: 00 → @0, 62 → @3
//	@0C 08 E9 CD              PAYLOAD_ONLY flags 8, payload E9 CD   ("b")
//	@0F A0 61 01 00 90 03     DENSE_12 first 61 span 2: 61 → @6 (d 9), 62 → @C (d 3)
//	@15 16 40                 SINGLE_NOPAYLOAD_4 d 6, 40 → @F   (root)
//
//	@15 SINGLE_NOPAYLOAD_4
//	  40 -> @f DENSE_12
//	    61 -> @6 SPARSE_8
//	      00 -> @0 PAYLOAD_ONLY flags=8
//	      62 -> @3 PAYLOAD_ONLY flags=8
//	    62 -> @c PAYLOAD_ONLY flags=8
//
// # Reader contracts
//
// A Trie is a Source (the file bytes, plus an early-open tail read from
// Cutoff on) and a root position. It is immutable and safe for concurrent
// use; Walker, Iterator and ReverseIterator are per goroutine, reusable, and
// do not allocate after warm-up. Keys are byte-comparable streams: a key
// ends with an implicit end-of-stream that sorts below every byte.
//
//   - Walker.Exact: Cassandra's follow, then a node is a candidate if the key
//     was consumed there or it has no children, and it has payload flags.
//     Only a stored prefix was matched: callers confirm the real key.
//   - Walker.Ceiling / Floor return two candidates each (the entry on the
//     key's path, then the nearest entry strictly beyond it), as Cassandra's
//     ceiling and floor try them; callers try the first with their own key
//     check and fall back to the second.
//   - Iterator / ReverseIterator follow ValueIterator and
//     ReverseValueIterator exactly, including the bound rules for prefixes
//     (end inclusive; admitPrefix) and the reverse iterator's quirk without
//     an end bound.
//   - Trie.Payload returns the flags and the bytes from the payload position
//     to the end of the node's segment; the caller checks its own lengths.
//
// Bad bytes never panic and never loop. Every node's fixed part must lie
// inside its segment (File below Cutoff, or Tail), and every child pointer
// must point strictly backwards to a position >= 0, so every descent
// terminates. Iterations, Stats and Dump give up after reaching more nodes
// than there are bytes (children shared by several parents could otherwise
// make a walk exponential). Violations are *CorruptError, matching
// ErrCorrupt. Payload flag values are not checked here; 8..15 is a rule of
// the partition index. No walk recurses: tries can be ~200 000 levels deep.
//
// # Writer
//
// Writer builds a trie in one pass over keys in strictly increasing order,
// laying nodes out in pages exactly as Cassandra's page-aware writer does
// (IncrementalDeepTrieWriterPageAware; layout.go has the algorithm): a
// completed node stays in memory while its unwritten branch is estimated to
// fit in a page; when it does not, the largest child branches that fit what
// is left of the page are written, each as one contiguous post-order block,
// padding with zeros when none fits. The size estimates and the points where
// they are recomputed are Cassandra's, because they decide node types and so
// every later offset. Memory holds only the unwritten part of the trie (plus
// written children whose parent is not yet written); nodes, child lists and
// buffers are recycled, so a warm Writer allocates nothing per key.
//
// Contracts: Add keeps reading the previous key's bytes until the next Add
// returns (callers may reuse any older key's memory); AddShared skips the
// prefix comparison for callers that know the shared length. Output is
// buffered and handed to the sink at the start of a later call, before any
// state changes, so a failed write costs nothing but the error and a retry
// continues; MakePartialRoot serializes the unwritten part into a tail for
// early open, with Cassandra's side effects on the size estimates.
//
// Deviation: a node larger than a whole page (possible only with the tiny
// pages tests use; the largest node is 2,051 bytes plus payload) is written
// across the boundary, where Cassandra's layout would retry it forever.
//
// # Deviations from Cassandra's reader
//
//   - DENSE search treats only a stored distance of 0 as a hole. Cassandra's
//     also misses a child at distance exactly 1 (docs/format.md §4.6;
//     impossible in a partition index, whose leaves are at least 3 bytes).
//   - Where Cassandra would throw (a pointer out of the buffer, a walk that
//     needs a missing first or last DENSE slot, a leaf without payload below
//     the root), this reader returns a CorruptError. It also rejects zero or
//     forward pointers, which Cassandra would follow, possibly forever.
//   - ReverseIterator starts from the root's transition count rather than
//     search(256); the two agree on every well-formed node.
package trie
