package trie

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/internal/invariants"
)

// DefaultPageSize is the page size of Cassandra's Partitions.db writer. Only
// this size gives Cassandra's bytes; smaller pages are useful in tests.
const DefaultPageSize = 4096

// flushThreshold is how many output bytes the writer gathers before handing
// them to the sink at the start of the next Add.
const flushThreshold = indexfile.FlushThreshold

// outReserve is the capacity the output buffer takes the first time it
// outgrows the Writer's small one: the flush threshold and a margin for the
// branch writes that overshoot it. A cold build then grows it once, where
// append's quarter steps would take some twenty blocks of fresh memory
// (about four times the final size, each one page-faulting) on the way.
const outReserve = flushThreshold + 16<<10

// notPlaced is the root position before Complete has written the root.
const notPlaced = -1

var (
	// ErrKeyOrder is returned (in a *KeyError) when a key is not strictly
	// greater than the previous one. It is the module's one key-order
	// sentinel (partitionindex.ErrKeyOrder is the same value).
	ErrKeyOrder = indexfile.ErrKeyOrder
	// ErrFinished is returned by Add and MakePartialRoot after Complete.
	ErrFinished = errors.New("trie: writer already completed")
)

// KeyError reports a key the writer refused: Err is ErrKeyOrder, Index the
// 0-based number of the Add call, Key and Prev copies of the key and its
// predecessor (Pos is unused). It is the module's one KeyError type
// (partitionindex.KeyError is the same type).
type KeyError = indexfile.KeyError

// Options configures a Writer. The zero value means defaults.
type Options struct {
	// PageSize is the page the layout packs nodes into; 0 means 4096.
	PageSize int
	// StartPosition is the sink's position in its file when the trie
	// starts. Pages are aligned to the file and positions (Position, the
	// root) are file positions, as when Cassandra writes one row index
	// trie after another into Rows.db. 0 for a file of its own.
	StartPosition int64
}

// node is a trie node that is not written yet: open (on the stack) or
// closed and waiting in its parent's list (doc.go has the life cycle).
// Nodes live in Writer.nodes and refer to their children through child
// lists of childRefs, so the writer holds no pointer graph, and a node is
// recycled as soon as it is written: its parent keeps only the position.
// 32 bytes, two to a cache line: building is bound by touching nodes.
type node struct {
	list  int32  // offset of the child list in Writer.lists (class > 0)
	nkids uint16 // children in the list
	class uint8  // the list's class (see listCap); 0: no list
	// Payload flags in the low nibble, meaningful when hasPayload; the
	// high nibble holds the height mark closeNode gives a node it keeps
	// pending (see maxMarkedHeight).
	flags uint8
	// branchSize estimates the bytes still to be written for everything
	// below this node, ownSize the node itself with its payload (Cassandra's
	// branchSize and nodeSize). Both are estimates that later layout
	// decisions read, so where they are recomputed matters as much as how
	// (see layout.go). 32 bits, as in Cassandra: a pending branch is at most
	// a few pages.
	branchSize int32
	ownSize    int32
	hasPayload bool
	// outOfPageChildren (Cassandra's C): a child is already written, so
	// this node's pointer widths depend on where it is placed.
	outOfPageChildren bool
	// outOfPageInBranch (Cassandra's B): a deeper descendant is already
	// written, so the branch size depends on where the branch is placed.
	outOfPageInBranch bool
	// A payload of up to len(inline) bytes (a partition index payload is at
	// most 9) lives in the node: plen is its length. A longer one lives in
	// Writer.bigPayloads, plen is bigPayload and inline[:4] its index.
	plen   uint8
	inline [12]byte
}

// payloadFlags is the low nibble of n's header: its payload flags, 0
// without a payload.
func (n *node) payloadFlags() byte {
	if !n.hasPayload {
		return 0
	}
	return n.flags & 0xF
}

// bigPayload in node.plen marks a payload kept in Writer.bigPayloads.
const bigPayload = 0xFF

// leafSlot holds a pending leaf's bytes as they will be written: the
// PAYLOAD_ONLY header, then the payload; its leaf ref holds the length.
// Writing a leaf is one fixed-size copy. Each ref of a leaf list has one
// beside it (childLists.leaf).
type leafSlot [16]byte

// maxLeafPayload is the longest payload a leaf slot holds; a key with a
// longer one ends in a node.
const maxLeafPayload = len(leafSlot{}) - 1

