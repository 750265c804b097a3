package trie

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typeCase is one node under test: it is the root, its children are 3-byte
// PAYLOAD_ONLY leaves (flags 8, hash, 1-byte position) written first, then
// gap zero bytes, then the node with payload flags 9 and 3 payload bytes.
type typeCase struct {
	name  string
	typ   nodeType
	trans []byte
	gap   int
}

func typeCases() []typeCase {
	return []typeCase{
		{"SINGLE_NOPAYLOAD_4", singleNoPayload4, []byte{0x20}, 0},
		{"SINGLE_8", single8, []byte{0x20}, 200},
		{"SINGLE_NOPAYLOAD_12", singleNoPayload12, []byte{0x20}, 3000},
		{"SINGLE_16", single16, []byte{0x20}, 40000},
		{"SPARSE_8/odd", sparse8, []byte{0x10, 0x20, 0x30}, 100},
		{"SPARSE_12/odd", sparse12, []byte{0x10, 0x20, 0x30}, 2000},
		{"SPARSE_12/even", sparse12, []byte{0x10, 0x20, 0x30, 0x40}, 2000},
		{"SPARSE_16", sparse16, []byte{0x10, 0x20, 0x30, 0x40}, 30000},
		{"SPARSE_24", sparse24, []byte{0x10, 0x20, 0x30}, 70000},
		{"SPARSE_40", sparse40, []byte{0x10, 0x20, 0x30}, 70000},
		{"DENSE_12/odd-span-holes", dense12, []byte{0x10, 0x12, 0x14}, 1000},  // span 5
		{"DENSE_12/even-span-holes", dense12, []byte{0x10, 0x11, 0x13}, 1000}, // span 4
		{"DENSE_16", dense16, []byte{0x10, 0x12, 0x14}, 30000},
		{"DENSE_24", dense24, []byte{0x10, 0x12, 0x14}, 70000},
		{"DENSE_32", dense32, []byte{0x10, 0x12, 0x14}, 70000},
		{"DENSE_40", dense40, []byte{0x10, 0x12, 0x14}, 70000},
		{"LONG_DENSE", longDense, []byte{0x10, 0x12, 0x14}, 70000},
	}
}

// image builds the bytes of c and returns them with the leaf positions and
// the root position.
func (c typeCase) image() (data []byte, leaves []int64, root int64) {
	for i := range c.trans {
		leaves = append(leaves, int64(len(data)))
		data = append(data, 0x08, 0xA0+byte(i), byte(i))
	}
	data = append(data, make([]byte, c.gap)...)
	root = int64(len(data))
	var payload []byte
	if c.typ.canCarryPayload() {
		payload = []byte{0xAB, 0x01, 0x02}
	}
	flags := uint8(0)
	if c.typ.canCarryPayload() {
		flags = 9
	}
	return encodeNode(data, c.typ, flags, root, c.trans, leaves, payload), leaves, root
}

// TestNodeImagesByHand pins a few encodings byte by byte, so that the test
// encoder itself is checked against the spec's layouts.
func TestNodeImagesByHand(t *testing.T) {
	// SPARSE_12, 3 children at distances 0x123, 0x456, 0x789: the pair packs
	// into 12 34 56, the odd last value into 78 90 (docs/format.md §4.3).
	got := encodeNode(nil, sparse12, 9, 0x1000, []byte{1, 2, 3}, []int64{0x1000 - 0x123, 0x1000 - 0x456, 0x1000 - 0x789}, nil)
	assert.Equal(t, []byte{0x69, 3, 1, 2, 3, 0x12, 0x34, 0x56, 0x78, 0x90}, got)
	// DENSE_12 over 10..12 with a hole at 11: slots 0x123, 0, 0x789.
	got = encodeNode(nil, dense12, 0, 0x1000, []byte{10, 12}, []int64{0x1000 - 0x123, 0x1000 - 0x789}, nil)
	assert.Equal(t, []byte{0xA0, 10, 2, 0x12, 0x30, 0x00, 0x78, 0x90}, got)
	// SINGLE_NOPAYLOAD_12, distance 0xABC, transition 0x41.
	got = encodeNode(nil, singleNoPayload12, 0, 0x1000, []byte{0x41}, []int64{0x1000 - 0xABC}, nil)
	assert.Equal(t, []byte{0x3A, 0xBC, 0x41}, got)
	// LONG_DENSE one slot, distance 5.
	got = encodeNode(nil, longDense, 1, 100, []byte{7}, []int64{95}, nil)
	assert.Equal(t, []byte{0xF1, 7, 0, 0, 0, 0, 0, 0, 0, 0, 5}, got)

	// And the reader decodes them.
	src := Source{File: append(make([]byte, 0x1000), 0x69, 3, 1, 2, 3, 0x12, 0x34, 0x56, 0x78, 0x90, 0xEE)}
	var nv nodeView
	require.NoError(t, nv.load(&src, 0x1000))
	assert.Equal(t, 3, nv.n)
	assert.Equal(t, int64(0x1000-0x123), nv.child(0))
	assert.Equal(t, int64(0x1000-0x456), nv.child(1))
	assert.Equal(t, int64(0x1000-0x789), nv.child(2))
	assert.Equal(t, uint8(9), nv.flags)
	assert.Equal(t, 10, nv.ppos)
}

