package trie

import (
	"testing"
)

// Pointers of 32 bits and more, which only a file past 4 GiB needs: each
// node is serialized by the writer at a position past 2^41 with children
// at synthetic distances on both sides of 2^32 and 2^40, and read back by
// nodeView from a source whose tail starts at that position, so no
// gigabytes are written. The distances must come back exactly (a pointer
// cut to 32 bits would point 4 GiB off) and the node type must be the one
// the width class asks for.
func TestSerializeWidePointers(t *testing.T) {
	const pos = int64(1) << 41
	cases := []struct {
		name     string
		children [][2]int64 // transition, distance
		wantType nodeType
	}{
		{"single, 32 bits", [][2]int64{{0x61, 1<<32 - 1}}, dense32},
		{"single, 40 bits", [][2]int64{{0x61, 1 << 32}}, dense40},
		{"single, 64 bits", [][2]int64{{0x61, 1<<40 + 3}}, longDense},
		{"sparse, 32 bits", [][2]int64{{0x10, 1<<32 - 1}, {0x80, 5}, {0xF0, 1}}, sparse40},
		{"sparse, 40 bits", [][2]int64{{0x10, 1<<32 + 0x1234}, {0x80, 1 << 33}, {0xF0, 7}}, sparse40},
		{"dense, 32 bits", [][2]int64{{0x10, 1<<32 - 1}, {0x11, 2}}, dense32},
		{"dense, 40 bits", [][2]int64{{0x10, 1<<40 - 1}, {0x11, 1<<32 + 9}}, dense40},
		{"sparse beats dense, 40 bits", [][2]int64{{0x10, 1<<40 - 1}, {0x12, 1<<32 + 9}}, sparse40},
		{"dense, 64 bits", [][2]int64{{0x10, 1<<40 + 0xABCDEF}, {0x11, 1<<32 + 1}, {0x13, 3}}, longDense},
		{"sparse, 64 bits", [][2]int64{{0x10, 1 << 41}, {0x80, 1<<40 + 1}, {0xF0, 1}}, longDense},
	}
	for _, c := range cases {
		b := placedNode(t, pos, nil, c.children...)
		var nv nodeView
		if err := nv.load(&Source{Cutoff: pos, Tail: b}, pos); err != nil {
			t.Fatalf("%s: %x: %v", c.name, b, err)
		}
		if nv.typ != c.wantType {
			t.Errorf("%s: written as %v, want %v", c.name, nv.typ, c.wantType)
		}
		// Map each transition to its child the node leads to.
		got := map[int]int64{}
		for i := range nv.n {
			if ch := nv.child(i); ch != none {
				got[nv.transitionByte(i)] = ch
			}
		}
		if len(got) != len(c.children) {
			t.Errorf("%s: %d children read back, want %d (%x)", c.name, len(got), len(c.children), b)
		}
		for _, ch := range c.children {
			if p, ok := got[int(ch[0])]; !ok || p != pos-ch[1] {
				t.Errorf("%s: child %#x at %d (present %v), want %d", c.name, ch[0], p, ok, pos-ch[1])
			}
		}
	}
}