// Writer builds an on-disk trie incrementally from keys in strictly
// increasing unsigned byte order, in one pass, laying nodes out in pages
// exactly as Cassandra's IncrementalDeepTrieWriterPageAware does. Memory is
// bounded by the part of the trie that is not written yet.
//
// Key memory contract: Add reads key during the call and keeps reading the
// bytes of the most recently added key until the next Add (or Complete)
// returns, to compare it with the next key. The caller must not modify those
// bytes in between; it may reuse any older key's memory. The partition index
// builder relies on this with its three-slot ring.
//
// Failure contract: Add and Complete change nothing when they return an
// error. Output is gathered in memory and handed to the sink at the start of
// a later call (or by Flush), before any state changes; a sink error is
// returned from that call, the bytes the sink did not take stay buffered,
// and calling again retries them. Complete also hands over each full
// buffer while it writes the last part of the trie; if that fails, the trie
// is complete, Complete returns the error, and calling it again flushes the
// rest.
type Writer struct {
	pageSize int64
	// out holds the bytes produced but not yet taken by the sink: own,
	// or the caller's buffer when the sink is one (see Reset).
	out *indexfile.Buffer

	nodes []node // open and closed nodes, by index; see node
	// freeNode is 1 + the first released node, reused first, 0 for none;
	// a released node's list field holds the same for the next one, so
	// the free list costs no memory of its own.
	freeNode int32
	lists    childLists // child lists, with pending leaves' bytes (see childRef)
	// openLeaf: the previous key ends in a pending leaf, the last child of
	// the top of the stack (it is open: the next key may extend it, and
	// promoteLeaf then turns it into a node).
	openLeaf bool
	// siblingLeafMax is AddShared's fast path test (see there): while the
	// leaf is open, the longest payload a leaf holds on this page size
	// (leafMax), so that a sibling key whose payload is at most this long
	// ends in a leaf beside it; -1 otherwise (no open leaf, after Complete,
	// or noSiblingPath), which no payload length passes.
	siblingLeafMax int
	// leafMax is the longest payload of a key that ends in a leaf:
	// maxLeafPayload, or less on a page too small for the leaf (see
	// closeLeaf).
	leafMax int
	// Payloads longer than a node holds, and the free slots among them.
	bigPayloads [][]byte
	bigFree     []int32
	stack       []int32 // the open nodes, the path to the last key: stack[0] is the root
	// firstLists holds, for each depth the stack has reached, the class
	// of the first list growList gives a node there whose first child is
	// a node (0: none known), from the last node closed at that depth
	// (nextFirstList). One byte per depth: len(firstLists) >= len(stack),
	// kept so by push.
	firstLists []uint8

	prevKey []byte
	hasPrev bool
	// flushErr is the first failed hand-over while Complete writes what is
	// left (see flushWhileCompleting).
	flushErr   error
	completing bool // inside writeRemaining
	count      int64
	done       bool
	rootPos    int64

	// noFastPaths makes closeNode, layoutChildren and write take their
	// general paths for every node, for TestLeafNodePass, which compares
	// them with closeSingle's and writeShallow's (appendShallow's and
	// appendOneLeafNode's).
	noFastPaths bool
	// noSiblingPath keeps siblingLeafMax at -1, so that every key goes
	// through addPath, for TestSiblingLeafPath, which compares the two.
	noSiblingPath bool

	// Scratch reused by the explicit-stack traversals in layout.go.
	writeFrames  []writeFrame
	recalcFrames []recalcFrame
	layoutFrames []layoutFrame
	candidates   []candidate
	sortScratch  []candidate // sortCandidates' second buffer
	restore      []restoreRef
	dists        [256]uint64 // appendPointers' distances, by child

	own indexfile.Buffer // out for a sink of the caller's

	// First buffers inside the Writer itself, so that a writer for a tiny
	// trie (an sstable with a handful of partitions) allocates nothing
	// beyond itself; a bigger trie moves each to the heap as it grows.
	small struct {
		nodes [8]node
		stack [16]int32
		// firstLists' first entries, beside stack's.
		firstLists [16]uint8
		frames     [4]writeFrame
		recalc     [4]recalcFrame
		out        [512]byte
	}
}

// NewWriter returns a Writer that writes to sink, whose current position is
// opts.StartPosition (0 by default).
func NewWriter(sink io.Writer, opts Options) *Writer {
	w := &Writer{}
	w.Reset(sink, opts)
	return w
}

