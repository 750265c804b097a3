package bytecomparable

import (
	"bytes"
	"cmp"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
)

// toByteArray mirrors Java's BigInteger.toByteArray(): minimal big-endian
// two's complement, at least one byte.
func toByteArray(x *big.Int) []byte {
	n := x.BitLen()/8 + 1 // BigInteger.bitLength()/8+1, also for negatives below
	if x.Sign() < 0 {
		// bitLength of a negative number is that of ^x = -x-1.
		m := new(big.Int).Not(x)
		n = m.BitLen()/8 + 1
		mod := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
		return new(big.Int).Add(mod, x).FillBytes(make([]byte, n))
	}
	return x.FillBytes(make([]byte, n))
}

func TestVarIntVectors(t *testing.T) {
	// Cassandra ByteSource.java, VariableLengthInteger javadoc.
	cases := []struct {
		v    int64
		want string
	}{
		{0, "80"}, {1, "81"}, {-1, "7F"}, {63, "BF"}, {64, "C0 40"}, {-64, "40"},
		{-65, "3F BF"}, {1<<20 - 1, "EF FF FF"}, {1 << 20, "F0 10 00 00"}, {-1 << 20, "10 00 00"},
	}
	for _, c := range cases {
		enc := appendVarInt(nil, c.v)
		assert.Equal(t, golden.Hex(t, c.want), enc, "%d", c.v)
		v, n, err := decodeVarInt(enc)
		require.NoError(t, err)
		assert.Equal(t, c.v, v)
		assert.Equal(t, len(enc), n)
	}
}

func TestBigIntVectors(t *testing.T) {
	pow := func(e uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), e) }
	sub1 := func(x *big.Int) *big.Int { return new(big.Int).Sub(x, big.NewInt(1)) }
	cases := []struct {
		v    *big.Int
		want string
	}{
		// Cassandra IntegerType.java, asComparableBytes javadoc (short forms).
		{big.NewInt(-1), "7F"},
		{big.NewInt(0), "80"},
		{big.NewInt(1), "81"},
		{big.NewInt(127), "C0 7F"},
		{big.NewInt(255), "C0 FF"},
		{sub1(pow(32)), "F8 FF FF FF FF"},
		{pow(32), "F9 00 00 00 00"},
		// Full forms, derived from IntegerType.asComparableBytesCurrent (the
		// same javadoc lists FEFFFFFFFFFFFFFF and FF000100000000000000 for
		// these two, which the code does not produce; see the report).
		{sub1(pow(56)), "FF 00 FF FF FF FF FF FF FF"},
		{pow(56), "FF 01 01 00 00 00 00 00 00 00"},
		// Boundary between the forms: 6 significant bytes or fewer use a varint.
		{sub1(pow(48)), "FE FF FF FF FF FF FF"},
		{pow(48), "FF 00 01 00 00 00 00 00 00"},
		{new(big.Int).Neg(pow(48)), "01 00 00 00 00 00 00"},
		{new(big.Int).Neg(new(big.Int).Add(pow(48), big.NewInt(1))), "00 FF FE FF FF FF FF FF FF"},
		// The largest RandomPartitioner token, 2^127: 16 digits after FF 09.
		{pow(127), "FF 09 80 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"},
	}
	for _, c := range cases {
		twos := toByteArray(c.v)
		enc := AppendBigInt(nil, twos)
		assert.Equal(t, golden.Hex(t, c.want), enc, "%v", c.v)
		dec, n, err := DecodeBigInt(nil, enc)
		require.NoError(t, err, "%v", c.v)
		assert.Equal(t, len(enc), n)
		assert.Equal(t, twos, dec, "%v", c.v)
	}
	// Token keys and bounds wrap the integer in the usual sequence bytes.
	assert.Equal(t, golden.Hex(t, "40 81 40 61 00 38"), AppendBigIntTokenKey(nil, []byte{1}, []byte("a")))
	assert.Equal(t, golden.Hex(t, "40 7F 20"), AppendBigIntTokenBound(nil, []byte{0xFF}, false))
	assert.Equal(t, golden.Hex(t, "3E 40 61 00 38"), AppendBigIntTokenKey(nil, nil, []byte("a")), "empty varint is a null component")
}

func randBigInt(rng *rand.Rand) *big.Int {
	n := rng.IntN(20)
	b := make([]byte, n)
	for i := range b {
		b[i] = []byte{0x00, 0xFF, 0x80, 0x7F, byte(rng.Uint32())}[rng.IntN(5)]
	}
	x := new(big.Int).SetBytes(b)
	if rng.IntN(2) == 0 {
		x.Neg(x)
	}
	return x
}

func TestBigIntOrderProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		a, b := randBigInt(rng), randBigInt(rng)
		ea, eb := AppendBigInt(nil, toByteArray(a)), AppendBigInt(nil, toByteArray(b))
		require.Equal(t, a.Cmp(b), bytes.Compare(ea, eb), "%v %v", a, b)
		if a.Cmp(b) != 0 {
			require.False(t, bytes.HasPrefix(ea, eb) || bytes.HasPrefix(eb, ea), "prefix-free %v %v", a, b)
		}
		dec, n, err := DecodeBigInt(nil, ea)
		require.NoError(t, err, "%v", a)
		require.Equal(t, len(ea), n)
		require.Equal(t, toByteArray(a), dec, "%v", a)

		// Varints alone, over the whole int64 range.
		va, vb := int64(rng.Uint64())>>rng.IntN(64), int64(rng.Uint64())>>rng.IntN(64)
		xa, xb := appendVarInt(nil, va), appendVarInt(nil, vb)
		require.Equal(t, cmp.Compare(va, vb), bytes.Compare(xa, xb), "%d %d", va, vb)
		got, _, err := decodeVarInt(xa)
		require.NoError(t, err)
		require.Equal(t, va, got)
	}
}

func TestDecodeBigIntRejects(t *testing.T) {
	for _, enc := range []string{
		"",                           // empty
		"C0",                         // truncated varint
		"C0 01",                      // non-minimal varint (1 fits one byte)
		"FF",                         // full form without length
		"FF 00 01 02",                // digits missing
		"FF 00 00 01 02 03 04 05 06", // leading 00 digit
		"00 FF FF 00 00 00 00 00 00", // leading FF digit of a negative
	} {
		_, _, err := DecodeBigInt(nil, golden.Hex(t, enc))
		assert.ErrorIs(t, err, ErrMalformed, "%q", enc)
	}
}
