package trie

import (
	"bytes"
	"io"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// Counterparts of Cassandra's TrieNodeTest for the writing side: type
// choice by child count, payload and distance class, and the bytes each type
// serializes to (computed by hand from the layouts in node.go).

func TestTypeForSingles(t *testing.T) {
	cases := []struct {
		dist       int64
		noPayload  nodeType
		hasPayload nodeType
	}{
		{1, singleNoPayload4, single8},
		{0xF, singleNoPayload4, single8},
		{0x10, single8, single8},
		{0xFF, single8, single8},
		{0x100, singleNoPayload12, single16},
		{0xFFF, singleNoPayload12, single16},
		{0x1000, single16, single16},
		{0xFFFF, single16, single16},
		{0x10000, dense24, dense24},
		{1<<24 - 1, dense24, dense24},
		{1 << 24, dense32, dense32},
		{1<<32 - 1, dense32, dense32},
		{1 << 32, dense40, dense40},
		{1<<40 - 1, dense40, dense40},
		{1 << 40, longDense, longDense},
	}
	for _, c := range cases {
		require.Equal(t, c.noPayload, typeFor(1, 1, false, c.dist), "distance %#x without payload", c.dist)
		require.Equal(t, c.hasPayload, typeFor(1, 1, true, c.dist), "distance %#x with payload", c.dist)
	}
	require.Equal(t, payloadOnly, typeFor(0, 0, true, 0))
	require.Equal(t, payloadOnly, typeFor(0, 0, false, 0))
}

func TestTypeForSparseOrDense(t *testing.T) {
	// Two children one byte apart: DENSE_12 is 3+3 = 6 bytes, SPARSE_8 is
	// 2+4 = 6: a tie goes to DENSE.
	require.Equal(t, dense12, typeFor(2, 2, false, 10))
	// Far apart, sparse wins.
	require.Equal(t, sparse8, typeFor(2, 200, false, 10))
	require.Equal(t, sparse12, typeFor(3, 200, false, 0x800))
	require.Equal(t, sparse16, typeFor(3, 200, false, 0x8000))
	require.Equal(t, sparse24, typeFor(3, 200, false, 0x800000))
	// Width class 5 pairs SPARSE_40 with DENSE_32.
	require.Equal(t, sparse40, typeFor(3, 200, false, 1<<31))
	require.Equal(t, dense32, typeFor(3, 3, false, 1<<31))
	require.Equal(t, sparse40, typeFor(3, 200, false, 1<<39))
	require.Equal(t, longDense, typeFor(3, 200, false, 1<<41))
	// 256 children always go DENSE, whatever the width.
	for _, d := range []int64{1, 0x800, 0x8000, 0x800000, 1 << 31, 1 << 39} {
		require.True(t, typeFor(256, 256, true, d).isDense(), "256 children at distance %#x", d)
	}
}

func TestNodeSizes(t *testing.T) {
	require.Equal(t, 1, nodeSize(payloadOnly, 0, 0))
	require.Equal(t, 2, nodeSize(singleNoPayload4, 1, 1))
	require.Equal(t, 3, nodeSize(single8, 1, 1))
	require.Equal(t, 3, nodeSize(singleNoPayload12, 1, 1))
	require.Equal(t, 4, nodeSize(single16, 1, 1))
	require.Equal(t, 2+2*3, nodeSize(sparse8, 3, 9))
	require.Equal(t, 2+3+5, nodeSize(sparse12, 3, 9)) // 3 transitions + ceil(4.5)
	require.Equal(t, 2+4+6, nodeSize(sparse12, 4, 9))
	require.Equal(t, 2+3*3, nodeSize(sparse16, 3, 9))
	require.Equal(t, 2+4*3, nodeSize(sparse24, 3, 9))
	require.Equal(t, 2+6*3, nodeSize(sparse40, 3, 9))
	require.Equal(t, 3+5, nodeSize(dense12, 2, 3)) // 3 slots of 12 bits
	require.Equal(t, 3+6, nodeSize(dense12, 2, 4))
	require.Equal(t, 3+2*9, nodeSize(dense16, 3, 9))
	require.Equal(t, 3+3*9, nodeSize(dense24, 3, 9))
	require.Equal(t, 3+4*9, nodeSize(dense32, 3, 9))
	require.Equal(t, 3+5*9, nodeSize(dense40, 3, 9))
	require.Equal(t, 3+8*9, nodeSize(longDense, 3, 9))
}

// placedNode builds, in a fresh writer, a node at position pos whose
// children (transition, distance) are already written, and serializes it.
func placedNode(t *testing.T, pos int64, payload []byte, children ...[2]int64) []byte {
	t.Helper()
	w := NewWriter(io.Discard, Options{})
	parent := w.newNode()
	for _, c := range children {
		w.addChild(parent, writtenRef(byte(c[0]), pos-c[1]))
	}
	n := &w.nodes[parent]
	if payload != nil {
		n.hasPayload, n.flags = true, 9
		w.setPayload(n, payload)
	}
	// Children already written: the node sizes itself from real positions.
	n.outOfPageChildren = true
	got := w.appendNode(nil, n, pos, 0)
	require.Equal(t, int(w.sizeOf(n, pos)), len(got), "sizeOf agrees with the bytes")
	return got
}

func TestSerializeEachType(t *testing.T) {
	pl := []byte{0xAA, 0xBB}
	cases := []struct {
		name     string
		got      []byte
		want     []byte
		wantType nodeType
	}{
		{"PAYLOAD_ONLY", placedNode(t, 100, pl), []byte{0x09, 0xAA, 0xBB}, payloadOnly},
		{"SINGLE_NOPAYLOAD_4", placedNode(t, 100, nil, [2]int64{0x61, 7}), []byte{0x17, 0x61}, singleNoPayload4},
		{"SINGLE_8", placedNode(t, 100, pl, [2]int64{0x61, 7}), []byte{0x29, 0x61, 0x07, 0xAA, 0xBB}, single8},
		{"SINGLE_NOPAYLOAD_12", placedNode(t, 5000, nil, [2]int64{0x61, 0xABC}), []byte{0x3A, 0xBC, 0x61}, singleNoPayload12},
		{"SINGLE_16", placedNode(t, 70000, pl, [2]int64{0x61, 0xABCD}), []byte{0x49, 0x61, 0xAB, 0xCD, 0xAA, 0xBB}, single16},
		{"DENSE_24 single", placedNode(t, 1<<20, nil, [2]int64{0x61, 0x12345}), []byte{0xC0, 0x61, 0x00, 0x01, 0x23, 0x45}, dense24},
		{"SPARSE_8", placedNode(t, 100, nil, [2]int64{0x10, 9}, [2]int64{0x80, 3}),
			[]byte{0x50, 0x02, 0x10, 0x80, 0x09, 0x03}, sparse8},
		{"SPARSE_12 odd", placedNode(t, 5000, nil, [2]int64{0x10, 0x123}, [2]int64{0x80, 0x456}, [2]int64{0xF0, 0x789}),
			[]byte{0x60, 0x03, 0x10, 0x80, 0xF0, 0x12, 0x34, 0x56, 0x78, 0x90}, sparse12},
		{"SPARSE_16", placedNode(t, 70000, nil, [2]int64{0x10, 0x1234}, [2]int64{0x80, 0x5678}, [2]int64{0xF0, 0x9ABC}),
			[]byte{0x70, 0x03, 0x10, 0x80, 0xF0, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC}, sparse16},
		{"SPARSE_12 even, payload", placedNode(t, 5000, pl, [2]int64{0x61, 0x123}, [2]int64{0x63, 0x456}),
			[]byte{0x69, 0x02, 0x61, 0x63, 0x12, 0x34, 0x56, 0xAA, 0xBB}, sparse12},
		{"DENSE_12 with hole", placedNode(t, 5000, pl, [2]int64{0x61, 0x123}, [2]int64{0x62, 0x456}, [2]int64{0x64, 0x789}),
			[]byte{0xA9, 0x61, 0x03, 0x12, 0x34, 0x56, 0x00, 0x07, 0x89, 0xAA, 0xBB}, dense12},
		{"DENSE_16", placedNode(t, 70000, nil, [2]int64{0x61, 0x1234}, [2]int64{0x62, 0x5678}),
			[]byte{0xB0, 0x61, 0x01, 0x12, 0x34, 0x56, 0x78}, dense16},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.got, c.name)
		require.Equal(t, c.wantType, nodeType(c.got[0]>>4), c.name)
	}
}

