package trie

import (
	"fmt"
	"slices"

	"github.com/bti-go/bti/internal/invariants"
)

// This file turns an in-memory node of the writer into its on-disk bytes.
// The type of a node depends on D, the distance back to its farthest child,
// which the page-aware writer must *estimate* before the children are
// placed; the estimate rule is Cassandra's maxPositionDelta and is kept
// exactly, because it decides node types and therefore every later offset.

// estimateMaxDist returns D for node n if n were written at pos, while its
// children may still be pending (Cassandra's maxPositionDelta).
//
// A node without written children (C false) will be written straight
// after its pending children, which are laid out back to back as
// [child0 branch][child0][child1 branch][child1]...[n]; child 0 is then the
// farthest, at branchSize - child0.branchSize. Otherwise D is the larger of
// the distance to the farthest written child and the distance the first
// pending child would have.
func (w *Writer) estimateMaxDist(n *node, pos int64) int64 {
	refs := w.children(n)
	if !n.outOfPageChildren {
		return int64(n.branchSize - w.pendingBranch(refs[0]))
	}
	var placed, pending int64
	havePending := false
	for _, r := range refs {
		if r.written() {
			if d := pos - r.pos(); d > placed {
				placed = d
			}
		} else if !havePending {
			pending = int64(n.branchSize - w.pendingBranch(r))
			havePending = true
		}
	}
	if havePending && pending > placed {
		return pending
	}
	return placed
}

// writtenMaxDist is D for node n being serialized at pos, when every child
// has a position (real, or temporary in a partial view). It is the estimate
// of estimateMaxDist with every child written: for C false, branchSize -
// firstBranch (the branch size child 0 had when it was written just before,
// so the estimate reads the same numbers as when it was made; with exact
// estimates, which write asserts under the invariants tag, it is also the
// real distance to child 0), else the distance to the farthest child.
func (w *Writer) writtenMaxDist(n *node, pos int64, firstBranch int32) int64 {
	if !n.outOfPageChildren {
		return int64(n.branchSize - firstBranch)
	}
	var d int64
	for _, r := range w.children(n) {
		d = max(d, pos-r.pos())
	}
	return d
}

// span is the number of transition slots a DENSE node for n would have.
func (w *Writer) span(n *node) int {
	if n.nkids == 0 {
		return 0
	}
	refs := w.children(n)
	return int(refs[len(refs)-1].transition()) - int(refs[0].transition()) + 1
}

// sizeOf is the serialized size of n (node plus payload) if written at pos,
// by the estimate of its pointer widths.
func (w *Writer) sizeOf(n *node, pos int64) int64 {
	if n.nkids == 0 {
		return w.sizeFor(n, 0)
	}
	return w.sizeFor(n, w.estimateMaxDist(n, pos))
}

// sizeFor is the serialized size of n (node plus payload) if the farthest
// child is maxDist bytes back.
func (w *Writer) sizeFor(n *node, maxDist int64) int64 {
	var s int64 = 1 // PAYLOAD_ONLY
	switch {
	case n.nkids == 1:
		// Most nodes of a row index: its keys end in chains of them.
		p := 0
		if n.hasPayload {
			p = 1
		}
		s = int64(singleSizes[p][widthClass(maxDist)])
	case n.nkids > 1:
		span := w.span(n)
		t := typeFor(int(n.nkids), span, n.hasPayload, maxDist)
		s = int64(nodeSize(t, int(n.nkids), span))
	}
	if n.hasPayload {
		s += int64(w.payloadLen(n))
	}
	return s
}

// singleSizes is the size without payload of a node with one child, by
// whether it has a payload and by the width class of its distance:
// nodeSize(typeFor(1, 1, hasPayload, d), 1, 1) for any d of the class,
// which sizeFor then need not derive. It is computed from those two, so
// it cannot disagree with them.
var singleSizes = func() (s [2][8]uint8) {
	classMax := [8]int64{0xF, 0xFF, 0xFFF, 0xFFFF, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1 << 62}
	for p := range s {
		for k, d := range classMax {
			s[p][k] = uint8(nodeSize(typeFor(1, 1, p == 1, d), 1, 1))
		}
	}
	return s
}()

// appendNode serializes n as if it started at file position pos. Every child
// must have a position (real or, for partial views, temporary); firstBranch
// is as for writtenMaxDist.
func (w *Writer) appendNode(dst []byte, n *node, pos int64, firstBranch int32) []byte {
	flags := n.payloadFlags()
	if n.nkids == 0 {
		return w.appendLeaf(dst, n)
	}
	refs := w.children(n)
	span := int(refs[len(refs)-1].transition()) - int(refs[0].transition()) + 1
	t := typeFor(len(refs), span, n.hasPayload, w.writtenMaxDist(n, pos, firstBranch))
	if invariants.Enabled {
		w.checkPointersFit(refs, t, pos)
	}
	dists := w.dists[:len(refs)]
	for i, r := range refs {
		dists[i] = uint64(pos - r.pos())
	}
	dst = appendPointers(dst, t, flags, refs, span, dists)
	if n.hasPayload {
		dst = append(dst, w.payload(n)...)
	}
	return dst
}

