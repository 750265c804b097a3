package trie

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// This file holds the test side's own view of the format: a node encoder
// written from the layouts of docs/format.md §4.2/§4.3, a small builder that
// lays a key set out children-first with optional zero padding, and a model
// (sorted entries) the reader is checked against.

// encodeNode appends the node of type typ at position pos with the given
// transitions, children (absolute positions, one per transition) and
// payload. DENSE holes are derived from the transitions.
func encodeNode(dst []byte, typ nodeType, flags uint8, pos int64, trans []byte, children []int64, payload []byte) []byte {
	dist := func(i int) uint64 { return uint64(pos - children[i]) }
	switch {
	case typ == payloadOnly:
		dst = append(dst, byte(typ)<<4|flags)
	case typ == singleNoPayload4:
		dst = append(dst, byte(typ)<<4|byte(dist(0)), trans[0])
	case typ == singleNoPayload12:
		d := dist(0)
		dst = append(dst, byte(typ)<<4|byte(d>>8), byte(d), trans[0])
	case typ.isSingle():
		dst = append(dst, byte(typ)<<4|flags, trans[0])
		dst = appendBE(dst, dist(0), int(pointerBits[typ])/8)
	case typ.isSparse():
		dst = append(dst, byte(typ)<<4|flags, byte(len(trans)))
		dst = append(dst, trans...)
		if typ == sparse12 {
			vals := make([]uint64, len(trans))
			for i := range trans {
				vals[i] = dist(i)
			}
			dst = pack12(dst, vals)
		} else {
			for i := range trans {
				dst = appendBE(dst, dist(i), int(pointerBits[typ])/8)
			}
		}
	default:
		first, last := int(trans[0]), int(trans[len(trans)-1])
		dst = append(dst, byte(typ)<<4|flags, byte(first), byte(last-first))
		vals := make([]uint64, last-first+1)
		for i, t := range trans {
			vals[int(t)-first] = dist(i)
		}
		if typ == dense12 {
			dst = pack12(dst, vals)
		} else {
			for _, v := range vals {
				dst = appendBE(dst, v, int(pointerBits[typ])/8)
			}
		}
	}
	return append(dst, payload...)
}

func appendBE(dst []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*uint(i))))
	}
	return dst
}

// pack12 packs 12-bit values in pairs into 3 bytes, an odd last value into
// two bytes with a zero low nibble (docs/format.md §4.3).
func pack12(dst []byte, vals []uint64) []byte {
	for i := 0; i+1 < len(vals); i += 2 {
		a, b := vals[i], vals[i+1]
		dst = append(dst, byte(a>>4), byte(a<<4)|byte(b>>8), byte(b))
	}
	if len(vals)%2 == 1 {
		v := vals[len(vals)-1]
		dst = append(dst, byte(v>>4), byte(v<<4))
	}
	return dst
}

// entry is one stored key with its payload.
type entry struct {
	key     []byte
	flags   uint8 // 1..15
	payload []byte
}

// tnode is a node of the builder's in-memory trie.
type tnode struct {
	trans    []byte
	children []int
	entry    int // index into entries, -1 if none
	pos      int64
}

// writeEntries writes entries (sorted, unique) with the package's Writer
// under opts and returns the bytes and the root.
func writeEntries(t testing.TB, entries []entry, opts Options) ([]byte, int64) {
	var out bytes.Buffer
	w := NewWriter(&out, opts)
	for _, e := range entries {
		require.NoError(t, w.Add(e.key, e.flags, e.payload))
	}
	root, err := w.Complete()
	require.NoError(t, err)
	return out.Bytes(), root
}

// buildOpts steers the test builder.
type buildOpts struct {
	rnd       *rand.Rand // nil: no padding and Cassandra's typeFor
	maxPad    int        // largest zero padding before a node
	anyType   bool       // pick any type that can hold the node
	padChance float64
}

