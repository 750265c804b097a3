package partitionindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/golden"
	"github.com/bti-go/bti/internal/keyset"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/trie"
)

// goldenFilesForFuzz returns the golden Partitions.db files, or none when
// the shared folder is absent (the committed corpus still runs).
func goldenFilesForFuzz(f *testing.F) [][]byte {
	root, err := golden.Dir()
	if err != nil {
		f.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "*", "Partitions.db"))
	if len(paths) == 0 {
		f.Logf("golden cases not found at %s; seeding from testdata only", root)
	}
	var files [][]byte
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err == nil {
			files = append(files, data)
		}
	}
	return files
}

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
	for _, file := range goldenFilesForFuzz(f) {
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
		var keys [][]byte
		for i := 0; i < len(data) && len(keys) < 4; i += 1 + len(data)/4 {
			keys = append(keys, data[i:min(len(data), i+1+int(data[i])%24)])
		}
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
			rd, err := ix.OpenReader()
			if err != nil {
				t.Fatal(err)
			}
			all := append([][]byte{ix.FirstKey(), ix.LastKey(), nil}, keys...)
			if err := exerciseReader(rd, p, all, len(data)+1); err != nil {
				t.Fatal(err)
			}
			// The dump reads every reachable node (the audit package's
			// FuzzAuditIndex runs its own dumps and checks on these
			// bytes).
			if err := ix.Trie().Dump(io.Discard); err != nil && !errors.Is(err, trie.ErrCorrupt) {
				t.Fatalf("Trie.Dump: %T %v", err, err)
			}
			if err := rd.Close(); err != nil {
				t.Fatal(err)
			}
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func isCorrupt(err error) bool {
	ce, ok := err.(*CorruptError)
	return ok && ce != nil
}

func isMismatch(err error) bool {
	me, ok := err.(*PartitionerMismatchError)
	return ok && me != nil && errors.Is(err, ErrPartitionerMismatch)
}

// fuzzKeys splits data into keys: each key is a length byte (mod 40)
// followed by that many bytes.
func fuzzKeys(data []byte) [][]byte {
	var keys [][]byte
	for len(data) > 0 {
		n := min(int(data[0])%40, len(data)-1)
		keys = append(keys, data[1:1+n])
		data = data[1+n:]
	}
	return keys
}

// FuzzBuildRoundTrip builds the keys found in the input (sorted and
// deduplicated by the partitioner's order) on both paths and with a Reset
// builder: the three files must be identical and every key must resolve to
// its position (the audit package's FuzzCheckRoundTrip checks such files
// pass its check).
func FuzzBuildRoundTrip(f *testing.F) {
	f.Add([]byte("\x03abc\x02ab\x01a\x00\x05zzzzz"), false, uint8(0))
	f.Add([]byte("\x03abc\x02ab\x01a\x00\x05zzzzz"), true, uint8(1))
	f.Add([]byte("\x04\x00\x00\x00\x00\x04\x00\x00\x00\x01\x04\xff\xff\xff\xff\x02\x00\xff"), true, uint8(2))
	long := []byte{39}
	long = append(long, bytes.Repeat([]byte{7}, 39)...)
	f.Add(bytes.Repeat(long, 30), true, uint8(3))
	f.Add(bytes.Repeat([]byte("\x08abcdefgh\x01\x00"), 20), false, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, byteOrdered bool, pageSel uint8) {
		p := partitioner.Murmur3
		if byteOrdered {
			p = partitioner.ByteOrdered
		}
		pageSize := []int{0, 64, 128, 512}[pageSel%4]
		keys := keyset.Decorate(p, fuzzKeys(data))
		pos := make([]int64, len(keys))
		for i := range pos {
			// Every payload size, both signs.
			pos[i] = int64(i) << (7 * (i % 9))
			if i%2 == 1 {
				pos[i] = ^pos[i]
			}
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
		file := buf.Bytes()[:min(int64(buf.Len()), view.Cutoff)]
		in := append(bytes.Clone(file), view.Tail...)
		in = binary.BigEndian.AppendUint64(in, uint64(len(file)))
		in = binary.BigEndian.AppendUint64(in, uint64(view.Root))
		in = binary.BigEndian.AppendUint64(in, uint64(view.Cutoff))
		in = binary.BigEndian.AppendUint64(in, uint64(view.Count))
		// The view's footer keys, as fuzzKeys reads them.
		keys := append([]byte{byte(len(view.FirstKey))}, view.FirstKey...)
		keys = append(append(keys, byte(len(view.LastKey))), view.LastKey...)
		f.Add(in, false, uint8(0), keys)
	}
	f.Add(make([]byte, 32), true, uint8(0), []byte(nil))
	f.Add(binary.BigEndian.AppendUint64(make([]byte, 24), 1<<63), false, uint8(0), []byte(nil))
	f.Add(binary.BigEndian.AppendUint64(make([]byte, 16), 1<<63|5), false, uint8(0), []byte(nil))
	f.Add(make([]byte, 32), false, uint8(4), []byte("\x01a\x01b")) // no such partitioner
	f.Fuzz(func(t *testing.T, data []byte, noTail bool, part uint8, keys []byte) {
		if len(data) < 32 {
			return
		}
		fields, rest := data[len(data)-32:], data[:len(data)-32]
		fileLen := binary.BigEndian.Uint64(fields)
		// part 0 is ByteOrdered (the seeds'), 1..3 are Murmur3,
		// ByteOrdered and Random, and anything above is no partitioner.
		p := partitioner.ByteOrdered
		if part != 0 {
			p = partitioner.Partitioner(part - 1)
		}
		v := PartialIndex{
			Partitioner: p,
			Root:        int64(binary.BigEndian.Uint64(fields[8:])),
			Cutoff:      int64(binary.BigEndian.Uint64(fields[16:])),
			Count:       int64(binary.BigEndian.Uint64(fields[24:])),
		}
		if ks := fuzzKeys(keys); len(ks) > 0 {
			v.FirstKey, v.LastKey = ks[0], ks[len(ks)-1]
		}
		file := rest
		if !noTail && fileLen <= uint64(len(rest)) {
			file, v.Tail = rest[:fileLen], rest[fileLen:]
		}
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
		rd, err := ix.OpenReader()
		if err != nil {
			t.Fatal(err)
		}
		probes := [][]byte{nil, {0}, {'a'}, {0xff, 0xff}, v.FirstKey, v.LastKey}
		if err := exerciseReader(rd, v.Partitioner, probes, len(data)+1); err != nil {
			t.Fatal(err)
		}
		if err := ix.Trie().Dump(io.Discard); err != nil && !errors.Is(err, trie.ErrCorrupt) {
			t.Fatalf("Trie.Dump: %T %v", err, err)
		}
		if err := rd.Close(); err != nil {
			t.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	})
}
