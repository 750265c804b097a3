package trie

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bti-go/bti/internal/invariants"
)

// The page-aware layout, after Cassandra's IncrementalTrieWriterPageAware.
//
// A closed node stays in memory while its branch (the node plus all of its
// unwritten descendants) is estimated to fit in a page. When a node's branch
// reaches a page, some of its child branches are written, each as one
// contiguous post-order block that fits in what is left of the current page
// (padding to the next page when none fits), largest first. So a lookup
// touches few pages: most branches a key walks through sit in one page.
//
// Every traversal here uses an explicit stack: a byte-comparable key can be
// close to 200 KB long, and the trie is as deep as its longest key.

// closeNode is called when node i leaves the stack (Cassandra's
// complete(Node)): its subtree is final. It estimates the node's sizes and
// keeps it pending while its branch fits in a page, or writes child
// branches until the node itself is small.
func (w *Writer) closeNode(i int32) {
	n := &w.nodes[i]
	if n.nkids <= 1 && (n.nkids == 0 && w.closeLeaf(n) || n.nkids == 1 && !w.noFastPaths && w.closeSingle(n)) {
		return
	}
	refs := w.children(n)
	t := w.totalChildren(refs)
	branch, written := t.branch, t.written
	n.branchSize = int32(branch)
	// Sized as Cassandra sizes it here: with C still set from newNode, so
	// written children count at their real distance from the current
	// position and the first pending one at its estimated distance.
	// Without written children (always, as the check above says) that is
	// the distance child 0 will have, branchSize less child 0's own
	// branch, which estimateMaxDist would find in a loop over every child:
	// 692.3 -> 679.6 instructions per warm Add of 1M Murmur3 UUID keys
	// (callgrind, as in childlists.go, at 9295708 and the next commit).
	var size int64
	if written || n.nkids == 0 {
		size = w.sizeOf(n, w.Position())
	} else {
		k := len(refs)
		dist := branch - int64(w.pendingBranch(refs[0]))
		span := int(refs[k-1].transition()) - int(refs[0].transition()) + 1
		if isSparse8(k, span, dist) {
			// sizeFor's answer for a SPARSE_8 node (most of an index's),
			// without typeFor and without reading the list again for the
			// span: 2 bytes, and 2 a child.
			size = int64(2+2*k) + int64(w.payloadLen(n))
			if invariants.Enabled && size != w.sizeFor(n, dist) {
				panic(fmt.Sprintf("trie: a SPARSE_8 node of %d bytes, sizeFor says %d", size, w.sizeFor(n, dist)))
			}
		} else {
			size = w.sizeFor(n, dist)
		}
	}
	if size+branch < w.pageSize {
		// Fits in a page with everything below it: keep it pending.
		n.ownSize = int32(size)
		n.outOfPageChildren = written
		n.outOfPageInBranch = t.inBranch
		n.flags |= t.height << heightShift // a node closes once: the nibble is clear
		return
	}
	w.layoutChildren(i)
}

// childTotals is what closeNode reads of a node's children.
type childTotals struct {
	branch int64 // the pending children's branches and own sizes
	// written (Cassandra's C for the node), inBranch (its B: a child has C
	// or B).
	written, inBranch bool
	// height is the node's height mark (see maxMarkedHeight), 0 when it
	// gets none: a child is written, a child node has no mark (as one
	// with C or B set has not), or the height exceeds maxMarkedHeight.
	height uint8
}

