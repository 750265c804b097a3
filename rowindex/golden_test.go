package rowindex_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/rowindex"
)

// build writes the Rows.db of f on path and returns it with the RESULT
// text, driving the writer the way the golden harness drove Cassandra's.
func build(t testing.TB, f *rowstsv.File, path rowindex.Path) (db []byte, result []byte) {
	t.Helper()
	var out bytes.Buffer
	w := rowindex.NewWriter(&out, rowindex.Options{Columns: f.Columns, Path: path})
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
		t.Run(c.Name, func(t *testing.T) {
			f, err := rowstsv.ReadFile(c.InputPath)
			if err != nil {
				t.Fatal(err)
			}
			want, wantResult := c.RowsDB(t), c.Result(t)
			for _, path := range []rowindex.Path{rowindex.PathScratch, rowindex.PathReference} {
				got, result := build(t, f, path)
				if !bytes.Equal(result, wantResult) {
					t.Errorf("%s path: RESULT differs:\n got:\n%s\nwant:\n%s", path, result, wantResult)
				}
				if i := firstDiff(got, want); i >= 0 {
					gotPath := filepath.Join(t.TempDir(), "Rows.db.got")
					_ = os.WriteFile(gotPath, got, 0o644)
					t.Errorf("%s path: Rows.db differs at offset %d (got %d bytes, want %d); ours is in %s", path, i, len(got), len(want), gotPath)
				}
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
