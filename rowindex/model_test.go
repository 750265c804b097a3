package rowindex_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/internal/refrows"
	"github.com/bti-go/bti/rowindex"
)

// modelValue draws a serialized value of type t; text and blobs share a
// long prefix and use a small alphabet, so separators are long and close.
func modelValue(r *rand.Rand, t bytecomparable.CQLType, prefix []byte) []byte {
	switch t {
	case bytecomparable.Int:
		return binary.BigEndian.AppendUint32(nil, r.Uint32()>>(r.IntN(4)*8))
	case bytecomparable.BigInt:
		return binary.BigEndian.AppendUint64(nil, r.Uint64()>>(r.IntN(8)*8))
	case bytecomparable.UUID, bytecomparable.TimeUUID:
		v := binary.BigEndian.AppendUint64(nil, r.Uint64())
		v = binary.BigEndian.AppendUint64(v, r.Uint64())
		version := byte(1)
		if t == bytecomparable.UUID && r.IntN(2) == 0 {
			version = 4
		}
		v[6] = v[6]&0x0F | version<<4
		return v
	}
	v := append([]byte(nil), prefix[:len(prefix)-r.IntN(3)]...)
	for range r.IntN(5) {
		v = append(v, []byte{0, 1, 'a', 'b', 0xFE, 0xFF}[r.IntN(6)])
	}
	return v
}

type modelCase struct {
	cols   []bytecomparable.Column
	blocks []rowindex.Block
	enc    [][2][]byte // each block's first and last encodings
	end    int64
}

// newModelCase draws n distinct clusterings of cols, sorts them by
// encoding and cuts them into blocks of one to three rows.
func newModelCase(r *rand.Rand, cols []bytecomparable.Column, n int) modelCase {
	prefix := bytes.Repeat([]byte("a long shared prefix/"), 15)
	type row struct {
		full [][]byte // a value per column
		vals [][]byte // the prefix the row or marker has
		kind bytecomparable.PrefixKind
		enc  []byte
	}
	var rows []row
	for range n {
		vals := make([][]byte, len(cols))
		for j, c := range cols {
			vals[j] = modelValue(r, c.Type, prefix)
			if len(rows) > 0 && r.IntN(2) == 0 {
				vals[j] = rows[r.IntN(len(rows))].full[j]
			}
		}
		// One in five is a range tombstone marker: a bound or boundary,
		// on a prefix of the columns.
		kind, used := bytecomparable.Clustering, len(cols)
		if r.IntN(5) == 0 {
			kind, used = bytecomparable.PrefixKind(1+r.IntN(4)), r.IntN(len(cols)+1)
		}
		enc, err := bytecomparable.AppendClustering(nil, cols, vals[:used], kind)
		if err != nil {
			panic(err)
		}
		rows = append(rows, row{vals, vals[:used], kind, enc})
	}
	slices.SortFunc(rows, func(a, b row) int { return bytes.Compare(a.enc, b.enc) })
	rows = slices.CompactFunc(rows, func(a, b row) bool { return bytes.Equal(a.enc, b.enc) })
	mc := modelCase{cols: cols}
	off := int64(r.IntN(40))
	for i := 0; i < len(rows); {
		j := min(len(rows), i+1+r.IntN(3))
		var del rowindex.DeletionTime
		if r.IntN(4) == 0 {
			del = rowindex.Deletion(r.Int64N(1<<60), r.Uint32())
		}
		mc.blocks = append(mc.blocks, rowindex.Block{First: rows[i].vals, Last: rows[j-1].vals,
			FirstKind: rows[i].kind, LastKind: rows[j-1].kind, Offset: off, OpenDeletion: del})
		mc.enc = append(mc.enc, [2][]byte{rows[i].enc, rows[j-1].enc})
		off += 1 + r.Int64N(1<<uint(r.IntN(40)))
		i = j
	}
	mc.end = off
	return mc
}

// modelSeparators computes the stored keys independently of the writer:
// the empty key, then for each later block the common prefix of the
// previous last and this first plus the previous last's next byte + 1, and
// the end key.
func (mc modelCase) separators() [][]byte {
	seps := [][]byte{{}}
	for k := 1; k < len(mc.enc); k++ {
		prev, cur := mc.enc[k-1][1], mc.enc[k][0]
		d := 0
		for prev[d] == cur[d] {
			d++
		}
		seps = append(seps, append(slices.Clone(prev[:d]), prev[d]+1))
	}
	max, sep := mc.enc[len(mc.enc)-1][1], seps[len(seps)-1]
	i := 0
	for i < len(sep) && max[i] == sep[i] {
		i++
	}
	for i < len(max) && max[i] == 0xFF {
		i++
	}
	end := slices.Clone(max[:i])
	if i < len(max) {
		end = append(end, max[i]+1)
	} else {
		end = append(end, 0)
	}
	return append(seps, end)
}

