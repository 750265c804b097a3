package partitioner

import (
	"bytes"
	"cmp"
	"crypto/md5"
	"encoding/binary"
	"math"

	"github.com/bti-go/bti/bytecomparable"
)

// MaxKeyLength is the longest partition key Cassandra can store: every
// file that holds one (the partition index footer, Rows.db, Data.db) writes
// its length as an unsigned 16-bit integer.
const MaxKeyLength = math.MaxUint16

// Key is a decorated partition key: the raw key bytes with the token of its
// partitioner. Only the token field of Partitioner is meaningful (Token for
// Murmur3, RandomToken for Random; a ByteOrdered token is Raw itself).
//
// Decorate fills every field. Tests and tools may also build a Key by hand,
// for instance two keys with the same Murmur3 token:
//
//	a := partitioner.Key{Partitioner: partitioner.Murmur3, Token: 1, Raw: []byte{0}}
//
// A hand-made key has Hashed == false and HashByte hashes Raw on demand.
type Key struct {
	Partitioner Partitioner
	Token       int64       // Murmur3 token
	RandomToken RandomToken // Random token
	Raw         []byte      // partition key bytes; referenced, not copied

	// Hash2 is h2 of Hash3x64_128(Raw, 0) when Hashed is true. Decorate
	// computes it along with the token; it is stale if Raw is modified.
	Hash2  uint64
	Hashed bool
}

// Decorate returns the decorated key of raw. The Key references raw (no
// copy) and Decorate does not allocate.
func (p Partitioner) Decorate(raw []byte) Key {
	h1, h2 := Hash3x64_128(raw, 0)
	k := Key{Partitioner: p, Raw: raw, Hash2: h2, Hashed: true}
	switch p {
	case Murmur3:
		k.Token = murmur3Token(raw, h1)
	case Random:
		k.RandomToken = randomToken(raw)
	}
	return k
}

// murmur3Token is Murmur3Partitioner.getToken: the empty key gets the
// minimum token without hashing, and a hashed key never does (MIN becomes
// MAX), so the minimum token only ever stands for the empty key.
func murmur3Token(raw []byte, h1 uint64) int64 {
	if len(raw) == 0 {
		return math.MinInt64
	}
	if t := int64(h1); t != math.MinInt64 {
		return t
	}
	return math.MaxInt64
}

// RandomToken is a RandomPartitioner token. Tokens of non-empty keys lie in
// [0, 2^127] and are held as an unsigned 128-bit number (Hi, Lo); the empty
// key gets Cassandra's MINIMUM token -1, held as Min.
type RandomToken struct {
	Hi, Lo uint64 // value, high and low 64 bits; zero when Min
	Min    bool   // the minimum token, -1
}

// randomToken is RandomPartitioner.getToken: MD5 of the key read as a
// signed big-endian 128-bit integer, then its absolute value (|-2^127| =
// 2^127 still fits the unsigned representation).
func randomToken(raw []byte) RandomToken {
	if len(raw) == 0 {
		return RandomToken{Min: true}
	}
	sum := md5.Sum(raw)
	hi := binary.BigEndian.Uint64(sum[:8])
	lo := binary.BigEndian.Uint64(sum[8:])
	if hi>>63 != 0 { // negative: negate the two's complement
		hi, lo = ^hi, ^lo
		lo++
		if lo == 0 {
			hi++
		}
	}
	return RandomToken{Hi: hi, Lo: lo}
}

// Compare orders tokens as Cassandra's BigIntegerToken: Min first, then by
// value.
func (t RandomToken) Compare(u RandomToken) int {
	if t.Min || u.Min {
		return cmpBool(t.Min, u.Min)
	}
	if c := cmp.Compare(t.Hi, u.Hi); c != 0 {
		return c
	}
	return cmp.Compare(t.Lo, u.Lo)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a: // true (the minimum) sorts first
		return -1
	}
	return 1
}

// twosComplement writes t as Java's BigInteger.toByteArray() (minimal
// big-endian two's complement) into buf and returns the used tail of buf.
func (t RandomToken) twosComplement(buf *[17]byte) []byte {
	if t.Min {
		buf[16] = 0xFF
		return buf[16:]
	}
	buf[0] = 0
	binary.BigEndian.PutUint64(buf[1:], t.Hi)
	binary.BigEndian.PutUint64(buf[9:], t.Lo)
	i := 0
	// Drop a leading 00 while the next byte still reads as positive.
	for i < 16 && buf[i] == 0 && buf[i+1] < 0x80 {
		i++
	}
	return buf[i:]
}

