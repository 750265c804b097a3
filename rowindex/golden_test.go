package rowindex_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/refrows"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/rowindex"
)

// readInput parses the rows.tsv of c, failing t if it does not parse.
func readInput(t *testing.T, c golden.RowsCase) *rowstsv.File {
	t.Helper()
	f, err := rowstsv.ReadFile(c.InputPath)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// build writes the Rows.db of f on path and returns it with the RESULT
// text, driving the writer the way the golden harness drove Cassandra's.
func build(t testing.TB, f *rowstsv.File, path buildpath.Path) (db []byte, result []byte) {
	t.Helper()
	var out bytes.Buffer
	w := refrows.New(path, &out, rowindex.Options{Columns: f.Columns})
	var lines []rowstsv.ResultLine
	for _, p := range f.Partitions {
		for i, b := range p.Blocks {
			if err := w.Add(&b); err != nil {
				t.Fatalf("partition %x block %d: %v", p.Key, i, err)
			}
		}
		res, err := w.FinishPartition(p.Key, p.DataPosition, p.EndPosition, p.Deletion)
		if err != nil {
			t.Fatalf("partition %x: %v", p.Key, err)
		}
		lines = append(lines, rowstsv.ResultLine{Key: p.Key, Value: res.Value, Root: res.Root, Blocks: res.Blocks})
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var rb bytes.Buffer
	if err := rowstsv.WriteResult(&rb, lines); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), rb.Bytes()
}

// TestGoldenRows rebuilds every golden-rows case on both paths and checks
// Rows.db and RESULT byte for byte against Cassandra's.
func TestGoldenRows(t *testing.T) {
	golden.ForEachRows(t, func(t *testing.T, c golden.RowsCase) {
		f := readInput(t, c)
		for _, path := range buildpath.All {
			t.Run(path.String(), func(t *testing.T) {
				got, result := build(t, f, path)
				if want := c.Result(t); !bytes.Equal(result, want) {
					t.Errorf("RESULT differs:\n got:\n%s\nwant:\n%s", result, want)
				}
				// A mismatch shows both sides as hex around the first
				// difference and keeps ours in testdata/.got.
				golden.Compare(t, c.Name+" Rows.db", c.RowsDB(t), got, nil)
			})
		}
	})
}

// TestGoldenRowsReadBack reads every Cassandra-written Rows.db block by
// block, as the golden harness read it with RowIndexReader: min() is block
// 0, and the floor of each block's first and last clustering is that block
// with its open deletion. It also walks each file's structure and iterates
// forward and backward from every block.
func TestGoldenRowsReadBack(t *testing.T) {
	golden.ForEachRows(t, func(t *testing.T, c golden.RowsCase) {
		f := readInput(t, c)
		data := c.RowsDB(t)
		_, result := build(t, f, buildpath.Scratch) // checked against RESULT by TestGoldenRows
		lines, err := rowstsv.ReadResult(result)
		if err != nil {
			t.Fatal(err)
		}
		var positions []int64
		checked := 0
		for pi, p := range f.Partitions {
			if lines[pi].Value < 0 {
				if len(p.Blocks) > 1 {
					t.Fatalf("partition %x has %d blocks but no row index", p.Key, len(p.Blocks))
				}
				continue
			}
			positions = append(positions, lines[pi].Value)
			part, err := rowindex.OpenPartition(data, lines[pi].Value, f.Columns)
			if err != nil {
				t.Fatal(err)
			}
			if string(part.Entry.Key) != string(p.Key) || part.Entry.DataPosition != p.DataPosition ||
				part.Entry.Blocks != len(p.Blocks) || part.Entry.Deletion != p.Deletion {
				t.Fatalf("entry %+v does not match partition %x", part.Entry, p.Key)
			}
			r := part.NewReader()
			min, err := r.Min()
			if err != nil || min.Offset != p.Blocks[0].Offset {
				t.Fatalf("min: %+v, %v", min, err)
			}
			for bi, b := range p.Blocks {
				for _, cl := range [][][]byte{b.First, b.Last} {
					info, ok, err := r.Floor(cl, bytecomparable.Clustering)
					if err != nil || !ok || info.Offset != b.Offset || info.OpenDeletion != b.OpenDeletion || info.End {
						t.Fatalf("partition %x block %d: floor of %x gave %+v ok=%v err=%v, want offset %d deletion %v",
							p.Key, bi, cl, info, ok, err, b.Offset, b.OpenDeletion)
					}
					checked++
				}
				if len(p.Blocks) > 500 && bi%97 != 0 {
					continue // iterations are quadratic: sample wide partitions
				}
				// Forward from the first clustering: this block, the rest, the end.
				key, _ := bytecomparable.AppendClustering(nil, f.Columns, b.First, bytecomparable.Clustering)
				k := bi
				for r.Forward(key); r.Next(); k++ {
					info := r.Info()
					if k == len(p.Blocks) {
						if !info.End || info.Offset != p.EndPosition {
							t.Fatalf("forward from block %d: end entry %+v, want offset %d", bi, info, p.EndPosition)
						}
						continue
					}
					if k > len(p.Blocks) || info.Offset != p.Blocks[k].Offset || info.OpenDeletion != p.Blocks[k].OpenDeletion {
						t.Fatalf("forward from block %d: entry %d is %+v", bi, k, info)
					}
				}
				if err := r.Err(); err != nil || k != len(p.Blocks)+1 {
					t.Fatalf("forward from block %d: stopped at %d: %v", bi, k, err)
				}
				// Reverse from the last clustering: this block down to 0.
				key, _ = bytecomparable.AppendClustering(nil, f.Columns, b.Last, bytecomparable.Clustering)
				k = bi
				for r.Reverse(key); r.Next(); k-- {
					if info := r.Info(); k < 0 || info.Offset != p.Blocks[k].Offset || info.OpenDeletion != p.Blocks[k].OpenDeletion {
						t.Fatalf("reverse from block %d: entry %d is %+v", bi, k, info)
					}
				}
				if err := r.Err(); err != nil || k != -1 {
					t.Fatalf("reverse from block %d: stopped at %d: %v", bi, k, err)
				}
			}
		}
		walked := 0
		err = rowindex.Walk(data, positions, func(e rowindex.Entry, blocks []rowindex.IndexInfo) error {
			walked++
			if blocks[len(blocks)-1].End != true {
				t.Errorf("entry at %d: last block is not the end", e.Position)
			}
			return nil
		})
		if err != nil || walked != len(positions) {
			t.Fatalf("walk: %v (%d of %d entries)", err, walked, len(positions))
		}
		t.Logf("%d floors checked in %d indexed partitions", checked, len(positions))
	})
}

// TestWalkCatchesCrossPartitionPointer patches the golden multi-partition
// file so that partition 7002's root points at a node of partition 7000's
// trie (a valid node, at 7): the full-file reader follows it, Walk, which
// reads each trie only between its neighbouring entries, reports it.
func TestWalkCatchesCrossPartitionPointer(t *testing.T) {
	c := golden.RowsCaseNamed(t, "multi-partition")
	data := c.RowsDB(t)
	const root7002, entry7000, entry7002 = 201, 31, 217
	if data[root7002] != 0x29 || data[root7002+2] != 0x02 {
		t.Fatalf("unexpected root node % x", data[root7002:root7002+3])
	}
	bad := append([]byte(nil), data...)
	bad[root7002+2] = root7002 - 7 // SINGLE_8's distance: child at 7
	if _, err := rowindex.OpenPartition(bad, entry7002, nil); err != nil {
		t.Fatalf("the full-file view should still open: %v", err)
	}
	err := rowindex.Walk(bad, []int64{entry7000, entry7002}, func(rowindex.Entry, []rowindex.IndexInfo) error { return nil })
	var ce *rowindex.CorruptError
	if !errors.As(err, &ce) || !errors.Is(err, rowindex.ErrCorrupt) || ce.Offset >= entry7002 {
		t.Fatalf("walk: %v, want a CorruptError inside partition 7002's trie", err)
	}
	t.Log(err)
}
