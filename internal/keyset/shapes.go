package keyset

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
)

// Shape is a named generator of raw keys for one kind of test input: n keys
// (not yet sorted, possibly with duplicates) drawn from r.
type Shape struct {
	Name string
	Gen  func(r *rand.Rand, n int) [][]byte
}

// Shapes are the key shapes the model tests of partitionindex and the
// checks of audit both build from: random bytes, big-endian counters, keys
// over {00, 01, FE, FF} (escapes and terminators), keys behind a 5,000-byte
// shared prefix, and keys that are prefixes of others. Tests index it by
// position, so new shapes go at the end.
var Shapes = []Shape{
	{"random", func(r *rand.Rand, n int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = RandomBytes(r, 0, 24, nil)
		}
		return out
	}},
	{"sequential", func(r *rand.Rand, n int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = binary.BigEndian.AppendUint64(nil, uint64(i))
		}
		return out
	}},
	{"zeros-and-ff", func(r *rand.Rand, n int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = RandomBytes(r, 0, 6, []byte{0x00, 0x01, 0xFE, 0xFF})
		}
		return out
	}},
	{"long-shared-prefix", func(r *rand.Rand, n int) [][]byte {
		prefix := RandomBytes(r, 5000, 5000, nil)
		out := make([][]byte, n)
		for i := range out {
			out[i] = append(slices.Clone(prefix), RandomBytes(r, 0, 8, []byte{0, 1, 2, 0xFF})...)
		}
		return out
	}},
	{"prefixes-of-others", func(r *rand.Rand, n int) [][]byte {
		out := make([][]byte, 0, n)
		for len(out) < n {
			k := RandomBytes(r, 1, 12, []byte("abc"))
			out = append(out, k)
			for j := 1; j < len(k) && len(out) < n; j += 1 + r.IntN(3) {
				out = append(out, k[:j])
			}
		}
		return out
	}},
}

// RandomBytes returns between minLen and maxLen random bytes, drawn from
// alphabet if it is not nil.
func RandomBytes(r *rand.Rand, minLen, maxLen int, alphabet []byte) []byte {
	return RandomBytesN(r, minLen+r.IntN(maxLen-minLen+1), alphabet)
}

// RandomBytesN returns n random bytes, drawn from alphabet if it is not nil.
func RandomBytesN(r *rand.Rand, n int, alphabet []byte) []byte {
	b := make([]byte, n)
	for i := range b {
		if alphabet != nil {
			b[i] = alphabet[r.IntN(len(alphabet))]
		} else {
			b[i] = byte(r.Uint32())
		}
	}
	return b
}

// UniquePositions returns n distinct positions for the keys of a model
// test: every payload size (the i-th key's is (i+1) << 7k plus noise, for
// a random k < 8) and both signs, distinct so that a model can map a
// position back to its key.
func UniquePositions(r *rand.Rand, n int) []int64 {
	positions := make([]int64, n)
	used := make(map[int64]bool, n)
	for i := range positions {
		for {
			v := int64(i+1)<<(r.IntN(8)*7) + int64(r.IntN(1000))
			if r.IntN(2) == 0 {
				v = ^v
			}
			if !used[v] {
				used[v] = true
				positions[i] = v
				break
			}
		}
	}
	return positions
}