// HashByte returns the byte stored with each key in the partition index:
// the low byte of h2 of Hash3x64_128(Raw, 0), for every partitioner
// (docs/format.md §3.2; it is not taken from the token).
func (k Key) HashByte() byte {
	if k.Hashed {
		return byte(k.Hash2)
	}
	_, h2 := Hash3x64_128(k.Raw, 0)
	return byte(h2)
}

// AppendComparable appends the OSS50 byte-comparable encoding of k to dst
// (see package bytecomparable). It does not allocate when dst has capacity.
func (k Key) AppendComparable(dst []byte) []byte {
	switch k.Partitioner {
	case ByteOrdered:
		return bytecomparable.AppendBytesTokenKey(dst, k.Raw)
	case Random:
		var buf [17]byte
		return bytecomparable.AppendBigIntTokenKey(dst, k.RandomToken.twosComplement(&buf), k.Raw)
	}
	return bytecomparable.AppendLongTokenKey(dst, k.Token, k.Raw)
}

// AppendBound appends the min (max == false) or max bound of k's token: an
// encoding that sorts before (after) every key with that token and after
// (before) every key with a smaller (greater) token. Use it for token-range
// lookups in the index.
func (k Key) AppendBound(dst []byte, max bool) []byte {
	switch k.Partitioner {
	case ByteOrdered:
		return bytecomparable.AppendBytesTokenBound(dst, k.Raw, max)
	case Random:
		var buf [17]byte
		return bytecomparable.AppendBigIntTokenBound(dst, k.RandomToken.twosComplement(&buf), max)
	}
	return bytecomparable.AppendLongTokenBound(dst, k.Token, max)
}

// AppendMinBound appends the min bound of the token of the raw key
// (p.Decorate(raw).AppendBound(dst, false)).
func (p Partitioner) AppendMinBound(dst, raw []byte) []byte {
	return p.Decorate(raw).AppendBound(dst, false)
}

// AppendMaxBound appends the max bound of the token of the raw key.
func (p Partitioner) AppendMaxBound(dst, raw []byte) []byte {
	return p.Decorate(raw).AppendBound(dst, true)
}

// Compare orders decorated keys as Cassandra does: by token (signed for
// Murmur3, unsigned bytes for ByteOrdered, numeric for Random), then by raw
// key bytes unsigned. It agrees with bytes.Compare of the AppendComparable
// encodings. Keys of different partitioners are never compared by
// Cassandra; here they are ordered by Partitioner so that Compare is total.
func Compare(a, b Key) int {
	if a.Partitioner != b.Partitioner {
		return cmp.Compare(a.Partitioner, b.Partitioner)
	}
	switch a.Partitioner {
	case Murmur3:
		if c := cmp.Compare(a.Token, b.Token); c != 0 {
			return c
		}
	case Random:
		if c := a.RandomToken.Compare(b.RandomToken); c != 0 {
			return c
		}
	}
	// ByteOrdered: the token is the key, so one comparison does both.
	return bytes.Compare(a.Raw, b.Raw)
}

// DecodeComparable decodes a full OSS50 decorated key of partitioner p
// (what AppendComparable wrote). The raw key bytes are appended to dst and
// the returned Key's Raw is that appended part. The token is taken from the
// encoding, not recomputed, so hand-made keys decode as they were built;
// Hashed is false.
func (p Partitioner) DecodeComparable(dst, enc []byte) (Key, error) {
	k := Key{Partitioner: p}
	start := len(dst)
	var out []byte
	var err error
	switch p {
	case Murmur3:
		k.Token, out, err = bytecomparable.DecodeLongTokenKey(dst, enc)
	case ByteOrdered:
		out, err = bytecomparable.DecodeBytesTokenKey(dst, enc)
	case Random:
		k.RandomToken, out, err = decodeRandomKey(dst, enc)
	default:
		return Key{}, ErrUnknown
	}
	if err != nil {
		return Key{}, err
	}
	k.Raw = out[start:]
	return k, nil
}
