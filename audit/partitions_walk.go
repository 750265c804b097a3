package audit

import (
	"github.com/bti-go/bti/internal/partitionpayload"
	"github.com/bti-go/bti/trie"
)

// The walk: a depth-first traversal from the root in transition order, with
// an explicit stack (tries can be ~200,000 levels deep). It visits the
// entries in key order, so it checks what needs neighbours: prefix order and
// cut, position order, the count, the footer's first and last keys.

// walkFrame is one node on the walk's stack; its children are
// kids[next:end], stacked above its parent's.
type walkFrame struct {
	pos       int64
	next, end int
	pages     int
	enc       encState // the key-encoding state after this node's path
}

type walkState struct {
	frames   []walkFrame
	kids     []trie.Child // the children of every frame, one stack
	shape    trie.Shape
	visits   int64
	sum, xor uint64
	aborted  bool

	entries  int64
	havePrev bool
	prevLen  int // the previous entry's stored prefix length (its depth)
	prevDiff int // its diff point with its predecessor (0 for the first)
	// lca is the shallowest frame a child was taken from since the last
	// entry: the two entries' paths share exactly lca bytes.
	lca      int
	prevPos  int64
	firstPos int64
	lastPos  int64
	lastRow  int64 // last Rows.db position seen (>= 0), -1 before any
	lastData int64 // last Data.db position seen, -1 before any
	rowPos   int64 // nodes holding lastRow and lastData
	dataPos  int64
}

func (c *checker) walkTrie() error {
	w := &c.walk
	if w.frames == nil {
		// Sized for the usual depths (a Murmur3 index of 10^8 keys is about
		// 12 nodes deep), so that a check allocates the same few times
		// whatever the key count; deeper tries grow them.
		w.frames = make([]walkFrame, 0, 32)
		w.kids = make([]trie.Child, 0, 1024)
		w.shape.Children = make([]trie.Child, 0, 256)
		c.report.Depth = make([]int64, 0, 64)
		c.report.Pages = make([]int64, 0, 16)
	}
	*w = walkState{frames: w.frames[:0], kids: w.kids[:0], shape: w.shape, lca: -1,
		firstPos: -1, lastPos: -1, lastRow: -1, lastData: -1}
	root := c.ix.Root()
	if c.diag != nil {
		if !c.diag.isStart(root) {
			c.problem(root, root, RuleReach, "the footer's root %d is not the start of a node", root)
			return nil
		}
		c.diag.mark(root)
	}
	if err := c.enter(root, -1, 0, encStart); err != nil {
		return err
	}
	for len(w.frames) > 0 && !w.aborted {
		top := len(w.frames) - 1
		f := &w.frames[top]
		if f.next == f.end {
			w.frames = w.frames[:top]
			continue
		}
		ch := w.kids[f.next]
		f.next++
		if c.diag != nil && !c.diag.admit(c, f.pos, ch) {
			continue
		}
		if w.lca < 0 || top < w.lca {
			w.lca = top
		}
		enc := encStep(c.encPart, f.enc, ch.Transition)
		if enc == encBad {
			c.problem(f.pos, f.pos, RuleEncoding, "transition %#02x at prefix byte %d cannot occur in a %v key's encoding", ch.Transition, top, c.encPart)
			enc = encFree // one report per bad byte, not one per descendant
		}
		if err := c.enter(ch.Pos, f.pos, f.pages, enc); err != nil {
			return err
		}
	}
	return nil
}

// enter visits the node at pos, a child of parent (-1 for the root), whose
// lookup has touched parentPages pages so far; enc is the encoding state
// after its path.
func (c *checker) enter(pos, parent int64, parentPages int, enc encState) error {
	w := &c.walk
	w.visits++
	if w.visits&progressEvery == 0 && c.opts.Progress != nil {
		c.opts.Progress("walk", w.visits, c.scanNodes)
	}
	if err := c.spend(); err != nil {
		return err
	}
	limit := c.scanNodes
	if c.scanBroken {
		limit = c.end
	}
	if w.visits > limit && c.diag == nil {
		c.problem(pos, pos, RuleReach, "more nodes reached from the root than the file holds (%d): a node is shared by several parents", limit)
		w.aborted = true
		return nil
	}
	w.sum += mix64(uint64(pos))
	w.xor ^= mix64b(uint64(pos))
	pages := 1
	if parent >= 0 {
		pages = parentPages
		if pos/c.page != parent/c.page {
			pages++
		}
	}
	d := len(w.frames)
	if err := c.t.Shape(pos, &w.shape); err != nil {
		if pos != c.scanFailedNode {
			c.problem(pos, parent, RuleNode, "child at %d: %s", pos, stripTrie(err))
		}
		return nil
	}
	if len(w.shape.Children) == 0 {
		if c.diag == nil {
			c.leaf(pos, d, pages)
		}
		return nil
	}
	base := 0
	if d > 0 {
		base = w.frames[d-1].end
	}
	w.kids = append(w.kids[:base], w.shape.Children...)
	w.frames = append(w.frames, walkFrame{pos: pos, next: base, end: len(w.kids), pages: pages, enc: enc})
	return nil
}

