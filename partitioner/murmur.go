package partitioner

import (
	"encoding/binary"
	"math/bits"
)

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// Hash3x64_128 is Cassandra's MurmurHash.hash3_x64_128 over data with the
// given seed, returning Java's result[0] and result[1] as uint64 (convert
// with int64() for Java's signed values).
//
// It is MurmurHash3_x64_128 except for one quirk that must be kept: in the
// tail (the last len%16 bytes) Cassandra widens each byte as a signed Java
// byte, so a byte >= 0x80 sets every bit above it in its lane. A reference
// murmur3 library gives different tokens for such keys (docs/format.md §3.1).
func Hash3x64_128(data []byte, seed uint64) (h1, h2 uint64) {
	h1, h2 = seed, seed
	n := len(data)
	body := data[:n&^15]
	for len(body) >= 16 {
		k1 := binary.LittleEndian.Uint64(body)
		k2 := binary.LittleEndian.Uint64(body[8:])
		body = body[16:]

		h1 ^= mixK1(k1)
		h1 = bits.RotateLeft64(h1, 27) + h2
		h1 = h1*5 + 0x52dce729

		h2 ^= mixK2(k2)
		h2 = bits.RotateLeft64(h2, 31) + h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := data[n&^15:]
	var k1, k2 uint64
	for j := len(tail) - 1; j >= 8; j-- {
		k2 ^= signExtend(tail[j]) << (8 * (j - 8))
	}
	if len(tail) > 8 {
		h2 ^= mixK2(k2)
	}
	for j := min(len(tail), 8) - 1; j >= 0; j-- {
		k1 ^= signExtend(tail[j]) << (8 * j)
	}
	if len(tail) > 0 {
		h1 ^= mixK1(k1)
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

// signExtend widens b the way Java widens a (signed) byte to long.
func signExtend(b byte) uint64 { return uint64(int64(int8(b))) }

func mixK1(k uint64) uint64 {
	k *= murmurC1
	k = bits.RotateLeft64(k, 31)
	return k * murmurC2
}

func mixK2(k uint64) uint64 {
	k *= murmurC2
	k = bits.RotateLeft64(k, 33)
	return k * murmurC1
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
