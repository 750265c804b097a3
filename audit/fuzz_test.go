package audit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/bti-go/bti/internal/fuzzinput"
	"github.com/bti-go/bti/internal/goldenindex"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
)

// The audit paths on arbitrary bytes. partitionindex's fuzz targets run
// the engine's (open, every lookup, the trie's dump) on the same inputs;
// these run what tools call on an index: detection, the annotated dump,
// payload views, node counts, the footer rule and verification. Errors
// must be corruption, and nothing may panic.

func isCorrupt(err error) bool {
	ce, ok := err.(*partitionindex.CorruptError)
	return ok && ce != nil
}

func isDetectError(err error) bool {
	de, ok := err.(*DetectError)
	return ok && de != nil && (errors.Is(err, ErrNoPartitioner) || errors.Is(err, ErrAmbiguousPartitioner))
}

// exerciseIndex runs the audit functions that read an open index's bytes
// (what bti dump, verify and check call): Payload at the root, at offsets
// taken from the input and outside the file, CountNodes,
// FooterPartitioners, VerifyEntries with the input's keys and
// CheckPartitions. Errors must be corruption (a *VerifyError wraps one);
// the check must finish within its default budget.
func exerciseIndex(t *testing.T, ix *partitionindex.Index, data []byte, raws [][]byte) {
	t.Helper()
	offsets := []int64{ix.Root(), ix.FirstKeyPos(), -1, int64(len(data)), 1 << 62}
	for i := 0; i+8 <= len(data) && len(offsets) < 12; i += 1 + len(data)/6 {
		offsets = append(offsets, int64(binary.BigEndian.Uint64(data[i:]))%int64(len(data)+2))
	}
	for _, off := range offsets {
		if _, _, err := Payload(ix, off); err != nil && !isCorrupt(err) {
			t.Fatalf("Payload(%d): %T %v is not a *CorruptError", off, err, err)
		}
	}
	if _, err := CountNodes(ix); err != nil && !isCorrupt(err) {
		t.Fatalf("CountNodes: %T %v is not a *CorruptError", err, err)
	}
	if _, err := FooterPartitioners(ix); err != nil && !isCorrupt(err) {
		t.Fatalf("FooterPartitioners: %T %v is not a *CorruptError", err, err)
	}
	keys := keyset.Decorate(ix.Partitioner(), raws)
	pos := make([]int64, len(keys))
	for i := range pos {
		pos[i] = int64(i)
	}
	err := VerifyEntries(ix, keys, pos, func(Mismatch) bool { return true })
	var ve *VerifyError
	if err != nil && !(errors.As(err, &ve) && errors.Is(err, partitionindex.ErrCorrupt)) && !isCorrupt(err) {
		t.Fatalf("VerifyEntries: %T %v is neither a *VerifyError over corruption nor a *CorruptError", err, err)
	}
	if _, err := CheckPartitions(ix, Options{PageSize: 64, MaxProblems: 3}); err != nil {
		t.Fatalf("CheckPartitions gave up on %d bytes: %v", len(data), err)
	}
}