// totalChildren is closeNode's pass over the child list refs. It is a
// function of its own, a run of pending leaves first (all of a Murmur3
// index's nodes below two token bytes), because inside closeNode the loop
// shared the registers with closeNode's sizing and spilled them: with the
// height mark added to it (4adb3e1) a warm build of 1M Murmur3 UUID keys
// spent 36.9 instructions per key in closeNode, 31.6 without the mark
// (ea9bdd1); with this function closeNode and it took 11.5 + 20.4, and on
// the rows of golden-rows bigint-uuid-5000 60.1 instructions per block
// became 25.6 + 31.3 (callgrind, GODEBUG=asyncpreemptoff=1 GOGC=off, the
// difference of 2 and 1 Murmur3 builds and of 6 and 1 rows builds on one
// warm partitionindex.Builder and rowindex.Writer, per function self cost
// by /work/coord/agg.sh, at 4adb3e1 and the commit that added this).
func (w *Writer) totalChildren(refs []childRef) childTotals {
	var branch int64
	k := 0
	for ; k < len(refs) && refs[k].leaf(); k++ {
		branch += int64(refs[k].leafSize()) // a leaf has no branch, no C, no B
	}
	if k == len(refs) {
		return childTotals{branch: branch, height: 1}
	}
	t := childTotals{}
	// The height mark so far and the lowest mark of a child node, 0 if
	// one has none.
	var height, lowest uint8 = 1, maxMarkedHeight
	for _, r := range refs[k:] {
		if r.leaf() {
			branch += int64(r.leafSize())
			continue
		}
		if r.written() {
			// Cannot happen: only layoutChildren writes children, and it
			// runs on closed nodes. Cassandra computes C here anyway (and
			// asserts the node itself is unwritten); so do we.
			if invariants.Enabled {
				panic(fmt.Sprintf("trie: closing a node whose child %x is already written", r.transition()))
			}
			t.written = true // a written branch takes no room here
			continue
		}
		c := &w.nodes[r.node()]
		branch += int64(c.branchSize) + int64(c.ownSize)
		t.inBranch = t.inBranch || c.outOfPageChildren || c.outOfPageInBranch
		h := c.height()
		height, lowest = max(height, h+1), min(lowest, h)
	}
	t.branch = branch
	// A child node with C or B set has no mark, so B true means lowest 0.
	if !t.written && lowest != 0 && height <= maxMarkedHeight {
		t.height = height
	}
	return t
}

// closeLeaf is closeNode for a node without children: a PAYLOAD_ONLY node
// with nothing below it, pending unless it alone fills a page (possible
// only with tiny test pages). It reports whether it is done. The general
// path would compute the same: no children make branch 0 and leave C and B
// false, sizeOf of a childless node is PAYLOAD_ONLY's one byte plus the
// payload whatever the position, and a node that fits is kept pending with
// exactly these fields; one that does not fit goes on to layoutChildren,
// which the general path then runs. The same argument lets a key's last
// node be a leaf ref (childRef) from the start when its payload fits a
// leaf slot and its size a page: closing it would set exactly the size
// the ref holds, and nothing else of it is ever read.
func (w *Writer) closeLeaf(n *node) bool {
	size := int64(1)
	if n.hasPayload {
		size += int64(w.payloadLen(n))
	}
	n.branchSize = 0
	if size >= w.pageSize {
		return false // the general path lays it out
	}
	n.ownSize = int32(size)
	n.outOfPageChildren, n.outOfPageInBranch = false, false
	n.flags |= 1 << heightShift // see maxMarkedHeight
	return true
}

// branchTotal is the size a candidate branch is ordered by: the pending
// child's branch and own size.
func (w *Writer) branchTotal(r childRef) int64 {
	if r.leaf() {
		return int64(r.leafSize())
	}
	n := &w.nodes[r.node()]
	return int64(n.branchSize) + int64(n.ownSize)
}

// pendingBranch is the branch size (below the child itself) of the pending
// child r: 0 for a leaf.
func (w *Writer) pendingBranch(r childRef) int32 {
	if r.leaf() {
		return 0
	}
	return w.nodes[r.node()].branchSize
}

// layoutFrame is one level of layoutChildren: the pending children of node
// (candidates[start:] while the frame is on top), the bytes left in the page
// as this level sees them, and the child (candidate) whose own children are
// being laid out one level up (waiting.node < 0 if none).
type layoutFrame struct {
	node      int32
	start     int
	bytesLeft int64
	waiting   candidate
}

