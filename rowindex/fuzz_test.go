package rowindex_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/rowindex"
)

// fuzzSeed is a small Rows.db: two partitions of int clusterings, one with
// open deletions, and the entry position of each.
func fuzzSeed(t testing.TB) ([]byte, []int64) {
	cols := []bytecomparable.Column{{Type: bytecomparable.Int}}
	var out bytes.Buffer
	w := rowindex.NewWriter(&out, rowindex.Options{Columns: cols})
	var pos []int64
	for p := range 2 {
		for i := range 6 + 5*p {
			v := func(x int) [][]byte { return [][]byte{binary.BigEndian.AppendUint32(nil, uint32(x))} }
			b := rowindex.Block{First: v(i * 10), Last: v(i*10 + 3 + p), Offset: int64(i * 300)}
			if i%3 == p {
				b.OpenDeletion = rowindex.Deletion(int64(i), 7)
			}
			if err := w.Add(b); err != nil {
				t.Fatal(err)
			}
		}
		res, err := w.FinishPartition([]byte{'k', byte(p)}, int64(p), 5000, rowindex.Live)
		if err != nil {
			t.Fatal(err)
		}
		pos = append(pos, res.Value)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), pos
}

// FuzzReader opens arbitrary bytes as a Rows.db at an arbitrary entry
// position and runs every read operation, Walk and Check (whose rebuild
// reads every node) included: none may panic or loop, and whatever opens
// must answer consistently (a floor is found for each probe; iterations
// end).
func FuzzReader(f *testing.F) {
	data, pos := fuzzSeed(f)
	f.Add(data, pos[0], []byte{0x40, 0x80, 0, 0, 0x1e, 0x38})
	f.Add(data, pos[1], []byte{0x40, 0x80, 0, 0, 0x05})
	f.Add(data[:len(data)-3], pos[1], []byte{})
	f.Fuzz(func(t *testing.T, data []byte, entry int64, probe []byte) {
		_ = rowindex.Walk(data, []int64{entry}, func(rowindex.Entry, []rowindex.IndexInfo) error { return nil })
		if rep := rowindex.Check(data, []int64{entry, entry + 1}, rowindex.CheckOptions{PageSize: 64}); rep.OK() && len(data) > 0 {
			t.Fatal("Check passed two entries one byte apart")
		}
		p, err := rowindex.OpenPartition(data, entry, []bytecomparable.Column{{Type: bytecomparable.Int}})
		if err != nil {
			return
		}
		r := p.NewReader()
		_, _ = r.Min()
		_, _, _ = r.SeparatorFloor(probe)
		_, _, _ = r.Floor([][]byte{{1, 2, 3, 4}}, bytecomparable.Clustering)
		for _, key := range [][]byte{probe, nil} {
			n := 0
			for r.Forward(key); r.Next(); n++ {
				if n > len(data) {
					t.Fatal("forward iteration does not end")
				}
			}
			n = 0
			for r.Reverse(key); r.Next(); n++ {
				if n > len(data) {
					t.Fatal("reverse iteration does not end")
				}
			}
		}
	})
}

// TestCorruptEntries flips every byte of a small file in turn: opening,
// walking and reading never panic or loop.
func TestCorruptEntries(t *testing.T) {
	data, pos := fuzzSeed(t)
	undetected := 0
	defer func() { t.Logf("Check missed %d of %d byte changes", undetected, 3*len(data)) }()
	for i := range data {
		for _, x := range []byte{0x01, 0x80, 0xFF} {
			bad := bytes.Clone(data)
			bad[i] ^= x
			_ = rowindex.Walk(bad, pos, func(rowindex.Entry, []rowindex.IndexInfo) error { return nil })
			if rep := rowindex.Check(bad, pos, rowindex.CheckOptions{}); rep.OK() {
				// Only a payload value may change unnoticed: the rebuild
				// reproduces the damaged bytes, so a block's offset or
				// deletion, or a separator byte, differs.
				undetected++
			}
			for _, e := range pos {
				p, err := rowindex.OpenPartition(bad, e, nil)
				if err != nil {
					continue
				}
				r := p.NewReader()
				for r.Forward(nil); r.Next(); {
				}
			}
		}
	}
	// Truncations are caught by the entry decoder.
	for n := range len(data) {
		if err := rowindex.Walk(data[:n], pos, func(rowindex.Entry, []rowindex.IndexInfo) error { return nil }); err == nil {
			t.Fatalf("walk accepted the file cut to %d of %d bytes", n, len(data))
		}
	}
}
