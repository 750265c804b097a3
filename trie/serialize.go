package trie

import (
	"fmt"

	"github.com/bti-go/bti/internal/invariants"
)

// This file turns an in-memory node of the writer into its on-disk bytes.
// The type of a node depends on D, the distance back to its farthest child,
// which the page-aware writer must *estimate* before the children are
// placed; the estimate rule is Cassandra's maxPositionDelta and is kept
// exactly, because it decides node types and therefore every later offset.

// maxDist returns D for node n if n were written at pos.
//
// A node without out-of-page children (C false) will be written straight
// after its pending children, which are laid out back to back as
// [child0 branch][child0][child1 branch][child1]...[n]; child 0 is then the
// farthest, at branchSize - child0.branchSize. Otherwise D is the larger of
// the distance to the farthest already placed child and the distance the
// first unplaced child would have.
func (w *Writer) maxDist(n *node, pos int64) int64 {
	if !n.outOfPageChildren {
		return int64(n.branchSize - w.nodes.at(n.children[0]).branchSize)
	}
	var placed, unplaced int64
	haveUnplaced := false
	for _, ci := range n.children {
		c := w.nodes.at(ci)
		if c.filePos != notPlaced {
			if d := pos - c.filePos; d > placed {
				placed = d
			}
		} else if !haveUnplaced {
			unplaced = int64(n.branchSize - c.branchSize)
			haveUnplaced = true
		}
	}
	if haveUnplaced && unplaced > placed {
		return unplaced
	}
	return placed
}

// span is the number of transition slots a DENSE node for n would have.
func (w *Writer) span(n *node) int {
	if len(n.children) == 0 {
		return 0
	}
	first := w.nodes.at(n.children[0]).transition
	last := w.nodes.at(n.children[len(n.children)-1]).transition
	return int(last) - int(first) + 1
}

// typeAt returns the node type n gets when written at pos.
func (w *Writer) typeAt(n *node, pos int64) nodeType {
	if len(n.children) == 0 {
		return payloadOnly
	}
	return typeFor(len(n.children), w.span(n), n.hasPayload, w.maxDist(n, pos))
}

// sizeOf is the serialized size of n (node plus payload) written at pos.
func (w *Writer) sizeOf(n *node, pos int64) int64 {
	t := w.typeAt(n, pos)
	s := int64(nodeSize(t, len(n.children), w.span(n)))
	if n.hasPayload {
		s += int64(len(w.payload(n)))
	}
	return s
}

// appendNode serializes n as if it started at file position pos. Every child
// must have a position (real or, for partial tails, temporary).
func (w *Writer) appendNode(dst []byte, n *node, pos int64) []byte {
	t := w.typeAt(n, pos)
	if invariants.Enabled {
		w.checkPointersFit(n, t, pos)
	}
	flags := byte(0)
	if n.hasPayload {
		flags = n.flags & 0xF
	}
	switch {
	case t == payloadOnly:
		dst = append(dst, byte(t)<<4|flags)
	case t == singleNoPayload4:
		c := w.nodes.at(n.children[0])
		d := pos - c.filePos
		dst = append(dst, byte(t)<<4|byte(d&0xF), c.transition)
	case t == singleNoPayload12:
		c := w.nodes.at(n.children[0])
		d := pos - c.filePos
		dst = append(dst, byte(t)<<4|byte(d>>8&0xF), byte(d), c.transition)
	case t.isSingle():
		c := w.nodes.at(n.children[0])
		dst = append(dst, byte(t)<<4|flags, c.transition)
		dst = appendUint(dst, uint64(pos-c.filePos), int(pointerBits[t])/8)
	case t == sparse12:
		dst = append(dst, byte(t)<<4|flags, byte(len(n.children)))
		for _, ci := range n.children {
			dst = append(dst, w.nodes.at(ci).transition)
		}
		var carry uint64
		for i, ci := range n.children {
			d := uint64(pos-w.nodes.at(ci).filePos) & 0xFFF
			if i&1 == 0 {
				carry = d
			} else {
				v := carry<<12 | d
				dst = append(dst, byte(v>>16), byte(v>>8), byte(v))
			}
		}
		if len(n.children)&1 == 1 {
			dst = append(dst, byte(carry>>4), byte(carry<<4))
		}
	case t.isSparse():
		width := int(pointerBits[t]) / 8
		dst = append(dst, byte(t)<<4|flags, byte(len(n.children)))
		for _, ci := range n.children {
			dst = append(dst, w.nodes.at(ci).transition)
		}
		for _, ci := range n.children {
			dst = appendUint(dst, uint64(pos-w.nodes.at(ci).filePos), width)
		}
	default: // dense types; a single child with a far pointer also lands here
		first := w.nodes.at(n.children[0]).transition
		span := w.span(n)
		dst = append(dst, byte(t)<<4|flags, first, byte(span-1))
		dst = w.appendDenseSlots(dst, n, t, first, span, pos)
	}
	if n.hasPayload {
		dst = append(dst, w.payload(n)...)
	}
	return dst
}

// appendDenseSlots writes one pointer per transition byte first..first+span-1,
// 0 where there is no child.
func (w *Writer) appendDenseSlots(dst []byte, n *node, t nodeType, first byte, span int, pos int64) []byte {
	slots := w.denseSlots[:span]
	clear(slots)
	for _, ci := range n.children {
		c := w.nodes.at(ci)
		slots[c.transition-first] = uint64(pos - c.filePos)
	}
	if t == dense12 {
		// Pairs of 12-bit values share three bytes; an odd last value takes
		// two, its low nibble zero.
		for i := 0; i+1 < span; i += 2 {
			v := (slots[i]&0xFFF)<<12 | slots[i+1]&0xFFF
			dst = append(dst, byte(v>>16), byte(v>>8), byte(v))
		}
		if span&1 == 1 {
			v := slots[span-1] & 0xFFF
			dst = append(dst, byte(v>>4), byte(v<<4))
		}
		return dst
	}
	width := int(pointerBits[t]) / 8
	for _, d := range slots {
		dst = appendUint(dst, d, width)
	}
	return dst
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
func (w *Writer) checkPointersFit(n *node, t nodeType, pos int64) {
	for _, ci := range n.children {
		d := pos - w.nodes.at(ci).filePos
		bits := int(pointerBits[t])
		if d <= 0 || (bits < 64 && d >= 1<<bits) {
			panic(fmt.Sprintf("trie: %v at %d cannot point %d bytes back", t, pos, d))
		}
	}
}
