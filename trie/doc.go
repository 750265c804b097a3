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
// package audit's TestDumpTrie pins the dump below, which audit.DumpTrie
// prints):
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
//   - Walker.ExactBatch answers many exact walks as Exact does, interleaved
//     so that their cache misses overlap.
//   - Trie.WithJumpTable adds a 512 KiB in-memory table (jump.go) from which
//     walks start below the top two branching levels, in the state a walk
//     from the root would be in there. Walks over a file without a tail run
//     in one loop for the common node types (walkfile.go; the batch lane
//     loop in batch.go likewise) and take one general step (nodeView) for
//     any other node, staying in their loop, so neither changes an answer
//     or an error. Trie.WithJumpSlots adds, beside the table, a 64-byte
//     copy of the start of the node below each entry (4 MiB), from which
//     Exact and Ceiling decode that node without reading the file.
//
// Bad bytes never panic and never loop. Every node's fixed part must lie
// inside its segment (File below Cutoff, or Tail), and every child pointer
// must point strictly backwards to a position >= 0, so every descent
// terminates. Iterations (and package audit's walks over Shape, DumpTrie
// and CountTrie) give up after reaching more nodes than there are bytes
// (children shared by several parents could otherwise make a walk
// exponential). Violations are *CorruptError, matching
// ErrCorrupt. Payload flag values are not checked here; 8..15 is a rule of
// the partition index. No walk recurses: tries can be ~200 000 levels deep.
//
// # Writer
//
// Writer builds a trie in one pass over keys in strictly increasing order,
// laying nodes out in pages exactly as Cassandra's page-aware writer does
// (IncrementalTrieWriterPageAware over IncrementalTrieWriterBase; layout.go
// has the algorithm): a closed node stays in memory while its pending
// branch is estimated to fit in a page; when it does not, the largest child
// branches that fit what is left of the page are written, each as one
// contiguous post-order block, padding with zeros when none fits. The size
// estimates and the points where they are recomputed are Cassandra's,
// because they decide node types and so every later offset.
//
// Memory holds only the nodes not yet written. A node is released the
// moment it is written: its parent keeps the written child as a childRef
// (transition byte plus file position) in its own child list, so a written
// branch costs its parent 8 bytes per child and nothing below. A key's last
// node, childless with a payload of at most 15 bytes (every entry of a
// partition index), is never a node at all: its parent's ref carries its
// size and its bytes wait in the 16-byte leaf slot beside that ref (the
// parent's list is then a leaf list, childlists.go) until they are written
// in one copy. The open path (the stack) costs 5 bytes per level: the
// node's index and the first-list hint for its depth (growList). Nodes (32
// bytes), child lists with their leaf slots and buffers are recycled, so a
// warm Writer allocates nothing per key; a fresh one grows them in chunks
// or by doubling (childlists.go, growOut), so that a cold build allocates
// about its working set once, not the five times append's small steps
// would.
//
// Contracts: Add keeps reading the previous key's bytes until the next Add
// returns (callers may reuse any older key's memory); AddShared skips the
// prefix comparison for callers that know the shared length (checked under
// the invariants tag). Output is buffered and handed to the sink at the
// start of a later call, before any state changes, so a failed write costs
// nothing but the error and a retry continues; MakePartialRoot serializes
// the pending part into a tail for early open, with Cassandra's side
// effects on the size estimates. A trailer (the partition index footer, a
// row index entry) is the caller's: partitionindex and rowindex hand the
// trie their file's output buffer (internal/indexfile.Buffer) as its sink,
// the trie appends to it, and they append the trailer after the trie's
// last node and decide when the bytes go out.
//
// # The writer's state machine
//
// A node is open, then closed, then written, and released the moment it is
// written (Cassandra keeps a written node until its parent is written; here
// the parent's ref holds all that is still needed). While MakePartialRoot
// runs, open and closed nodes are also temporarily placed. "Node" below is
// the node struct, "ref" the childRef its parent holds for it. A leaf (a
// key's last node while it has no children) lives only as a leaf ref and
// its slot, in the states of the second table.
//
//	state     where it is                     fields that are valid
//	-------   -----------------------------   ------------------------------------------
//	open      on Writer.stack (the path to    children so far, payload; branchSize and
//	          the last key)                   ownSize are -1, C is true (Cassandra's
//	                                          fresh-node values, read by a partial view)
//	closed    off the stack, pending in its   children final; branchSize, ownSize, C, B
//	          parent's list (ref: node index) are estimates for the current position
//	placed    temporary: written into a       as closed; its parent's ref holds a
//	          partial tail                    temporary position
//	written,  bytes in Writer.out             nothing: the node is on the free list; its
//	released  (ref: file position)            parent's ref holds the position
//
//	leaf state   where it is                            what is valid
//	----------   ------------------------------------   ------------------------------------
//	open         last ref of the stack's top node       ref: transition, size; slot: header
//	             (Writer.openLeaf)                      and payload
//	closed       a pending ref in its parent's list     the same: closing a childless node
//	                                                    sets only the size the ref holds
//	placed       written into a partial tail            as closed; the parent's ref holds a
//	                                                    temporary position
//	written      bytes in Writer.out (ref: position)    nothing: its slot goes with the list
//	promoted     a node on the stack (open, above)      the next key extends the leaf
//
//	transition          function (this package)     Cassandra (IncrementalTrieWriter*)
//	------------------  --------------------------  ----------------------------------------
//	-> open             newNode (from AddShared)    BaseNode.addChild / newNode in add
//	open -> closed      closeNode, closeLeaf,       PageAware.complete(Node), called from
//	                    closeSingle (from           Base.add's unwinding (completeLast) and
//	                    AddShared, writeRemaining)  Base.performCompletion
//	closed -> closed    layoutChildren (writes      PageAware.layoutChildren; its children
//	  (re-estimated)    children: C set, sizes      then written via write and
//	                    from the current position), finalizeWithPosition
//	                    recalcTotalSize             PageAware.recalcTotalSize
//	closed -> written   write (post-order branch;   PageAware.write (writeRecursive in the
//	                    a marked branch in one      deep variant) + Node.finalizeWithPosition
//	                    pass: writeShallow,
//	                    appendShallow,
//	                    appendOneLeafNode), then the
//	                    caller stores the position
//	                    in the parent's ref
//	                    (layoutChildren,
//	                    writeRemaining for root)
//	closed/open ->      writePartial                PageAware.writePartial, from
//	  placed -> back                                makePartialRoot; childrenToClear resets
//	                                                filePos to -1 where we restore the refs
//	everything left     writeRemaining              PageAware.performCompletion (root placed
//	  -> written                                    in a page that holds it)
//	written -> free     release (in write, at once) (Java's garbage collector, once the
//	                                                parent is written)
//	leaf: -> open       AddShared's fast path, or   a childless node added in Base.add
//	                    addPath
//	leaf: open ->       nothing (the next leaf      PageAware.complete(Node) of a leaf: its
//	  closed            opens, or addPath clears    nodeSize, branchSize 0, C and B false
//	                    openLeaf)
//	leaf: open ->       promoteLeaf (addPath,       the same node getting its first child
//	  promoted          the next key extends it)
//	leaf: closed ->     appendLeafSlot (write,      as for a node
//	  written -> free   layoutChildren)
//
// Names: Complete is the public end of the whole trie; closeNode is the end
// of one node's subtree (Cassandra's complete(Node)); ownSize is the
// estimated size of the node itself (Cassandra's nodeSize field), nodeSize
// the exact size of a node type without payload (Cassandra's
// TrieNode.sizeofNode). estimateMaxDist is Cassandra's maxPositionDelta
// while children may be pending; writtenMaxDist is the same estimate once
// every child has a position, reading child 0's branch size from the write
// frame that just wrote it (the node itself no longer exists).
//
// Why closeLeaf gives the general path's result: a childless node has
// branch size 0, no written children or descendants (C and B false after
// closing), and its size is PAYLOAD_ONLY's one header byte plus its payload
// wherever it is placed, so closeNode would compute exactly the fields
// closeLeaf sets; when that size does not fit a page (tiny test pages
// only) closeLeaf declines and closeNode runs. Likewise write serializes a
// pending leaf without a frame: its branch is empty, so it starts where its
// branch does, and its type cannot depend on its position.
//
// Why the one-pass writers (onepass.go) give the general path's result:
// closeSingle is closeNode's loop for one child, with sizeFor's answer for
// a one-child node. writeShallow (with appendShallow and appendOneLeafNode)
// writes a branch that closeNode marked (no written child or descendant
// anywhere in it, at most 15 levels) in write's order, and takes each
// node's type from the same estimates writtenMaxDist reads (C is false in
// a marked branch, so the branch size less child 0's branch); its pointers
// are real distances, as appendNode's are. TestLeafNodePass builds the
// same keys with and without them (Writer.noFastPaths) and compares bytes
// and partial views.
//
// Under the invariants tag (go test -tags invariants) the writer checks
// Cassandra's layout assertions: every node is written where its branch
// estimate put it, takes the bytes its size estimate said (unless it ends on
// a page boundary, as Cassandra allows), every pointer fits the width the
// estimate chose and points backwards to a written child, AddShared's
// shared length is the real common prefix, no node closes with a written
// child, layoutChildren picks only a branch that fits the bytes left (or
// pads first) and leaves no child branch unwritten.
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
