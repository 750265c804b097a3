package audit_test

import (
	"bytes"
	"testing"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/rowstsv"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/tableindex"
)

// TestCheckTable: the golden Rows.db files pass against the Partitions.db
// written beside them; with two entries' keys swapped (the tries intact)
// each entry is reported, since the partition index maps its key elsewhere.
func TestCheckTable(t *testing.T) {
	for _, c := range golden.RowsCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			f, err := rowstsv.ReadFile(c.InputPath)
			if err != nil {
				t.Fatal(err)
			}
			var parts, rows bytes.Buffer
			w := tableindex.NewWriter(&parts, &rows, tableindex.Options{Partitioner: partitioner.ByteOrdered, Columns: f.Columns})
			indexed := 0
			for _, p := range f.Partitions {
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
				if res.Value >= 0 {
					indexed++
				}
			}
			if _, err := w.Complete(); err != nil {
				t.Fatal(err)
			}
			ix, err := partitionindex.NewIndex(parts.Bytes(), partitionindex.OpenOptions{Partitioner: partitioner.ByteOrdered})
			if err != nil {
				t.Fatal(err)
			}
			data := c.RowsDB(t) // Cassandra's, not ours (equal, TestGoldenBothIndexes)
			rep, err := audit.CheckTable(ix, data, audit.Options{})
			if err != nil || !rep.OK() || rep.Entries != int64(indexed) {
				t.Fatalf("report %+v, %v; want %d entries, no problem", rep, err, indexed)
			}
			if c.Name != "multi-partition" {
				return
			}
			bad := bytes.Clone(data)
			const entry7000, entry7002 = 31, 217
			bad[entry7000+3], bad[entry7002+3] = bad[entry7002+3], bad[entry7000+3]
			rep, err = audit.CheckTable(ix, bad, audit.Options{})
			if err != nil || rep.ProblemCount != 2 {
				t.Fatalf("swapped keys: %+v, %v", rep, err)
			}
			for i, want := range []int64{entry7000, entry7002} {
				if p := rep.Problems[i]; p.Rule != audit.RulePartitionIndex || p.Entry != want {
					t.Errorf("problem %d: %v, want the partition-index rule at entry %d", i, p, want)
				}
			}
			t.Log(rep.Problems)
		})
	}
}