func buildModel(t *testing.T, mc modelCase, path buildpath.Path, pageSize int, lead int) ([]byte, rowindex.Result) {
	t.Helper()
	var out bytes.Buffer
	w := refrows.New(path, &out, rowindex.Options{Columns: mc.cols, PageSize: pageSize})
	// A one-block partition first moves the trie to an unaligned start.
	for range lead {
		b0 := mc.blocks[0]
		if err := w.Add(rowindex.Block{First: b0.First, FirstKind: b0.FirstKind, Last: b0.First, LastKind: b0.FirstKind}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.FinishPartition([]byte("lead"), 0, 1, rowindex.Live); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range mc.blocks {
		if err := w.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.FinishPartition([]byte("key"), 77, mc.end, rowindex.Deletion(5, 6))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), res
}

// TestModel builds row indexes of random clusterings of every type, alone
// and composite, ASC and DESC, with range tombstone bounds among them, on
// both paths and two page sizes, and
// checks every lookup and iteration against sorted slices of the model's
// separators.
func TestModel(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	types := []bytecomparable.CQLType{bytecomparable.Int, bytecomparable.BigInt, bytecomparable.Text,
		bytecomparable.Blob, bytecomparable.UUID, bytecomparable.TimeUUID}
	for _, ty := range types {
		for _, desc := range []bool{false, true} {
			schemas := [][]bytecomparable.Column{
				{{Type: ty, Desc: desc}},
				{{Type: types[r.IntN(len(types))], Desc: r.IntN(2) == 0}, {Type: ty, Desc: desc}},
			}
			for _, cols := range schemas {
				mc := newModelCase(r, cols, 2+r.IntN(400))
				if len(mc.blocks) < 2 {
					continue
				}
				checkModel(t, r, mc)
			}
		}
	}
}

func checkModel(t *testing.T, r *rand.Rand, mc modelCase) {
	t.Helper()
	seps := mc.separators()
	for _, pageSize := range []int{0, 64} {
		db, res := buildModel(t, mc, buildpath.Scratch, pageSize, pageSize/64)
		ref, _ := buildModel(t, mc, buildpath.Reference, pageSize, pageSize/64)
		if !bytes.Equal(db, ref) {
			t.Fatalf("%v page %d: scratch and reference paths differ", mc.cols, pageSize)
		}
		if res.Blocks != len(mc.blocks) || res.Value < 0 {
			t.Fatalf("result %+v for %d blocks", res, len(mc.blocks))
		}
		p, err := rowindex.OpenPartition(db, res.Value, mc.cols)
		if err != nil {
			t.Fatal(err)
		}
		rd := p.NewReader()
		info := func(k int) rowindex.IndexInfo {
			if k == len(mc.blocks) {
				return rowindex.IndexInfo{Offset: mc.end, End: true}
			}
			return rowindex.IndexInfo{Offset: mc.blocks[k].Offset, OpenDeletion: mc.blocks[k].OpenDeletion}
		}
		// Probes: every stored clustering, every separator, and neighbours.
		var probes [][]byte
		for k, e := range mc.enc {
			probes = append(probes, e[0], e[1], seps[k], seps[k+1])
			probes = append(probes, append(slices.Clone(e[1]), 0), e[0][:len(e[0])-1], append(slices.Clone(e[0][:len(e[0])-1]), 0x20))
		}
		probes = append(probes, []byte{}, []byte{0xFF, 0xFF}, []byte{0x40})
		for range 200 {
			probes = append(probes, mc.enc[r.IntN(len(mc.enc))][r.IntN(2)][:r.IntN(8)])
		}
		for _, probe := range probes {
			// Model floor: the last separator <= probe (a prefix is <=).
			k := sort.Search(len(seps), func(i int) bool { return bytes.Compare(seps[i], probe) > 0 }) - 1
			got, ok, err := rd.SeparatorFloor(probe)
			if err != nil || !ok || got != info(k) {
				t.Fatalf("%v: floor(% x) = %+v ok=%v err=%v, model block %d %+v", mc.cols, probe, got, ok, err, k, info(k))
			}
			n := k
			for rd.Forward(probe); rd.Next(); n++ {
				if rd.Info() != info(n) {
					t.Fatalf("forward from % x: entry %d is %+v, want %+v", probe, n, rd.Info(), info(n))
				}
			}
			if rd.Err() != nil || n != len(seps) {
				t.Fatalf("forward from % x ended at %d of %d: %v", probe, n, len(seps), rd.Err())
			}
			n = k
			for rd.Reverse(probe); rd.Next(); n-- {
				if n < 0 || rd.Info() != info(n) {
					t.Fatalf("reverse from % x: entry %d is %+v", probe, n, rd.Info())
				}
			}
			if rd.Err() != nil || n != -1 {
				t.Fatalf("reverse from % x ended at %d: %v", probe, n, rd.Err())
			}
		}
		// The empty key from a fresh reader (its buffers still nil): block 0
		// alone backwards, everything once forwards.
		fresh := p.NewReader()
		n := 0
		for fresh.Forward([]byte{}); fresh.Next(); n++ {
			if fresh.Info() != info(n) {
				t.Fatalf("fresh reader, forward from the empty key: entry %d is %+v", n, fresh.Info())
			}
		}
		if n != len(seps) {
			t.Fatalf("fresh reader, forward from the empty key: %d entries, want %d", n, len(seps))
		}
		fresh = p.NewReader()
		n = 0
		for fresh.Reverse([]byte{}); fresh.Next(); n++ {
			if fresh.Info() != info(0) {
				t.Fatalf("fresh reader, reverse from the empty key: %+v", fresh.Info())
			}
		}
		if n != 1 {
			t.Fatalf("fresh reader, reverse from the empty key: %d entries, want block 0 only", n)
		}
		// Without a key: every entry, both ways.
		n = 0
		for rd.Forward(nil); rd.Next(); n++ {
			if rd.Info() != info(n) {
				t.Fatalf("forward from the start: entry %d is %+v", n, rd.Info())
			}
		}
		if rd.Err() != nil || n != len(seps) {
			t.Fatalf("forward from the start ended at %d of %d: %v", n, len(seps), rd.Err())
		}
		n = len(seps) - 1
		for rd.Reverse(nil); rd.Next(); n-- {
			if n < 0 || rd.Info() != info(n) {
				t.Fatalf("reverse from the end: entry %d is %+v", n, rd.Info())
			}
		}
		if rd.Err() != nil || n != -1 {
			t.Fatalf("reverse from the end stopped at %d: %v", n, rd.Err())
		}
		// Every stored clustering finds its own block.
		for k, b := range mc.blocks {
			if got, _, err := rd.Floor(b.First, b.FirstKind); err != nil || got != info(k) {
				t.Fatalf("floor of block %d's first clustering: %+v %v", k, got, err)
			}
			if got, _, err := rd.Floor(b.Last, b.LastKind); err != nil || got != info(k) {
				t.Fatalf("floor of block %d's last clustering: %+v %v", k, got, err)
			}
		}
		if err := rowindex.Walk(db, []int64{res.Value}, func(rowindex.Entry, []rowindex.IndexInfo) error { return nil }); err != nil {
			t.Fatalf("walk: %v", err)
		}
	}
}

// TestNudgeOverFF: the end key is the last clustering nudged where it
// first differs from the last separator; a 0xFF there (DESC bytes) cannot
// be incremented, so it is kept and the next byte is nudged. Blocks of a
// DESC blob: "\x02" (40 FD FF 38), then "\x00\x01" (40 FF 00 FE FF 38); the
// separator is 40 FE, so the end key is 40 FF 01, not 40 00.
func TestNudgeOverFF(t *testing.T) {
	mc := modelCase{
		cols: []bytecomparable.Column{{Type: bytecomparable.Blob, Desc: true}},
		blocks: []rowindex.Block{
			{First: [][]byte{{2}}, Last: [][]byte{{2}}, Offset: 10},
			{First: [][]byte{{0, 1}}, Last: [][]byte{{0, 1}}, Offset: 20},
		},
		end: 30,
	}
	for _, b := range mc.blocks {
		f, _ := bytecomparable.AppendClustering(nil, mc.cols, b.First, bytecomparable.Clustering)
		l, _ := bytecomparable.AppendClustering(nil, mc.cols, b.Last, bytecomparable.Clustering)
		mc.enc = append(mc.enc, [2][]byte{f, l})
	}
	seps := mc.separators()
	if want := []byte{0x40, 0xFF, 0x01}; !bytes.Equal(seps[2], want) || !bytes.Equal(seps[1], []byte{0x40, 0xFE}) {
		t.Fatalf("model separators % x", seps)
	}
	checkModel(t, rand.New(rand.NewPCG(1, 1)), mc)
	// The trie agrees: 40 FF 01 is the end, 40 FF 00 FF is still block 1.
	db, res := buildModel(t, mc, buildpath.Scratch, 0, 0)
	p, err := rowindex.OpenPartition(db, res.Value, mc.cols)
	if err != nil {
		t.Fatal(err)
	}
	r := p.NewReader()
	if info, _, _ := r.SeparatorFloor([]byte{0x40, 0xFF, 0x01}); !info.End {
		t.Errorf("40 FF 01: %+v, want the end entry", info)
	}
	if info, _, _ := r.SeparatorFloor([]byte{0x40, 0xFF, 0x00, 0xFF}); info.End || info.Offset != 20 {
		t.Errorf("40 FF 00 FF: %+v, want block 1", info)
	}
}
