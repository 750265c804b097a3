package trie

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
)

// deepChain is a leaf under n SINGLE_NOPAYLOAD_4 nodes on byte 'x'.
func deepChain(n int) ([]byte, int64) {
	data := []byte{0x08, 0xAA, 0x01}
	prev := int64(0)
	for i := 0; i < n; i++ {
		pos := int64(len(data))
		data = append(data, 0x10|byte(pos-prev), 'x')
		prev = pos
	}
	return data, prev
}

func TestDeepChain(t *testing.T) {
	const depth = 200000
	data, root := deepChain(depth)
	tr := mustNew(t, data, root)
	key := bytes.Repeat([]byte{'x'}, depth)
	w := tr.Walker()
	n, ok, err := w.Exact(key)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, int64(0), n)
	_, ok, err = w.Exact(key[:depth-1])
	require.NoError(t, err)
	assert.False(t, ok, "stopped above the leaf with the key consumed")
	at, gr, err := w.Ceiling(key[:depth-1])
	require.NoError(t, err)
	assert.Equal(t, [2]int64{-1, 0}, [2]int64{at, gr})
	at, ls, err := w.Floor(append(bytes.Clone(key), 'y'))
	require.NoError(t, err)
	assert.Equal(t, [2]int64{0, -1}, [2]int64{at, ls})
	at, ls, err = w.Floor(append(bytes.Clone(key[:10]), 'y'))
	require.NoError(t, err)
	assert.Equal(t, [2]int64{-1, 0}, [2]int64{at, ls})
	first, err := w.First()
	require.NoError(t, err)
	last, err := w.Last()
	require.NoError(t, err)
	assert.Equal(t, [2]int64{0, 0}, [2]int64{first, last})

	assert.Equal(t, []int64{0}, iterAll(t, tr, nil, nil, true))
	assert.Equal(t, []int64{0}, iterAllReverse(t, tr, nil, nil, true))
	assert.Equal(t, []int64{0}, iterAll(t, tr, key[:5], key, false))
	assert.Equal(t, []int64{0}, iterAllReverse(t, tr, key[:5], key, false))
	// The tools' walks over the same chain (node counts, page path, dump)
	// are audit's TestTrieToolsDeepChain.
}

// TestCorruptPointers: self-pointers, forward pointers and shared children
// are reported, not followed (audit's TestTrieToolsCorruptPointers runs the
// tools' walks over the same bytes).
func TestCorruptPointers(t *testing.T) {
	leaf := []byte{0x08, 1, 2}
	cases := map[string]struct {
		data []byte
		root int64
	}{
		"SINGLE_NOPAYLOAD_4 distance 0": {append(bytes.Clone(leaf), 0x10, 'a'), 3},
		"SINGLE_8 distance 0":           {append(bytes.Clone(leaf), 0x20, 'a', 0), 3},
		"SINGLE_8 forward":              {append(bytes.Clone(leaf), 0x20, 'a', 9), 3},
		"SPARSE_8 distance 0":           {append(bytes.Clone(leaf), 0x50, 2, 'a', 'b', 3, 0), 3},
		"LONG_DENSE negative":           {append(bytes.Clone(leaf), 0xF0, 'a', 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFD), 3},
		"truncated SPARSE_16":           {append(bytes.Clone(leaf), 0x70, 2, 'a', 'b', 0, 3, 0), 3},
		"DENSE_12 first slot empty":     {append(bytes.Clone(leaf), 0xA0, 'a', 1, 0x00, 0x00, 0x30), 3},
		"payload-less leaf":             {append([]byte{0x00}, 0x11, 'a'), 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tr, err := New(Source{File: c.data}, c.root)
			require.NoError(t, err)
			w := tr.Walker()
			var errs []error
			_, _, err = w.Exact([]byte("a"))
			errs = append(errs, err)
			_, _, err = w.Ceiling(nil)
			errs = append(errs, err)
			_, _, err = w.Floor([]byte("c"))
			errs = append(errs, err)
			_, err = w.First()
			errs = append(errs, err)
			_, err = w.Last()
			errs = append(errs, err)
			var it Iterator
			for it.Reset(tr, nil, nil, true); it.Next(); {
			}
			errs = append(errs, it.Err())
			var rit ReverseIterator
			for rit.Reset(tr, nil, nil, true); rit.Next(); {
			}
			errs = append(errs, rit.Err())
			seen := 0
			for _, err := range errs {
				if err != nil {
					seen++
					require.ErrorIs(t, err, ErrCorrupt)
					var ce *CorruptError
					require.True(t, errors.As(err, &ce))
					assert.Contains(t, ce.Error(), "corrupt index at offset")
					assert.Contains(t, ce.Reason, "trie")
				}
			}
			assert.GreaterOrEqual(t, seen, 3, "most operations must notice")
		})
	}
}

// TestSharedChildren builds a DAG of 60 levels whose nodes have two
// children that are the same node: 2^60 paths. Iteration must stop after
// about as many nodes as there are bytes (audit's
// TestTrieToolsSharedChildren: so must the tools' walks).
func TestSharedChildren(t *testing.T) {
	data := []byte{0x08, 1, 2}
	prev := int64(0)
	for i := 0; i < 60; i++ {
		pos := int64(len(data))
		d := byte(pos - prev)
		data = append(data, 0x50, 2, 'a', 'b', d, d)
		prev = pos
	}
	tr := mustNew(t, data, prev)
	var it Iterator
	n := 0
	for it.Reset(tr, nil, nil, true); it.Next(); n++ {
	}
	assert.ErrorIs(t, it.Err(), ErrCorrupt)
	assert.LessOrEqual(t, n, len(data))
	var rit ReverseIterator
	n = 0
	for rit.Reset(tr, nil, nil, true); rit.Next(); n++ {
	}
	assert.ErrorIs(t, rit.Err(), ErrCorrupt)
	assert.LessOrEqual(t, n, len(data))
	// Point lookups only follow one path and succeed.
	w := tr.Walker()
	node, ok, err := w.Exact(bytes.Repeat([]byte{'b'}, 60))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, int64(0), node)
}

