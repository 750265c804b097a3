//go:build linux

package trie

import (
	"bytes"
	"math"
	"math/rand"
	"testing"

	"golang.org/x/sys/unix"
)

// The jump table keeps node positions in 32 bits (1 + position, 0 for
// none), so it must be exact for positions up to 2^32-2 and absent from a
// file of 2^32 bytes or more. Both are tested on a trie written at a file
// position near or past 2^32 and placed there in an anonymous mapping:
// the kernel gives the untouched gigabytes no memory, so neither case needs
// 4 GiB of RAM or disk.

// trieAt writes entries as a trie starting at file position start and
// returns it read from a mapping of start+len(trie) bytes that holds the
// trie at start.
func trieAt(t *testing.T, entries []entry, start int64) *Trie {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out, Options{StartPosition: start})
	for _, e := range entries {
		if err := w.Add(e.key, e.flags, e.payload); err != nil {
			t.Fatal(err)
		}
	}
	root, err := w.Complete()
	if err != nil {
		t.Fatal(err)
	}
	size := start + int64(out.Len())
	if int64(int(size)) != size {
		// A 32-bit platform: a byte slice cannot reach past 2^31, so no
		// file this large can be read from memory at all.
		t.Skipf("a mapping of %d bytes does not fit an int here", size)
	}
	mem, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_NORESERVE)
	if err != nil {
		t.Skipf("cannot map %d bytes of address space: %v", size, err)
	}
	t.Cleanup(func() {
		if err := unix.Munmap(mem); err != nil {
			t.Error(err)
		}
	})
	copy(mem[start:], out.Bytes())
	tr, err := New(Source{File: mem}, root)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkAllKeys looks every entry up on tr, one by one and in batches
// (ExactBatch starts from the jump table on its own path), and compares
// the payloads and the batch's nodes with Exact's.
func checkAllKeys(t *testing.T, tr *Trie, entries []entry) {
	t.Helper()
	w := tr.Walker()
	probes := make([]Probe, len(entries))
	for i, e := range entries {
		probes[i].Key = e.key
	}
	w.ExactBatch(probes)
	for i, e := range entries {
		node, ok, err := w.Exact(e.key)
		if err != nil || !ok {
			t.Fatalf("Exact(%x): %v %v", e.key, ok, err)
		}
		if f, p := w.Payload(); f != e.flags || !bytes.HasPrefix(p, e.payload) {
			t.Fatalf("Exact(%x): payload %x/%x, want %x/%x", e.key, f, p, e.flags, e.payload)
		}
		if p := &probes[i]; p.Node != node || !p.OK || p.Err != nil {
			t.Fatalf("ExactBatch(%x): node %d %v %v, Exact's %d", e.key, p.Node, p.OK, p.Err, node)
		}
	}
}

// Just below 2^32 every node lies past 2^31, where an int32 would turn
// negative: the table is built and answers as the walks from the root do,
// node positions included.
func TestJumpTableBelow4GiB(t *testing.T) {
	r := rand.New(rand.NewSource(32))
	entries := hashedEntries(r, 5000)
	start := int64(1)<<32 - 1<<20 // page-aligned, 1 MiB below 2^32
	tr := trieAt(t, entries, start)
	if tr.Root() < 1<<31 {
		t.Fatalf("root at %d, want a position past 2^31", tr.Root())
	}
	if int64(len(tr.src.File)) >= math.MaxUint32 {
		t.Fatalf("mapping of %d bytes reaches 2^32-1: the table would be refused", len(tr.src.File))
	}
	tj := tr.WithJumpTable()
	if !tj.JumpTable() {
		t.Fatal("no jump table for a trie ending below 2^32")
	}
	checkAllKeys(t, tj, entries)
	for _, e := range entries {
		sameWalks(t, tj, tr, e.key)
		q := append(bytes.Clone(e.key), 0x80)
		sameWalks(t, tj, tr, q)
	}
}

// A trie in a file of 2^32 bytes or more gets no table (its positions do
// not fit the entries) and reads as it would anywhere else.
func TestJumpTablePast4GiB(t *testing.T) {
	r := rand.New(rand.NewSource(33))
	entries := hashedEntries(r, 5000)
	tr := trieAt(t, entries, 1<<32)
	if tj := tr.WithJumpTable(); tj.JumpTable() || tj != tr {
		t.Fatal("WithJumpTable built a table for a trie past 2^32")
	}
	checkAllKeys(t, tr, entries)
}
