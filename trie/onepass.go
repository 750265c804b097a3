package trie

import (
	"fmt"

	"github.com/bti-go/bti/internal/invariants"
)

// The one-pass writers: most pending branches are written, and their
// one-child nodes closed, by these manually inlined versions of the
// general paths of layout.go for the shapes that are most of an index
// (write's frames over a branch, closeNode's loop). closeNode marks the
// branches they may write; TestLeafNodePass compares every one of them
// with the general path (Writer.noFastPaths).

// A node's height mark, in node.flags' high nibble: 0, or the height of
// its pending subtree (1 for a childless node and for a node whose
// children are all pending leaves, one more than its highest child node
// otherwise) when closeNode (closeLeaf, closeSingle) kept it pending with
// no written child or descendant anywhere below it (C and B false) and
// that height is at most maxMarkedHeight. write then writes
// such a node's branch in one pass (writeShallow) as long as C is still
// false: nothing below a pending node changes until layoutChildren runs on
// it or on an ancestor, and that sets C on the node first.
const (
	heightShift     = 4
	maxMarkedHeight = 0xF
)

// height is n's height mark (0: none).
func (n *node) height() uint8 { return n.flags >> heightShift }

// closeSingle is closeNode for a node with one pending child, most nodes
// of a row index (its keys end in chains of them), and reports whether it
// is done: a manually inlined version of closeNode's general path for
// that case, which computes the same. The child's own size is the
// distance sizeFor sizes the node by (the branch size less the child's
// branch, C being false), a leaf's the size in its ref; a node whose
// branch does not fit a page is left to the general path, which lays it
// out. TestLeafNodePass ties it to the general path (Writer.noFastPaths).
func (w *Writer) closeSingle(n *node) bool {
	r := *w.lists.at(n.list)
	var branch, dist int64
	var height uint8 = 1 // the height mark, see maxMarkedHeight
	inBranch := false
	switch {
	case r.leaf():
		dist = int64(r.leafSize())
		branch = dist
	case r.written():
		return false // cannot happen; the general path says so
	default:
		c := &w.nodes[r.node()]
		dist = int64(c.ownSize)
		branch = int64(c.branchSize) + dist
		inBranch = c.outOfPageChildren || c.outOfPageInBranch
		if h := c.height(); h == 0 {
			height = 0
		} else {
			height = h + 1
		}
	}
	p := 0
	if n.hasPayload {
		p = 1
	}
	size := int64(singleSizes[p][widthClass(dist)]) + int64(w.payloadLen(n))
	if invariants.Enabled && size != w.sizeFor(n, dist) {
		panic(fmt.Sprintf("trie: a one-child node of %d bytes, sizeFor says %d", size, w.sizeFor(n, dist)))
	}
	if size+branch >= w.pageSize {
		return false
	}
	n.branchSize = int32(branch)
	n.ownSize = int32(size)
	n.outOfPageChildren = false
	n.outOfPageInBranch = inBranch
	if height <= maxMarkedHeight {
		n.flags |= height << heightShift
	}
	return true
}

// leafSlotsOf returns the leaf slots beside n's child list, nil unless it
// is a leaf list.
func (w *Writer) leafSlotsOf(n *node) []leafSlot {
	if n.class&leafList == 0 {
		return nil
	}
	return w.lists.leafSlots(n.list, int(n.nkids))
}

// writeShallow writes node n, which has a height mark and C false, with
// its branch in one pass, and returns its position: it is a manually
// inlined version of write's loop over n's branch followed by appendNode,
// for the branches closeNode marked, so no frame is pushed for any node
// of it. It makes room for the whole branch once (estimates are exact by
// now: write asserts it under the invariants tag) and hands the node to
// appendOneLeafNode when all its children are leaves (height 1), else to
// appendShallow. The bytes are the general path's, in its order: each
// child's branch, then the child, in transition order, then n, whose type
// follows from its estimates (writtenMaxDist with C false: the branch
// size less child 0's branch). TestLeafNodePass ties it to the general
// path (Writer.noFastPaths).
//
// Marked are a Murmur3 index's nodes below two token bytes (height 1, or
// 2 for the third of them at 1M keys where two keys share three bytes), a
// small ByteOrdered index's nodes below one byte (dozens of leaves and
// a few leaf nodes or short chains), and a row index's branches below
// its few wide nodes (chains of single-child nodes ending in a leaf).
func (w *Writer) writeShallow(n *node, refs []childRef, leaves []leafSlot) int64 {
	// Room for the branch and the node, and for the 16-byte copy of a
	// last leaf reaching past them (reserveOut, which is not inlined).
	out := w.out
	if need := int(n.branchSize) + int(n.ownSize) + len(leafSlot{}); cap(out.B)-len(out.B) < need {
		w.growOut(need)
	}
	var at int
	if n.height() == 1 {
		out.B, at = w.appendOneLeafNode(out.B, n, refs, leaves)
	} else {
		out.B, at = w.appendShallow(out.B, n, refs, leaves)
	}
	return out.Flushed() + int64(at)
}

