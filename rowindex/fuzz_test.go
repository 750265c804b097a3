package rowindex_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bti-go/bti/audit"
	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/internal/buildpath"
	"github.com/bti-go/bti/rowindex"
)

// fuzzSeed is a small Rows.db: two partitions of int clusterings, one with
// open deletions, and the entry position of each.
func fuzzSeed(t testing.TB) ([]byte, []int64) {
	cols := []bytecomparable.Column{{Type: bytecomparable.Int}}
	var out bytes.Buffer
	w := rowindex.NewWriter(&out, rowindex.Options{Columns: cols})
	var pos []int64
	for p := range 2 {
		for i := range 6 + 5*p {
			v := func(x int) [][]byte { return [][]byte{binary.BigEndian.AppendUint32(nil, uint32(x))} }
			b := rowindex.Block{First: v(i * 10), Last: v(i*10 + 3 + p), Offset: int64(i * 300)}
			if i%3 == p {
				b.OpenDeletion = rowindex.Deletion(int64(i), 7)
			}
			if err := w.Add(b); err != nil {
				t.Fatal(err)
			}
		}
		res, err := w.FinishPartition([]byte{'k', byte(p)}, int64(p), 5000, rowindex.Live)
		if err != nil {
			t.Fatal(err)
		}
		pos = append(pos, res.Value)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), pos
}

// FuzzReader opens arbitrary bytes as a Rows.db at an arbitrary entry
// position and runs every read operation, Walk and audit.CheckRows (whose
// rebuild reads every node) included: none may panic or loop, and whatever opens
// must answer consistently (a floor is found for each probe; iterations
// end).
func FuzzReader(f *testing.F) {
	data, pos := fuzzSeed(f)
	f.Add(data, pos[0], []byte{0x40, 0x80, 0, 0, 0x1e, 0x38})
	f.Add(data, pos[1], []byte{0x40, 0x80, 0, 0, 0x05})
	f.Add(data[:len(data)-3], pos[1], []byte{})
	f.Fuzz(func(t *testing.T, data []byte, entry int64, probe []byte) {
		_ = rowindex.Walk(data, []int64{entry}, func(rowindex.Entry, []rowindex.IndexInfo) error { return nil })
		if rep := audit.CheckRows(data, []int64{entry, entry + 1}, audit.Options{PageSize: 64}); rep.OK() && len(data) > 0 {
			t.Fatal("CheckRows passed two entries one byte apart")
		}
		p, err := rowindex.OpenPartition(data, entry, []bytecomparable.Column{{Type: bytecomparable.Int}})
		if err != nil {
			return
		}
		r := p.NewReader()
		_, _ = r.Min()
		_, _, _ = r.SeparatorFloor(probe)
		_, _, _ = r.Floor([][]byte{{1, 2, 3, 4}}, bytecomparable.Clustering)
		for _, key := range [][]byte{probe, nil} {
			n := 0
			for r.Forward(key); r.Next(); n++ {
				if n > len(data) {
					t.Fatal("forward iteration does not end")
				}
			}
			n = 0
			for r.Reverse(key); r.Next(); n++ {
				if n > len(data) {
					t.Fatal("reverse iteration does not end")
				}
			}
		}
	})
}

// TestCorruptEntries flips every byte of a small file in turn: opening,
// walking and reading never panic or loop.
func TestCorruptEntries(t *testing.T) {
	data, pos := fuzzSeed(t)
	undetected := 0
	defer func() { t.Logf("CheckRows missed %d of %d byte changes", undetected, 3*len(data)) }()
	for i := range data {
		for _, x := range []byte{0x01, 0x80, 0xFF} {
			bad := bytes.Clone(data)
			bad[i] ^= x
			_ = rowindex.Walk(bad, pos, func(rowindex.Entry, []rowindex.IndexInfo) error { return nil })
			if rep := audit.CheckRows(bad, pos, audit.Options{}); rep.OK() {
				// Only a payload value may change unnoticed: the rebuild
				// reproduces the damaged bytes, so a block's offset or
				// deletion, or a separator byte, differs.
				undetected++
			}
			for _, e := range pos {
				p, err := rowindex.OpenPartition(bad, e, nil)
				if err != nil {
					continue
				}
				r := p.NewReader()
				for r.Forward(nil); r.Next(); {
				}
			}
		}
	}
	// Truncations are caught by the entry decoder.
	for n := range len(data) {
		if err := rowindex.Walk(data[:n], pos, func(rowindex.Entry, []rowindex.IndexInfo) error { return nil }); err == nil {
			t.Fatalf("walk accepted the file cut to %d of %d bytes", n, len(data))
		}
	}
}

