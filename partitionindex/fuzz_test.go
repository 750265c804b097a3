package partitionindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"testing"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/fuzzinput"
	"github.com/bti-go/bti/internal/goldenindex"
	"github.com/bti-go/bti/internal/partitionfile"
	"github.com/bti-go/bti/partitioner"
)

// FuzzIndexReader opens arbitrary bytes as an index and, if they open, runs
// every kind of lookup on keys taken from the input and on the footer's
// keys. Nothing may panic, every error must be a *CorruptError, and no
// iteration may yield more entries than the input has bytes.
func FuzzIndexReader(f *testing.F) {
	// While fuzzing, big seeds only slow the engine down (every execution
	// walks every entry and dumps the file, and minimizing a 1 MB input
	// takes minutes): seed the files up to 16 KiB then (with 64 KiB, a
	// 60-second run spent nearly all its time minimizing: about 10,000
	// executions in 150 s), and up to 64 KiB under -short and -race. As a
	// plain test, every file is a seed.
	fuzzing := flag.Lookup("test.fuzz") != nil && flag.Lookup("test.fuzz").Value.String() != ""
	for _, file := range goldenindex.Files(f) {
		if fuzzing && len(file) > 16<<10 || (testing.Short() || raceEnabled) && len(file) > 64<<10 {
			continue
		}
		f.Add(file)
		for _, n := range []int{0, 1, footerLength - 1, footerLength, len(file) / 2, len(file) - footerLength, len(file) - 1} {
			if n >= 0 && n < len(file) {
				f.Add(file[:n])
			}
		}
		for _, at := range []int{0, len(file) / 3, len(file) - footerLength - 5, len(file) - 9, len(file) - 1} {
			if at >= 0 && at < len(file) {
				for _, bit := range []byte{0x01, 0x10, 0x80} {
					flipped := bytes.Clone(file)
					flipped[at] ^= bit
					f.Add(flipped)
				}
			}
		}
	}
	// Small files of our own, where the mutator is fast: a few keys of
	// each partitioner, with default and tiny pages.
	r := seededRand(77)
	for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
		for _, n := range []int{0, 1, 3, 12, 40} {
			for _, pageSize := range []int{0, 64} {
				var raws [][]byte
				for range n {
					raws = append(raws, randomBytesN(r, r.IntN(6), []byte{0, 1, 'a', 'b', 0xff}))
				}
				s := newOrderedInput("seed", p, pageSize, r, raws)
				var buf bytes.Buffer
				b := NewBuilder(&buf, s.opts())
				for i := range s.keys {
					if err := addRaw(b, s.keys[i], s.pos[i]); err != nil {
						f.Fatal(err)
					}
				}
				if _, err := b.Complete(); err != nil {
					f.Fatal(err)
				}
				f.Add(buf.Bytes())
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		keys := fuzzinput.Probes(data)
		for _, p := range []partitioner.Partitioner{partitioner.Murmur3, partitioner.ByteOrdered} {
			if _, err := NewIndex(data, OpenOptions{Partitioner: p}); err != nil && !isCorrupt(err) && !isMismatch(err) {
				t.Fatalf("NewIndex: %T %v is neither a *CorruptError nor a *PartitionerMismatchError", err, err)
			}
			// Lookups must survive any bytes, so they run on the unchecked
			// index even where the footer's keys do not resolve.
			ix, err := NewIndex(data, OpenOptions{Partitioner: p, SkipPartitionerCheck: true})
			if err != nil {
				if !isCorrupt(err) {
					t.Fatalf("NewIndex (unchecked): %T %v is not a *CorruptError", err, err)
				}
				continue
			}
			exerciseIndex(t, ix, append([][]byte{ix.FirstKey(), ix.LastKey(), nil}, keys...), len(data)+1)
		}
	})
}

// exerciseIndex runs every lookup of exerciseReader for probes on ix and
// closes ix. Errors must be corruption. The walks over every reachable node
// (dumps, node counts) live in package audit, whose fuzz targets run them
// and its checks on the same bytes.
func exerciseIndex(t *testing.T, ix *Index, probes [][]byte, limit int) {
	t.Helper()
	rd, err := ix.OpenReader()
	if err != nil {
		t.Fatal(err)
	}
	if err := exerciseReader(rd, ix.Partitioner(), probes, limit); err != nil {
		t.Fatal(err)
	}
	if err := rd.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
}

func isCorrupt(err error) bool {
	ce, ok := err.(*CorruptError)
	return ok && ce != nil
}

func isMismatch(err error) bool {
	me, ok := err.(*PartitionerMismatchError)
	return ok && me != nil && errors.Is(err, ErrPartitionerMismatch)
}

