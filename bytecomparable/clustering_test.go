package bytecomparable

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bti-go/bti/internal/golden"
)

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// clusteringCase is one call of AppendClustering: the columns, the values
// and the kind, and what it must give (the encoding in hex, or the text of
// the error).
type clusteringCase struct {
	name   string
	cols   []Column
	values [][]byte
	kind   PrefixKind
	want   string
}

// TestClusteringVectors pins encodings from ClusteringComparator's javadoc
// (in their OSS50 form), the types' sources and the golden Rows.db files
// (int32-50 block 0's first clustering is 800a5b48).
func TestClusteringVectors(t *testing.T) {
	textInt := []Column{{Type: Text}, {Type: Int}}
	cases := []clusteringCase{
		{"javadoc A,0005", textInt, [][]byte{[]byte("A"), be32(5)}, Clustering, "40 41 00 40 80 00 00 05 38"},
		{"javadoc B,0006 incl end", textInt, [][]byte{[]byte("B"), be32(6)}, InclusiveEnd, "40 42 00 40 80 00 00 06 60"},
		{"javadoc A excl start", textInt, [][]byte{[]byte("A")}, ExclusiveStart, "40 41 00 60"},
		{"javadoc empty,0000", textInt, [][]byte{{}, be32(0)}, Clustering, "40 00 40 80 00 00 00 38"},
		{"javadoc bottom", textInt, nil, InclusiveStart, "20"},
		{"excl end", textInt, [][]byte{[]byte("A")}, ExclusiveEnd, "40 41 00 20"},
		{"empty int", []Column{{Type: Int}}, [][]byte{{}}, Clustering, "3F 38"},
		{"empty int desc", []Column{{Type: Int, Desc: true}}, [][]byte{{}}, Clustering, "41 38"},
		{"int golden", []Column{{Type: Int}}, [][]byte{golden.Hex(t, "800a5b48")}, Clustering, "40 00 0a 5b 48 38"},
		{"int desc", []Column{{Type: Int, Desc: true}}, [][]byte{be32(1)}, Clustering, "40 7F FF FF FE 38"},
		{"bigint 0", []Column{{Type: BigInt}}, [][]byte{be64(0)}, Clustering, "40 80 38"},
		{"bigint -1", []Column{{Type: BigInt}}, [][]byte{be64(-1)}, Clustering, "40 7F 38"},
		{"bigint 64", []Column{{Type: BigInt}}, [][]byte{be64(64)}, Clustering, "40 C0 40 38"},
		{"bigint -65", []Column{{Type: BigInt}}, [][]byte{be64(-65)}, Clustering, "40 3F BF 38"},
		// The 8- and 9-byte forms, worked through ByteSource's
		// VariableLengthInteger constructor by hand (its javadoc lists
		// only values outside int64 for them).
		{"bigint 2^55-1", []Column{{Type: BigInt}}, [][]byte{be64(1<<55 - 1)}, Clustering, "40 FF 7F FF FF FF FF FF FF 38"},
		{"bigint 2^55", []Column{{Type: BigInt}}, [][]byte{be64(1 << 55)}, Clustering, "40 FF 80 80 00 00 00 00 00 00 38"},
		{"bigint max", []Column{{Type: BigInt}}, [][]byte{be64(math.MaxInt64)}, Clustering, "40 FF FF FF FF FF FF FF FF FF 38"},
		{"bigint min", []Column{{Type: BigInt}}, [][]byte{be64(math.MinInt64)}, Clustering, "40 00 00 00 00 00 00 00 00 00 38"},
		{"bigint desc 0", []Column{{Type: BigInt, Desc: true}}, [][]byte{be64(0)}, Clustering, "40 7F 38"},
		{"empty bigint desc, incl end", []Column{{Type: BigInt, Desc: true}, {Type: Int}}, [][]byte{{}}, InclusiveEnd, "41 60"},
		{"text zeros", []Column{{Type: Text}}, [][]byte{{0, 1}}, Clustering, "40 00 FF 01 00 38"},
		{"blob desc", []Column{{Type: Blob, Desc: true}}, [][]byte{[]byte("ab")}, Clustering, "40 9E 9D FF 38"},
		// UUIDType, version 4: version nibble first, then the rest of
		// the high bits without it, then the low bits.
		{"uuid v4", []Column{{Type: UUID}}, [][]byte{golden.Hex(t, "01234567 89ab 4def 8123 456789abcdef")}, Clustering,
			"40 40 12 34 56 78 9a bd ef 81 23 45 67 89 ab cd ef 38"},
		// Version 1: time_hi_and_version, time_mid, time_low.
		{"uuid v1", []Column{{Type: UUID}}, [][]byte{golden.Hex(t, "01234567 89ab 1def 8123 456789abcdef")}, Clustering,
			"40 1d ef 89 ab 01 23 45 67 81 23 45 67 89 ab cd ef 38"},
		{"timeuuid", []Column{{Type: TimeUUID}}, [][]byte{golden.Hex(t, "01234567 89ab 1def 8123 456789abcdef")}, Clustering,
			"40 1d ef 89 ab 01 23 45 67 01 a3 c5 e7 09 2b 4d 6f 38"},
		{"timeuuid desc", []Column{{Type: TimeUUID, Desc: true}}, [][]byte{golden.Hex(t, "01234567 89ab 1def 8123 456789abcdef")}, Clustering,
			"40 e2 10 76 54 fe dc ba 98 fe 5c 3a 18 f6 d4 b2 90 38"},
		{"uuid v4 desc", []Column{{Type: UUID, Desc: true}}, [][]byte{golden.Hex(t, "01234567 89ab 4def 8123 456789abcdef")}, Clustering,
			"40 bf ed cb a9 87 65 42 10 7e dc ba 98 76 54 32 10 38"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prefix := []byte{0xAA, 0xBB}
			got, err := AppendClustering(prefix, c.cols, c.values, c.kind)
			if err != nil {
				t.Fatal(err)
			}
			if want := golden.Hex(t, c.want); !bytes.Equal(got[2:], want) || !bytes.Equal(got[:2], prefix) {
				t.Fatalf("got % x, want AA BB % x", got, want)
			}
			values, kind, n, err := DecodeClustering(c.cols, got[2:])
			if err != nil {
				t.Fatal(err)
			}
			if n != len(got)-2 {
				t.Errorf("decoded %d bytes of %d", n, len(got)-2)
			}
			if len(values) != len(c.values) {
				t.Fatalf("decoded %d values, want %d", len(values), len(c.values))
			}
			for i := range values {
				if !bytes.Equal(values[i], c.values[i]) {
					t.Errorf("value %d: got %x, want %x", i, values[i], c.values[i])
				}
			}
			if kind.Terminator() != c.kind.Terminator() {
				t.Errorf("kind %d, want one ending %x", kind, c.kind.Terminator())
			}
		})
	}
}