// Reset discards all state and starts a new trie on sink, keeping allocated
// memory for reuse.
//
// A sink that is the module's own output buffer (*indexfile.Buffer, which
// partitionindex and rowindex hand their tries) is not written to but
// appended to: the trie's bytes go straight into the file's pending bytes,
// where the file's owner also appends its trailers, and its positions are
// the buffer's (opts.StartPosition must equal its Position). The owner
// then decides when the last bytes go out: Complete leaves them pending.
func (w *Writer) Reset(sink io.Writer, opts Options) {
	w.pageSize = DefaultPageSize
	if opts.PageSize > 0 {
		w.pageSize = int64(opts.PageSize)
	}
	if cap(w.nodes) == 0 {
		w.nodes = w.small.nodes[:0]
		w.stack = w.small.stack[:0]
		w.firstLists = w.small.firstLists[:0]
		w.writeFrames = w.small.frames[:0]
		w.recalcFrames = w.small.recalc[:0]
	}
	if buf, ok := sink.(*indexfile.Buffer); ok {
		if invariants.Enabled && opts.StartPosition != 0 && opts.StartPosition != buf.Position() {
			panic(fmt.Sprintf("trie: StartPosition %d on a shared buffer at %d", opts.StartPosition, buf.Position()))
		}
		w.out = buf
	} else {
		if cap(w.own.B) == 0 {
			w.own.B = w.small.out[:0]
		}
		w.own.Reset(sink, opts.StartPosition, "trie")
		w.out = &w.own
	}
	w.nodes = w.nodes[:0]
	w.freeNode = 0
	w.lists.reset()
	w.openLeaf = false
	w.siblingLeafMax = -1
	// 1+len(payload) < pageSize: a leaf and its header fit a page.
	w.leafMax = int(min(int64(maxLeafPayload), w.pageSize-2))
	w.bigFree = w.bigFree[:0]
	for i := range w.bigPayloads {
		w.bigFree = append(w.bigFree, int32(i))
	}
	w.stack = append(w.stack[:0], w.newNode())
	w.firstLists = append(w.firstLists[:0], 0) // push appends a 0 for each depth it opens
	w.prevKey = nil
	w.hasPrev = false
	w.count = 0
	w.done = false
	w.rootPos = notPlaced
}

// newNode opens a node: it takes one from the free list (or grows the
// array, which may move every node: callers re-take pointers) and
// initialises it as Cassandra initialises a fresh node: sizes unknown and C
// set, so that a partial view computes pointer widths from real positions.
func (w *Writer) newNode() int32 {
	var i int32
	if w.freeNode > 0 {
		i = w.freeNode - 1
		w.freeNode = w.nodes[i].list
	} else {
		i = int32(len(w.nodes))
		if len(w.nodes) == cap(w.nodes) {
			// Doubling, not append's quarter steps past 256 nodes: a
			// cold build that keeps thousands pending (a small index
			// holds all of them until its root closes) allocates and
			// page-faults twice what it needs rather than five times.
			w.nodes = slices.Grow(w.nodes, max(len(w.nodes), len(w.small.nodes)))
		}
		w.nodes = w.nodes[:i+1]
	}
	w.nodes[i] = node{branchSize: -1, ownSize: -1, outOfPageChildren: true}
	return i
}

// children returns n's child list. It aliases a chunk of Writer.lists.
func (w *Writer) children(n *node) []childRef {
	if n.nkids == 0 {
		return nil // no list, possibly no chunk yet
	}
	return w.lists.list(n.list, int(n.nkids))
}

// push opens node child below the top of the stack, keeping a firstLists
// entry for its depth.
func (w *Writer) push(child int32) {
	w.stack = append(w.stack, child)
	if len(w.firstLists) < len(w.stack) {
		w.firstLists = append(w.firstLists, 0)
	}
}

// addChild appends the ref of a pending node to node p's list. The common
// case, room left in the list, is small enough to be inlined; growList
// moves a full list.
func (w *Writer) addChild(p int32, ref childRef) {
	n := &w.nodes[p]
	if n.nkids == listCap[n.class] {
		n = w.growList(p, false)
	}
	*w.lists.at(n.list + int32(n.nkids)) = ref
	n.nkids++
}

// listCap is the capacity of a list of each class: 1<<(c-1) refs for
// class c of a plain list, c|leafList of a leaf list (see childLists);
// 0: no list. leafCap is the same for leaf lists and 0 for the others, so
// that adding a leaf to a plain list moves it (growList) by the same test
// as adding to a full one.
var (
	listCap = [2 * leafList]uint16{
		0, 1, 2, 4, 8, 16, 32, 64, 128, 256,
		leafList + 1: 1, 2, 4, 8, 16, 32, 64, 128, 256}
	leafCap = [2 * leafList]uint16{leafList + 1: 1, 2, 4, 8, 16, 32, 64, 128, 256}
)

