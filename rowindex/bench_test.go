package rowindex_test

import (
	"io"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/rowgen"
	"github.com/bti-go/bti/rowindex"
)

// BenchmarkBuildPartition builds the row index of one partition of
// 10,000 index blocks ((bigint, text) clusterings under a 72-byte shared
// prefix), entry included; one op is one whole partition.
func BenchmarkBuildPartition(b *testing.B) {
	cols, blocks := wideBlocks(10000)
	for _, path := range []rowindex.Path{rowindex.PathScratch, rowindex.PathReference} {
		b.Run("blocks=10000/path="+path.String(), func(b *testing.B) {
			w := rowindex.NewWriter(io.Discard, rowindex.Options{Columns: cols, Path: path})
			b.ReportAllocs()
			size := int64(0)
			for b.Loop() {
				start := w.Position()
				for _, bl := range blocks {
					if err := w.Add(bl); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.FinishPartition([]byte("key"), 0, 1<<40, rowindex.Live); err != nil {
					b.Fatal(err)
				}
				size = w.Position() - start
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(blocks)), "ns/block")
			b.ReportMetric(float64(size)/float64(len(blocks)), "B/block")
		})
	}
}

// BenchmarkLookup finds the block of a clustering in a 10,000-block row
// index: by its encoding (SeparatorFloor) and by value (encode + floor).
func BenchmarkLookup(b *testing.B) {
	cols, blocks, p := widePartition(b, 10000, "key")
	r := p.NewReader()
	keys := make([][]byte, len(blocks))
	for i, bl := range blocks {
		keys[i], _ = bytecomparable.AppendClustering(nil, cols, bl.Last, bytecomparable.Clustering)
	}
	order := rowgen.LookupOrder(len(blocks))
	b.Run("blocks=10000/by=encoding", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, _, err := r.SeparatorFloor(keys[order[i&4095]]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("blocks=10000/by=value", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, _, err := r.Floor(blocks[order[i&4095]].Last, bytecomparable.Clustering); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