// appendShallow appends node n (height 2 or more, C false) with its branch
// to b, which has room for them (writeShallow made it), and returns b and
// the node's offset in it. It recurses into child nodes, which have height
// marks too (the mark bounds the depth at maxMarkedHeight): a node of
// height 1 goes to appendOneLeafNode, a childless one to appendLeaf. Each
// child's file position goes into n's list as a written ref, from which n's
// pointers are then computed, as appendNode computes them.
func (w *Writer) appendShallow(b []byte, n *node, refs []childRef, leaves []leafSlot) ([]byte, int) {
	base := w.out.Flushed() // b is the output buffer: offset + base is a position
	start := len(b)
	var firstBranch int32
	for i, r := range refs {
		at := len(b)
		if r.leaf() {
			// appendLeafSlot on b: one 16-byte copy into the room made.
			*(*leafSlot)(b[at : at+len(leafSlot{})]) = leaves[i]
			b = b[:at+int(r.leafSize())]
		} else {
			c := &w.nodes[r.node()]
			switch {
			case c.nkids == 0:
				b = w.appendLeaf(b, c)
			case c.height() == 1:
				b, at = w.appendOneLeafNode(b, c, w.children(c), w.leafSlotsOf(c))
			default:
				b, at = w.appendShallow(b, c, w.children(c), w.leafSlotsOf(c))
			}
			if i == 0 {
				firstBranch = c.branchSize
			}
			w.release(r.node())
		}
		refs[i] = writtenRef(r.transition(), base+int64(at))
	}
	// appendNode for n, manually inlined: C is false, so the type
	// follows from the branch size less child 0's branch (writtenMaxDist),
	// SPARSE_8 by its test alone (isSparse8: a Murmur3 index's nodes
	// over a leaf node), which is then written here directly; other types
	// go through appendPointers.
	at := len(b)
	pos := base + int64(at)
	k := len(refs)
	span := int(refs[k-1].transition()) - int(refs[0].transition()) + 1
	maxDist := int64(n.branchSize - firstBranch)
	t := sparse8
	if !isSparse8(k, span, maxDist) {
		t = typeFor(k, span, n.hasPayload, maxDist)
	}
	if invariants.Enabled {
		if want := typeFor(k, span, n.hasPayload, w.writtenMaxDist(n, pos, firstBranch)); t != want {
			panic(fmt.Sprintf("trie: shallow node pass took %v where typeFor takes %v", t, want))
		}
		w.checkPointersFit(refs, t, pos)
	}
	if t == sparse8 {
		b = b[:at+2+2*k]
		node := b[at:]
		node[0], node[1] = byte(sparse8)<<4|n.payloadFlags(), byte(k)
		trans, ptrs := node[2:2+k], node[2+k:2+2*k]
		for i, r := range refs {
			trans[i] = r.transition()
			ptrs[i] = byte(pos - r.pos())
		}
	} else {
		dists := w.dists[:k]
		for i, r := range refs {
			dists[i] = uint64(pos - r.pos())
		}
		b = appendPointers(b, t, n.payloadFlags(), refs, span, dists)
	}
	if n.hasPayload {
		b = append(b, w.payload(n)...)
	}
	if invariants.Enabled && at-start != int(n.branchSize) {
		panic(fmt.Sprintf("trie: shallow node written at %d, its branch estimate put it at %d", pos, base+int64(start)+int64(n.branchSize)))
	}
	if invariants.Enabled && len(b)-at != int(n.ownSize) {
		panic(fmt.Sprintf("trie: shallow node at %d took %d bytes, its estimate was %d", pos, len(b)-at, n.ownSize))
	}
	return b, at
}

