package partitionindex_test

import (
	"bytes"
	"testing"

	"github.com/blevesearch/vellum"

	"github.com/bti-go/bti/internal/workload"
)

// BenchmarkVellumGetHit is the FST baseline for BenchmarkLookupHit: the
// same keys' full byte-comparable encodings in a vellum FST mapping to
// their positions, probed with the same probes in the same order and the
// same encoding step the index does. (An FST stores whole keys, so it
// answers exactly, where the trie answers with a candidate; the trie does
// less work by design.) It exists only here: bti does not link vellum.
func BenchmarkVellumGetHit(b *testing.B) {
	for _, set := range workload.LookupSets(benchCatalog, workload.All) {
		w := workload.Workload{Huge: set.Huge}
		w.Name, w.Params = "vellum-get-hit", set.Params
		b.Run(subName(w, 1), func(b *testing.B) {
			checkName(b, w, 1)
			if set.Huge && testing.Short() {
				b.Skip("a million keys: skipped under -short")
			}
			hits, hitPos, sorted, err := set.LookupProbes()
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			builder, err := vellum.New(&buf, nil)
			if err != nil {
				b.Fatal(err)
			}
			ks, err := set.Keys()
			if err != nil {
				b.Fatal(err)
			}
			for i, enc := range sorted { // sorted encodings, in order
				if err := builder.Insert(enc, uint64(ks.Pos[i])); err != nil {
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
			b.ReportMetric(float64(buf.Len())/float64(len(sorted)), "B/key")
			var enc []byte
			b.ReportAllocs()
			j := 0
			for b.Loop() {
				enc = hits[j].AppendComparable(enc[:0])
				if v, ok, err := fst.Get(enc); !ok || err != nil || int64(v) != hitPos[j] {
					b.Fatal("member not found", err)
				}
				if j++; j == len(hits) {
					j = 0
				}
			}
		})
	}
}
