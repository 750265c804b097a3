package partitionindex

import (
	"bytes"
	"fmt"
	"sort"
	"testing"

	"github.com/bti-go/bti/internal/keygen"
	"github.com/bti-go/bti/partitioner"
)

// Benchmarks measure per key: one op is one AddEntry, with Complete and the
// writes into an in-memory sink amortised over the set (the builder is Reset
// and the set restarted when it runs out). Keys are decorated before the
// clock starts, as an SSTable writer hands the builder decorated keys.

type benchSet struct {
	name      string
	cfg       keygen.Config
	skipShort bool
}

var buildSets = []benchSet{
	{"murmur3-uuid/keys=10k", keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 10_000, Seed: 1}, false},
	{"murmur3-uuid/keys=100k", keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 100_000, Seed: 1}, false},
	{"murmur3-uuid/keys=1M", keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: 1_000_000, Seed: 1}, true},
	{"byteordered-blob/prefix=0/keys=16k", keygen.Config{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: 16_384, Seed: 2, KeyLenMin: 8, KeyLenMax: 24}, false},
	{"byteordered-blob/prefix=64/keys=16k", keygen.Config{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: 16_384, Seed: 3, PrefixBytes: 64, KeyLenMin: 8, KeyLenMax: 24}, false},
	{"byteordered-blob/prefix=4096/keys=16k", keygen.Config{Partitioner: partitioner.ByteOrdered, Kind: keygen.Blob, Count: 16_384, Seed: 4, PrefixBytes: 4096, KeyLenMin: 8, KeyLenMax: 24}, false},
}

func benchKeys(b *testing.B, cfg keygen.Config) ([]partitioner.Key, []int64) {
	entries, err := cfg.Generate()
	if err != nil {
		b.Fatal(err)
	}
	// Raw keys sit back to back in one array, in order, as in a writer's
	// buffer: scattered small allocations would make the benchmark measure
	// cache misses on the input rather than the builder.
	var total int
	for _, e := range entries {
		total += len(e.Key)
	}
	arena := make([]byte, 0, total)
	keys := make([]partitioner.Key, len(entries))
	positions := make([]int64, len(entries))
	for i, e := range entries {
		start := len(arena)
		arena = append(arena, e.Key...)
		keys[i] = cfg.Partitioner.Decorate(arena[start:len(arena):len(arena)])
		positions[i] = e.Pos
	}
	return keys, positions
}

func BenchmarkBuild(b *testing.B) {
	for _, set := range buildSets {
		for _, path := range []Path{PathScratch, PathReference} {
			b.Run(fmt.Sprintf("%s/path=%v", set.name, path), func(b *testing.B) {
				if set.skipShort && testing.Short() {
					b.Skip("1M keys: skipped under -short")
				}
				keys, positions := benchKeys(b, set.cfg)
				var sink bytes.Buffer
				opts := Options{Partitioner: set.cfg.Partitioner, Path: path}
				bld := NewBuilder(&sink, opts)
				var size int64
				i := 0
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if err := bld.AddEntry(keys[i], positions[i]); err != nil {
						b.Fatal(err)
					}
					if i++; i == len(keys) {
						if _, err := bld.Complete(); err != nil {
							b.Fatal(err)
						}
						size = int64(sink.Len())
						sink.Reset()
						bld.Reset(&sink, opts)
						i = 0
					}
				}
				if size > 0 {
					b.ReportMetric(float64(size)/float64(len(keys)), "B/key")
				}
			})
		}
	}
}

// lookupFixture is a built Murmur3 UUID index with its keys, members and
// non-members, and the sorted encodings for the binary-search baseline.
type lookupFixture struct {
	ix      *Index
	members []partitioner.Key
	absent  []partitioner.Key
	sorted  [][]byte
}

var lookupFixtures = map[int]*lookupFixture{}

func getLookupFixture(b *testing.B, n int) *lookupFixture {
	if f := lookupFixtures[n]; f != nil {
		return f
	}
	cfg := keygen.Config{Partitioner: partitioner.Murmur3, Kind: keygen.UUID, Count: n, Seed: 7}
	keys, positions := benchKeys(b, cfg)
	var buf bytes.Buffer
	bld := NewBuilder(&buf, Options{Partitioner: partitioner.Murmur3})
	for i, k := range keys {
		if err := bld.AddEntry(k, positions[i]); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := bld.Complete(); err != nil {
		b.Fatal(err)
	}
	ix, err := NewIndex(buf.Bytes(), partitioner.Murmur3)
	if err != nil {
		b.Fatal(err)
	}
	absentCfg := cfg
	absentCfg.Seed = 8
	absentEntries, err := absentCfg.Generate()
	if err != nil {
		b.Fatal(err)
	}
	f := &lookupFixture{ix: ix, members: keys}
	for _, e := range absentEntries[:min(len(absentEntries), 100_000)] {
		f.absent = append(f.absent, partitioner.Murmur3.Decorate(e.Key))
	}
	for _, k := range keys {
		f.sorted = append(f.sorted, k.AppendComparable(nil))
	}
	shuffle(f.members)
	lookupFixtures[n] = f
	return f
}

func benchKeysName(n int) string { return fmt.Sprintf("keys=%dk", n/1000) }

// shuffle permutes keys deterministically so lookups do not walk the trie
// in file order.
func shuffle(keys []partitioner.Key) {
	x := uint64(0x9E3779B97F4A7C15)
	for i := len(keys) - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i+1))
		keys[i], keys[j] = keys[j], keys[i]
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		if n > 100_000 && testing.Short() {
			continue
		}
		name := benchKeysName(n)
		b.Run(name+"/op=get-hit", func(b *testing.B) {
			f := getLookupFixture(b, n)
			r, _ := f.ix.OpenReader()
			defer r.Close()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok, err := r.Get(f.members[i]); !ok || err != nil {
					b.Fatal("member not found", err)
				}
				if i++; i == len(f.members) {
					i = 0
				}
			}
		})
		b.Run(name+"/op=get-miss", func(b *testing.B) {
			f := getLookupFixture(b, n)
			r, _ := f.ix.OpenReader()
			defer r.Close()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, _, err := r.Get(f.absent[i]); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(f.absent) {
					i = 0
				}
			}
		})
		b.Run(name+"/op=ceiling", func(b *testing.B) {
			f := getLookupFixture(b, n)
			r, _ := f.ix.OpenReader()
			defer r.Close()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := r.CeilingCandidates(f.absent[i]); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(f.absent) {
					i = 0
				}
			}
		})
		// The baseline: binary search over the sorted encodings of the same
		// keys, encoding the probe as the index does.
		b.Run(name+"/op=binary-search-hit", func(b *testing.B) {
			f := getLookupFixture(b, n)
			var enc []byte
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				enc = f.members[i].AppendComparable(enc[:0])
				j := sort.Search(len(f.sorted), func(j int) bool { return bytes.Compare(f.sorted[j], enc) >= 0 })
				if j == len(f.sorted) || !bytes.Equal(f.sorted[j], enc) {
					b.Fatal("member not found")
				}
				if i++; i == len(f.members) {
					i = 0
				}
			}
		})
		b.Run(name+"/op=get-hit/threads=all", func(b *testing.B) {
			f := getLookupFixture(b, n)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				r, _ := f.ix.OpenReader()
				defer r.Close()
				i := 0
				for pb.Next() {
					if _, ok, err := r.Get(f.members[i]); !ok || err != nil {
						b.Error("member not found", err)
						return
					}
					if i++; i == len(f.members) {
						i = 0
					}
				}
			})
		})
	}
}