// appendOneLeafNode appends node n, whose children are all pending leaves
// (its height mark is 1) and none written (C false), with its leaves to b,
// which has room for them and for a 16-byte copy past them (writeShallow
// made it), and returns b and the node's offset in it. It is a manually
// inlined version of write's leaf loop followed by appendNode for that
// case: the leaves are copied back to back and the node's distances follow
// from their sizes (child i is the branch less the sizes of the leaves
// before it back), so no written ref is stored and read back. Its type is
// typeFor's for a maximum distance of the branch size (child 0, a leaf,
// has no branch of its own), decided by SPARSE_8's test alone
// (isSparse8) for most of a Murmur3 index's nodes, which are then
// written here directly; others go through appendPointers.
// TestLeafNodePass ties it to the general path (Writer.noFastPaths),
// the invariants tag the SPARSE_8 test to typeFor.
// With the SPARSE_8 case alone a warm Add of 1M Murmur3 UUID keys took
// 633.2 instructions instead of 669.8 to 673.1, and 626.2 once closeNode
// sized such nodes by the same test (callgrind, the driver of childLists'
// comment, at 25ac57e and the commit that added this, as writeLeafNode).
func (w *Writer) appendOneLeafNode(b []byte, n *node, refs []childRef, leaves []leafSlot) ([]byte, int) {
	k, branch := len(refs), int64(n.branchSize)
	start := len(b)
	at := start
	leaves = leaves[:k] // one bounds check, not one per leaf
	for i, r := range refs {
		*(*leafSlot)(b[at : at+len(leafSlot{})]) = leaves[i]
		at += int(r.leafSize())
	}
	if invariants.Enabled && int64(at-start) != branch {
		panic(fmt.Sprintf("trie: leaves of %d bytes under a branch estimate of %d", at-start, branch))
	}
	span := int(refs[k-1].transition()) - int(refs[0].transition()) + 1
	if isSparse8(k, span, branch) {
		if invariants.Enabled {
			if t := typeFor(k, span, n.hasPayload, branch); t != sparse8 {
				panic(fmt.Sprintf("trie: leaf node pass took SPARSE_8 where typeFor takes %v", t))
			}
		}
		size := 2 + 2*k
		b = b[:at+size]
		node := b[at:]
		node[0], node[1] = byte(sparse8)<<4|n.payloadFlags(), byte(k)
		trans, dists := node[2:2+k], node[2+k:2+2*k]
		d := at - start
		for i, r := range refs {
			trans[i] = r.transition()
			dists[i] = byte(d)
			d -= int(r.leafSize())
		}
	} else if k == 1 {
		// The end of a row index key's chain: one leaf, at most 16 bytes
		// back, so typeFor takes SINGLE_NOPAYLOAD_4 (up to 15 bytes
		// back, without a payload) or else SINGLE_8.
		d, t := byte(at-start), single8
		if branch <= 0xF && !n.hasPayload {
			t = singleNoPayload4
		}
		if invariants.Enabled && t != typeFor(1, 1, n.hasPayload, branch) {
			panic(fmt.Sprintf("trie: leaf node pass took %v where typeFor takes %v", t, typeFor(1, 1, n.hasPayload, branch)))
		}
		if t == singleNoPayload4 {
			b = append(b[:at], byte(t)<<4|d, refs[0].transition())
		} else {
			b = append(b[:at], byte(t)<<4|n.payloadFlags(), refs[0].transition(), d)
		}
	} else {
		t := typeFor(k, span, n.hasPayload, branch)
		dists := w.dists[:k]
		d := uint64(at - start)
		for i, r := range refs {
			dists[i] = d
			d -= uint64(r.leafSize())
		}
		b = appendPointers(b[:at], t, n.payloadFlags(), refs, span, dists)
	}
	if n.hasPayload {
		b = append(b, w.payload(n)...)
	}
	if invariants.Enabled && len(b)-at != int(n.ownSize) {
		panic(fmt.Sprintf("trie: leaf node took %d bytes, its estimate was %d", len(b)-at, n.ownSize))
	}
	return b, at
}

// isSparse8 reports whether typeFor takes SPARSE_8 for a node of k
// children over span transition bytes whose farthest child is maxDist
// back (with C false child 0, the branch size less child 0's branch:
// writtenMaxDist and closeNode's estimate): when two children or more are
// at most 255 bytes back and SPARSE_8 is smaller than DENSE_12 over their
// span; a payload does not change the choice for two children or more.
// The invariants tag checks it against typeFor where it is used.
func isSparse8(k, span int, maxDist int64) bool {
	return k >= 2 && maxDist < 1<<8 && 2+2*k < 3+(3*span+1)/2
}
