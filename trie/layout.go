package trie

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/bti-go/bti/internal/invariants"
)

// The page-aware layout, after Cassandra's IncrementalTrieWriterPageAware.
//
// A completed node stays in memory while its branch (the node plus all of its
// unwritten descendants) is estimated to fit in a page. When a node's branch
// reaches a page, some of its child branches are written, each as one
// contiguous post-order block that fits in what is left of the current page
// (padding to the next page when none fits), largest first. So a lookup
// touches few pages: most branches a key walks through sit in one page.
//
// Every traversal here uses an explicit stack: a byte-comparable key can be
// close to 200 KB long, and the trie is as deep as its longest key.

// complete is called when node i leaves the stack: its subtree is final.
func (w *Writer) complete(i int32) {
	n := w.nodes.at(i)
	if len(n.children) == 0 && w.completeLeaf(n) {
		return
	}
	var branch int64
	for _, ci := range n.children {
		c := w.nodes.at(ci)
		branch += int64(c.branchSize) + int64(c.nodeSize)
	}
	n.branchSize = int32(branch)
	size := w.sizeOf(n, w.Position())
	if size+branch < w.pageSize {
		// Fits in a page with everything below it: keep it pending.
		n.nodeSize = int32(size)
		n.outOfPageChildren = false
		n.outOfPageInBranch = false
		for _, ci := range n.children {
			c := w.nodes.at(ci)
			if c.filePos != notPlaced {
				n.outOfPageChildren = true
			} else if c.outOfPageChildren || c.outOfPageInBranch {
				n.outOfPageInBranch = true
			}
		}
		return
	}
	w.layoutChildren(i)
}

// completeLeaf is complete for a node without children, most of them: a
// PAYLOAD_ONLY node with nothing below it, pending unless it alone fills a
// page (possible only with tiny test pages). It reports whether it is done.
func (w *Writer) completeLeaf(n *node) bool {
	size := int64(1)
	if n.hasPayload {
		size += int64(len(w.payload(n)))
	}
	n.branchSize = 0
	if size >= w.pageSize {
		return false // the general path lays it out
	}
	n.nodeSize = int32(size)
	n.outOfPageChildren, n.outOfPageInBranch = false, false
	return true
}

// finalize records that node i was written at pos as a whole branch: it now
// takes no room in its parent's page and its sizes never change again.
func (w *Writer) finalize(i int32, pos int64) {
	n := w.nodes.at(i)
	n.filePos = pos
	n.branchSize, n.nodeSize = 0, 0
	n.outOfPageChildren, n.outOfPageInBranch = false, false
	w.dropPayload(n)
	n.hasPayload = false
}

// branchTotal is the size a candidate branch is ordered by.
func (w *Writer) branchTotal(i int32) int64 {
	n := w.nodes.at(i)
	return int64(n.branchSize) + int64(n.nodeSize)
}

// layoutFrame is one level of layoutChildren: the unplaced children of node
// (candidates[start:] while the frame is on top), the bytes left in the page
// as this level sees them, and the child whose own children are being laid
// out one level up (-1 if none).
type layoutFrame struct {
	node      int32
	start     int
	bytesLeft int64
	waiting   int32
}

// layoutChildren writes child branches of node i until i itself is small:
// repeatedly the largest branch that fits in the rest of the page (equal
// sizes: the higher transition byte), padding to a new page when none fits.
// A branch whose size was only estimated (it has written descendants) is
// re-measured where it would go; if it does not fit even an empty page, its
// own children are laid out first (one level up the frame stack).
func (w *Writer) layoutChildren(i int32) {
	w.layoutFrames = append(w.layoutFrames[:0], w.newLayoutFrame(i))
	for len(w.layoutFrames) > 0 {
		f := &w.layoutFrames[len(w.layoutFrames)-1]
		if f.waiting >= 0 {
			// Back from laying out the waiting child's children: retry it.
			w.insertCandidate(f.start, f.waiting)
			f.waiting = -1
			f.bytesLeft = w.bytesLeftInPage()
		}
		if len(w.candidates) == f.start {
			n := w.nodes.at(f.node)
			n.branchSize = 0
			n.outOfPageChildren = true
			n.outOfPageInBranch = false
			n.nodeSize = int32(w.sizeOf(n, w.Position()))
			w.candidates = w.candidates[:f.start]
			w.layoutFrames = w.layoutFrames[:len(w.layoutFrames)-1]
			continue
		}
		k := w.largestCandidate(f.start, f.bytesLeft)
		if k < 0 {
			w.pad()
			f.bytesLeft = w.pageSize
			k = len(w.candidates) - 1 // the largest of all
		}
		child := w.candidates[k].node
		w.candidates = slices.Delete(w.candidates, k, k+1)

		c := w.nodes.at(child)
		if c.outOfPageChildren || c.outOfPageInBranch {
			if actual := w.recalcTotalSize(child, w.Position()); actual > f.bytesLeft {
				if f.bytesLeft == w.pageSize && w.hasUnplacedChild(child) {
					// Not even an empty page holds it: shrink it first.
					f.waiting = child
					w.layoutFrames = append(w.layoutFrames, w.newLayoutFrame(child))
					continue
				}
				if f.bytesLeft < w.pageSize || w.hasUnplacedChild(child) {
					// Probably fits once a page is free: put it back.
					w.insertCandidate(f.start, child)
					continue
				}
				// A lone node bigger than a page. With 4096-byte pages no
				// node is (the largest, a 256-way LONG_DENSE, takes 2051
				// bytes plus payload), so Cassandra never gets here; with
				// tiny test pages the node is written across the boundary
				// rather than retried forever.
			}
		}
		w.finalize(child, w.write(child))
		f.bytesLeft = w.bytesLeftInPage()
	}
}