// layoutChildren writes child branches of node i until i itself is small
// (Cassandra's layoutChildren): repeatedly the largest branch that fits in
// the rest of the page (equal sizes: the higher transition byte), padding
// to a new page when none fits. A branch whose size was only estimated (it
// has written descendants) is re-measured where it would go; if it does not
// fit even an empty page, its own children are laid out first (one level up
// the frame stack).
func (w *Writer) layoutChildren(i int32) {
	w.layoutFrames = append(w.layoutFrames[:0], w.newLayoutFrame(i))
	for len(w.layoutFrames) > 0 {
		f := &w.layoutFrames[len(w.layoutFrames)-1]
		if f.waiting.ref != noCandidate {
			// Back from laying out the waiting child's children: retry it.
			w.insertCandidate(f.start, f.waiting)
			f.waiting.ref = noCandidate
			f.bytesLeft = w.bytesLeftInPage()
		}
		if len(w.candidates) == f.start {
			if invariants.Enabled && w.hasPendingChild(f.node) {
				panic("trie: layoutChildren left a child branch unwritten")
			}
			n := &w.nodes[f.node]
			n.branchSize = 0
			n.outOfPageChildren = true
			n.outOfPageInBranch = false
			n.ownSize = int32(w.sizeOf(n, w.Position()))
			w.candidates = w.candidates[:f.start]
			w.layoutFrames = w.layoutFrames[:len(w.layoutFrames)-1]
			continue
		}
		k := w.largestCandidate(f.start, f.bytesLeft)
		if k < 0 {
			w.pad()
			f.bytesLeft = w.pageSize
			k = len(w.candidates) - 1 // the largest of all
		} else if invariants.Enabled && w.candidates[k].size > f.bytesLeft {
			panic(fmt.Sprintf("trie: chose a %d-byte branch for %d bytes left", w.candidates[k].size, f.bytesLeft))
		}
		cand := w.candidates[k]
		// Taken out by one copy and a reslice: slices.Delete also clears
		// the vacated element, which nothing here reads again.
		copy(w.candidates[k:], w.candidates[k+1:])
		w.candidates = w.candidates[:len(w.candidates)-1]

		var pos int64
		if cand.ref.leaf() {
			w.reserveOut(len(leafSlot{}))
			pos = w.appendLeafSlot(w.lists.leaf(w.nodes[f.node].list+cand.slot), cand.ref.leafSize())
		} else {
			node := cand.ref.node()
			switch c := &w.nodes[node]; {
			case c.outOfPageChildren || c.outOfPageInBranch:
				if actual := w.recalcTotalSize(node, w.Position()); actual > f.bytesLeft {
					if f.bytesLeft == w.pageSize && w.hasPendingChild(node) {
						// Not even an empty page holds it: shrink it first.
						f.waiting = cand
						w.layoutFrames = append(w.layoutFrames, w.newLayoutFrame(node))
						continue
					}
					if f.bytesLeft < w.pageSize || w.hasPendingChild(node) {
						// Probably fits once a page is free: put it back.
						w.insertCandidate(f.start, cand)
						continue
					}
					// A lone node bigger than a page. With 4096-byte pages
					// no node is (the largest, a 256-way LONG_DENSE, takes
					// 2051 bytes plus payload), so Cassandra never gets
					// here; with tiny test pages the node is written across
					// the boundary rather than retried forever.
				}
				pos = w.write(node)
			case c.height() != 0 && c.nkids != 0 && !w.noFastPaths:
				// A marked branch (C false), most of what is laid out:
				// straight to writeShallow, which write would hand it to
				// after pushing a frame and reading the node again (the
				// same test; TestLeafNodePass compares both with the
				// general path, Writer.noFastPaths).
				pos = w.writeShallow(c, w.children(c), w.leafSlotsOf(c))
				w.release(node)
			default:
				pos = w.write(node)
			}
		}
		if w.completing {
			w.flushWhileCompleting()
		}
		n := &w.nodes[f.node]
		*w.lists.at(n.list + cand.slot) = writtenRef(cand.transition, pos)
		f.bytesLeft = w.bytesLeftInPage()
	}
}

// hasPendingChild reports whether node i has a child branch left to write.
func (w *Writer) hasPendingChild(i int32) bool {
	for _, r := range w.children(&w.nodes[i]) {
		if !r.written() {
			return true
		}
	}
	return false
}

// candidate is a child branch waiting in layoutChildren, with the size it
// is ordered by as it was when it became a candidate (as in Cassandra's
// TreeSet; a candidate's sizes do not change while it waits), its pending
// ref and where that sits in its parent's list.
type candidate struct {
	size       int64
	ref        childRef
	slot       int32
	transition byte
}

// noCandidate in candidate.ref marks a layout frame with no child waiting
// (a written ref, never a candidate's).
const noCandidate = refWritten

// compareCandidates orders by size, then transition byte, so the last of
// equal sizes is the one with the higher transition.
func compareCandidates(a, b candidate) int {
	if c := cmp.Compare(a.size, b.size); c != 0 {
		return c
	}
	return cmp.Compare(a.transition, b.transition)
}

// newLayoutFrame pushes node i's pending children as candidates, sorted.
func (w *Writer) newLayoutFrame(i int32) layoutFrame {
	start := len(w.candidates)
	for k, r := range w.children(&w.nodes[i]) {
		if !r.written() {
			w.candidates = append(w.candidates, candidate{
				size:       w.branchTotal(r),
				ref:        r,
				slot:       int32(k),
				transition: r.transition(),
			})
		}
	}
	w.sortCandidates(w.candidates[start:])
	return layoutFrame{node: i, start: start, bytesLeft: w.bytesLeftInPage(), waiting: candidate{ref: noCandidate}}
}