// FuzzRoundTrip turns bytes into clusterings of one of a few schemas (every
// type, ASC and DESC), sorts them, cuts them into blocks and runs the model
// check (checkModel: scratch and reference paths give the same bytes, every
// floor and iteration agrees with the sorted separators, on two page
// sizes); the file also passes audit.CheckRows, and a writer reused after
// Reset writes it again byte for byte.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("\x03abc\x02ab\x04abcd\x01a\x00\x05zzzzz"), uint8(0))
	f.Add([]byte("\x00\x00\x00\x01\x00\x00\x00\x02\x80\x00\x00\x00\xff\xff\xff\xff\x7f\xff\xff\xff"), uint8(1))
	f.Add(bytes.Repeat([]byte{0x11, 0x00, 0x22, 0xff, 0x01, 0x02, 0x03, 0x04, 0x05}, 12), uint8(2))
	f.Add(bytes.Repeat([]byte{0xfe, 0x10, 0x00, 0x01, 0x92}, 40), uint8(3))
	schemas := [][]bytecomparable.Column{
		{{Type: bytecomparable.Text}},
		{{Type: bytecomparable.Int, Desc: true}},
		{{Type: bytecomparable.BigInt}, {Type: bytecomparable.Blob, Desc: true}},
		{{Type: bytecomparable.UUID, Desc: true}, {Type: bytecomparable.TimeUUID}},
	}
	f.Fuzz(func(t *testing.T, data []byte, schema uint8) {
		cols := schemas[int(schema)%len(schemas)]
		var encs [][]byte
		vals := map[string][][]byte{}
		for len(data) > 0 && len(encs) < 200 {
			row := make([][]byte, len(cols))
			for j, c := range cols {
				var v []byte
				switch c.Type {
				case bytecomparable.Int, bytecomparable.BigInt, bytecomparable.UUID, bytecomparable.TimeUUID:
					n := map[bytecomparable.CQLType]int{bytecomparable.Int: 4, bytecomparable.BigInt: 8, bytecomparable.UUID: 16, bytecomparable.TimeUUID: 16}[c.Type]
					v = make([]byte, n)
					data = data[copy(v, data):]
					if c.Type == bytecomparable.TimeUUID {
						v[6] = v[6]&0x0F | 0x10
					}
				default:
					n := 0
					if len(data) > 0 {
						n, data = int(data[0]%8), data[1:]
					}
					n = min(n, len(data))
					v, data = bytes.Clone(data[:n]), data[n:]
				}
				row[j] = v
			}
			enc, err := bytecomparable.AppendClustering(nil, cols, row, bytecomparable.Clustering)
			if err != nil {
				t.Fatal(err)
			}
			if _, dup := vals[string(enc)]; !dup {
				vals[string(enc)] = row
				encs = append(encs, enc)
			}
		}
		slices.SortFunc(encs, bytes.Compare)
		mc := modelCase{cols: cols}
		for i := 0; i < len(encs); i += 2 {
			j := min(i+1, len(encs)-1)
			mc.blocks = append(mc.blocks, rowindex.Block{First: vals[string(encs[i])], Last: vals[string(encs[j])], Offset: int64(i) * 100})
			mc.enc = append(mc.enc, [2][]byte{encs[i], encs[j]})
		}
		if len(mc.blocks) < 2 {
			return
		}
		mc.end = int64(len(encs)) * 100
		checkModel(t, rand.New(rand.NewPCG(1, 2)), mc)
		db, res := buildModel(t, mc, buildpath.Scratch, 0, 1)
		if rep := audit.CheckRows(db, []int64{res.Value}, audit.Options{}); !rep.OK() {
			t.Fatalf("CheckRows: %v", rep.Problems)
		}
		var out bytes.Buffer
		w := rowindex.NewWriter(io.Discard, rowindex.Options{Columns: cols})
		for _, b := range mc.blocks[:1] {
			if err := w.Add(b); err != nil {
				t.Fatal(err)
			}
		}
		w.Reset(&out, rowindex.Options{Columns: cols})
		for _, b := range mc.blocks {
			if err := w.Add(b); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.FinishPartition([]byte("key"), 77, mc.end, rowindex.Deletion(5, 6)); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		want, _ := buildModel(t, mc, buildpath.Scratch, 0, 0)
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatal("a writer reused after Reset wrote other bytes")
		}
	})
}