func TestClusteringValueErrors(t *testing.T) {
	cases := []clusteringCase{
		{"short int", []Column{{Type: Int}}, [][]byte{{1, 2}}, Clustering, "component 0 (int): value has 2 bytes"},
		{"long bigint", []Column{{Type: Text}, {Type: BigInt}}, [][]byte{{}, make([]byte, 9)}, Clustering, "component 1 (bigint)"},
		{"uuid 15", []Column{{Type: UUID}}, [][]byte{make([]byte, 15)}, Clustering, "(uuid): value has 15"},
		{"timeuuid v4", []Column{{Type: TimeUUID}}, [][]byte{golden.Hex(t, "0123456789ab4def8123456789abcdef")}, Clustering, "version 1, got version 4"},
		{"too few", []Column{{Type: Int}, {Type: Int}}, [][]byte{be32(1)}, Clustering, "needs 2 components, got 1"},
		{"too many", []Column{{Type: Int}}, [][]byte{be32(1), be32(2)}, InclusiveEnd, "2 components for 1"},
		{"unknown type", []Column{{Type: 0}}, [][]byte{{1}}, Clustering, "unknown type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := []byte{1, 2, 3}
			got, err := AppendClustering(dst, c.cols, c.values, c.kind)
			var ve *ValueError
			if !errors.As(err, &ve) || !errors.Is(err, ErrValue) {
				t.Fatalf("got %v, want a *ValueError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			if !bytes.Equal(got, dst) {
				t.Errorf("dst changed to % x", got)
			}
		})
	}
}

