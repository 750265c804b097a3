package bytecomparable

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

var benchKeyLens = []int{16, 64, 4096}

// benchKey returns a fixed-seed key with about one zero byte in sixteen, so
// the escaping's slow path is exercised as it is by real binary keys.
func benchKey(n int) []byte {
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	k := make([]byte, n)
	for i := range k {
		if rng.IntN(16) != 0 {
			k[i] = byte(1 + rng.IntN(255))
		}
	}
	return k
}

func BenchmarkEncode(b *testing.B) {
	for _, n := range benchKeyLens {
		key := benchKey(n)
		b.Run("keylen="+strconv.Itoa(n)+"/partitioner=murmur3", func(b *testing.B) {
			slot := make([]byte, 0, 2*n+32)
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				slot = AppendLongTokenKey(slot[:0], -4069959284402364209, key)
			}
		})
		b.Run("keylen="+strconv.Itoa(n)+"/partitioner=byteordered", func(b *testing.B) {
			slot := make([]byte, 0, 2*n+32)
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				slot = AppendBytesTokenKey(slot[:0], key)
			}
		})
	}
}

func BenchmarkDiffPoint(b *testing.B) {
	for _, n := range benchKeyLens {
		// Two encodings that differ only in their last key byte: the worst
		// case, a full scan.
		key := benchKey(n)
		other := append([]byte{}, key...)
		other[n-1] ^= 0x55
		ea := AppendBytesTokenKey(nil, key)
		eb := AppendBytesTokenKey(nil, other)
		b.Run("keylen="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(ea)))
			var sink int
			for b.Loop() {
				sink += DiffPoint(ea, eb)
			}
			_ = sink
		})
	}
}
