package tableindex_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/tableindex"
)

// flakySink fails every other write, after taking a random part of it.
type flakySink struct {
	r      *rand.Rand
	out    bytes.Buffer
	writes int
	fails  int
}

var errDisk = errors.New("disk full")

func (s *flakySink) Write(p []byte) (int, error) {
	if s.writes++; s.writes%2 == 1 {
		s.fails++
		n := s.r.IntN(len(p) + 1)
		s.out.Write(p[:n])
		return n, errDisk
	}
	return s.out.Write(p)
}

// build writes 30,000 ByteOrdered partitions of 1 to 6 int blocks into
// parts and rows, retrying every call that fails.
func build(t *testing.T, parts, rows interface{ Write([]byte) (int, error) }) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	cols := []bytecomparable.Column{{Type: bytecomparable.Int}}
	w := tableindex.NewWriter(parts, rows, tableindex.Options{Partitioner: partitioner.ByteOrdered, Columns: cols})
	retry := func(f func() error) {
		for tries := 0; ; tries++ {
			err := f()
			if err == nil {
				return
			}
			if !errors.Is(err, errDisk) || tries > 100 {
				t.Fatal(err)
			}
		}
	}
	v := func(x int) [][]byte { return [][]byte{binary.BigEndian.AppendUint32(nil, uint32(x))} }
	for p := range 30000 {
		key := binary.BigEndian.AppendUint32(nil, uint32(p))
		retry(func() error { return w.StartPartition(key, int64(p)*1000, rowindex.Live) })
		n := 1 + r.IntN(6)
		for i := range n {
			retry(func() error {
				return w.AddBlock(rowindex.Block{First: v(10 * i), Last: v(10*i + 5), Offset: int64(i) * 100})
			})
		}
		retry(func() error { _, err := w.FinishPartition(int64(n) * 100); return err })
	}
	retry(func() error { _, err := w.Complete(); return err })
}

// TestFailedWrites: both files on sinks that fail every other write
// come out equal to a clean build, and no Rows.db entry is written twice
// when the partition index write of FinishPartition is retried.
func TestFailedWrites(t *testing.T) {
	var cleanParts, cleanRows bytes.Buffer
	build(t, &cleanParts, &cleanRows)
	parts := &flakySink{r: rand.New(rand.NewPCG(1, 2))}
	rows := &flakySink{r: rand.New(rand.NewPCG(3, 4))}
	build(t, parts, rows)
	if parts.fails == 0 || rows.fails == 0 {
		t.Fatalf("sinks never failed (%d, %d)", parts.fails, rows.fails)
	}
	if !bytes.Equal(parts.out.Bytes(), cleanParts.Bytes()) || !bytes.Equal(rows.out.Bytes(), cleanRows.Bytes()) {
		t.Fatal("files differ from a clean build")
	}
}