// FuzzBuildRoundTrip builds the keys found in the input (sorted and
// deduplicated by the partitioner's order) on both paths and with a Reset
// builder: the three files must be identical and every key must resolve to
// its position (the audit package's FuzzCheckRoundTrip checks such files
// pass its check).
func FuzzBuildRoundTrip(f *testing.F) {
	fuzzinput.AddBuildSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, byteOrdered bool, pageSel uint8) {
		p, pageSize, keys := fuzzinput.Build(data, byteOrdered, pageSel)
		pos := make([]int64, len(keys))
		for i := range pos {
			pos[i] = fuzzinput.Position(i)
		}
		var files [3]bytes.Buffer
		var roots [3]int64
		opts := Options{Partitioner: p, PageSize: pageSize}
		scratch := NewBuilder(&files[0], opts)
		for run, b := range []indexBuilder{scratch, newPathBuilder(&files[1], opts, buildpath.Reference), scratch} {
			if run == 2 {
				scratch.Reset(&files[run], opts)
			}
			for i, k := range keys {
				if err := b.Add(&k, pos[i]); err != nil {
					t.Fatalf("run %d key %d: %v", run, i, err)
				}
			}
			m, err := b.Complete()
			if err != nil {
				t.Fatal(err)
			}
			roots[run] = m.Root
		}
		for run := 1; run < 3; run++ {
			if !bytes.Equal(files[0].Bytes(), files[run].Bytes()) || roots[0] != roots[run] {
				t.Fatalf("run %d wrote a different file (first difference at %d)", run, firstDiff(files[0].Bytes(), files[run].Bytes()))
			}
		}
		file := files[0].Bytes()
		ix, err := NewIndex(file, OpenOptions{Partitioner: p})
		if err != nil {
			t.Fatal(err)
		}
		if ix.Count() != int64(len(keys)) || ix.Root() != roots[0] {
			t.Fatalf("count %d root %d, want %d %d", ix.Count(), ix.Root(), len(keys), roots[0])
		}
		if len(keys) > 0 && (!bytes.Equal(ix.FirstKey(), keys[0].Raw) || !bytes.Equal(ix.LastKey(), keys[len(keys)-1].Raw)) {
			t.Fatalf("footer keys %x %x", ix.FirstKey(), ix.LastKey())
		}
		rd, err := ix.OpenReader()
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		for i, k := range keys {
			got, ok, err := rd.Get(&k)
			if err != nil || !ok || got != pos[i] {
				t.Fatalf("key %d %x: %d %v %v, want %d", i, k.Raw, got, ok, err, pos[i])
			}
		}
		n := 0
		for it := rd.Scan(nil, nil); it.Next(); n++ {
			if n >= len(keys) || it.Pos() != pos[n] {
				t.Fatalf("scan entry %d: %d", n, it.Pos())
			}
		}
		if n != len(keys) {
			t.Fatalf("scan listed %d of %d", n, len(keys))
		}
	})
}

// FuzzPartialIndex builds early-open views from arbitrary fields over
// arbitrary bytes (the last 32 bytes of the input choose the file's length,
// root, cutoff and count; the rest is file and tail): PartialIndex.NewIndex refuses
// impossible views with a *CorruptError and never panics, and a view that
// opens answers every lookup without panicking.
func FuzzPartialIndex(f *testing.F) {
	// Real views: a few keys, a view after each of them.
	r := seededRand(5)
	var raws [][]byte
	for range 40 {
		raws = append(raws, randomBytesN(r, 1+r.IntN(5), []byte{0, 1, 'a', 0xff}))
	}
	s := newOrderedInput("partial-seed", partitioner.ByteOrdered, 64, r, raws)
	var buf bytes.Buffer
	b := NewBuilder(&buf, s.opts())
	for i := range s.keys {
		if err := addRaw(b, s.keys[i], s.pos[i]); err != nil {
			f.Fatal(err)
		}
		if i%7 != 3 {
			continue
		}
		var view *PartialIndex
		ok, err := b.BuildPartial(0, 0, func(p *PartialIndex) { view = p })
		if err != nil {
			f.Fatal(err)
		}
		if !ok {
			continue
		}
		if err := b.Flush(); err != nil {
			f.Fatal(err)
		}
		b.MarkDataSynced(0)
		b.MarkRowIndexSynced(0)
		b.MarkPartitionIndexSynced(b.Position())
		if view == nil {
			f.Fatal("view not handed out")
		}
		in, keys := fuzzinput.ViewSeed(buf.Bytes(), (*partitionfile.View)(view))
		f.Add(in, false, uint8(0), keys)
	}
	f.Add(make([]byte, 32), true, uint8(0), []byte(nil))
	f.Add(binary.BigEndian.AppendUint64(make([]byte, 24), 1<<63), false, uint8(0), []byte(nil))
	f.Add(binary.BigEndian.AppendUint64(make([]byte, 16), 1<<63|5), false, uint8(0), []byte(nil))
	f.Add(make([]byte, 32), false, uint8(4), []byte("\x01a\x01b")) // no such partitioner
	f.Fuzz(func(t *testing.T, data []byte, noTail bool, part uint8, keys []byte) {
		// part 0 is ByteOrdered (the seeds'), 1..3 are Murmur3,
		// ByteOrdered and Random, and anything above is no partitioner.
		file, fv, ok := fuzzinput.View(data, noTail, part, keys)
		if !ok {
			return
		}
		v, p := (*PartialIndex)(&fv), fv.Partitioner
		ix, err := v.NewIndex(file)
		if err != nil {
			// A view that is impossible on several counts may be
			// refused for any of them.
			if p.ClassName() == "" && errors.Is(err, ErrPartitioner) {
				return
			}
			if !isCorrupt(err) && !isMismatch(err) {
				t.Fatalf("NewIndex: %T %v is neither a *CorruptError nor a *PartitionerMismatchError", err, err)
			}
			return
		}
		if p.ClassName() == "" {
			t.Fatalf("NewIndex accepted partitioner %d", part)
		}
		exerciseIndex(t, ix, [][]byte{nil, {0}, {'a'}, {0xff, 0xff}, v.FirstKey, v.LastKey}, len(data)+1)
	})
}
