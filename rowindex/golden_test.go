package rowindex_test

import (
	"bytes"
	"testing"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/refrows"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/rowindex"
)

// build writes the Rows.db of f on path and returns it with the RESULT
// text, driving the writer the way the golden harness drove Cassandra's.
func build(t testing.TB, f *rowstsv.File, path buildpath.Path) (db []byte, result []byte) {
	t.Helper()
	var out bytes.Buffer
	w := refrows.New(path, &out, rowindex.Options{Columns: f.Columns})
	var lines []rowstsv.ResultLine
	for _, p := range f.Partitions {
		for i, b := range p.Blocks {
			if err := w.Add(b); err != nil {
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
	for _, c := range golden.RowsCases(t) {
		for _, path := range buildpath.All {
			t.Run(c.Name+"/"+path.String(), func(t *testing.T) {
				f, err := rowstsv.ReadFile(c.InputPath)
				if err != nil {
					t.Fatal(err)
				}
				got, result := build(t, f, path)
				if want := c.Result(t); !bytes.Equal(result, want) {
					t.Errorf("RESULT differs:\n got:\n%s\nwant:\n%s", result, want)
				}
				// A mismatch shows both sides as hex around the first
				// difference and keeps ours in testdata/.got.
				golden.Compare(t, c.Name+" Rows.db", c.RowsDB(t), got, nil)
			})
		}
	}
}
