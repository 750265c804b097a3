package tableindex_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/tableindex"
)

// writePartition drives w through one partition as an sstable writer does
// (StartPartition, AddBlock per block, FinishPartition), failing t on any
// error, and returns FinishPartition's result.
func writePartition(t *testing.T, w *tableindex.Writer, p rowstsv.Partition) rowindex.Result {
	t.Helper()
	if err := w.StartPartition(p.Key, p.DataPosition, p.Deletion); err != nil {
		t.Fatal(err)
	}
	for _, b := range p.Blocks {
		if err := w.AddBlock(b); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.FinishPartition(p.EndPosition)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGoldenBothIndexes drives the writer per partition over every golden
// case (ByteOrdered, the order the cases' keys are in): its Rows.db and
// RESULT equal Cassandra's, and the Partitions.db written beside it maps
// every key to its RESULT value. tableindex drives the production writers
// only; the reference writers are compared with Cassandra's files by the
// golden tests of partitionindex and rowindex.
func TestGoldenBothIndexes(t *testing.T) {
	golden.ForEachRows(t, func(t *testing.T, c golden.RowsCase) {
		f, err := rowstsv.ReadFile(c.InputPath)
		if err != nil {
			t.Fatal(err)
		}
		var parts, rows bytes.Buffer
		w := tableindex.NewWriter(&parts, &rows, tableindex.Options{Partitioner: partitioner.ByteOrdered, Columns: f.Columns})
		var lines []rowstsv.ResultLine
		for _, p := range f.Partitions {
			res := writePartition(t, w, p)
			lines = append(lines, rowstsv.ResultLine{Key: p.Key, Value: res.Value, Root: res.Root, Blocks: res.Blocks})
		}
		if _, err := w.Complete(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rows.Bytes(), c.RowsDB(t)) {
			t.Error("Rows.db differs from Cassandra's")
		}
		var result bytes.Buffer
		_ = rowstsv.WriteResult(&result, lines)
		if !bytes.Equal(result.Bytes(), c.Result(t)) {
			t.Errorf("RESULT differs:\n%s", result.Bytes())
		}
		ix, err := partitionindex.NewIndex(parts.Bytes(), partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
		if err != nil {
			t.Fatal(err)
		}
		r, err := ix.OpenReader()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			dk := partitioner.ByteOrdered.Decorate(l.Key)
			pos, ok, err := r.Get(&dk)
			if err != nil || !ok || pos != l.Value {
				t.Errorf("Partitions.db gives %x -> %d ok=%v err=%v, want %d", l.Key, pos, ok, err, l.Value)
			}
		}
		r.Close()
	})
}

// TestSequenceAndOrder checks the calls an sstable writer can get wrong:
// each is refused with a typed error and changes nothing.
func TestSequenceAndOrder(t *testing.T) {
	var parts, rows bytes.Buffer
	w := tableindex.NewWriter(&parts, &rows, tableindex.Options{Partitioner: partitioner.ByteOrdered})
	if err := w.AddBlock(rowindex.Block{}); !errors.Is(err, tableindex.ErrState) {
		t.Errorf("AddBlock before StartPartition: %v", err)
	}
	if _, err := w.FinishPartition(10); !errors.Is(err, tableindex.ErrState) {
		t.Errorf("FinishPartition before StartPartition: %v", err)
	}
	if err := w.StartPartition([]byte("b"), 0, rowindex.Live); err != nil {
		t.Fatal(err)
	}
	if err := w.StartPartition([]byte("c"), 0, rowindex.Live); !errors.Is(err, tableindex.ErrState) {
		t.Errorf("StartPartition inside a partition: %v", err)
	}
	if _, err := w.Complete(); !errors.Is(err, tableindex.ErrState) {
		t.Errorf("Complete inside a partition: %v", err)
	}
	if err := w.AddBlock(rowindex.Block{Offset: 3}); err != nil {
		t.Fatal(err)
	}
	if res, err := w.FinishPartition(10); err != nil || res.Value != ^int64(0) {
		t.Fatalf("one-block partition: %+v, %v", res, err)
	}
	for _, k := range []string{"a", "b"} {
		var ke *tableindex.KeyError
		if err := w.StartPartition([]byte(k), 20, rowindex.Live); !errors.As(err, &ke) || !errors.Is(err, tableindex.ErrKeyOrder) {
			t.Errorf("key %q after \"b\": %v", k, err)
		}
	}
	if err := w.StartPartition([]byte("c"), 20, rowindex.Live); err != nil {
		t.Fatalf("key after refusals: %v", err)
	}
}

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
		slices.SortFunc(keys, partitioner.Compare)
		for p, k := range keys {
			part := rowstsv.Partition{Key: k.Raw, DataPosition: int64(p) * 1000, Deletion: rowindex.Live, EndPosition: int64(1+p%4) * 100}
			for i := range 1 + p%4 {
				part.Blocks = append(part.Blocks, rowindex.Block{First: v(10 * i), Last: v(10*i + 5), Offset: int64(i) * 100})
			}
			writePartition(t, w, part)
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
