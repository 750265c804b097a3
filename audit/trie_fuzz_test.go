package audit

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/trie"
)

// FuzzTrieTools: arbitrary bytes, root and key; DumpTrie, CountTrie,
// TriePathPages and shapeOf must return without panicking or looping, with
// no error but the trie's corruption error, and when both walks succeed
// they agree on the node count, which the bytes bound.
func FuzzTrieTools(f *testing.F) {
	c, err := hex.DecodeString(workedC)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(c, uint32(0x15), []byte{0x40, 0x61, 0x62}, uint8(0))
	f.Add([]byte{0x00}, uint32(0), []byte{}, uint8(1))
	chain, root := chainTrie(30)
	f.Add(chain, uint32(root), []byte("xxxxxxxx"), uint8(2))
	f.Add(chain, uint32(root)|5<<16, []byte("xxx"), uint8(4))
	// The writer's output over a few hundred keys, several pages deep.
	keys := keyset.Bytes(keyset.Shapes[3].Gen(rand.New(rand.NewPCG(1, 1)), 200))
	w := writeTrie(f, keys, func(i int) []byte { return []byte{byte(i)} })
	f.Add(w.Source().File, uint32(w.Root()), keys[17], uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, root uint32, key []byte, mode uint8) {
		src := trie.Source{File: data}
		if mode&4 != 0 && len(data) > 1 {
			cut := int(root>>16) % len(data)
			src = trie.Source{File: data[:cut], Cutoff: int64(cut), Tail: data[cut:]}
		}
		runTrieTools(t, src, int64(root%(uint32(len(data))+1)), [][]byte{key})
		// The node accessor the walks build on, at an arbitrary offset.
		if tr, err := trie.New(src, int64(root>>8)%int64(len(data)+1)); err == nil {
			var s trie.Shape
			expectTrieCorrupt(t, shapeOf(tr, tr.Root(), &s))
		}
	})
}

// runTrieTools runs the tools' trie walks over possibly corrupt bytes:
// errors must be the trie's corruption error, and two walks that succeed
// must agree.
func runTrieTools(t *testing.T, src trie.Source, root int64, keys [][]byte) {
	t.Helper()
	tr, err := trie.New(src, root)
	if err != nil {
		expectTrieCorrupt(t, err)
		return
	}
	st, serr := CountTrie(tr)
	expectTrieCorrupt(t, serr)
	var dump lineCounter
	derr := DumpTrie(&dump, tr)
	expectTrieCorrupt(t, derr)
	if (serr == nil) != (derr == nil) {
		t.Fatalf("CountTrie %v, DumpTrie %v: the two walks disagree", serr, derr)
	}
	if serr == nil {
		if size := int64(len(src.File) + len(src.Tail)); st.Nodes > size+1 {
			t.Fatalf("CountTrie reached %d nodes in %d bytes", st.Nodes, size)
		}
		if int64(dump.lines) != st.Nodes {
			t.Fatalf("DumpTrie wrote %d lines for %d nodes", dump.lines, st.Nodes)
		}
	}
	var s trie.Shape
	expectTrieCorrupt(t, shapeOf(tr, tr.Root(), &s))
	var path []int64
	for _, k := range keys[:min(len(keys), 8)] {
		path, err = TriePathPages(path[:0], tr, k)
		expectTrieCorrupt(t, err)
		if err == nil && len(path) > len(k)+1 {
			t.Fatalf("TriePathPages listed %d nodes for a %d-byte key", len(path), len(k))
		}
	}
}

func expectTrieCorrupt(t *testing.T, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, trie.ErrCorrupt) {
		t.Fatalf("unexpected error %T %v", err, err)
	}
}
