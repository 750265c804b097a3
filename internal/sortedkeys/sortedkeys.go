// Package sortedkeys generates huge Murmur3 key sets already in
// Cassandra's decorated-key order, one key at a time and by index, so a
// benchmark can build or probe an index of 10^8 keys while holding none
// of them.
//
// Key i of a set of n has the token
//
//	MinInt64 + 1 + i*w + floor(r(i) * w / 2^64),   w = floor((2^64 - 1) / n)
//
// (one uniformly random token in each of n equal strata of the token
// range, r a seeded 64-bit mix of i, scaled by a multiply rather than a
// division: key i costs a few multiplies), so tokens strictly increase with i
// and no two keys share one. Its raw key is the 16 bytes whose
// MurmurHash3 x64_128 (seed 0, Cassandra's Hash3x64_128) has that token
// as h1 and a random h2: for a 16-byte input every step of the hash is a
// bijection of the 128-bit state (Invert). Nothing is sorted and nothing
// is stored, so key i costs the same at any n and any i.
//
// Stratified tokens are not exactly the order statistics of n uniform
// tokens: neighbouring gaps are bounded by 2w instead of exponentially
// distributed, so the shared token prefixes (and the trie's depth) vary
// less than in a real Murmur3 table. The mean shared prefix, about
// log2(n) bits, is the same.
package sortedkeys

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/bti-go/bti/partitioner"
)

// Version names the generator: the tokens, raw keys and positions it
// yields for a given (Count, Seed). It is part of every cache file name
// derived from a set; change it whenever any of them changes.
const Version = "sortedkeys-v2"

// KeyLen is the length of every generated raw key.
const KeyLen = 16

// Set is a generated set of keys. Its methods are pure functions of the
// index: safe for concurrent use, and nothing is stored per key.
type Set struct {
	count int
	seed  uint64
	width uint64 // the size of each key's token stratum
}

// maxCount is the largest set: 2^62 keys leave every stratum at least
// three tokens wide (room for a miss between neighbours), and an int
// (the index type) holds no more than math.MaxInt, 2^31-1 on 32-bit
// platforms.
const maxCount = min(1<<62, math.MaxInt)

// CountError reports a set size the generator cannot produce.
type CountError struct{ Count int }

func (e *CountError) Error() string {
	return fmt.Sprintf("sortedkeys: set of %d keys: want 1 to %d", e.Count, maxCount)
}

// New returns the set of count keys generated from seed. count must be 1
// to 2^62 (math.MaxInt where that is smaller), so every stratum holds at
// least three tokens (room for a miss between neighbours).
func New(count int, seed uint64) (*Set, error) {
	if count < 1 || count > maxCount {
		return nil, &CountError{Count: count}
	}
	return &Set{count: count, seed: seed, width: math.MaxUint64 / uint64(count)}, nil
}

// Count returns the number of keys.
func (s *Set) Count() int { return s.count }

// Seed returns the seed.
func (s *Set) Seed() uint64 { return s.seed }