func TestNodeTypes(t *testing.T) {
	for _, c := range typeCases() {
		t.Run(c.name, func(t *testing.T) {
			data, leaves, root := c.image()
			tr, err := New(Source{File: data}, root)
			require.NoError(t, err)

			// Decoded fields.
			var nv nodeView
			require.NoError(t, nv.load(&tr.src, root))
			require.Equal(t, c.typ, nv.typ)
			first, last := int(c.trans[0]), int(c.trans[len(c.trans)-1])
			switch {
			case c.typ.isDense():
				require.Equal(t, last-first+1, nv.n)
			default:
				require.Equal(t, len(c.trans), nv.n)
			}
			// Every slot: transition byte and child, holes reading as none.
			li := 0
			for i := 0; i < nv.n; i++ {
				tb := nv.transitionByte(i)
				if c.typ.isDense() {
					assert.Equal(t, first+i, tb)
				}
				if li < len(c.trans) && tb == int(c.trans[li]) {
					assert.Equal(t, leaves[li], nv.child(i), "slot %d", i)
					assert.Equal(t, i, nv.search(tb))
					li++
				} else {
					assert.Equal(t, none, nv.child(i), "hole %d", i)
					assert.Equal(t, -i-1, nv.search(tb), "hole %d", i)
				}
			}
			assert.Equal(t, len(c.trans), li)
			assert.Equal(t, noByte, nv.transitionByte(nv.n))
			assert.Equal(t, -1, nv.search(eos))
			assert.Equal(t, -1, nv.search(first-1))
			assert.Equal(t, -nv.n-1, nv.search(last+1))
			assert.Equal(t, -nv.n-1, nv.search(256))

			// Payload flags and position.
			flags, payload, err := tr.Payload(root)
			require.NoError(t, err)
			size := nodeSize(c.typ, len(c.trans), last-first+1)
			assert.Equal(t, int64(len(data)-len(payload)), root+int64(size), "payload position")
			if c.typ.canCarryPayload() {
				assert.Equal(t, uint8(9), flags)
				assert.Equal(t, []byte{0xAB, 0x01, 0x02}, payload)
			} else {
				assert.Equal(t, uint8(0), flags, "NOPAYLOAD singles read flags 0")
				assert.Empty(t, payload)
			}
			for i, l := range leaves {
				f, p, err := tr.Payload(l)
				require.NoError(t, err)
				assert.Equal(t, uint8(8), f)
				assert.Equal(t, byte(0xA0+i), p[0])
			}

			w := tr.Walker()
			var rootHit int64 = -1
			if c.typ.canCarryPayload() {
				rootHit = root
			}
			// Exact: hits, extension of a leaf, below, between, above, empty key.
			for i, b := range c.trans {
				n, ok, err := w.Exact([]byte{b})
				require.NoError(t, err)
				assert.True(t, ok)
				assert.Equal(t, leaves[i], n)
				n, ok, err = w.Exact([]byte{b, 0x99, 0x98})
				require.NoError(t, err)
				assert.True(t, ok, "a leaf accepts the rest of the key")
				assert.Equal(t, leaves[i], n)
			}
			for _, miss := range [][]byte{{byte(first - 1)}, {byte(first + 1)}, {byte(last + 1)}} {
				if isTrans(c.trans, miss[0]) {
					continue
				}
				n, ok, err := w.Exact(miss)
				require.NoError(t, err)
				assert.False(t, ok, "% x", miss)
				assert.Equal(t, int64(-1), n)
			}
			n, ok, err := w.Exact(nil)
			require.NoError(t, err)
			assert.Equal(t, c.typ.canCarryPayload(), ok)
			assert.Equal(t, rootHit, n)

			// Ceiling and Floor around every transition.
			for i, b := range c.trans {
				at, gr, err := w.Ceiling([]byte{b})
				require.NoError(t, err)
				assert.Equal(t, leaves[i], at)
				assert.Equal(t, at1(leaves, i+1), gr)
				at, ls, err := w.Floor([]byte{b})
				require.NoError(t, err)
				assert.Equal(t, leaves[i], at)
				assert.Equal(t, at1(leaves, i-1), ls)
				// Just above b (a hole, a gap or past the end).
				if !isTrans(c.trans, b+1) {
					at, gr, err = w.Ceiling([]byte{b + 1})
					require.NoError(t, err)
					assert.Equal(t, int64(-1), at)
					assert.Equal(t, at1(leaves, i+1), gr, "ceiling just above % x", b)
					at, ls, err = w.Floor([]byte{b + 1})
					require.NoError(t, err)
					assert.Equal(t, int64(-1), at)
					assert.Equal(t, leaves[i], ls, "floor just above % x", b)
				}
			}
			// Below everything: the root's own payload is the floor.
			at, gr, err := w.Ceiling([]byte{byte(first - 1)})
			require.NoError(t, err)
			assert.Equal(t, int64(-1), at)
			assert.Equal(t, leaves[0], gr)
			at, ls, err := w.Floor([]byte{byte(first - 1)})
			require.NoError(t, err)
			assert.Equal(t, rootHit, at)
			assert.Equal(t, int64(-1), ls)
			// Empty key: ceiling is the root payload or the first leaf.
			at, gr, err = w.Ceiling(nil)
			require.NoError(t, err)
			assert.Equal(t, rootHit, at)
			assert.Equal(t, leaves[0], gr)

			fst, err := w.First()
			require.NoError(t, err)
			lst, err := w.Last()
			require.NoError(t, err)
			want := append([]int64{}, leaves...)
			if c.typ.canCarryPayload() {
				want = append([]int64{root}, want...)
			}
			assert.Equal(t, want[0], fst)
			assert.Equal(t, leaves[len(leaves)-1], lst)

			assert.Equal(t, want, iterAll(t, tr, nil, nil, true))
			rev := make([]int64, len(want))
			for i := range want {
				rev[i] = want[len(want)-1-i]
			}
			assert.Equal(t, rev, iterAllReverse(t, tr, nil, nil, true))
		})
	}
}