func TestDecodeClusteringErrors(t *testing.T) {
	cols := []Column{{Type: Int}, {Type: Text}}
	for _, enc := range []string{
		"", "40", "40 80 00 00", "40 80 00 00 01 38", "40 80 00 00 01 40 61", "40 80 00 00 01 40 61 00 40",
		"41 38", "3F 40 61 00 3F", "10", "40 80 00 00 01 40 61 00 40 61 00 38", "40 80 00 00 01 3F 38",
	} {
		_, _, _, err := DecodeClustering(cols, golden.Hex(t, enc))
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: got %v, want a *DecodeError", enc, err)
		}
	}
	if _, _, _, err := DecodeClustering([]Column{{Type: BigInt}}, golden.Hex(t, "40 C0 00 38")); err == nil {
		t.Error("non-minimal bigint accepted")
	}
	if _, _, _, err := DecodeClustering([]Column{{Type: TimeUUID}}, golden.Hex(t, "40 4d ef 89 ab 01 23 45 67 01 a3 c5 e7 09 2b 4d 6f 38")); err == nil {
		t.Error("timeuuid of version 4 accepted")
	}
}

// refCompare is Cassandra's comparison of two serialized values of type t
// (the types' compareCustom), written independently of the encoding.
func refCompare(t CQLType, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		if t.emptyIsNull() {
			return cmp.Compare(len(a), len(b))
		}
	}
	switch t {
	case Int:
		return cmp.Compare(int32(binary.BigEndian.Uint32(a)), int32(binary.BigEndian.Uint32(b)))
	case BigInt:
		return cmp.Compare(int64(binary.BigEndian.Uint64(a)), int64(binary.BigEndian.Uint64(b)))
	case UUID:
		ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
		va, vb := ma>>12&0xF, mb>>12&0xF
		if va != vb {
			return cmp.Compare(va, vb)
		}
		if va == 1 {
			if c := cmp.Compare(int64(reorderTimestamp(ma)), int64(reorderTimestamp(mb))); c != 0 {
				return c
			}
		} else if c := cmp.Compare(ma, mb); c != 0 {
			return c
		}
		return cmp.Compare(binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:]))
	case TimeUUID:
		ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
		if c := cmp.Compare(int64(reorderTimestamp(ma)), int64(reorderTimestamp(mb))); c != 0 {
			return c
		}
		// Signed bytes, as Java compares them.
		for i := 8; i < 16; i++ {
			if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
				return c
			}
		}
		return 0
	}
	return bytes.Compare(a, b)
}

// randValue draws a value of type t; small alphabets and shared prefixes
// make ties and long common prefixes likely.
func randValue(r *rand.Rand, t CQLType, prefix []byte) []byte {
	if t.emptyIsNull() && r.IntN(20) == 0 {
		return []byte{}
	}
	switch t {
	case Int:
		return be32(int32(r.Uint32() >> (r.IntN(4) * 8)))
	case BigInt:
		return be64(int64(r.Uint64()) >> (r.IntN(8) * 8))
	case UUID, TimeUUID:
		v := binary.BigEndian.AppendUint64(nil, r.Uint64())
		v = binary.BigEndian.AppendUint64(v, r.Uint64())
		version := byte(1)
		if t == UUID {
			version = byte(r.IntN(6))
		}
		v[6] = v[6]&0x0F | version<<4
		return v
	}
	v := append([]byte(nil), prefix[:r.IntN(len(prefix)+1)]...)
	for range r.IntN(6) {
		v = append(v, []byte{0, 1, 'a', 'b', 0xFF}[r.IntN(5)])
	}
	return v
}