// growList gives node p a list with room for one more ref and returns the
// node; leaf says whether that ref is a leaf's, which needs a leaf list.
// The first list fits what usually follows: a node whose first child is a
// leaf is where keys branch, so it gets room for what its previous sibling
// holds (firstLeafClass), while a node whose first child is a node starts
// with what the last node closed at its depth suggests (firstLists,
// nextFirstList), or else with the one ref a node on a chain below a new
// key most likely keeps. A full list then moves to the next size of
// listGrowth, and a plain one that gets a leaf to a leaf list (of its own
// size when it has room). Each move is a call, a free-list pop and a copy.
func (w *Writer) growList(p int32, leaf bool) *node {
	n := &w.nodes[p]
	if n.class == 0 {
		class := uint8(1)
		if leaf {
			class = w.firstLeafClass()
		} else if h := w.firstLists[len(w.stack)-1]; h != 0 {
			class = h
		}
		n.list, n.class = w.lists.alloc(class), class
		return n
	}
	class := n.class
	if n.nkids == listCap[class] {
		class = listGrowth[class]
	}
	if leaf {
		class |= leafList
	}
	off := w.lists.alloc(class)
	w.lists.move(off, class, n.list, n.class, int(n.nkids))
	w.lists.release(n.list, n.class)
	n.list, n.class = off, class
	return n
}

// firstLeafClass is the class of the first list of the node on top of the
// stack (the only node AddShared adds a leaf to, so growList(p, true) is
// never asked for another), whose first child is a leaf: room for as many
// children as its previous sibling has (at least 2), when that is a pending
// node, else for 2. Siblings are alike: in a Murmur3 index both are nodes
// below two token bytes that gather about fifteen leaves at a million keys (a first list of
// 4 refs moved to 32 on most of them); in a small ByteOrdered index the
// nodes two bytes down have about 60 children and most of those below them
// one or two (whose siblings are leaves), so one fixed first size either
// moves lists or wastes room, 24 bytes a ref in a leaf list. With 4 refs
// and the growth of plain lists (4, 32) the 16,384-key cold ByteOrdered
// build of partitionindex's TestColdSmallBuildAllocations took 69.2 B/key;
// with doubling growth 63.2, and 678.0 instructions per warm Murmur3 Add
// (the driver of childLists' comment); with this rule and 2 refs without a
// sibling 57.2 B/key and 671.2 instructions (at the commit that added it).
func (w *Writer) firstLeafClass() uint8 {
	d := len(w.stack)
	if d < 2 {
		return 2 | leafList
	}
	parent := &w.nodes[w.stack[d-2]]
	if parent.nkids < 2 {
		return 2 | leafList
	}
	r := *w.lists.at(parent.list + int32(parent.nkids) - 2)
	if r.leaf() || r.written() {
		return 2 | leafList
	}
	// The smallest class with room for the sibling's children, at least 2.
	k := max(w.nodes[r.node()].nkids, 2)
	return uint8(bits.Len16(k-1)+1) | leafList
}

// nextFirstList is the firstLists entry node n leaves for the next node at
// its depth when it closes: 0 (no hint) if it had at most 8 children, else
// the class one below the smallest that holds its children, a leaf list if
// its list was one. Nodes at one depth are alike, but their first child is
// not always a leaf: one key byte down in a ByteOrdered index, the first
// child is most often the zero byte, a node (escaping follows a zero with
// FE or FF, and a tenth of the blob keys' bytes are zeros), and such a node
// went 1, 4 refs, then a leaf list of 4, 8, 16, 32 and 64: six moves for
// 60 children. Half the sibling's class leaves at most one move, to the
// size the node would have reached, so no list ends larger than without
// the hint unless the node gets fewer than half its sibling's children.
// The sibling's own class (a larger list wherever the count wanders past a
// power of two) cost a cold build of the side-by-side blob sets named
// below a 96 KiB leaf chunk more (62.8 against 56.8 B/key at prefix 0,
// with chunks of 4,096 refs). With this rule their cold builds allocate
// what they did without hints (55.8, 57.1 and 114.0 B/key at prefixes 0,
// 64 and 4096, bti build --stats json), and TestColdSmallBuildAllocations'
// set one 48 KiB leaf chunk more (59.2 against 56.2 B/key: its lists end a
// little larger, past a chunk's end, and hints only from nodes of over 16
// or 32 children keep that chunk).
// Warm builds of the side-by-side blob sets (bti gen --partitioner
// byteordered --kind blob --prefix-bytes 0|64|4096 --count 16384 --seed 5)
// made 2,499 list moves without hints, 1,373 with (prefix 0), and took
// 827.8, 1,043.6 and 2,050.7 instructions per key without, 810.3, 1,026.2
// and 2,038.4 with; 1M Murmur3 UUID keys 431.2 and 432.0 (callgrind as in
// childlists.go, at 1cf6c5f and the commit that made this change).
func nextFirstList(n *node) uint8 {
	if n.nkids <= 8 {
		return 0
	}
	return uint8(bits.Len16(n.nkids-1)) | n.class&leafList
}