// A leaf payload bigger than a (tiny) page: the layout writes the node
// across the boundary instead of retrying it forever, and it reads back.
func TestNodeBiggerThanPage(t *testing.T) {
	big := bytes.Repeat([]byte{7}, 200)
	var entries []entry
	for _, k := range []string{"a", "b", "c"} {
		entries = append(entries, entry{key: []byte(k), flags: 8, payload: big})
	}
	checkPayloads(t, entries, Options{PageSize: 64})
}

// Building is bound by touching nodes: keep two in a cache line.
func TestNodeIsHalfACacheLine(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(node{}), uintptr(32))
}

// Payloads longer than a node holds go to the side table and come back.
func TestBigPayloads(t *testing.T) {
	var entries []entry
	for i, k := range []string{"a", "b", "c", "d"} {
		entries = append(entries, entry{key: []byte(k), flags: 8, payload: bytes.Repeat([]byte{byte(i + 1)}, 5+i*10)})
	}
	checkPayloads(t, entries, Options{})
}

// checkPayloads writes entries under opts and checks that iteration lists
// exactly them, in order, each with its payload.
func checkPayloads(t *testing.T, entries []entry, opts Options) {
	data, root := writeEntries(t, entries, opts)
	tr := mustNew(t, data, root)
	nodes := iterAll(t, tr, nil, nil, true)
	require.Len(t, nodes, len(entries))
	for i, n := range nodes {
		f, p, err := tr.Payload(n)
		require.NoError(t, err)
		require.Equal(t, entries[i].flags, f, "flags %d", i)
		require.Equal(t, entries[i].payload, p[:len(entries[i].payload)], "payload %d", i)
	}
}