// FuzzAuditIndex: arbitrary bytes as a complete file. Seeded with
// partitionindex's reader corpus and the small golden files.
func FuzzAuditIndex(f *testing.F) {
	for _, d := range readFuzzCorpus(f, "FuzzIndexReader") {
		f.Add(d)
	}
	for _, file := range goldenindex.Files(f) {
		if len(file) <= 64<<10 {
			f.Add(file)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		keys := fuzzinput.Probes(data)
		if _, err := DetectPartitioner(data); err != nil && !isCorrupt(err) && !isDetectError(err) {
			t.Fatalf("DetectPartitioner: %T %v", err, err)
		}
		// The dump reads every reachable node and payload.
		if err := WriteAnnotated(io.Discard, data); err != nil && !isCorrupt(err) {
			t.Fatalf("WriteAnnotated: %T %v is not a *CorruptError", err, err)
		}
		for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
			ix, err := partitionindex.NewIndex(data, partitionindex.OpenOptions{Partitioner: p, SkipPartitionerCheck: true})
			if err != nil {
				continue // partitionindex's FuzzIndexReader checks the error
			}
			exerciseIndex(t, ix, data, append([][]byte{ix.FirstKey(), ix.LastKey(), nil}, keys...))
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzAuditPartialView: the same on early-open views built from arbitrary
// fields over arbitrary bytes, in partitionindex's FuzzPartialIndex input
// format (the last 32 bytes choose the file's length, root, cutoff and
// count; the rest is file and tail; keys are the view's footer keys as
// fuzzKeys reads them). Seeded with real views of a small build.
func FuzzAuditPartialView(f *testing.F) {
	var buf bytes.Buffer
	b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: partitioner.ByteOrdered, PageSize: 64})
	for i, k := range keyset.Decorate(partitioner.ByteOrdered, fuzzinput.Keys([]byte("\x01a\x02ab\x03abc\x01b\x02b\x00\x04bbbb\x02c\xff\x01\x00\x03zzz"))) {
		if err := b.Add(&k, int64(i)); err != nil {
			f.Fatal(err)
		}
		view, err := b.BuildPartialSynced(0, 0)
		if err != nil {
			f.Fatal(err)
		}
		if view == nil {
			continue
		}
		in, keys := fuzzinput.ViewSeed(buf.Bytes(), (*partitionfile.View)(view))
		f.Add(in, false, uint8(0), keys)
	}
	f.Fuzz(func(t *testing.T, data []byte, noTail bool, part uint8, keys []byte) {
		file, fv, ok := fuzzinput.View(data, noTail, part, keys)
		if !ok {
			return
		}
		v := (*partitionindex.PartialIndex)(&fv)
		ix, err := v.NewIndex(file)
		if err != nil {
			return // partitionindex's FuzzPartialIndex checks the error
		}
		exerciseIndex(t, ix, data, [][]byte{nil, {0}, {'a'}, {0xff, 0xff}, v.FirstKey, v.LastKey})
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzCheckRoundTrip: every file the builder writes, of any keys and
// positions (every payload size, both signs) on any page size, passes
// CheckPartitions with nothing to report, under its own partitioner and
// with the partitioner detected; with increasing positions it passes
// PositionsIncreasing as well.
func FuzzCheckRoundTrip(f *testing.F) {
	fuzzinput.AddBuildSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, byteOrdered bool, pageSel uint8) {
		p, pageSize, keys := fuzzinput.Build(data, byteOrdered, pageSel)
		for _, increasing := range []bool{false, true} {
			var buf bytes.Buffer
			b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: p, PageSize: pageSize})
			for i, k := range keys {
				pos := fuzzinput.Position(i)
				if increasing {
					pos = int64(i)
				}
				if err := b.Add(&k, pos); err != nil {
					t.Fatalf("key %d: %v", i, err)
				}
			}
			if _, err := b.Complete(); err != nil {
				t.Fatal(err)
			}
			ix, err := partitionindex.NewIndex(buf.Bytes(), partitionindex.OpenOptions{Partitioner: p})
			if err != nil {
				t.Fatal(err)
			}
			opts := []Options{{PageSize: pageSize}, {PageSize: pageSize, DetectPartitioner: true}}
			if increasing {
				opts = []Options{{PageSize: pageSize, Positions: PositionsIncreasing}}
			}
			for _, o := range opts {
				rep, err := CheckPartitions(ix, o)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.OK() || rep.Entries != int64(len(keys)) {
					t.Fatalf("%+v: %d entries of %d, %d problems in the builder's file, first %v", o, rep.Entries, len(keys), rep.ProblemCount, rep.Problems)
				}
			}
		}
	})
}

// TestCheckExhaustive: every set of up to four keys of length 1..2 over
// the alphabet {00, 80, FF} (partitionindex's exhaustive "short" universe,
// every set), and without -short every set of up to three keys of length
// 1..3, under every partitioner and the tiny page sizes that make nodes
// cross pages, builds a file CheckPartitions finds nothing in.
func TestCheckExhaustive(t *testing.T) {
	alphabet := []byte{0x00, 0x80, 0xFF}
	maxLen, maxKeys := 2, 4
	if !testing.Short() {
		maxLen, maxKeys = 3, 3
	}
	var universe [][]byte
	for n := 1; n <= maxLen; n++ {
		k := make([]byte, n)
		var fill func(i int)
		fill = func(i int) {
			if i == n {
				universe = append(universe, bytes.Clone(k))
				return
			}
			for _, c := range alphabet {
				k[i] = c
				fill(i + 1)
			}
		}
		fill(0)
	}
	var sets [][][]byte
	var pick func(from int, set [][]byte)
	pick = func(from int, set [][]byte) {
		sets = append(sets, set)
		if len(set) == maxKeys {
			return
		}
		for i := from; i < len(universe); i++ {
			pick(i+1, append(set[:len(set):len(set)], universe[i]))
		}
	}
	pick(0, nil)
	checked := 0
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered, partitioner.Random} {
		for _, pageSize := range []int{16, 24, 32, 0} {
			for _, set := range sets {
				keys := keyset.Decorate(p, set)
				var buf bytes.Buffer
				b := partitionindex.NewBuilder(&buf, partitionindex.Options{Partitioner: p, PageSize: pageSize})
				for i, k := range keys {
					if err := b.Add(&k, int64(i)); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := b.Complete(); err != nil {
					t.Fatal(err)
				}
				ix, err := partitionindex.NewIndex(buf.Bytes(), partitionindex.OpenOptions{Partitioner: p})
				if err != nil {
					t.Fatal(err)
				}
				rep, err := CheckPartitions(ix, Options{PageSize: pageSize, Positions: PositionsIncreasing})
				if err != nil {
					t.Fatal(err)
				}
				if !rep.OK() || rep.Entries != int64(len(keys)) {
					t.Fatalf("%v page %d keys %x: %d entries, %d problems: %v (file %x)", p, pageSize, set, rep.Entries, rep.ProblemCount, rep.Problems, buf.Bytes())
				}
				checked++
			}
		}
	}
	t.Logf("%d files of %d key sets checked", checked, len(sets))
}