// mix is splitmix64's finaliser over the seed, the index and a stream
// number, so the token, h2 and position draws of one key are independent.
func (s *Set) mix(i int, stream uint64) uint64 {
	z := s.seed ^ (uint64(i)*0x9e3779b97f4a7c15 + stream*0xd1b54a32d192ed03)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below maps a uniform 64-bit r to [0, n) by the high word of r*n
// (Lemire's multiply-shift): no division, and uniform to within n/2^64.
func below(r, n uint64) uint64 {
	hi, _ := bits.Mul64(r, n)
	return hi
}

// offset is key i's token as an unsigned distance from MinInt64+1.
func (s *Set) offset(i int) uint64 {
	return uint64(i)*s.width + below(s.mix(i, 0), s.width)
}

// tokenAt maps an offset to a token: offsets 0..2^64-2 are the tokens
// MinInt64+1..MaxInt64, every token a hashed key can have (Murmur3 gives
// MinInt64 only to the empty key).
func tokenAt(off uint64) int64 { return int64(off + (1<<63 + 1)) }

// Token returns the token of key i (0 <= i < Count()).
func (s *Set) Token(i int) int64 { return tokenAt(s.offset(i)) }

// Key writes the raw bytes of key i into raw and returns the decorated
// key, which references raw. It equals partitioner.Murmur3.Decorate(raw[:])
// field by field but skips the forward hash (the tests check the two
// agree).
func (s *Set) Key(i int, raw *[KeyLen]byte) partitioner.Key {
	return keyFor(s.Token(i), s.mix(i, 1), raw)
}

func keyFor(token int64, h2 uint64, raw *[KeyLen]byte) partitioner.Key {
	*raw = Invert(uint64(token), h2)
	return partitioner.Key{Partitioner: partitioner.Murmur3, Token: token, Raw: raw[:], Hash2: h2, Hashed: true}
}

// Pos returns the position of key i: a Rows.db offset that grows by 64 to
// 127 bytes a key, as the row index entries of small partitions do, so
// payload sizes grow with the set as in a real table.
func (s *Set) Pos(i int) int64 { return int64(i)*64 + int64(s.mix(i, 2)&63) }

// Miss writes into raw a key that is not in the set, whose token lies
// strictly between the tokens of keys i and i+1 (above the last key's
// for i = Count()-1), and returns it decorated. ok is false when there is
// no such token (the two keys' tokens are adjacent, or i is the last key
// and its token is MaxInt64). Absence follows from the token alone:
// every key of the set has its own stratum's token.
func (s *Set) Miss(i int, raw *[KeyLen]byte) (k partitioner.Key, ok bool) {
	lo := s.offset(i)
	hi := uint64(math.MaxUint64) // one past the largest offset, MaxInt64's
	if i+1 < s.count {
		hi = s.offset(i + 1)
	}
	if hi-lo < 2 {
		return partitioner.Key{}, false
	}
	mid := lo + 1 + below(s.mix(i, 3), hi-lo-1)
	return keyFor(tokenAt(mid), s.mix(i, 4), raw), true
}

// Constants of Hash3x64_128 (partitioner/murmur.go) and their inverses
// modulo 2^64.
const (
	c1 = 0x87c37b91114253d5
	c2 = 0x4cf5ad432745937f
	f1 = 0xff51afd7ed558ccd
	f2 = 0xc4ceb9fe1a85ec53
)

var (
	c1Inv = inverse(c1)
	c2Inv = inverse(c2)
	f1Inv = inverse(f1)
	f2Inv = inverse(f2)
	inv5  = inverse(5)
)

// inverse returns the multiplicative inverse of odd a modulo 2^64 by
// Newton's iteration (each step doubles the correct low bits; a is its
// own inverse modulo 8, so five steps reach 96 bits).
func inverse(a uint64) uint64 {
	x := a
	for range 5 {
		x *= 2 - a*x
	}
	return x
}

// unfmix64 inverts fmix64: x ^= x>>33 is its own inverse (33 > 64/2).
func unfmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= f2Inv
	k ^= k >> 33
	k *= f1Inv
	k ^= k >> 33
	return k
}

// Invert returns the 16 bytes whose Hash3x64_128(·, 0) is (h1, h2). It
// undoes, last step first, the hash of one full 16-byte block: no tail,
// so Cassandra's sign extension of tail bytes (partitioner.Hash3x64_128)
// plays no part, and the length xor is 16.
func Invert(h1, h2 uint64) [KeyLen]byte {
	// Undo the final h1 += h2; h2 += h1, fmix64 of both, and the
	// additions and length xor before them.
	h2 -= h1
	h1 -= h2
	h1, h2 = unfmix64(h1), unfmix64(h2)
	h2 -= h1
	h1 -= h2
	h1 ^= KeyLen
	h2 ^= KeyLen
	// Undo the block: h2 = (rotl(mixK2(k2), 31) + h1)*5 + 0x38495ab5
	// with h1 already final, then h1 = rotl(mixK1(k1), 27)*5 + 0x52dce729
	// (both lanes start at the seed, 0).
	m2 := bits.RotateLeft64((h2-0x38495ab5)*inv5-h1, -31)
	m1 := bits.RotateLeft64((h1-0x52dce729)*inv5, -27)
	k1 := bits.RotateLeft64(m1*c2Inv, -31) * c1Inv
	k2 := bits.RotateLeft64(m2*c1Inv, -33) * c2Inv
	var raw [KeyLen]byte
	binary.LittleEndian.PutUint64(raw[:8], k1)
	binary.LittleEndian.PutUint64(raw[8:], k2)
	return raw
}