func isTrans(trans []byte, b byte) bool {
	for _, t := range trans {
		if t == b {
			return true
		}
	}
	return false
}

func at1(v []int64, i int) int64 {
	if i < 0 || i >= len(v) {
		return -1
	}
	return v[i]
}

func TestPayloadOnlyNode(t *testing.T) {
	data := []byte{0x0C, 1, 2, 3, 4, 5}
	tr, err := New(Source{File: data}, 0)
	require.NoError(t, err)
	flags, p, err := tr.Payload(0)
	require.NoError(t, err)
	assert.Equal(t, uint8(12), flags)
	assert.Equal(t, []byte{1, 2, 3, 4, 5}, p)
	w := tr.Walker()
	for _, k := range [][]byte{nil, {0}, {0xFF, 1}} {
		n, ok, err := w.Exact(k)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, int64(0), n)
		at, gr, err := w.Ceiling(k)
		require.NoError(t, err)
		assert.Equal(t, int64(0), at)
		assert.Equal(t, int64(-1), gr)
		at, ls, err := w.Floor(k)
		require.NoError(t, err)
		assert.Equal(t, int64(0), at)
		assert.Equal(t, int64(-1), ls)
	}
	var nv nodeView
	require.NoError(t, nv.load(&tr.src, 0))
	assert.Equal(t, 0, nv.n)
	assert.Equal(t, noByte, nv.transitionByte(0))
	assert.Equal(t, -1, nv.search(0))
	assert.Equal(t, int64(7), nv.greaterTransition(-1, 7))
	assert.Equal(t, int64(7), nv.lesserTransition(-2, 7))
}

// TestNeighbourTransitions checks greater/lesserTransition per docs/format.md §4.5 on a
// DENSE node with holes and on a SPARSE node.
func TestNeighbourTransitions(t *testing.T) {
	for _, c := range []typeCase{
		{"sparse", sparse8, []byte{0x10, 0x20, 0x30}, 0},
		{"dense", dense16, []byte{0x10, 0x13, 0x15}, 0},
		{"single", single8, []byte{0x20}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, leaves, root := c.image()
			var nv nodeView
			src := Source{File: data}
			require.NoError(t, nv.load(&src, root))
			for b := -1; b <= 256; b++ {
				si := nv.search(b)
				// Expected: first leaf with byte > b, last leaf with byte < b.
				g, l := int64(-5), int64(-5)
				for i, tb := range c.trans {
					if int(tb) > b && g == -5 {
						g = leaves[i]
					}
					if int(tb) < b {
						l = leaves[i]
					}
				}
				assert.Equal(t, g, nv.greaterTransition(si, -5), "greater of %d", b)
				assert.Equal(t, l, nv.lesserTransition(si, -5), "lesser of %d", b)
			}
		})
	}
}