// TestClusteringOrderModel sorts random composite clusterings by
// Cassandra's comparator (refCompare per component, DESC reversed, empty
// first) and checks that the encodings sort the same way, bounds included,
// and decode back, for every type alone and in pairs, both directions.
func TestClusteringOrderModel(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	prefix := bytes.Repeat([]byte("shared/"), 40)
	types := []CQLType{Int, BigInt, Text, Blob, UUID, TimeUUID}
	var schemas [][]Column
	for _, a := range types {
		for _, desc := range []bool{false, true} {
			schemas = append(schemas, []Column{{Type: a, Desc: desc}})
			b := types[r.IntN(len(types))]
			schemas = append(schemas, []Column{{Type: a, Desc: desc}, {Type: b, Desc: r.IntN(2) == 0}})
		}
	}
	for _, cols := range schemas {
		type row struct {
			values [][]byte
			enc    []byte
		}
		rows := make([]row, 300)
		for i := range rows {
			vs := make([][]byte, len(cols))
			for j, c := range cols {
				vs[j] = randValue(r, c.Type, prefix)
				if i > 0 && r.IntN(3) == 0 {
					vs[j] = rows[r.IntN(i)].values[j] // shared components
				}
			}
			enc, err := AppendClustering(nil, cols, vs, Clustering)
			if err != nil {
				t.Fatal(err)
			}
			rows[i] = row{vs, enc}
		}
		model := func(a, b row) int {
			for j, c := range cols {
				// An empty value sorts first ascending and last DESC
				// (41 > 40), as ReversedType compares base(right, left).
				v := refCompare(c.Type, a.values[j], b.values[j])
				if c.Desc {
					v = -v
				}
				if v != 0 {
					return v
				}
			}
			return 0
		}
		slices.SortFunc(rows, model)
		for i := 1; i < len(rows); i++ {
			want := model(rows[i-1], rows[i])
			if got := bytes.Compare(rows[i-1].enc, rows[i].enc); got != want {
				t.Fatalf("%v: order of %x and %x: encodings compare %d, Cassandra %d", cols, rows[i-1].values, rows[i].values, got, want)
			}
		}
		for _, rw := range rows {
			vs, _, n, err := DecodeClustering(cols, rw.enc)
			if err != nil || n != len(rw.enc) {
				t.Fatalf("%v: decode %x: %v (n %d)", cols, rw.enc, err, n)
			}
			for j := range vs {
				if !bytes.Equal(vs[j], rw.values[j]) {
					t.Fatalf("%v: round trip of %x gave %x", cols, rw.values, vs)
				}
			}
			// A bound on the first component sorts around every
			// clustering that starts with it.
			lo, _ := AppendClustering(nil, cols, rw.values[:1], InclusiveStart)
			hi, _ := AppendClustering(nil, cols, rw.values[:1], InclusiveEnd)
			if bytes.Compare(lo, rw.enc) >= 0 || bytes.Compare(hi, rw.enc) <= 0 {
				t.Fatalf("%v: bounds % x, % x do not enclose % x", cols, lo, hi, rw.enc)
			}
		}
	}
}

func TestAppendClusteringAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	// Every type, ASC and DESC, and an empty value.
	cols := []Column{{Type: BigInt}, {Type: UUID}, {Type: Text, Desc: true}, {Type: Int, Desc: true},
		{Type: TimeUUID, Desc: true}, {Type: Blob}, {Type: Int}, {Type: UUID, Desc: true}, {Type: BigInt, Desc: true}}
	values := [][]byte{be64(-5), golden.Hex(t, "0123456789ab1def8123456789abcdef"), []byte("some text\x00here"), be32(7),
		golden.Hex(t, "0123456789ab1def8123456789abcdef"), {0, 0, 1}, {}, golden.Hex(t, "0123456789ab4def8123456789abcdef"), be64(1 << 40)}
	slot := make([]byte, 0, 128)
	for _, kind := range []PrefixKind{Clustering, InclusiveStart, ExclusiveEnd} {
		vs := values
		if kind != Clustering {
			vs = values[:4]
		}
		allocs := testing.AllocsPerRun(100, func() {
			var err error
			slot, err = AppendClustering(slot[:0], cols, vs, kind)
			if err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("AppendClustering of kind %d into a warm slot: %v allocs, want 0", kind, allocs)
		}
	}
}