// hasUnplacedChild reports whether node i has a child branch left to write.
func (w *Writer) hasUnplacedChild(i int32) bool {
	for _, ci := range w.nodes.at(i).children {
		if w.nodes.at(ci).filePos == notPlaced {
			return true
		}
	}
	return false
}

// candidate is a child branch waiting in layoutChildren, with the size it
// is ordered by as it was when it became a candidate (as in Cassandra's
// TreeSet; a candidate's sizes do not change while it waits).
type candidate struct {
	size       int64
	transition byte
	node       int32
}

// compareCandidates orders by size, then transition byte, so the last of
// equal sizes is the one with the higher transition.
func compareCandidates(a, b candidate) int {
	if c := cmp.Compare(a.size, b.size); c != 0 {
		return c
	}
	return cmp.Compare(a.transition, b.transition)
}

// newLayoutFrame pushes node i's unplaced children as candidates, sorted.
func (w *Writer) newLayoutFrame(i int32) layoutFrame {
	start := len(w.candidates)
	for _, ci := range w.nodes.at(i).children {
		if w.nodes.at(ci).filePos == notPlaced {
			w.candidates = append(w.candidates, w.newCandidate(ci))
		}
	}
	slices.SortFunc(w.candidates[start:], compareCandidates)
	return layoutFrame{node: i, start: start, bytesLeft: w.bytesLeftInPage(), waiting: -1}
}

func (w *Writer) newCandidate(i int32) candidate {
	return candidate{size: w.branchTotal(i), transition: w.nodes.at(i).transition, node: i}
}

// insertCandidate puts node i back among the top frame's candidates
// (candidates[start:]), in order, with its current size.
func (w *Writer) insertCandidate(start int, i int32) {
	c := w.newCandidate(i)
	k, _ := slices.BinarySearchFunc(w.candidates[start:], c, compareCandidates)
	w.candidates = slices.Insert(w.candidates, start+k, c)
}

// largestCandidate returns the index in candidates[start:] (which are
// sorted) of the largest branch whose size is at most limit, ties broken by
// the higher transition byte; -1 if none fits.
func (w *Writer) largestCandidate(start int, limit int64) int {
	top := w.candidates[start:]
	// The first candidate larger than limit; the one before it is the answer.
	k := sort.Search(len(top), func(k int) bool { return top[k].size > limit })
	if k == 0 {
		return -1
	}
	return start + k - 1
}

// recalcFrame is one level of recalcTotalSize.
type recalcFrame struct {
	node  int32
	child int   // next child to visit
	start int64 // where the branch would start
	sum   int64 // bytes of the children visited so far
}

// recalcTotalSize re-measures the branch of node i as if written from start:
// nodes with written descendants (B) re-add their children's sizes, and nodes
// with written children or descendants re-size themselves, since their
// pointer widths depend on the position. Returns branchSize + nodeSize.
func (w *Writer) recalcTotalSize(i int32, start int64) int64 {
	w.recalcFrames = append(w.recalcFrames[:0], recalcFrame{node: i, start: start})
	for {
		f := &w.recalcFrames[len(w.recalcFrames)-1]
		n := w.nodes.at(f.node)
		if n.outOfPageInBranch && f.child < len(n.children) {
			ci := n.children[f.child]
			f.child++
			w.recalcFrames = append(w.recalcFrames, recalcFrame{node: ci, start: f.start + f.sum})
			continue
		}
		if n.outOfPageInBranch {
			n.branchSize = int32(f.sum)
		}
		if n.outOfPageChildren || n.outOfPageInBranch {
			n.nodeSize = int32(w.sizeOf(n, f.start+int64(n.branchSize)))
		}
		total := int64(n.branchSize) + int64(n.nodeSize)
		w.recalcFrames = w.recalcFrames[:len(w.recalcFrames)-1]
		if len(w.recalcFrames) == 0 {
			return total
		}
		w.recalcFrames[len(w.recalcFrames)-1].sum += total
	}
}