// leaf accounts for the entry at pos, whose stored prefix is depth bytes.
// Its order after the previous entry needs no comparison: it follows from
// every node's strictly increasing transitions (checked by the scan) and
// payloads only at leaves, and the shared prefix is the depth of the
// frame the walk turned at.
func (c *checker) leaf(pos int64, depth, pages int) {
	w := &c.walk
	r := c.report
	if w.shape.Flags == 0 {
		// Not an entry: the empty index's root, or a childless node the
		// scan reports (no payload, or all its pointers bad).
		return
	}
	w.entries++
	for len(r.Depth) <= depth {
		r.Depth = append(r.Depth, 0)
	}
	r.Depth[depth]++
	for len(r.Pages) <= pages {
		r.Pages = append(r.Pages, 0)
	}
	r.Pages[pages]++

	if w.havePrev {
		diff := w.lca + 1
		c.checkCut(w.prevPos, w.prevLen, max(w.prevDiff, diff))
		w.prevDiff = diff
	} else {
		w.firstPos = pos
		w.prevDiff = 0
	}
	w.prevLen, w.lca = depth, -1
	w.prevPos, w.lastPos, w.havePrev = pos, pos, true

	if c.opts.Positions != PositionsIncreasing {
		return
	}
	_, _, v, ok := partitionpayload.Decode(w.shape.Flags, c.segmentBytes(pos)[w.shape.FixedSize:])
	if !ok {
		return // reported by the scan
	}
	if v >= 0 {
		if v <= w.lastRow {
			c.problem(pos, pos, RulePositions, "Rows.db position %d after %d (node %d): positions must increase with key order", v, w.lastRow, w.rowPos)
		}
		w.lastRow, w.rowPos = v, pos
	} else {
		if ^v <= w.lastData {
			c.problem(pos, pos, RulePositions, "Data.db position %d after %d (node %d): positions must increase with key order", ^v, w.lastData, w.dataPos)
		}
		w.lastData, w.dataPos = ^v, pos
	}
}

// checkCut checks an entry's stored prefix length against the builder's
// cut: one byte past the longest prefix shared with a neighbour.
func (c *checker) checkCut(pos int64, have, want int) {
	if have != want {
		c.problem(pos, pos, RulePrefix, "stored prefix is %d bytes, its neighbours make the builder cut it at %d", have, want)
	}
}

// finishWalk checks what needs the whole walk: the last entry's cut, the
// count and the footer's keys.
func (c *checker) finishWalk() {
	w := &c.walk
	c.report.Entries = w.entries
	if w.aborted {
		return
	}
	if w.havePrev {
		if c.src.Tail == nil {
			c.checkCut(w.prevPos, w.prevLen, w.prevDiff)
		} else if w.prevLen < w.prevDiff {
			// An early-open view's last entry was cut against the next key,
			// which the view does not hold: it may be longer, not shorter.
			c.checkCut(w.prevPos, w.prevLen, w.prevDiff)
		}
	}
	if w.entries != c.ix.Count() {
		c.problem(c.footerPos()+8, -1, RuleCount, "footer count is %d, the trie holds %d entries", c.ix.Count(), w.entries)
	}
	c.checkFooterKeys()
}

// reachDiag is the diagnosis pass: bitmaps of node starts (from a second
// scan) and of nodes reached, to name the node where the walk and the scan
// disagree. Only a damaged file gets here.
type reachDiag struct {
	starts, seen []uint64
}

func (d *reachDiag) isStart(pos int64) bool {
	return pos >= 0 && pos>>6 < int64(len(d.starts)) && d.starts[pos>>6]&(1<<(pos&63)) != 0
}

func (d *reachDiag) mark(pos int64) { d.seen[pos>>6] |= 1 << (pos & 63) }

func (d *reachDiag) admit(c *checker, parent int64, ch trie.Child) bool {
	switch {
	case !d.isStart(ch.Pos):
		c.problem(parent, parent, RuleReach, "transition %#02x points to %d, which is not the start of a node", ch.Transition, ch.Pos)
		return false
	case d.seen[ch.Pos>>6]&(1<<(ch.Pos&63)) != 0:
		c.problem(parent, parent, RuleReach, "transition %#02x points to node %d, which another parent already has", ch.Transition, ch.Pos)
		return false
	}
	d.mark(ch.Pos)
	return true
}

// diagnose runs the scan and the walk again with bitmaps and reports
// pointers into the middle of nodes, shared children and orphan nodes.
func (c *checker) diagnose() error {
	words := (c.end + 63) / 64
	d := &reachDiag{starts: make([]uint64, words), seen: make([]uint64, words)}
	c.diag = d
	defer func() { c.diag = nil }()
	c.scanNodes, c.scanSum, c.scanXor = 0, 0, 0
	if err := c.scan(); err != nil {
		return err
	}
	if err := c.walkTrie(); err != nil {
		return err
	}
	for i, word := range d.starts {
		orphans := word &^ d.seen[i]
		for b := int64(0); orphans != 0; b++ {
			if orphans&1 != 0 {
				pos := int64(i)*64 + b
				c.problem(pos, pos, RuleReach, "node is laid out but not reachable from the root")
			}
			orphans >>= 1
		}
	}
	return nil
}