// listGrowth is the class a full list of each class moves to. Plain
// lists: 1, 4, 32, 64, 256 refs (classes 1, 3, 6, 7, 9); 64 rather than
// 128 after 32: a small ByteOrdered index keeps its whole trie pending,
// and its nodes two bytes down have about 60 children each (128-ref lists
// there cost 8 more bytes per key of a cold build). Leaf lists, whose refs
// cost 24 bytes with their slots, double; their first size comes from a
// sibling (firstLeafClass), so few move at all. A node never has more
// than 256 children, so a full list of 256 does not grow.
var listGrowth = [2 * leafList]uint8{
	1: 3, 2: 3, 3: 6, 4: 6, 5: 6, 6: 7, 7: 9, 8: 9,
	leafList + 1: leafList + 3, leafList + 2: leafList + 3, leafList + 3: leafList + 4, leafList + 4: leafList + 5,
	leafList + 5: leafList + 6, leafList + 6: leafList + 7, leafList + 7: leafList + 8, leafList + 8: leafList + 9}

// setNodePayload gives node i the payload of the key that ends there.
func (w *Writer) setNodePayload(i int32, flags byte, payload []byte) {
	n := &w.nodes[i]
	n.hasPayload = true
	n.flags = flags & 0xF // the high nibble is for closeNode's marks
	w.setPayload(n, payload)
}

// setPayload stores a copy of p for node n, in the node when it fits.
func (w *Writer) setPayload(n *node, p []byte) {
	if len(p) <= len(n.inline) {
		w.dropPayload(n)
		n.plen = uint8(copy(n.inline[:], p))
		return
	}
	if n.plen != bigPayload {
		var k int32
		if f := len(w.bigFree); f > 0 {
			k = w.bigFree[f-1]
			w.bigFree = w.bigFree[:f-1]
		} else {
			w.bigPayloads = append(w.bigPayloads, nil)
			k = int32(len(w.bigPayloads) - 1)
		}
		binary.LittleEndian.PutUint32(n.inline[:4], uint32(k))
		n.plen = bigPayload
	}
	k := binary.LittleEndian.Uint32(n.inline[:4])
	w.bigPayloads[k] = append(w.bigPayloads[k][:0], p...)
}

// payload returns node n's payload bytes.
func (w *Writer) payload(n *node) []byte {
	if n.plen == bigPayload {
		return w.bigPayloads[binary.LittleEndian.Uint32(n.inline[:4])]
	}
	return n.inline[:n.plen]
}

// payloadLen is len(w.payload(n)).
func (w *Writer) payloadLen(n *node) int {
	if n.plen == bigPayload {
		return len(w.payload(n))
	}
	return int(n.plen)
}

// dropPayload forgets n's payload, returning a big one's slot for reuse.
func (w *Writer) dropPayload(n *node) {
	if n.plen == bigPayload {
		w.bigFree = append(w.bigFree, int32(binary.LittleEndian.Uint32(n.inline[:4])))
	}
	n.plen = 0
}

// appendLeafSlot writes a pending leaf, the first size bytes of slot s,
// and returns its position: all 16 bytes in one copy into spare capacity,
// of which size count, so the caller makes room for 16 (reserveOut). The
// leaf writes of write and layoutChildren go through it (a marked
// branch's are appendShallow's and appendOneLeafNode's own, at a running
// offset); without the room check it is small enough to be inlined
// there. With the check inside (a call per leaf) a warm build of 1M
// Murmur3 UUID keys took 628.3 instructions per key instead of 624.2, the
// row index build of golden-rows bigint-uuid-5000 1604.8 to 1610.6 per
// block instead of 1591.3 (the measures of AddShared's and
// writeLeafNode's comments, now appendOneLeafNode's, at 4a53668 and the
// commit that made this change).
func (w *Writer) appendLeafSlot(s *leafSlot, size int32) int64 {
	out := w.out
	l := len(out.B)
	*(*leafSlot)(out.B[l : l+len(leafSlot{})]) = *s
	out.B = out.B[:l+int(size)]
	return out.Flushed() + int64(l)
}