// writeFrame is one level of write and writePartial.
type writeFrame struct {
	node  int32
	child int   // next child to visit
	start int64 // position where the node's branch started
}

// nextUnplacedChild moves f past its node's children up to the next one
// without a position and returns it, or -1 when none is left.
func (w *Writer) nextUnplacedChild(f *writeFrame) int32 {
	n := w.nodes.at(f.node)
	for f.child < len(n.children) {
		ci := n.children[f.child]
		f.child++
		if w.nodes.at(ci).filePos == notPlaced {
			return ci
		}
	}
	return -1
}

// write writes the unwritten branch of node i in post-order (children in
// ascending transition order, each child's branch before the child, the node
// last) and returns the node's position. Descendants get their position but
// keep their sizes: a parent's pointer-width estimate may still read them.
func (w *Writer) write(i int32) int64 {
	w.writeFrames = append(w.writeFrames[:0], writeFrame{node: i, start: w.Position()})
	for {
		f := &w.writeFrames[len(w.writeFrames)-1]
		if ci := w.nextUnplacedChild(f); ci >= 0 {
			w.writeFrames = append(w.writeFrames, writeFrame{node: ci, start: w.Position()})
			continue
		}
		n := w.nodes.at(f.node)
		pos := w.Position()
		if invariants.Enabled && pos != f.start+int64(n.branchSize) {
			// Cassandra asserts this: the branch estimate must be exact by now.
			panic(fmt.Sprintf("trie: node written at %d, its branch estimate put it at %d", pos, f.start+int64(n.branchSize)))
		}
		w.out = w.appendNode(w.out, n, pos)
		if invariants.Enabled && w.Position() != pos+int64(n.nodeSize) && w.Position()%w.pageSize != 0 {
			panic(fmt.Sprintf("trie: node at %d took %d bytes, its estimate was %d", pos, w.Position()-pos, n.nodeSize))
		}
		n.filePos = pos
		w.releaseChildren(n)
		w.writeFrames = w.writeFrames[:len(w.writeFrames)-1]
		if len(w.writeFrames) == 0 {
			return pos
		}
	}
}

// writePartial serializes the unwritten part of the trie under node i into
// *tail, which logically starts at file position base, and returns the
// node's position. Children placed here get a temporary position that is
// cleared once their parent is serialized. Size estimates of nodes with
// written children or descendants are updated from what was serialized, a
// side effect Cassandra has and the final layout depends on.
func (w *Writer) writePartial(i int32, tail *[]byte, base int64) int64 {
	w.writeFrames = append(w.writeFrames[:0], writeFrame{node: i, start: base + int64(len(*tail))})
	for {
		f := &w.writeFrames[len(w.writeFrames)-1]
		if ci := w.nextUnplacedChild(f); ci >= 0 {
			w.writeFrames = append(w.writeFrames, writeFrame{node: ci, start: base + int64(len(*tail))})
			continue
		}
		n := w.nodes.at(f.node)
		pos := base + int64(len(*tail))
		if n.outOfPageInBranch {
			n.branchSize = int32(pos - f.start)
		}
		*tail = w.appendNode(*tail, n, pos)
		if n.outOfPageChildren || n.outOfPageInBranch {
			n.nodeSize = int32(base + int64(len(*tail)) - pos)
		}
		for _, ci := range n.children {
			if c := w.nodes.at(ci); c.partial {
				c.partial = false
				c.filePos = notPlaced
			}
		}
		w.writeFrames = w.writeFrames[:len(w.writeFrames)-1]
		if len(w.writeFrames) == 0 {
			return pos
		}
		n.filePos = pos
		n.partial = true
	}
}

// performCompletion completes every node on the stack, root last, and writes
// what is left, making sure the root's page holds it.
func (w *Writer) performCompletion() {
	root := w.stack[0]
	for len(w.stack) > 0 {
		top := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.complete(top)
	}
	w.stack = append(w.stack, root)

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
			if int64(w.nodes.at(root).nodeSize) > w.bytesLeftInPage() {
				w.pad()
				w.recalcTotalSize(root, w.Position())
			}
		}
	}
	w.rootPos = w.write(root)
	w.finalize(root, w.rootPos)
}
