package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bti-go/bti/internal/keystsv"
	"github.com/bti-go/bti/jmhstyle"
)

func TestKeysDigestIsTheKeysTSV(t *testing.T) {
	c := NewCatalog()
	s := c.Generated(MurmurUUID(50), SetMurmurUUID)
	if c.Generated(MurmurUUID(50), SetMurmurUUID) != s {
		t.Fatal("the catalog made two sets of the same parameters")
	}
	ks, err := s.Keys()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := MurmurUUID(50).Generate()
	if err != nil {
		t.Fatal(err)
	}
	var tsv []byte
	for _, e := range entries {
		tsv = keystsv.AppendLine(tsv, e.Key, e.Pos)
	}
	sum := sha256.Sum256(tsv)
	if ks.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("digest %s, want the SHA-256 of the keys.tsv bti gen writes, %x", ks.SHA256, sum)
	}
	other, err := c.Generated(PrefixBlob(64), SetByteOrderedBlob).Keys()
	if err != nil {
		t.Fatal(err)
	}
	if other.SHA256 == ks.SHA256 {
		t.Error("two different sets have the same digest")
	}
}

// TestSuiteNames pins the IDs of the default suite: they are how results of
// different revisions and of the two suites are matched, so renaming one
// must be a deliberate change of this test.
func TestSuiteNames(t *testing.T) {
	var bad atomic.Int64
	var ids []string
	seen := map[string]bool{}
	for _, w := range Suite(NewCatalog(), Default, &bad) {
		if seen[w.ID()] {
			t.Errorf("duplicate workload %s", w.ID())
		}
		seen[w.ID()] = true
		ids = append(ids, w.ID())
	}
	for _, want := range []string{
		"build/keys=1000000/set=murmur3-uuid/path=scratch",
		"build/keys=16384/set=byteordered-blob/prefix=0/path=scratch",
		"build/keys=16384/set=byteordered-blob/prefix=64/path=reference",
		"build/keys=16384/set=byteordered-blob/prefix=4096/path=scratch",
		"build-cold/keys=1000000/set=murmur3-uuid/path=scratch",
		"build-cold/keys=16384/set=byteordered-blob/prefix=0/path=scratch",
		"new-builder/keys=1/set=murmur3-uuid/path=scratch",
		"lookup-hit/keys=1000000/set=murmur3-uuid",
		"lookup-miss/keys=1000000/set=murmur3-uuid",
		"lookup-batch/keys=1000000/set=murmur3-uuid",
		"ceiling/keys=1000000/set=murmur3-uuid",
		"binary-search-hit/keys=1000000/set=murmur3-uuid",
	} {
		if !seen[want] {
			t.Errorf("default suite lacks %s; it has:\n%s", want, strings.Join(ids, "\n"))
		}
	}
}

// TestWorkloadsRun runs every kind of workload briefly on small sets and
// checks what they report: lookups find every present key, builds report
// the index size, the cold build its digest and its key count per call.
func TestWorkloadsRun(t *testing.T) {
	c := NewCatalog()
	small := c.Generated(MurmurUUID(2000), SetMurmurUUID)
	var bad atomic.Int64
	ws := append(BuildWorkloads(c, []*Set{small}, []*Set{small}), LookupWorkloads([]*Set{small}, &bad)...)
	cfg := jmhstyle.Config{Warmup: -1, Measurement: 1, IterTime: 2e6}
	for _, w := range ws {
		rs, err := jmhstyle.Run([]jmhstyle.Benchmark{w.Benchmark}, cfg)
		if err != nil {
			t.Fatalf("%s: %v", w.ID(), err)
		}
		r := rs[0]
		info := map[string]string{}
		for _, p := range r.Info {
			info[p.Key] = p.Value
		}
		if info["seed"] != "1" || len(info["keys-sha256"]) != 64 {
			t.Errorf("%s: info %v", w.ID(), info)
		}
		switch w.Name {
		case "build":
			// The size is known once a whole index was completed, that is
			// after 2000 ops (no warmup: one iteration).
			if completed := r.Samples[0].Ops >= 2000; completed != (info["index-bytes"] != "") {
				t.Errorf("%s: %d ops, index size in %v", w.ID(), r.Samples[0].Ops, info)
			}
		case "build-cold":
			if !w.Cold || r.Samples[0].Ops != 2000 {
				t.Errorf("%s: cold %v, %d ops per shot, want 2000 (one per key)", w.ID(), w.Cold, r.Samples[0].Ops)
			}
		}
	}
	if n := bad.Load(); n != 0 {
		t.Errorf("%d lookups of present keys failed", n)
	}
}

// TestCatalogJumpSlots: a catalog's JumpSlots reaches the lookup index its
// sets open (bti bench --jump-slots), and the answers stay the index's.
// 600,000 UUID keys make a trie past the 4 MiB below which Open builds no
// slots.
func TestCatalogJumpSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 600,000-key index; skipped under -short")
	}
	for _, on := range []bool{false, true} {
		c := NewCatalog()
		c.JumpSlots = on
		lk, err := c.Generated(MurmurUUID(600_000), SetMurmurUUID).lookup()
		if err != nil {
			t.Fatal(err)
		}
		if got := lk.ix.Trie().JumpSlots(); got != on {
			t.Fatalf("JumpSlots=%v: the index has slots %v", on, got)
		}
		if got := lk.openOptions().JumpSlots; got != on {
			t.Fatalf("JumpSlots=%v: a file would open with JumpSlots %v", on, got)
		}
		rd, closeReader, err := lk.reader()
		if err != nil {
			t.Fatal(err)
		}
		for i := range lk.hits[:1000] {
			pos, ok, err := rd.Get(&lk.hits[i])
			if err != nil || !ok || pos != lk.hitPos[i] {
				t.Fatalf("JumpSlots=%v: hit %d: Get = %d, %v, %v; want %d", on, i, pos, ok, err, lk.hitPos[i])
			}
		}
		closeReader()
	}
}
