package partitionindex

import (
	"bytes"
	"testing"

	"github.com/blevesearch/vellum"
)

// BenchmarkLookupVellum is the FST baseline for BenchmarkLookup: the same
// keys' full byte-comparable encodings in a vellum FST mapping to their
// positions, probed with the same encoding step the index does. (An FST
// stores whole keys, so it answers exactly, where the trie answers with a
// candidate; the trie does less work by design.)
func BenchmarkLookupVellum(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		if n > 100_000 && testing.Short() {
			continue
		}
		b.Run(benchKeysName(n)+"/op=vellum-get-hit", func(b *testing.B) {
			f := getLookupFixture(b, n)
			var buf bytes.Buffer
			builder, err := vellum.New(&buf, nil)
			if err != nil {
				b.Fatal(err)
			}
			for i, enc := range f.sorted { // sorted encodings, in order
				if err := builder.Insert(enc, uint64(i)); err != nil {
					b.Fatal(err)
				}
			}
			if err := builder.Close(); err != nil {
				b.Fatal(err)
			}
			fst, err := vellum.Load(buf.Bytes())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(buf.Len())/float64(n), "B/key")
			var enc []byte
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				enc = f.members[i].AppendComparable(enc[:0])
				if _, ok, err := fst.Get(enc); !ok || err != nil {
					b.Fatal("member not found", err)
				}
				if i++; i == len(f.members) {
					i = 0
				}
			}
		})
	}
}
