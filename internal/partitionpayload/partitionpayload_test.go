package partitionpayload

import (
	"encoding/binary"
	"math"
	"testing"
)

// appendForTest writes a payload as Cassandra's writer does (hash byte,
// then the position in PositionSize bytes, big-endian two's complement), so
// Decode is checked against the layout written out here rather than
// against Append.
func appendForTest(dst []byte, hash byte, v int64) ([]byte, byte) {
	n := PositionSize(v)
	var word [8]byte
	binary.BigEndian.PutUint64(word[:], uint64(v))
	return append(append(dst, hash), word[8-n:]...), byte(FlagHasHash | (n - 1))
}

func TestDecode(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 127, 128, -128, -129, 1 << 15, 1<<31 - 1, -1 << 31, 1 << 33, -(1 << 40), 1 << 62, math.MaxInt64, math.MinInt64 + 1} {
		for _, tail := range []int{0, 8} { // near the trie's end, and with bytes after
			b, flags := appendForTest(nil, 0x5a, v)
			b = append(b, make([]byte, tail)...)
			hash, hasHash, got, ok := Decode(flags, b)
			if !ok || !hasHash || hash != 0x5a || got != v {
				t.Errorf("v=%d tail=%d: Decode(%#x, %x) = %02x %v %d %v", v, tail, flags, b, hash, hasHash, got, ok)
			}
			if Length(flags) != int64(1+PositionSize(v)) {
				t.Errorf("v=%d: Length(%#x) = %d, want %d", v, flags, Length(flags), 1+PositionSize(v))
			}
			if _, _, _, ok := Decode(flags, b[:Length(flags)-1]); ok {
				t.Errorf("v=%d: a payload one byte short decodes", v)
			}
		}
	}
	// The hash-less form Cassandra reads but never writes: flags bytes.
	if hash, hasHash, v, ok := Decode(2, []byte{0xff, 0x7f}); !ok || hasHash || hash != 0 || v != -129 {
		t.Errorf("hash-less ff7f: %02x %v %d %v", hash, hasHash, v, ok)
	}
	if Length(2) != 2 {
		t.Errorf("Length(2) = %d", Length(2))
	}
	if _, _, _, ok := Decode(0, []byte{1, 2, 3}); ok {
		t.Error("flags 0 decodes")
	}
	if PositionSize(0) != 1 || PositionSize(-1) != 1 || PositionSize(128) != 2 || PositionSize(math.MaxInt64) != 8 {
		t.Error("PositionSize is not SizedInts.nonZeroSize")
	}
	if PositionSize(math.MinInt64) != 8 {
		t.Error("PositionSize(NOT_FOUND)")
	}
}

// TestAppend checks the writers' encoder against the layout spelled out in
// appendForTest, after a non-empty prefix.
func TestAppend(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 127, 128, -129, 1 << 33, -(1 << 40), math.MaxInt64, math.MinInt64 + 1} {
		prefix := []byte{0xee, 0xdd}
		got, gotFlags := Append(prefix, 0x5a, v)
		want, wantFlags := appendForTest([]byte{0xee, 0xdd}, 0x5a, v)
		if string(got) != string(want) || gotFlags != wantFlags {
			t.Errorf("v=%d: Append = %x flags %#x, want %x flags %#x", v, got, gotFlags, want, wantFlags)
		}
	}
}

// TestPut checks the fixed-array encoder against the layout spelled out in
// appendForTest and against Append, for a position of every size, so that
// the builder's Murmur3 path (Put) and its other paths and the reference
// builder (Append) write the same bytes.
func TestPut(t *testing.T) {
	for size := 1; size <= 8; size++ {
		top := int64(1)<<(8*size-1) - 1 // the largest position of this size
		if size == 8 {
			top = math.MaxInt64
		}
		for _, v := range []int64{top, ^top, top >> 1, ^(top >> 1), top >> 4} {
			var dst [9]byte
			for i := range dst {
				dst[i] = 0xcc // bytes Put need not write stay visible
			}
			n, flags := Put(&dst, 0xa5, v)
			want, wantFlags := appendForTest(nil, 0xa5, v)
			if string(dst[:n]) != string(want) || flags != wantFlags {
				t.Errorf("v=%d: Put = %x flags %#x, want %x flags %#x", v, dst[:n], flags, want, wantFlags)
			}
			if got, gotFlags := Append(nil, 0xa5, v); string(got) != string(dst[:n]) || gotFlags != flags {
				t.Errorf("v=%d: Append = %x flags %#x, Put %x flags %#x", v, got, gotFlags, dst[:n], flags)
			}
		}
	}
}