// appendPointers appends a node of type t without its payload: the header
// (with flags, the payload flags, where t has room for them), the
// transitions of refs and the pointers, child i dists[i] bytes back. span
// is the transition span a DENSE node covers. The serializers of the
// writer end here for every type they do not write themselves: appendNode
// and appendShallow, with distances from the children's positions in the
// parent's list, and appendOneLeafNode, with distances from the sizes of
// the leaves it has just copied.
func appendPointers(dst []byte, t nodeType, flags byte, refs []childRef, span int, dists []uint64) []byte {
	n := len(refs)
	switch {
	case t == singleNoPayload4:
		return append(dst, byte(t)<<4|byte(dists[0]&0xF), refs[0].transition())
	case t == singleNoPayload12:
		d := dists[0]
		return append(dst, byte(t)<<4|byte(d>>8&0xF), byte(d), refs[0].transition())
	case t.isSingle():
		dst = append(dst, byte(t)<<4|flags, refs[0].transition())
		return appendUint(dst, dists[0], int(pointerBits[t])/8)
	case t == sparse12:
		dst = append(dst, byte(t)<<4|flags, byte(n))
		for _, r := range refs {
			dst = append(dst, r.transition())
		}
		l := len(dst)
		size := (3*n + 1) / 2
		dst = slices.Grow(dst, size)[:l+size]
		area := dst[l:]
		clear(area)
		for i, d := range dists {
			put12(area, i, d)
		}
		return dst
	case t.isSparse():
		// Stored by index into room made once: a partition index's nodes
		// are mostly SPARSE_8 with a dozen or so children.
		width := int(pointerBits[t]) / 8
		l := len(dst)
		dst = slices.Grow(dst, 2+n*(1+width))[:l+2+n*(1+width)]
		out := dst[l:]
		out[0], out[1] = byte(t)<<4|flags, byte(n)
		trans, ptrs := out[2:2+n], out[2+n:]
		for i, r := range refs {
			trans[i] = r.transition()
		}
		if width == 1 {
			for i, d := range dists {
				ptrs[i] = byte(d)
			}
		} else {
			for i, d := range dists {
				putUint(ptrs[i*width:(i+1)*width], d)
			}
		}
		return dst
	default: // dense types; a single child with a far pointer also lands here
		// One pointer per transition byte first..first+span-1, 0 where
		// there is no child: the area is cleared, then each child's
		// pointer goes to the slot of its transition.
		first := refs[0].transition()
		dst = append(dst, byte(t)<<4|flags, first, byte(span-1))
		l := len(dst)
		if t == dense12 {
			size := (3*span + 1) / 2
			dst = slices.Grow(dst, size)[:l+size]
			area := dst[l:]
			clear(area)
			for i, r := range refs {
				put12(area, int(r.transition()-first), dists[i])
			}
			return dst
		}
		width := int(pointerBits[t]) / 8
		dst = slices.Grow(dst, span*width)[:l+span*width]
		area := dst[l:]
		clear(area)
		for i, r := range refs {
			j := int(r.transition() - first)
			putUint(area[j*width:(j+1)*width], dists[i])
		}
		return dst
	}
}

// put12 stores the low 12 bits of v as the i-th value of a packed 12-bit
// area, which was cleared: pairs of values share three bytes, big-endian
// (value 2j in the first byte and the high nibble of the second, value
// 2j+1 in the low nibble of the second and the third), and an odd last
// value takes two, its low nibble zero (read12 reads them back).
func put12(area []byte, i int, v uint64) {
	b := 3 * i / 2
	if i&1 == 0 {
		area[b] = byte(v >> 4)
		area[b+1] |= byte(v << 4)
	} else {
		area[b] |= byte(v>>8) & 0xF
		area[b+1] = byte(v)
	}
}

// putUint stores the low len(b) bytes of v in b, big-endian.
func putUint(b []byte, v uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}

// appendUint appends the low n bytes of v, big-endian.
func appendUint(dst []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*uint(i))))
	}
	return dst
}

// checkPointersFit panics if a child's real distance does not fit the
// pointer width the estimate chose (Cassandra asserts the same): the bytes
// would silently point elsewhere.
func (w *Writer) checkPointersFit(refs []childRef, t nodeType, pos int64) {
	for _, r := range refs {
		if !r.written() {
			panic(fmt.Sprintf("trie: node at %d serialized before its child %x", pos, r.transition()))
		}
		d := pos - r.pos()
		bits := int(pointerBits[t])
		if d <= 0 || (bits < 64 && d >= 1<<bits) {
			panic(fmt.Sprintf("trie: %v at %d cannot point %d bytes back", t, pos, d))
		}
	}
}
