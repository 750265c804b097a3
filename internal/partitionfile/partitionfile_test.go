package partitionfile

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"

	"github.com/bti-go/bti/internal/indexfile"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// TestAppendFooter checks the footer against its layout written out byte by
// byte, after a non-empty prefix, with an empty first key.
func TestAppendFooter(t *testing.T) {
	got := AppendFooter([]byte{0xaa}, []byte{}, []byte("kz"), 0x0102, 3, -1)
	want, _ := hex.DecodeString("aa" +
		"0000" + "0002" + "6b7a" + // lengths and keys
		"0000000000000102" + "0000000000000003" + "ffffffffffffffff") // firstKeyPos, count, root
	if !bytes.Equal(got, want) {
		t.Errorf("AppendFooter = %x, want %x", got, want)
	}
}

// TestEarlyOpenWaitsForAllThree: a view fires once, inside the Mark call
// that finds the data file, the row index and the index all synced far
// enough, whatever their order; a second request waits until it has.
func TestEarlyOpenWaitsForAllThree(t *testing.T) {
	var tw trie.Writer
	var out bytes.Buffer
	tw.Reset(&out, trie.Options{PageSize: 64})
	for _, k := range []string{"a", "b", "c"} {
		if err := tw.Add([]byte(k), 1, []byte{0}); err != nil {
			t.Fatal(err)
		}
	}
	var e EarlyOpen
	fired := 0
	ok, err := e.Request(&tw, 0, []byte("a"), []byte("c"), 20, 10, func(v *View) {
		fired++
		if v.Count != 3 || string(v.FirstKey) != "a" || string(v.LastKey) != "c" {
			t.Errorf("view %+v", v)
		}
	})
	if !ok || err != nil {
		t.Fatalf("Request = %v, %v", ok, err)
	}
	if ok, _ := e.Request(&tw, 0, nil, nil, 0, 0, func(*View) { t.Error("a second view while one waits") }); ok {
		t.Error("a second request was accepted while the first waits")
	}
	e.MarkPartitionIndexSynced(tw.Position())
	e.MarkRowIndexSynced(20)
	e.MarkDataSynced(9)
	if fired != 0 {
		t.Fatal("fired before the data file reached its end")
	}
	e.MarkDataSynced(10)
	e.MarkDataSynced(11)
	if fired != 1 {
		t.Fatalf("fired %d times, want once", fired)
	}
	if ok, _ := e.Request(&tw, 0, nil, nil, 0, 0, nil); ok {
		t.Error("a view was taken with no new key in the trie")
	}
}

// TestEntryOKIsCheckEntry ties EntryOK, the inlined test in front of
// CheckEntry, to CheckEntry: true exactly where CheckEntry returns nil,
// at each edge of what it refuses (partitioner, key length, position).
func TestEntryOKIsCheckEntry(t *testing.T) {
	long := make([]byte, partitioner.MaxKeyLength+1)
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		for _, kp := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
			for _, raw := range [][]byte{nil, {}, {1}, long[:partitioner.MaxKeyLength], long} {
				for _, pos := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64 + 1, indexfile.NotFound} {
					key := kp.Decorate(raw)
					ok := EntryOK(p, &key, pos)
					err := CheckEntry(p, 7, &key, pos)
					if ok != (err == nil) {
						t.Errorf("%v index, %v key of %d bytes, position %d: EntryOK %v, CheckEntry %v", p, kp, len(raw), pos, ok, err)
					}
				}
			}
		}
	}
}