// sortCandidates sorts c, which is in ascending transition order, by
// compareCandidates: by size, equal sizes in transition order. That is a
// stable sort by size alone, which for the many children of a node high up
// (a partition index's first levels have 256) is a two-pass radix sort
// over the low 16 bits of the sizes, far cheaper than comparisons; short
// lists and sizes beyond 16 bits (never with 4096-byte pages: a pending
// branch fits a page) take the comparison sort.
func (w *Writer) sortCandidates(c []candidate) {
	const radixMin = 32
	if len(c) < radixMin || !sizesFit16(c) {
		slices.SortFunc(c, compareCandidates)
		return
	}
	tmp := slices.Grow(w.sortScratch[:0], len(c))[:len(c)]
	w.sortScratch = tmp
	radixPass(tmp, c, 0)
	radixPass(c, tmp, 8)
}

func sizesFit16(c []candidate) bool {
	for i := range c {
		if uint64(c[i].size) >= 1<<16 {
			return false
		}
	}
	return true
}

// radixPass moves src into dst ordered by byte (size >> shift) & 0xFF,
// keeping the order of equal bytes.
func radixPass(dst, src []candidate, shift uint) {
	var count [257]int32
	for i := range src {
		count[1+int(uint8(src[i].size>>shift))]++
	}
	for b := 1; b < len(count); b++ {
		count[b] += count[b-1]
	}
	for i := range src {
		b := uint8(src[i].size >> shift)
		dst[count[b]] = src[i]
		count[b]++
	}
}

// insertCandidate puts c back among the top frame's candidates
// (candidates[start:]), in order, with its current size.
func (w *Writer) insertCandidate(start int, c candidate) {
	c.size = w.branchTotal(c.ref)
	k, _ := slices.BinarySearchFunc(w.candidates[start:], c, compareCandidates)
	w.candidates = slices.Insert(w.candidates, start+k, c)
}

