package tableindex_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/tableindex"
)

// TestReset: a Writer Reset after Complete writes both files as a fresh
// Writer does.
func TestReset(t *testing.T) {
	opts := tableindex.Options{Partitioner: partitioner.Murmur3, Columns: []bytecomparable.Column{{Type: bytecomparable.Int}}}
	fill := func(w *tableindex.Writer) {
		t.Helper()
		v := func(x int) [][]byte { return [][]byte{binary.BigEndian.AppendUint32(nil, uint32(x))} }
		var keys []partitioner.Key
		for p := range 200 {
			keys = append(keys, partitioner.Murmur3.Decorate(binary.BigEndian.AppendUint32(nil, uint32(p))))
		}
		sortKeys(keys)
		for p, k := range keys {
			if err := w.StartPartition(k.Raw, int64(p)*1000, rowindex.Live); err != nil {
				t.Fatal(err)
			}
			n := 1 + p%4
			for i := range n {
				if err := w.AddBlock(rowindex.Block{First: v(10 * i), Last: v(10*i + 5), Offset: int64(i) * 100}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.FinishPartition(int64(n) * 100); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Complete(); err != nil {
			t.Fatal(err)
		}
	}
	var parts, rows bytes.Buffer
	w := tableindex.NewWriter(&parts, &rows, opts)
	fill(w)
	var parts2, rows2 bytes.Buffer
	w.Reset(&parts2, &rows2, opts)
	fill(w)
	if !bytes.Equal(parts.Bytes(), parts2.Bytes()) || !bytes.Equal(rows.Bytes(), rows2.Bytes()) {
		t.Fatal("a Writer Reset after Complete writes other bytes than a fresh one")
	}
	if rows.Len() == 0 || parts.Len() == 0 {
		t.Fatal("nothing written")
	}
}

func sortKeys(keys []partitioner.Key) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && partitioner.Compare(keys[j-1], keys[j]) > 0; j-- {
			keys[j-1], keys[j] = keys[j], keys[j-1]
		}
	}
}