func TestIteratorReuse(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	entries := randomEntries(r, 200, 4, []byte("abcd"))
	data, root := buildTrie(t, entries, buildOpts{})
	tr := mustNew(t, data, root)
	m := collect(t, tr)
	c, _ := openIndex(t, fileC())
	var it Iterator
	var rit ReverseIterator
	for i := 0; i < 3; i++ {
		var got []int64
		for it.Reset(tr, nil, nil, true); it.Next(); {
			got = append(got, it.Node())
		}
		assert.Equal(t, m.nodes, got)
		got = got[:0]
		for it.Reset(c, nil, nil, true); it.Next(); {
			got = append(got, it.Node())
		}
		assert.Equal(t, []int64{0, 3, 0xC}, got)
		got = got[:0]
		for rit.Reset(c, bop("a"), nil, false); rit.Next(); {
			got = append(got, rit.Node())
		}
		assert.Equal(t, []int64{0xC, 3}, got)
	}
	// Next after the end stays false.
	assert.False(t, it.Next())
	assert.False(t, rit.Next())
}

// FuzzTrieReader: arbitrary bytes, root and key; every reader operation
// (lookups, iterators, and the tools' node accessor Shape) must return
// without panicking, looping or returning non-corruption errors, and
// iterations stay within the byte count. The walks package audit builds on
// Shape (DumpTrie, CountTrie, TriePathPages) have their own FuzzTrieTools.
func FuzzTrieReader(f *testing.F) {
	c := fileC()
	f.Add(c[:0x17], uint32(0x15), bop("ab"), bop("a"), uint8(0))
	d := fileD()
	f.Add(d[:0x1E], uint32(0x1C), []byte{0x40, 0x52}, []byte{0x40, 0x10}, uint8(3))
	f.Add([]byte{0x00}, uint32(0), []byte{}, []byte(nil), uint8(1))
	chain, root := deepChain(30)
	f.Add(chain, uint32(root), []byte("xxxxxxxx"), []byte("xx"), uint8(2))
	// A hashed-key trie, which gets a jump table.
	hashed := hashedEntries(rand.New(rand.NewSource(1)), 600)
	hdata, hroot := buildTrie(f, hashed, buildOpts{})
	f.Add(hdata, uint32(hroot), hashed[17].key, hashed[400].key, uint8(0))
	goldenDir, err := golden.Dir()
	if err != nil {
		f.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(goldenDir, "murmur3-10-int32", "Partitions.db")); err == nil && len(data) >= 24 {
		fkp := binary.BigEndian.Uint64(data[len(data)-24:])
		r := binary.BigEndian.Uint64(data[len(data)-8:])
		if fkp <= uint64(len(data)) {
			f.Add(data[:fkp], uint32(r), []byte{0x40, 0x80}, []byte{0x40}, uint8(1))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, root uint32, key, bound []byte, mode uint8) {
		var src Source
		if mode&4 != 0 && len(data) > 1 {
			cut := int(root>>16) % len(data)
			src = Source{File: data[:cut], Cutoff: int64(cut), Tail: data[cut:]}
		} else {
			src = Source{File: data}
		}
		tr, err := New(src, int64(root%(uint32(len(data))+1)))
		if err != nil {
			expectCorrupt(t, err)
			return
		}
		w := tr.Walker()
		if n, ok, err := w.Exact(key); err != nil {
			expectCorrupt(t, err)
		} else if ok {
			_, _, err := tr.Payload(n)
			expectCorrupt(t, err)
		}
		_, _, err = w.Ceiling(key)
		expectCorrupt(t, err)
		if tj := tr.WithJumpTable(); tj.JumpTable() {
			wj := tj.Walker()
			_, _, err = wj.Exact(key)
			expectCorrupt(t, err)
			_, _, err = wj.Ceiling(key)
			expectCorrupt(t, err)
			probes := []Probe{{Key: key}, {Key: bound, Partial: true}}
			wj.ExactBatch(probes)
			expectCorrupt(t, probes[0].Err)
			expectCorrupt(t, probes[1].Err)
		}
		_, _, err = w.Floor(key)
		expectCorrupt(t, err)
		_, err = w.First()
		expectCorrupt(t, err)
		_, err = w.Last()
		expectCorrupt(t, err)
		start, end := key, bound
		if mode&1 != 0 {
			start = nil
		}
		if mode&2 != 0 {
			end = nil
		}
		limit := len(data) + 1
		var it Iterator
		n := 0
		for it.Reset(tr, start, end, mode&8 != 0); it.Next(); n++ {
			if n > limit {
				t.Fatalf("forward iteration exceeded %d nodes", limit)
			}
		}
		expectCorrupt(t, it.Err())
		var rit ReverseIterator
		n = 0
		for rit.Reset(tr, end, start, mode&8 == 0); rit.Next(); n++ {
			if n > limit {
				t.Fatalf("reverse iteration exceeded %d nodes", limit)
			}
		}
		expectCorrupt(t, rit.Err())
		// The tools' node accessor, at the root and at an arbitrary offset.
		var s Shape
		expectCorrupt(t, tr.Shape(tr.Root(), &s))
		expectCorrupt(t, tr.Shape(int64(root>>8)%int64(len(data)+1), &s))
	})
}

func expectCorrupt(t *testing.T, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unexpected error %v", err)
	}
}