// largestCandidate returns the index in candidates[start:] (which are
// sorted) of the largest branch whose size is at most limit, ties broken by
// the higher transition byte; -1 if none fits.
func (w *Writer) largestCandidate(start int, limit int64) int {
	// The first candidate larger than limit; the one before it is the
	// answer. sort.Search's loop, written out: the closure call per probe
	// was most of this function's cost.
	c := w.candidates
	lo, hi := start, len(c)
	// Invariant: c[lo-1].size <= limit (or lo == start), c[hi].size > limit
	// (or hi == len(c)).
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c[m].size > limit {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == start {
		return -1
	}
	return lo - 1
}

// recalcFrame is one level of recalcTotalSize.
type recalcFrame struct {
	node  int32
	child int   // next child to visit
	start int64 // where the branch would start
	sum   int64 // bytes of the children visited so far
}

// recalcTotalSize re-measures the branch of node i as if written from start
// (Cassandra's recalcTotalSize): nodes with written descendants (B) re-add
// their pending children's sizes, and nodes with written children or
// descendants re-size themselves, since their pointer widths depend on the
// position. Returns branchSize + ownSize.
func (w *Writer) recalcTotalSize(i int32, start int64) int64 {
	w.recalcFrames = append(w.recalcFrames[:0], recalcFrame{node: i, start: start})
	for {
		f := &w.recalcFrames[len(w.recalcFrames)-1]
		n := &w.nodes[f.node]
		if n.outOfPageInBranch {
			if r, ok := w.nextPending(n, &f.child); ok {
				if r.leaf() {
					f.sum += int64(r.leafSize()) // no B or C: its size stands
					continue
				}
				w.recalcFrames = append(w.recalcFrames, recalcFrame{node: r.node(), start: f.start + f.sum})
				continue
			}
			n.branchSize = int32(f.sum)
		}
		if n.outOfPageChildren || n.outOfPageInBranch {
			n.ownSize = int32(w.sizeOf(n, f.start+int64(n.branchSize)))
		}
		total := int64(n.branchSize) + int64(n.ownSize)
		w.recalcFrames = w.recalcFrames[:len(w.recalcFrames)-1]
		if len(w.recalcFrames) == 0 {
			return total
		}
		w.recalcFrames[len(w.recalcFrames)-1].sum += total
	}
}

// nextPending moves *k past n's children up to the next one not written
// and returns its ref, or ok=false when none is left.
func (w *Writer) nextPending(n *node, k *int) (childRef, bool) {
	refs := w.children(n)
	for *k < len(refs) {
		r := refs[*k]
		*k++
		if !r.written() {
			return r, true
		}
	}
	return 0, false
}

// writeFrame is one level of write and writePartial.
type writeFrame struct {
	node  int32
	child int   // next child to visit
	start int64 // position where the node's branch started
	// firstBranch is the branchSize child 0 had when it was written here:
	// a node without written children (C false) sizes its pointers by it.
	firstBranch int32
	restore     int // writePartial: len(Writer.restore) when the frame began
}

// write writes the pending branch of node i in post-order (children in
// ascending transition order, each child's branch before the child, the node
// last), releases every node it writes, and returns the node's position
// (Cassandra's writeRecursive; the caller records it in i's parent). Each
// child's position goes into its parent's list as the child is written, so
// the parent, written later, reads its pointers from there.
func (w *Writer) write(i int32) int64 {
	if n := &w.nodes[i]; n.branchSize > 0 && n.ownSize > 0 {
		// Room for the whole branch (its estimate is exact by now), so
		// the appends below need not grow the buffer in small steps.
		w.reserveOut(int(n.branchSize) + int(n.ownSize))
	}
	w.writeFrames = append(w.writeFrames[:0], writeFrame{node: i, start: w.Position()})
	for {
		f := &w.writeFrames[len(w.writeFrames)-1]
		n := &w.nodes[f.node]
		// The list lives in a chunk that never moves, so it stays valid
		// while children are written and released.
		refs := w.children(n)
		leaves := w.leafSlotsOf(n)
		var pos int64
		done := false
		if f.child == 0 && n.height() != 0 && n.nkids != 0 && !n.outOfPageChildren && !w.noFastPaths {
			// Only at the top: a shallow child is written below without
			// a frame of its own.
			pos, done = w.writeShallow(n, refs, leaves), true
		}
		descend := int32(-1)
		for !done && f.child < len(refs) {
			k := f.child
			r := refs[k]
			f.child++
			if r.written() {
				continue
			}
			if r.leaf() {
				// Most of what is written.
				if out := w.out; cap(out.B)-len(out.B) < len(leafSlot{}) {
					w.growOut(len(leafSlot{})) // reserveOut, which is not inlined
				}
				refs[k] = writtenRef(r.transition(), w.appendLeafSlot(&leaves[k], r.leafSize()))
				continue
			}
			c := &w.nodes[r.node()]
			if c.nkids != 0 {
				if c.height() == 0 || c.outOfPageChildren || w.noFastPaths {
					descend = r.node()
					break
				}
				// What a frame for c would do, in one call.
				branch := c.branchSize
				pos := w.writeShallow(c, w.children(c), w.leafSlotsOf(c))
				w.release(r.node())
				refs[k] = writtenRef(r.transition(), pos)
				if k == 0 {
					f.firstBranch = branch
				}
				continue
			}
			// A leaf, most of what is written: no frame. Its branch is
			// empty, so it starts where its branch does, and it is
			// PAYLOAD_ONLY wherever it goes. (A leaf at slot 0 leaves
			// firstBranch at the 0 the frame started with.)
			pos := w.Position()
			w.out.B = w.appendLeaf(w.out.B, c)
			if invariants.Enabled && w.Position() != pos+int64(c.ownSize) && w.Position()%w.pageSize != 0 {
				panic(fmt.Sprintf("trie: leaf at %d took %d bytes, its estimate was %d", pos, w.Position()-pos, c.ownSize))
			}
			w.release(r.node())
			refs[k] = writtenRef(r.transition(), pos)
		}
		if descend >= 0 {
			w.writeFrames = append(w.writeFrames, writeFrame{node: descend, start: w.Position()})
			continue
		}
		if !done {
			pos = w.Position()
			w.out.B = w.appendNode(w.out.B, n, pos, f.firstBranch)
		}
		if invariants.Enabled && pos != f.start+int64(n.branchSize) {
			// Cassandra asserts this: the branch estimate must be exact by now.
			panic(fmt.Sprintf("trie: node written at %d, its branch estimate put it at %d", pos, f.start+int64(n.branchSize)))
		}
		if invariants.Enabled && w.Position() != pos+int64(n.ownSize) && w.Position()%w.pageSize != 0 {
			panic(fmt.Sprintf("trie: node at %d took %d bytes, its estimate was %d", pos, w.Position()-pos, n.ownSize))
		}
		branch := n.branchSize
		w.release(f.node)
		w.writeFrames = w.writeFrames[:len(w.writeFrames)-1]
		if len(w.writeFrames) == 0 {
			return pos
		}
		w.placeChild(&w.writeFrames[len(w.writeFrames)-1], pos, branch)
	}
}

// appendLeaf appends the childless node c to dst: PAYLOAD_ONLY's header
// and the payload. (Most childless nodes never become nodes: see leafRef.)
func (w *Writer) appendLeaf(dst []byte, c *node) []byte {
	dst = append(dst, byte(payloadOnly)<<4|c.payloadFlags())
	if c.hasPayload {
		dst = append(dst, w.payload(c)...)
	}
	return dst
}

// placeChild records in frame f's node that the child just visited (the
// one before f.child) was written at pos with the given branch size.
func (w *Writer) placeChild(f *writeFrame, pos int64, branch int32) {
	slot := f.child - 1
	at := w.nodes[f.node].list + int32(slot)
	r := w.lists.at(at)
	*r = writtenRef(r.transition(), pos)
	if slot == 0 {
		f.firstBranch = branch
	}
}

// restoreRef is a child ref that writePartial replaced by a temporary
// position, to put back once the parent is serialized.
type restoreRef struct {
	at  int32
	ref childRef
}

// writePartial serializes the pending part of the trie under node i into
// *tail, which logically starts at file position base, and returns the
// node's position (Cassandra's writePartial). Children placed here get a
// temporary position in their parent's list, put back once the parent is
// serialized. Size estimates of nodes with written children or descendants
// are updated from what was serialized, a side effect Cassandra has and the
// final layout depends on.
func (w *Writer) writePartial(i int32, tail *[]byte, base int64) int64 {
	w.restore = w.restore[:0]
	w.writeFrames = append(w.writeFrames[:0], writeFrame{node: i, start: base + int64(len(*tail))})
	for {
		f := &w.writeFrames[len(w.writeFrames)-1]
		if r, ok := w.nextPending(&w.nodes[f.node], &f.child); ok {
			if r.leaf() {
				// Placed here for the view, and pending still.
				pos := base + int64(len(*tail))
				at := w.nodes[f.node].list + int32(f.child-1)
				*tail = append(*tail, w.lists.leaf(at)[:r.leafSize()]...)
				w.restore = append(w.restore, restoreRef{at: at, ref: r})
				w.placeChild(f, pos, 0)
				continue
			}
			w.writeFrames = append(w.writeFrames, writeFrame{node: r.node(), start: base + int64(len(*tail)), restore: len(w.restore)})
			continue
		}
		n := &w.nodes[f.node]
		pos := base + int64(len(*tail))
		if n.outOfPageInBranch {
			n.branchSize = int32(pos - f.start)
		}
		*tail = w.appendNode(*tail, n, pos, f.firstBranch)
		if n.outOfPageChildren || n.outOfPageInBranch {
			n.ownSize = int32(base + int64(len(*tail)) - pos)
		}
		for len(w.restore) > f.restore {
			r := w.restore[len(w.restore)-1]
			*w.lists.at(r.at) = r.ref
			w.restore = w.restore[:len(w.restore)-1]
		}
		branch := n.branchSize
		w.writeFrames = w.writeFrames[:len(w.writeFrames)-1]
		if len(w.writeFrames) == 0 {
			return pos
		}
		p := &w.writeFrames[len(w.writeFrames)-1]
		at := w.nodes[p.node].list + int32(p.child-1)
		w.restore = append(w.restore, restoreRef{at: at, ref: *w.lists.at(at)})
		w.placeChild(p, pos, branch)
	}
}

// writeRemaining closes every node on the stack, root last, and writes
// what is left, making sure the root's page holds it (Cassandra's
// completeLast and performCompletion).
func (w *Writer) writeRemaining() {
	w.completing = true
	w.openLeaf = false // closes as it is, see AddShared
	root := w.stack[0]
	for len(w.stack) > 0 {
		top := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.closeNode(top)
	}

	size := w.recalcTotalSize(root, w.Position())
	left := w.bytesLeftInPage()
	if size > left {
		if size <= w.pageSize {
			w.pad()
			left = w.pageSize
			size = w.recalcTotalSize(root, w.Position())
		}
		if size > left {
			w.layoutChildren(root)
			if int64(w.nodes[root].ownSize) > w.bytesLeftInPage() {
				w.pad()
				w.recalcTotalSize(root, w.Position())
			}
		}
	}
	w.rootPos = w.write(root)
	w.completing = false
}