// promoteLeaf turns the open leaf, which the next key extends, into a node
// on the stack, in the state the node would have had from the start (open:
// sizes unknown, C set), holding the leaf's payload.
func (w *Writer) promoteLeaf() {
	p := &w.nodes[w.stack[len(w.stack)-1]]
	at := p.list + int32(p.nkids) - 1
	r := *w.lists.at(at)
	child := w.newNode() // may move w.nodes
	c := &w.nodes[child]
	slot := w.lists.leaf(at)
	c.hasPayload = true
	c.flags = slot[0] & 0xF
	w.setPayload(c, slot[1:r.leafSize()])
	*w.lists.at(at) = pendingRef(r.transition(), child)
	w.push(child)
}

// release recycles node i once it is written: nothing reads a written
// node again, its parent keeps the position in its own list.
func (w *Writer) release(i int32) {
	n := &w.nodes[i]
	w.dropPayload(n)
	w.lists.release(n.list, n.class)
	n.class, n.nkids = 0, 0
	n.list = w.freeNode
	w.freeNode = i + 1
}

// Count returns the number of keys added.
func (w *Writer) Count() int64 { return w.count }

// Position returns the logical file position: bytes taken by the sink plus
// bytes still buffered.
func (w *Writer) Position() int64 { return w.out.Position() }

// Buffered returns the bytes produced but not yet taken by the sink; they
// start at file position Position()-len(Buffered()). The slice is valid until
// the next call on w.
func (w *Writer) Buffered() []byte { return w.out.B }

// Add appends key with a payload: flags is the 4-bit payload flag nibble
// stored in the node header, payload the bytes written right after the node
// (copied). key must be strictly greater than the previous key.
func (w *Writer) Add(key []byte, flags byte, payload []byte) error {
	common := 0
	if w.hasPrev {
		common = commonPrefix(w.prevKey, key)
	}
	return w.AddShared(key, common, flags, payload)
}

// AddShared is Add for a caller that already knows how many leading bytes
// key shares with the previous key (the partition index builder does: it
// compared the full keys). Only the byte at that position is checked, not
// the shared bytes, so a wrong count corrupts the trie: use Add unless the
// count comes from a comparison of these very bytes. For the first key
// there is no previous key, and shared is not read.
func (w *Writer) AddShared(key []byte, shared int, flags byte, payload []byte) error {
	// The common case, most keys of a partition index: a sibling of the
	// previous key's open leaf, one byte past the shared prefix, with a
	// payload that makes it a leaf too (siblingLeafMax is -1 unless the
	// leaf is open), and room for it in the list of the top of the stack.
	// The open leaf closes as it is and nothing on the stack changes, so
	// all there is to do is the new leaf. This path makes no call, so
	// that AddShared keeps its arguments in registers instead of saving
	// them across one; everything else is addPath's, called last. A warm
	// build of 1M Murmur3 UUID keys took 114.7 instructions per key in
	// AddShared and 15.9 in addPath when this path ended in the leaf add
	// that both shared, with its call of growList (at 723c8c8), and 92.8
	// and 29.4 with this one (fa6df08; by callgrind, the driver of
	// partitionindex.Builder.Add's comment), 91.2 and 29.3 with the payload
	// copied by putLeafPayload (the commit that added it). It writes no
	// bytes, so it leaves a full buffer to the next call that does (addPath
	// flushes before it writes): the buffer is bounded all the same, and
	// this path does not read it.
	if len(payload) <= w.siblingLeafMax && shared+1 == len(key) && len(key) == len(w.prevKey) &&
		key[shared] > w.prevKey[shared] {
		n := &w.nodes[w.stack[len(w.stack)-1]]
		if n.nkids < leafCap[n.class] {
			if invariants.Enabled {
				w.checkSibling(n, key, shared)
			}
			// Manually inlined version of addPath's leaf add, without
			// its growList (there is room); TestSiblingLeafPath ties
			// the two.
			off := n.list + int32(n.nkids)
			n.nkids++
			*w.lists.at(off) = leafRef(key[shared], 1+len(payload))
			s := w.lists.leaf(off)
			s[0] = byte(payloadOnly)<<4 | flags&0xF
			putLeafPayload(s, payload)
			w.prevKey = key
			w.count++
			return nil
		}
	}
	return w.addPath(key, shared, flags, payload)
}

