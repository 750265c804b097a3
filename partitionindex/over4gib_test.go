package partitionindex

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/over4gib"
	"github.com/bti-go/bti/partitioner"
)

// Files past 4 GiB (issue 20, item 3). Every offset in the format is an
// int64 or a pointer whose width the node type chooses, so nothing in the
// layout stops at 2^32; what could is a uint32 or int32 somewhere on the
// way. TestOver4GiB builds such a file from keys generated on the fly and
// reads it back; TestPastUint32Positions runs the same checks on a small
// file whose stored positions all lie past 2^33, so CI covers the payload
// side without writing gigabytes.
//
// The keys and positions are package internal/over4gib's, which the
// audit package's tests of the same files use too (it documents them).

// buildOver4 writes n keys of the pad length to the file at path on the
// given builder path and returns what Complete reported. With heapEvery > 0
// it also samples the live heap (after a collection) every heapEvery keys
// and returns the largest sample over the first tenth of the keys and over
// all of them, both above the heap before the build.
func buildOver4(t *testing.T, path string, n int64, pad int, p buildpath.Path, heapEvery int64) (meta Metadata, firstTenth, all uint64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	sample := func(i int64) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			all = max(all, ms.HeapAlloc-base)
		}
		if i <= n/10 {
			firstTenth = all
		}
	}
	keys := over4gib.NewKeys(pad)
	b := newPathBuilder(f, Options{Partitioner: partitioner.ByteOrdered}, p)
	for i := range n {
		key := partitioner.ByteOrdered.Decorate(keys.Raw(i))
		if err := b.Add(&key, over4gib.Pos(i)); err != nil {
			t.Fatalf("Add key %d: %v", i, err)
		}
		if heapEvery > 0 && i%heapEvery == 0 {
			sample(i)
		}
	}
	meta, err = b.Complete()
	if err != nil {
		t.Fatal(err)
	}
	if heapEvery > 0 {
		sample(n)
	}
	runtime.KeepAlive(b)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return meta, firstTenth, all
}

