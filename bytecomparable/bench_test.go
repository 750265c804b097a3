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

// BenchmarkEscape escapes keys of 1 to maxLen bytes, a tenth of them zeros
// (bti gen --kind blob's mix), through the word loop and, where the CPU has
// it, escapeVector: one op is one key. The lengths vary from key to key, as
// in an index, so a loop whose trip count follows them mispredicts its exit.
func BenchmarkEscape(b *testing.B) {
	for _, maxLen := range []int{32, 64} {
		rng := rand.New(rand.NewPCG(uint64(maxLen), 5))
		keys := make([][]byte, 4096)
		for i := range keys {
			keys[i] = make([]byte, 1+rng.IntN(maxLen))
			for j := range keys[i] {
				if rng.IntN(10) != 0 {
					keys[i][j] = byte(1 + rng.IntN(255))
				}
			}
		}
		out := make([]byte, escapeVectorRoom(maxLen))
		for _, vector := range []bool{false, true} {
			path := "words"
			if vector {
				path = "vector"
			}
			b.Run("maxlen="+strconv.Itoa(maxLen)+"/path="+path, func(b *testing.B) {
				if vector && !haveEscapeVector {
					b.Skip("no escapeVector on this CPU")
				}
				defer func(v bool) { haveEscapeVector = v }(haveEscapeVector)
				haveEscapeVector = vector
				sink := 0
				i := 0
				for b.Loop() {
					n, _ := escapeFrom(out, 0, keys[i&4095], 0, false)
					sink += n
					i++
				}
				benchSink = sink
			})
		}
	}
}

var benchSink int