// addPath is AddShared but for its fast path: it checks the key, closes
// the nodes below the shared prefix, opens the nodes of key's new bytes
// and adds the key, in a leaf below the top of the stack (len(payload) <=
// leafMax; closeLeaf has why a childless node that does needs nothing
// else) or in a node of its own.
func (w *Writer) addPath(key []byte, shared int, flags byte, payload []byte) error {
	if w.done {
		return ErrFinished
	}
	if w.hasPrev {
		prev := w.prevKey
		if shared < 0 || shared > len(prev) || shared >= len(key) ||
			(shared < len(prev) && key[shared] <= prev[shared]) {
			return w.orderError(key)
		}
		if invariants.Enabled {
			w.checkShared(key, shared)
		}
	} else {
		shared = 0
	}
	if w.out.Full() {
		if err := w.Flush(); err != nil {
			return err
		}
	}

	if w.openLeaf {
		// The previous key's leaf closes as it is (nothing to do: its ref
		// holds all its parent needs), unless this key extends it.
		w.openLeaf, w.siblingLeafMax = false, -1
		if shared == len(w.prevKey) {
			w.promoteLeaf()
		}
	}
	// Open nodes below the common prefix are finished: close them deepest
	// first, which may write branches that filled a page.
	for len(w.stack) > shared+1 {
		d := len(w.stack) - 1
		top := w.stack[d]
		w.stack = w.stack[:d]
		w.firstLists[d] = nextFirstList(&w.nodes[top])
		w.closeNode(top)
	}
	parent := w.stack[len(w.stack)-1]
	suffix := key[shared:]
	if len(suffix) == 0 {
		// The empty key, first of all: the root carries its payload.
		w.setNodePayload(parent, flags, payload)
	} else {
		for _, b := range suffix[:len(suffix)-1] {
			child := w.newNode()
			w.addChild(parent, pendingRef(b, child))
			w.push(child)
			parent = child
		}
		if len(payload) <= w.leafMax {
			// The key ends in a leaf below parent, the top of the stack:
			// its ref, and its header and payload in the slot beside the
			// ref. This is the one leaf add; AddShared's fast path holds
			// a manually inlined copy of it (a change here goes there
			// too), which TestSiblingLeafPath ties to it.
			n := &w.nodes[parent]
			if n.nkids >= leafCap[n.class] {
				n = w.growList(parent, true)
			}
			off := n.list + int32(n.nkids)
			n.nkids++
			*w.lists.at(off) = leafRef(suffix[len(suffix)-1], 1+len(payload))
			s := w.lists.leaf(off)
			s[0] = byte(payloadOnly)<<4 | flags&0xF
			putLeafPayload(s, payload)
			w.openLeaf = true
			if !w.noSiblingPath {
				w.siblingLeafMax = w.leafMax
			}
		} else {
			child := w.newNode()
			w.addChild(parent, pendingRef(suffix[len(suffix)-1], child))
			w.push(child)
			w.setNodePayload(child, flags, payload)
		}
	}
	w.prevKey = key
	w.hasPrev = true
	w.count++
	return nil
}

// putLeafPayload is copy(s[1:], payload) for a leaf's payload (at most
// maxLeafPayload bytes) without the call: two overlapping moves cover any
// length from 8 to 15 (a partition index payload is 2 to 9 bytes). It is
// small enough to be inlined in both leaf adds.
func putLeafPayload(s *leafSlot, payload []byte) {
	switch n := len(payload); {
	case n >= 8:
		*(*[8]byte)(s[1:]) = [8]byte(payload)
		*(*[8]byte)(s[n-7:]) = [8]byte(payload[n-8:])
	case n >= 4:
		*(*[4]byte)(s[1:]) = [4]byte(payload)
		*(*[4]byte)(s[n-3:]) = [4]byte(payload[n-4:])
	default:
		for k, c := range payload {
			s[1+k] = c
		}
	}
}

// checkShared panics if the previous key does not share exactly shared
// leading bytes with key (invariants tag): Cassandra derives the shared
// length itself, and a caller's count that is wrong would graft the key
// onto the wrong branch.
func (w *Writer) checkShared(key []byte, shared int) {
	if c := commonPrefix(w.prevKey, key); c != shared {
		panic(fmt.Sprintf("trie: AddShared told %d shared bytes, key %x shares %d with %x", shared, key, c, w.prevKey))
	}
}

// checkSibling panics unless AddShared's fast path holds (invariants
// tag): the previous key ends in the open leaf, the last child of n, the
// top of the stack, and shares exactly shared bytes with key.
func (w *Writer) checkSibling(n *node, key []byte, shared int) {
	w.checkShared(key, shared)
	if !w.openLeaf || w.done || n != &w.nodes[w.stack[len(w.stack)-1]] || n.nkids == 0 {
		panic(fmt.Sprintf("trie: sibling leaf %x without an open leaf on top of the stack", key))
	}
	if r := *w.lists.at(n.list + int32(n.nkids) - 1); !r.leaf() || r.transition() != w.prevKey[shared] {
		panic(fmt.Sprintf("trie: sibling leaf %x: the top's last child is not the open leaf of %x", key, w.prevKey))
	}
}