// buildTrie lays out entries (sorted, unique) children first, each node
// after its subtree, root last, and returns the bytes and the root.
func buildTrie(t testing.TB, entries []entry, o buildOpts) ([]byte, int64) {
	nodes := []tnode{{entry: -1}}
	for ei, e := range entries {
		n := 0
		for _, b := range e.key {
			cs := nodes[n].trans
			if len(cs) > 0 && cs[len(cs)-1] == b {
				n = nodes[n].children[len(cs)-1]
				continue
			}
			require.True(t, len(cs) == 0 || cs[len(cs)-1] < b, "keys not sorted")
			nodes = append(nodes, tnode{entry: -1})
			c := len(nodes) - 1
			nodes[n].trans = append(nodes[n].trans, b)
			nodes[n].children = append(nodes[n].children, c)
			n = c
		}
		require.Equal(t, -1, nodes[n].entry, "duplicate key")
		nodes[n].entry = ei
	}
	// Post-order with an explicit stack.
	type frame struct{ n, next int }
	var out []byte
	stack := []frame{{0, 0}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		nd := &nodes[f.n]
		if f.next < len(nd.children) {
			c := nd.children[f.next]
			f.next++
			stack = append(stack, frame{c, 0})
			continue
		}
		stack = stack[:len(stack)-1]
		if o.rnd != nil && o.rnd.Float64() < o.padChance {
			out = append(out, make([]byte, o.rnd.Intn(o.maxPad+1))...)
		}
		pos := int64(len(out))
		children := make([]int64, len(nd.children))
		var maxDist int64
		for i, c := range nd.children {
			children[i] = nodes[c].pos
			if d := pos - children[i]; d > maxDist {
				maxDist = d
			}
		}
		var flags uint8
		var payload []byte
		if nd.entry >= 0 {
			flags, payload = entries[nd.entry].flags, entries[nd.entry].payload
		}
		span := 0
		if len(nd.trans) > 0 {
			span = int(nd.trans[len(nd.trans)-1]) - int(nd.trans[0]) + 1
		}
		typ := typeFor(len(nd.children), span, nd.entry >= 0, maxDist)
		if o.anyType && o.rnd != nil && len(nd.children) > 0 {
			typ = randomType(o.rnd, len(nd.children), nd.entry >= 0, maxDist)
		}
		nd.pos = pos
		out = encodeNode(out, typ, flags, pos, nd.trans, children, payload)
	}
	return out, nodes[0].pos
}

// randomType picks any node type able to hold a node with c children, an
// optional payload and farthest child distance d.
func randomType(r *rand.Rand, c int, hasPayload bool, d int64) nodeType {
	var ok []nodeType
	for typ := singleNoPayload4; typ <= longDense; typ++ {
		switch {
		case typ.isSingle() && c != 1:
			continue
		case !typ.canCarryPayload() && hasPayload:
			continue
		case typ.isSparse() && c > 255:
			continue
		}
		if bits := pointerBits[typ]; bits < 64 && uint64(d) >= 1<<bits {
			continue
		}
		ok = append(ok, typ)
	}
	return ok[r.Intn(len(ok))]
}

// model is the sorted entry list a trie was built from.
type model struct {
	keys  [][]byte
	nodes []int64 // payload node of each key, filled by collect
}

// collect lists (path, node) of every payload node by a plain depth-first
// walk over nodeView's primitives, independent of the iterators.
func collect(t testing.TB, tr *Trie) model {
	var m model
	type frame struct {
		pos  int64
		slot int
		n    int
	}
	var nv nodeView
	require.NoError(t, nv.load(&tr.src, tr.root))
	var path []byte
	if nv.flags != 0 {
		m.keys = append(m.keys, nil)
		m.nodes = append(m.nodes, tr.root)
	}
	stack := []frame{{tr.root, -1, nv.n}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		f.slot++
		if f.slot >= f.n {
			stack = stack[:len(stack)-1]
			if len(path) > 0 && len(stack) > 0 {
				path = path[:len(path)-1]
			}
			continue
		}
		require.NoError(t, nv.load(&tr.src, f.pos))
		c := nv.child(f.slot)
		if c == none {
			continue
		}
		require.GreaterOrEqual(t, c, int64(0))
		path = append(path, byte(nv.transitionByte(f.slot)))
		require.NoError(t, nv.load(&tr.src, c))
		if nv.flags != 0 {
			m.keys = append(m.keys, bytes.Clone(path))
			m.nodes = append(m.nodes, c)
		}
		stack = append(stack, frame{c, -1, nv.n})
	}
	require.True(t, sort.SliceIsSorted(m.keys, func(i, j int) bool { return bytes.Compare(m.keys[i], m.keys[j]) < 0 }))
	return m
}

// The model's answers, from docs/format.md §9.3–9.5 restated over the sorted entries.

func (m model) isLeaf(i int) bool {
	return i+1 >= len(m.keys) || !bytes.HasPrefix(m.keys[i+1], m.keys[i])
}