// Counterpart of Cassandra's testPointerGrowth: children far behind their
// parents need wide pointers. Cassandra fakes the writer's positions; here
// big payloads really push the children back (by 2^16 and 2^24 bytes), so
// the single, sparse and dense types of the 16-, 24- and 32/40-bit classes
// are written and read back.
func TestPointerGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 17 MB trie")
	}
	cases := []struct {
		name  string
		keys  []string
		sizes []int
		want  []nodeType
	}{
		// One child 70 KB back: a single pointer needs 24 bits -> one-slot DENSE_24.
		{"single-24", []string{"ab"}, []int{70_000}, []nodeType{dense24}},
		// Two children, the first 140 KB back: SPARSE_24 (sparse is smaller for a wide span).
		{"sparse-24", []string{"a\x00", "a\xff"}, []int{70_000, 70_000}, []nodeType{sparse24}},
		// Two adjacent children, far back: DENSE_24 (dense ties or wins).
		{"dense-24", []string{"a\x10", "a\x11"}, []int{70_000, 70_000}, []nodeType{dense24}},
		// A child 17 MB back: 32-bit class, where SPARSE_40 competes with DENSE_32.
		{"dense-32", []string{"b\x10", "b\x11"}, []int{17 << 20, 10}, []nodeType{dense32}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entries := make([]entry, len(c.keys))
			for i, k := range c.keys {
				entries[i] = entry{key: []byte(k), flags: 8, payload: bytes.Repeat([]byte{byte(i + 1)}, c.sizes[i])}
			}
			data, root := writeEntries(t, entries, Options{})
			tr := mustNew(t, data, root)
			var byType [16]int64
			countShapes(t, tr, tr.Root(), &byType)
			for _, typ := range c.want {
				require.NotZero(t, byType[typ], "a %v node is written", typ)
			}
			for i, k := range c.keys {
				var wk Walker
				wk.Reset(tr)
				node, ok, err := wk.Exact([]byte(k))
				require.NoError(t, err)
				require.True(t, ok, "key %q", k)
				_, p, err := tr.Payload(node)
				require.NoError(t, err)
				require.GreaterOrEqual(t, len(p), c.sizes[i])
				require.Equal(t, byte(i+1), p[0])
				require.Equal(t, byte(i+1), p[c.sizes[i]-1])
			}
		})
	}
}

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
