package tableindex_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/faultsink"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/tableindex"
)

// build writes 30,000 ByteOrdered partitions of 1 to 6 int blocks into
// parts and rows, retrying every call that fails.
func build(t *testing.T, parts, rows interface{ Write([]byte) (int, error) }) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	cols := []bytecomparable.Column{{Type: bytecomparable.Int}}
	w := tableindex.NewWriter(parts, rows, tableindex.Options{Partitioner: partitioner.ByteOrdered, Columns: cols})
	v := func(x int) [][]byte { return [][]byte{binary.BigEndian.AppendUint32(nil, uint32(x))} }
	for p := range 30000 {
		key := binary.BigEndian.AppendUint32(nil, uint32(p))
		faultsink.Retry(t, func() error { return w.StartPartition(key, int64(p)*1000, rowindex.Live) })
		n := 1 + r.IntN(6)
		for i := range n {
			faultsink.Retry(t, func() error {
				return w.AddBlock(rowindex.Block{First: v(10 * i), Last: v(10*i + 5), Offset: int64(i) * 100})
			})
		}
		faultsink.Retry(t, func() error { _, err := w.FinishPartition(int64(n) * 100); return err })
	}
	faultsink.Retry(t, func() error { _, err := w.Complete(); return err })
}

// TestFailedWrites: both files on sinks that fail half their writes come
// out equal to a clean build, and no Rows.db entry is written twice when
// the partition index write of FinishPartition is retried.
func TestFailedWrites(t *testing.T) {
	var cleanParts, cleanRows bytes.Buffer
	build(t, &cleanParts, &cleanRows)
	parts := faultsink.New(rand.New(rand.NewPCG(1, 2)), 2)
	rows := faultsink.New(rand.New(rand.NewPCG(3, 4)), 2)
	build(t, parts, rows)
	if parts.Fails == 0 || rows.Fails == 0 {
		t.Fatalf("sinks never failed (%d, %d)", parts.Fails, rows.Fails)
	}
	if !bytes.Equal(parts.Out.Bytes(), cleanParts.Bytes()) || !bytes.Equal(rows.Out.Bytes(), cleanRows.Bytes()) {
		t.Fatal("files differ from a clean build")
	}
}