// checkOver4 opens the file at path and checks it holds exactly the n keys
// buildOver4 writes: footer, sampled Get hits and misses, Ceiling and
// Floor between keys, a forward scan over a stretch and, with full, a scan
// of every entry (the audit package's TestCheckOver4GiB runs its check on
// the same file). It returns how many sampled hits had their leaf at or
// past 2^32.
func checkOver4(t *testing.T, path string, n int64, pad int, meta Metadata, full bool) (leavesPast4G int) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != meta.Size {
		t.Fatalf("file is %d bytes, Complete reported %d", st.Size(), meta.Size)
	}
	ix, err := Open(path, OpenOptions{Partitioner: partitioner.ByteOrdered})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	keys := over4gib.NewKeys(pad)

	// Footer.
	if ix.Count() != n || meta.Keys != n {
		t.Errorf("footer count %d, Complete's %d, want %d", ix.Count(), meta.Keys, n)
	}
	if ix.Root() != meta.Root || ix.FirstKeyPos() != meta.FirstKeyPos {
		t.Errorf("footer root %d first-key offset %d, Complete reported %d and %d", ix.Root(), ix.FirstKeyPos(), meta.Root, meta.FirstKeyPos)
	}
	if !bytes.Equal(ix.FirstKey(), keys.Raw(0)) {
		t.Errorf("footer first key %x, want %x", ix.FirstKey(), keys.Raw(0))
	}
	if !bytes.Equal(ix.LastKey(), keys.Raw(n-1)) {
		t.Errorf("footer last key %x, want %x", ix.LastKey(), keys.Raw(n-1))
	}
	// The jump table stores positions in 32 bits, so WithJumpTable must
	// refuse a file of 4 GiB or more rather than truncate its entries.
	if meta.Size >= 1<<32 && ix.Trie().JumpTable() {
		t.Errorf("a %d-byte index got a jump table, whose entries are 32-bit", meta.Size)
	}

	rd, err := ix.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	keyAt := func(pos int64) ([]byte, error) {
		i, err := over4gib.Index(pos)
		if err != nil || i >= n {
			return nil, errors.Join(err, fmt.Errorf("position %d of key %d, past the %d keys", pos, i, n))
		}
		return bytes.Clone(over4gib.NewKeys(pad).Raw(i)), nil
	}

	// Samples: both ends, then 4,000 keys spread evenly over the index
	// with a random offset each, so they land all over the file.
	rng := rand.New(rand.NewPCG(20, 3))
	samples := []int64{0, 1, 2, n - 3, n - 2, n - 1}
	const spread = 4000
	for s := range int64(spread) {
		samples = append(samples, min(n-1, s*(n/spread)+rng.Int64N(max(n/spread, 1))))
	}
	tw := ix.Trie().Walker()
	for _, i := range samples {
		key := partitioner.ByteOrdered.Decorate(keys.Raw(i))
		pos, ok, err := rd.Get(&key)
		if err != nil || !ok || pos != over4gib.Pos(i) {
			t.Fatalf("Get key %d: %d %v %v, want %d", i, pos, ok, err, over4gib.Pos(i))
		}
		leaf, ok, err := tw.Exact(key.AppendComparable(nil))
		if err != nil || !ok {
			t.Fatalf("trie walk to key %d: %v %v", i, ok, err)
		}
		if leaf >= 1<<32 {
			leavesPast4G++
		}

		// Absent keys: after the pair, and between the two of the pair.
		if i&1 == 1 {
			// key(i) ‖ last byte 2 sorts between key(i) and key(i+1); its
			// stored-prefix path leaves the trie at the last byte.
			gap := partitioner.ByteOrdered.Decorate(keys.RawWithLast(i, 2))
			if pos, ok, err := rd.Get(&gap); err != nil || ok {
				t.Fatalf("Get absent key after %d: %d %v %v, want a miss", i, pos, ok, err)
			}
			wantCeil := i + 1
			if pos, ok, err := rd.Ceiling(&gap, keyAt); err != nil || ok != (wantCeil < n) || (ok && pos != over4gib.Pos(wantCeil)) {
				t.Fatalf("Ceiling of absent key after %d: %d %v %v, want key %d", i, pos, ok, err, wantCeil)
			}
			if pos, ok, err := rd.Floor(&gap, keyAt); err != nil || !ok || pos != over4gib.Pos(i) {
				t.Fatalf("Floor of absent key after %d: %d %v %v, want key %d", i, pos, ok, err, i)
			}
		} else if i+1 < n {
			// key(i) ‖ 0x7F extends key(i), so it sorts between key(i)
			// and key(i+1) but reaches key(i)'s entry: the candidates
			// need keyAt to tell.
			gap := partitioner.ByteOrdered.Decorate(keys.RawWithLast(i, 0, 0x7F))
			if pos, ok, err := rd.Ceiling(&gap, keyAt); err != nil || !ok || pos != over4gib.Pos(i+1) {
				t.Fatalf("Ceiling of absent key inside pair %d: %d %v %v, want key %d", i, pos, ok, err, i+1)
			}
			if pos, ok, err := rd.Floor(&gap, keyAt); err != nil || !ok || pos != over4gib.Pos(i) {
				t.Fatalf("Floor of absent key inside pair %d: %d %v %v, want key %d", i, pos, ok, err, i)
			}
		}
	}
	// Absent keys beyond the last, and with a pad that differs.
	// A key whose first byte no key has: every real counter is below
	// 2^56, so its first byte is 0.
	past := partitioner.ByteOrdered.Decorate(append(bytes.Repeat([]byte{0xFE}, 8), keys.Raw(0)[8:]...))
	if pos, ok, err := rd.Get(&past); err != nil || ok {
		t.Errorf("Get of a key past the last: %d %v %v, want a miss", pos, ok, err)
	}
	if pos, ok, err := rd.Floor(&past, keyAt); err != nil || !ok || pos != over4gib.Pos(n-1) {
		t.Errorf("Floor of a key past the last: %d %v %v, want key %d", pos, ok, err, n-1)
	}
	if pos, ok, err := rd.Ceiling(&past, keyAt); err != nil || ok {
		t.Errorf("Ceiling of a key past the last: %d %v %v, want none", pos, ok, err)
	}
	if pad > 0 {
		odd := append(keys.Raw(n / 2)[:8:8], bytes.Repeat([]byte{'~'}, pad+1)...)
		key := partitioner.ByteOrdered.Decorate(odd)
		if pos, ok, err := rd.Get(&key); err != nil || ok {
			t.Errorf("Get of a key with another pad: %d %v %v, want a miss", pos, ok, err)
		}
	}

	// A forward scan from a start in the last part of the file, over a
	// stretch that crosses pages.
	from := n - min(n, 200_000) + rng.Int64N(min(n, 1000))
	startKey := partitioner.ByteOrdered.Decorate(keys.Raw(from))
	it := rd.Scan(&startKey, nil)
	want := from
	for ; want < min(n, from+100_000) && it.Next(); want++ {
		if it.Pos() != over4gib.Pos(want) {
			t.Fatalf("scan from key %d: entry %d has position %d, want %d", from, want-from, it.Pos(), over4gib.Pos(want))
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if want != min(n, from+100_000) {
		t.Fatalf("scan from key %d ended after %d entries", from, want-from)
	}

	if full {
		start := time.Now()
		it := rd.Scan(nil, nil)
		var i int64
		for ; it.Next(); i++ {
			if it.Pos() != over4gib.Pos(i) {
				t.Fatalf("full scan: entry %d has position %d, want %d", i, it.Pos(), over4gib.Pos(i))
			}
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		if i != n {
			t.Fatalf("full scan: %d entries, want %d", i, n)
		}
		t.Logf("full scan: %d entries in %v", i, time.Since(start).Round(time.Millisecond))
	}
	return leavesPast4G
}

// sameFiles compares two files in chunks, so neither is read whole.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	fa, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); ; {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			k := 0
			for k < min(na, nb) && ba[k] == bb[k] {
				k++
			}
			t.Fatalf("%s and %s differ at offset %d", a, b, off+int64(k))
		}
		off += int64(na)
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			if eb != ea {
				t.Fatalf("%s and %s: ends differ (%v, %v)", a, b, ea, eb)
			}
			return
		}
		if ea != nil || eb != nil {
			t.Fatal(errors.Join(ea, eb))
		}
	}
}

