package bytecomparable

import (
	"bytes"
	"testing"
)

// FuzzClustering decodes arbitrary bytes as a clustering of a few schemas:
// the decoder never panics, and what it accepts re-encodes to exactly the
// bytes it consumed (canonical encodings only).
func FuzzClustering(f *testing.F) {
	f.Add([]byte{0x40, 0x41, 0x00, 0x40, 0x80, 0x00, 0x00, 0x05, 0x38}, uint8(0))
	f.Add([]byte{0x40, 0x7F, 0x38}, uint8(1))
	f.Add([]byte{0x40, 0x1d, 0xef, 0x89, 0xab, 0x01, 0x23, 0x45, 0x67, 0x81, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x38}, uint8(2))
	f.Add([]byte{0x41, 0x40, 0x9E, 0x9D, 0xFF, 0x60}, uint8(3))
	schemas := [][]Column{
		{{Type: Text}, {Type: Int}},
		{{Type: BigInt}},
		{{Type: UUID}, {Type: TimeUUID, Desc: true}},
		{{Type: Int, Desc: true}, {Type: Blob, Desc: true}},
	}
	f.Fuzz(func(t *testing.T, enc []byte, schema uint8) {
		cols := schemas[int(schema)%len(schemas)]
		values, kind, n, err := DecodeClustering(cols, enc)
		if err != nil {
			return
		}
		re, err := AppendClustering(nil, cols, values, kind)
		if err != nil {
			t.Fatalf("decoded %x from %x, which does not re-encode: %v", values, enc[:n], err)
		}
		if !bytes.Equal(re, enc[:n]) {
			t.Fatalf("decoded %x from %x, re-encodes to %x", values, enc[:n], re)
		}
	})
}
