package trie

import (
	"encoding/binary"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/bti-go/bti/internal/golden"
)

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