// stop returns the entry index of the node a follow of q stops at, if that
// node carries an entry and (q was consumed there or it is a leaf); else -1.
func (m model) stop(q []byte) int {
	// The follow stops at q[:L], the longest prefix of q that some key
	// starts with; the keys sharing most with q are q's sorted neighbours.
	i := sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], q) >= 0 })
	l := 0
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(m.keys) {
			l = max(l, lcp(m.keys[j], q))
		}
	}
	p := q[:l]
	e := sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], p) >= 0 })
	if e >= len(m.keys) || !bytes.Equal(m.keys[e], p) {
		return -1
	}
	if l == len(q) || m.isLeaf(e) {
		return e
	}
	return -1
}

func lcp(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func (m model) exact(q []byte) int64 {
	if i := m.stop(q); i >= 0 {
		return m.nodes[i]
	}
	return -1
}

func (m model) ceiling(q []byte) (int64, int64) {
	at := m.exact(q)
	i := sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], q) > 0 })
	g := int64(-1)
	if i < len(m.keys) {
		g = m.nodes[i]
	}
	return at, g
}

// floorAt is the largest entry <= q if it is a prefix of q (or q).
func (m model) floorAt(q []byte) int64 {
	i := sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], q) > 0 }) - 1
	if i >= 0 && bytes.HasPrefix(q, m.keys[i]) {
		return m.nodes[i]
	}
	return -1
}

func (m model) floor(q []byte) (int64, int64) {
	l := int64(-1)
	i := sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], q) >= 0 })
	for i--; i >= 0; i-- {
		if bytes.Compare(m.keys[i], q) < 0 && !bytes.HasPrefix(q, m.keys[i]) {
			l = m.nodes[i]
			break
		}
	}
	return m.floorAt(q), l
}

// forward lists what Iterator must return for (start, end, admitPrefix),
// start <= end.
func (m model) forward(start, end []byte, admit bool) []int64 {
	var out []int64
	if admit && start != nil {
		if x := m.floorAt(start); x >= 0 {
			out = append(out, x)
		}
	}
	for i, k := range m.keys {
		if start != nil && bytes.Compare(k, start) <= 0 {
			continue
		}
		if end != nil && bytes.Compare(k, end) > 0 {
			continue
		}
		out = append(out, m.nodes[i])
	}
	return out
}

// reverse lists what ReverseIterator must return: the forward list
// reversed, except for the Java quirk of a missing end bound (admitPrefix only
// applies after the first result, so an admitted prefix of start that would
// come first is dropped).
func (m model) reverse(start, end []byte, admit bool) []int64 {
	f := m.forward(start, end, admit)
	if admit && start != nil && end == nil && len(f) == 1 && f[0] == m.floorAt(start) {
		f = nil
	}
	var out []int64
	for range f {
		out = append(out, 0)
	}
	for i, n := range f {
		out[len(f)-1-i] = n
	}
	return out
}

// nodeIterator is what Iterator and ReverseIterator have in common.
type nodeIterator interface {
	Reset(t *Trie, start, end []byte, admitPrefix bool)
	Next() bool
	Node() int64
	Err() error
}

// iterNodes runs it over tr from start to end and returns the nodes it lists.
func iterNodes(t testing.TB, it nodeIterator, tr *Trie, start, end []byte, admit bool) []int64 {
	var out []int64
	for it.Reset(tr, start, end, admit); it.Next(); {
		out = append(out, it.Node())
	}
	require.NoError(t, it.Err())
	return out
}

func iterAll(t testing.TB, tr *Trie, start, end []byte, admit bool) []int64 {
	return iterNodes(t, new(Iterator), tr, start, end, admit)
}

func iterAllReverse(t testing.TB, tr *Trie, start, end []byte, admit bool) []int64 {
	return iterNodes(t, new(ReverseIterator), tr, start, end, admit)
}

// footer reads Partitions.db's last 24 bytes.
func footer(t testing.TB, data []byte) (firstKeyPos, count, root int64) {
	require.GreaterOrEqual(t, len(data), 24)
	f := data[len(data)-24:]
	return int64(binary.BigEndian.Uint64(f)), int64(binary.BigEndian.Uint64(f[8:])), int64(binary.BigEndian.Uint64(f[16:]))
}

// bop encodes a ByteOrdered decorated key without zero bytes (docs/format.md §2.3):
// 40 k 00 40 k 00 38.
func bop(k string) []byte {
	out := []byte{0x40}
	out = append(out, k...)
	out = append(out, 0x00, 0x40)
	out = append(out, k...)
	return append(out, 0x00, 0x38)
}