// TestPastUint32Positions runs TestOver4GiB's checks on a small file whose
// positions all lie past 2^33 (their payloads take 5 bytes), on both
// builder paths, which must write the same bytes (the audit package's
// TestCheckPastUint32Positions checks such files pass its check).
func TestPastUint32Positions(t *testing.T) {
	const n, pad = 20_000, 24
	dir := t.TempDir()
	var files [2]string
	for k, p := range buildpath.All {
		files[k] = filepath.Join(dir, p.String()+".db")
		meta, _, _ := buildOver4(t, files[k], n, pad, p, 0)
		checkOver4(t, files[k], n, pad, meta, true)
	}
	sameFiles(t, files[0], files[1])
}

// TestOver4GiB builds an index past 4 GiB on the scratch path, checks it
// (footer, samples, a full scan; the audit package's TestCheckOver4GiB
// builds the same file and runs its structural check, which this package's
// tests cannot import) and rebuilds it on the reference path, which must
// write the same bytes. The default 130M keys of 33 bytes
// take 35.74 bytes each (the same on a 1M-key build), 4,646,141,634 bytes
// in all. At 3d73acb, on two cores shared with other jobs
// (BTI_LONG=1 /usr/bin/time -v ./partitionindex.test -test.run
// '^TestOver4GiB$' -test.v): 23m20s wall; scratch build 7m51s, Check
// 7m43s (1,755,509,814 nodes), full scan 1m25s, reference build 6m12s,
// compare 4s; the builders' live heap at most 2.1 MiB. It needs twice the
// file size on disk; BTI_LONG_KEYS and BTI_LONG_PAD change the size,
// BTI_LONG_DIR where it writes.
func TestOver4GiB(t *testing.T) {
	if !longTestsRequested() {
		t.Skip("writes two index files of 4.6 GB (9.3 GB of disk) and checks them, about 25 minutes; run with BTI_LONG=1 (BTI_LONG_DIR sets the directory, default /work/tmp)")
	}
	n, pad, custom := over4gib.Size(t)
	dir := over4gib.TempDir(t, "bti-over4gib-")

	scratch := filepath.Join(dir, "scratch-Partitions.db")
	start := time.Now()
	meta, heap10, heapAll := buildOver4(t, scratch, n, pad, buildpath.Scratch, max(n/100, 1))
	t.Logf("scratch build: %d keys, %d bytes (%.2f B/key), %d pages, in %v; live heap above the start: %.2f MiB over the first tenth, %.2f MiB over all",
		n, meta.Size, float64(meta.Size)/float64(n), meta.Pages, time.Since(start).Round(time.Second), float64(heap10)/(1<<20), float64(heapAll)/(1<<20))
	if meta.Size <= 1<<32 && !custom {
		t.Fatalf("the index is %d bytes, not past 4 GiB: the keys no longer take the bytes this test counts on", meta.Size)
	}
	if heapAll > 2*heap10+(1<<20) {
		t.Errorf("the builder's live heap grew with the keys: %.2f MiB over the first tenth, %.2f MiB over all", float64(heap10)/(1<<20), float64(heapAll)/(1<<20))
	}
	start = time.Now()
	past := checkOver4(t, scratch, n, pad, meta, true)
	t.Logf("scratch file checked in %v; %d sampled leaves lie at or past 2^32", time.Since(start).Round(time.Second), past)
	if meta.Size > 1<<32+1<<28 && past == 0 {
		// The samples spread evenly over the keys, and the keys' leaves
		// over the file in key order, so past 4 GiB + 256 MiB some must
		// land beyond 2^32.
		t.Errorf("no sampled leaf at or past 2^32 in a %d-byte file", meta.Size)
	}

	reference := filepath.Join(dir, "reference-Partitions.db")
	start = time.Now()
	refMeta, heap10, heapAll := buildOver4(t, reference, n, pad, buildpath.Reference, max(n/100, 1))
	t.Logf("reference build: %d bytes in %v; live heap above the start: %.2f MiB over the first tenth, %.2f MiB over all",
		refMeta.Size, time.Since(start).Round(time.Second), float64(heap10)/(1<<20), float64(heapAll)/(1<<20))
	if refMeta != meta {
		t.Errorf("reference path's metadata %+v, scratch path's %+v", refMeta, meta)
	}
	start = time.Now()
	sameFiles(t, scratch, reference)
	t.Logf("files byte-identical (compared in %v)", time.Since(start).Round(time.Second))
	// Same bytes, so the full scan would say the same again;
	// the samples check the reference file through its own mapping.
	checkOver4(t, reference, n, pad, refMeta, false)
}