// orderError describes why key cannot follow the previous key.
func (w *Writer) orderError(key []byte) error {
	return &KeyError{Err: ErrKeyOrder, Index: w.count, Key: bytes.Clone(key), Prev: bytes.Clone(w.prevKey)}
}

// Complete finishes the trie, writes everything that is left and returns the
// root position. Calling it again returns the same position (retrying a
// failed flush). After Complete, Add and MakePartialRoot return ErrFinished.
// On a shared buffer (see Reset) the trie's last bytes stay pending for the
// buffer's owner, who appends its trailer (the partition index footer, a
// row index entry) at Position and hands everything over in one batch.
func (w *Writer) Complete() (int64, error) {
	if !w.done {
		w.flushErr = nil
		w.siblingLeafMax = -1 // writeRemaining closes the open leaf
		w.writeRemaining()
		w.done = true
		w.prevKey = nil
		if err := w.flushErr; err != nil {
			// A hand-over during completion failed; the trie is complete
			// and the rest is buffered, so a retry only flushes.
			w.flushErr = nil
			return w.rootPos, err
		}
	}
	if w.out != &w.own {
		return w.rootPos, nil // the owner hands the rest over
	}
	if err := w.Flush(); err != nil {
		return w.rootPos, err
	}
	return w.rootPos, nil
}

// flushWhileCompleting hands a full buffer to the sink while Complete
// writes the last (often largest) part of the trie, so the buffer stays
// near flushThreshold instead of growing to hold it all. After a failure
// it stops and keeps the error for Complete to return; the bytes the sink
// did not take stay buffered, and a retried Complete flushes them.
func (w *Writer) flushWhileCompleting() {
	if w.flushErr == nil && w.out.Full() {
		w.flushErr = w.Flush()
	}
}

// Flush hands all buffered bytes to the sink. On error the bytes the sink did
// not take stay buffered for the next attempt.
func (w *Writer) Flush() error { return w.out.Flush() }

// PartialRoot is a readable view of a trie that is still being written, as
// Cassandra's early open uses: nodes below Cutoff are in the file, everything
// not yet written is in Tail, which logically starts at Cutoff (the file
// position rounded up to a page). Root is the view's root, the last node of
// Tail; Count the number of keys in the view.
type PartialRoot struct {
	Root   int64
	Cutoff int64
	Count  int64
	Tail   []byte
}

// MakePartialRoot serializes every unwritten node into a fresh tail buffer,
// children before parents, ignoring pages. Like Cassandra's makePartialRoot
// it updates the size estimates of pending nodes that already have written
// children or descendants; that changes later layout decisions, so a writer
// matches Cassandra's file only if it takes partial roots after the same keys.
func (w *Writer) MakePartialRoot() (PartialRoot, error) {
	if w.done {
		return PartialRoot{}, ErrFinished
	}
	cutoff := w.paddedPosition()
	var tail []byte
	root := w.writePartial(w.stack[0], &tail, cutoff)
	return PartialRoot{Root: root, Cutoff: cutoff, Count: w.count, Tail: tail}, nil
}

// Page arithmetic on the logical position.

func (w *Writer) bytesLeftInPage() int64 {
	return w.pageSize - w.Position()%w.pageSize
}

func (w *Writer) paddedPosition() int64 {
	p := w.Position()
	return (p + w.pageSize - 1) / w.pageSize * w.pageSize
}

// pad writes zero bytes up to the next page boundary (nothing if aligned).
func (w *Writer) pad() {
	if r := w.Position() % w.pageSize; r != 0 {
		n := int(w.pageSize - r)
		w.reserveOut(n)
		out := w.out
		out.B = out.B[:len(out.B)+n]
		clear(out.B[len(out.B)-n:])
	}
}

// reserveOut makes room for n more bytes of output.
func (w *Writer) reserveOut(n int) {
	if cap(w.out.B)-len(w.out.B) < n {
		w.growOut(n)
	}
}

// growOut makes room for n more bytes of output: outReserve at once the
// first time (see there), as append grows it after that.
func (w *Writer) growOut(n int) {
	out := w.out
	need := len(out.B) + n
	if cap(out.B) < outReserve {
		need = max(need, outReserve)
	}
	out.B = slices.Grow(out.B, need-len(out.B))
}

// commonPrefix returns the number of leading bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	i := 0
	// Eight bytes at a time: the lowest set bit of the little-endian XOR is
	// in the first differing byte.
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
