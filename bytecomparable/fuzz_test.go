package bytecomparable

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"testing"
)

// FuzzByteComparable checks, for two keys and two tokens taken from the
// input, that the encodings order like the values and decode back, and that
// every decoder survives arbitrary bytes (the input itself).
func FuzzByteComparable(f *testing.F) {
	seeds := [][]byte{
		{}, {0x61, 0x62}, {0x00}, {0x00, 0x00}, {0x00, 0x01}, {0x00, 0x00, 0x00, 0x01},
		{0x22, 0x00, 0x11}, {0x01, 0x00, 0x00, 0x00}, {0x61, 0x00},
	}
	for _, a := range seeds {
		for _, b := range seeds {
			f.Add(a, b, int64(1), int64(1))
		}
	}
	// Worked examples as raw input for the decoders.
	f.Add([]byte{0x40, 0x80, 0, 0, 0, 0, 0, 0, 0x01, 0x40, 0x00, 0xFF, 0x01, 0x00, 0x38}, []byte{}, int64(0), int64(-1))
	f.Add([]byte{0x40, 0x61, 0x62, 0x00, 0x40, 0x61, 0x62, 0x00, 0x38}, []byte{0x61}, int64(-1), int64(1))
	f.Add([]byte{0xFF, 0x09, 0x80, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, []byte{0x7F}, int64(64), int64(-65))

	f.Fuzz(func(t *testing.T, a, b []byte, ta, tb int64) {
		// Decoders never panic and accept only what re-encodes identically.
		if out, n, err := DecodeEscaped(nil, a); err == nil {
			if re := AppendEscaped(nil, out); !bytes.Equal(re, a[:n]) {
				t.Fatalf("DecodeEscaped(%x) = %x, re-encodes to %x", a[:n], out, re)
			}
		}
		if tok, key, err := DecodeLongTokenKey(nil, a); err == nil {
			if re := AppendLongTokenKey(nil, tok, key); !bytes.Equal(re, a) {
				t.Fatalf("DecodeLongTokenKey(%x) re-encodes to %x", a, re)
			}
		}
		if key, err := DecodeBytesTokenKey(nil, a); err == nil {
			if re := AppendBytesTokenKey(nil, key); !bytes.Equal(re, a) {
				t.Fatalf("DecodeBytesTokenKey(%x) re-encodes to %x", a, re)
			}
		}
		if out, n, err := DecodeBigInt(nil, a); err == nil {
			if re := AppendBigInt(nil, out); !bytes.Equal(re, a[:n]) {
				t.Fatalf("DecodeBigInt(%x) = %x, re-encodes to %x", a[:n], out, re)
			}
		}

		// Order: Murmur3 keys (token, then bytes) and ByteOrdered keys.
		ea, eb := AppendLongTokenKey(nil, ta, a), AppendLongTokenKey(nil, tb, b)
		if got, want := bytes.Compare(ea, eb), compareLongKeys(ta, a, tb, b); got != want {
			t.Fatalf("order of (%d,%x) vs (%d,%x): encodings %d, keys %d", ta, a, tb, b, got, want)
		}
		ba, bb := AppendBytesTokenKey(nil, a), AppendBytesTokenKey(nil, b)
		if got, want := bytes.Compare(ba, bb), bytes.Compare(a, b); got != want {
			t.Fatalf("BOP order of %x vs %x: encodings %d, keys %d", a, b, got, want)
		}
		if got, want := DiffPoint(ea, eb), naiveDiffPoint(ea, eb); got != want {
			t.Fatalf("DiffPoint = %d, want %d", got, want)
		}

		// Round trips.
		tok, key, err := DecodeLongTokenKey(nil, ea)
		if err != nil || tok != ta || !bytes.Equal(key, a) {
			t.Fatalf("Murmur3 round trip of (%d,%x): %d %x %v", ta, a, tok, key, err)
		}
		key, err = DecodeBytesTokenKey(nil, bb)
		if err != nil || !bytes.Equal(key, b) {
			t.Fatalf("BOP round trip of %x: %x %v", b, key, err)
		}

		// Varints order like the integers they encode.
		xa, xb := AppendBigInt(nil, binary.BigEndian.AppendUint64(nil, uint64(ta))), AppendBigInt(nil, binary.BigEndian.AppendUint64(nil, uint64(tb)))
		if got := bytes.Compare(xa, xb); got != cmp.Compare(ta, tb) {
			t.Fatalf("varint order of %d vs %d: %d", ta, tb, got)
		}
	})
}

// FuzzBytesKeyEncoder feeds a stream of keys that share long prefixes (cut
// from one base made of the input, each with a tail taken from the input)
// through a BytesKeyEncoder writing over three buffers in turn, as the
// partition index builder does, told the true count of bytes each buffer
// shares with the committed head: every head must be AppendHead's from
// scratch, and every third key is left uncommitted.
func FuzzBytesKeyEncoder(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 2, 0xFF, 0xFE, 0, 3}, uint16(300))
	f.Add([]byte{0x61}, uint16(64))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1}, uint16(1000))
	f.Fuzz(func(t *testing.T, data []byte, baseLen uint16) {
		if len(data) == 0 {
			return
		}
		base := make([]byte, int(baseLen)%4096)
		for i := range base {
			base[i] = data[i%len(data)] ^ byte(i/len(data))
		}
		var e BytesKeyEncoder
		var bufs [3][]byte
		var committed []byte
		slot := 0
		for i := 0; i+1 < len(data) && i < 600; i += 2 {
			cut := len(base) - int(data[i])*len(base)/255
			key := append(bytes.Clone(base[:cut]), data[i+1:min(i+1+int(data[i+1]%5), len(data))]...)
			want := AppendEscaped([]byte{NextComponent}, key)
			want = append(want, NextComponent)
			same := 0
			if committed != nil {
				same = naiveDiffPoint(bufs[slot], committed) - 1
			}
			got := e.ReuseHead(bufs[slot], same, key)
			if !bytes.Equal(got, want) {
				t.Fatalf("key %d (%d bytes, %d kept): head %x, want %x", i/2, len(key), same, got, want)
			}
			bufs[slot] = got
			if i%6 == 4 {
				continue
			}
			e.Commit()
			committed = bytes.Clone(got)
			slot = (slot + 1) % 3
		}
	})
}
