package trie

import (
	"bytes"
	"fmt"
	"testing"
)

// TestStartPosition: a trie written from file position P lays out its
// pages relative to the file. When P is a whole number of pages the bytes
// are those of a trie written from 0 and every position moves by P; from
// an unaligned P the layout differs, but the trie reads back from P.
// (Rows.db holds one trie per partition, each starting after the last.)
func TestStartPosition(t *testing.T) {
	var keys [][]byte
	for i := range 3000 {
		keys = append(keys, []byte(fmt.Sprintf("row/%05d/%x", i*7, i%13)))
	}
	write := func(start int64) ([]byte, int64) {
		var out bytes.Buffer
		w := NewWriter(&out, Options{PageSize: 256, StartPosition: start})
		for i, k := range keys {
			if err := w.Add(k, 1, []byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if w.Position() != start+int64(out.Len())+int64(len(w.Buffered())) {
			t.Fatalf("Position %d is not start %d plus the bytes written", w.Position(), start)
		}
		root, err := w.Complete()
		if err != nil {
			t.Fatal(err)
		}
		return out.Bytes(), root
	}
	base, baseRoot := write(0)
	aligned, alignedRoot := write(3 * 256)
	if !bytes.Equal(aligned, base) || alignedRoot != baseRoot+3*256 {
		t.Fatalf("page-aligned start: bytes equal %v, root %d, want %d", bytes.Equal(aligned, base), alignedRoot, baseRoot+3*256)
	}
	unaligned, root := write(100)
	if bytes.Equal(unaligned, base) {
		t.Fatal("an unaligned start gave the layout of a start at 0")
	}
	// Read it back as it sits in the file: 100 bytes of something else first.
	file := append(make([]byte, 100), unaligned...)
	tr, err := New(Source{File: file}, root)
	if err != nil {
		t.Fatal(err)
	}
	w := tr.Walker()
	for i, k := range keys {
		n, ok, err := w.Exact(k)
		if err != nil || !ok {
			t.Fatalf("key %q: %v %v", k, ok, err)
		}
		if _, p, _ := tr.Payload(n); p[0] != byte(i) {
			t.Fatalf("key %q: payload %d, want %d", k, p[0], byte(i))
		}
	}
}
