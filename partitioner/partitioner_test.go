package partitioner

import (
	"bytes"
	"cmp"
	"crypto/md5"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
)

// TestHashVectors covers every row of docs/format.md §3.3.
func TestHashVectors(t *testing.T) {
	cases := []struct {
		key   string
		h1    int64
		h2    uint64
		hash  byte
		token int64
	}{
		{"", 0, 0x0000000000000000, 0x00, math.MinInt64},
		{"61", -8839064797231613815, 0xe6b53a48510e895a, 0x5a, -8839064797231613815},
		{"0001", 8985795910368437836, 0xf03c01326ec2e044, 0x44, 8985795910368437836},
		{"6162", -7815133031266706642, 0xe65ea7019b52d4ad, 0xad, -7815133031266706642},
		{"80", -5284281814142962636, 0x6ec0210d9ab133c5, 0xc5, -5284281814142962636},
		{"ff", -4442228696663692417, 0xac0bbee7ce7542c7, 0xc7, -4442228696663692417},
		{"00000001", -4069959284402364209, 0x798c330cbcdfe0e6, 0xe6, -4069959284402364209},
		{"00000002", -3248873570005575792, 0x935b4ba3001365e1, 0xe1, -3248873570005575792},
		{"00000003", 9010454139840013625, 0xf2250d841b22a133, 0x33, 9010454139840013625},
		{"00000004", -2729420104000364805, 0x6c9c00a1c9180502, 0x02, -2729420104000364805},
		{"00000005", -7509452495886106294, 0xd002e4d4ae611dc1, 0xc1, -7509452495886106294},
		{"000102030405060708090a0b0c0d0e0f", 4920504430128807728, 0xab906456762fe845, 0x45, 4920504430128807728},
		{"000102030405060708090a0b0c0d0e0f10", 6662781046685680142, 0xc15f026b9edaa824, 0x24, 6662781046685680142},
		{"ffeeddccbbaa99887766554433221100ff", 8563223953164522988, 0x90d46fd544c6ccf7, 0xf7, 8563223953164522988},
	}
	for _, c := range cases {
		raw := golden.Hex(t, c.key)
		h1, h2 := Hash3x64_128(raw, 0)
		assert.Equal(t, c.h1, int64(h1), "h1(%s)", c.key)
		assert.Equal(t, c.h2, h2, "h2(%s)", c.key)
		for _, p := range []Partitioner{Murmur3, ByteOrdered, Random} {
			k := p.Decorate(raw)
			assert.Equal(t, c.hash, k.HashByte(), "hash byte of %s, %v", c.key, p)
			// The lazily hashed path gives the same byte.
			assert.Equal(t, c.hash, Key{Partitioner: p, Raw: raw}.HashByte())
		}
		assert.Equal(t, c.token, Murmur3.Decorate(raw).Token, "token(%s)", c.key)
	}
}

// TestHashTailSignExtension pins the Cassandra quirk: a tail byte >= 0x80 is
// sign-extended, so the result differs from reference MurmurHash3, which
// treats the byte as unsigned. Flipping only the high bits of the lane that
// the sign extension sets must not matter, which the reference hash would
// notice.
func TestHashTailSignExtension(t *testing.T) {
	// For a one-byte key 0x80, the lane is 0xFFFFFFFFFFFFFF80 instead of
	// 0x80; recompute the reference value for comparison.
	ref := func(data []byte) uint64 { // reference MurmurHash3 h1 for len < 8
		var k1 uint64
		for j := len(data) - 1; j >= 0; j-- {
			k1 ^= uint64(data[j]) << (8 * j)
		}
		h1 := mixK1(k1)
		h2 := uint64(0)
		h1 ^= uint64(len(data))
		h2 ^= uint64(len(data))
		h1 += h2
		h2 += h1
		h1, h2 = fmix64(h1), fmix64(h2)
		return h1 + h2
	}
	got, _ := Hash3x64_128([]byte{0x7F}, 0)
	assert.Equal(t, ref([]byte{0x7F}), got, "bytes < 0x80 hash like the reference")
	got, _ = Hash3x64_128([]byte{0x80}, 0)
	assert.NotEqual(t, ref([]byte{0x80}), got, "bytes >= 0x80 must not hash like the reference")
}

func TestMurmur3TokenNormalization(t *testing.T) {
	assert.Equal(t, int64(math.MinInt64), murmur3Token(nil, 12345), "empty key: MIN without hashing")
	assert.Equal(t, int64(math.MaxInt64), murmur3Token([]byte{1}, 1<<63), "hashed MIN becomes MAX")
	assert.Equal(t, int64(42), murmur3Token([]byte{1}, 42))
}

func TestParse(t *testing.T) {
	for name, want := range map[string]Partitioner{
		"murmur3": Murmur3, "Murmur3Partitioner": Murmur3, "org.apache.cassandra.dht.Murmur3Partitioner": Murmur3,
		"byteordered": ByteOrdered, "ByteOrderedPartitioner": ByteOrdered, "org.apache.cassandra.dht.ByteOrderedPartitioner": ByteOrdered,
		"random": Random, "RandomPartitioner": Random, "org.apache.cassandra.dht.RandomPartitioner": Random,
		" MURMUR3 ": Murmur3,
	} {
		got, err := Parse(name)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	for _, name := range []string{"", "murmur", "OrderPreservingPartitioner", "partitioner"} {
		_, err := Parse(name)
		assert.ErrorIs(t, err, ErrUnknown, name)
	}
	for _, p := range []Partitioner{Murmur3, ByteOrdered, Random} {
		got, err := Parse(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, got)
		got, err = Parse(p.ClassName())
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	assert.Equal(t, "Partitioner(9)", Partitioner(9).String())
	assert.Equal(t, Murmur3, Partitioner(0), "the zero value is Cassandra's default")
}

// TestComparableExamples covers the decorated-key examples of
// docs/format.md §2.3 through Decorate, i.e. with real tokens.
func TestComparableExamples(t *testing.T) {
	assert.Equal(t, golden.Hex(t, "40 FC B3 F5 C5 8D AB 26 4C 40 00 FF 01 00 38"),
		Murmur3.Decorate([]byte{0, 1}).AppendComparable(nil))
	assert.Equal(t, golden.Hex(t, "40 47 84 99 98 2A E4 E0 CF 40 00 FE FE FF 01 00 38"),
		Murmur3.Decorate([]byte{0, 0, 0, 1}).AppendComparable(nil))
	assert.Equal(t, golden.Hex(t, "40 00 00 00 00 00 00 00 00 40 00 38"), Murmur3.Decorate(nil).AppendComparable(nil))
	assert.Equal(t, golden.Hex(t, "40 80 00 00 00 00 00 00 01 40 00 FF 01 00 38"),
		Key{Partitioner: Murmur3, Token: 1, Raw: []byte{0, 1}}.AppendComparable(nil))
	assert.Equal(t, golden.Hex(t, "40 61 62 00 40 61 62 00 38"), ByteOrdered.Decorate([]byte("ab")).AppendComparable(nil))
	assert.Equal(t, golden.Hex(t, "40 00 40 00 38"), ByteOrdered.Decorate(nil).AppendComparable(nil))

	k1 := Key{Partitioner: Murmur3, Token: 1}
	assert.Equal(t, golden.Hex(t, "40 80 00 00 00 00 00 00 01 20"), k1.AppendBound(nil, false))
	assert.Equal(t, golden.Hex(t, "40 80 00 00 00 00 00 00 01 60"), k1.AppendBound(nil, true))
	assert.Equal(t, golden.Hex(t, "40 61 00 20"), ByteOrdered.AppendMinBound(nil, []byte("a")))
	assert.Equal(t, golden.Hex(t, "40 61 00 60"), ByteOrdered.AppendMaxBound(nil, []byte("a")))
	tok := Murmur3.Decorate([]byte{0, 1}).Token
	assert.Equal(t, Key{Partitioner: Murmur3, Token: tok}.AppendBound(nil, true), Murmur3.AppendMaxBound(nil, []byte{0, 1}))
}

// TestGoldenKeyOrder checks every Cassandra key set: successive keys, as
// Cassandra sorted them, must be strictly increasing both by Compare and by
// their OSS50 encodings.
func TestGoldenKeyOrder(t *testing.T) {
	golden.ForEach(t, func(t *testing.T, c golden.Case) {
		p, err := Parse(c.Partitioner)
		require.NoError(t, err, "folder prefix names no partitioner")
		var prev Key
		var prevEnc, enc []byte
		for i, e := range c.Entries(t) {
			k := p.Decorate(e.Key)
			enc = k.AppendComparable(enc[:0])
			if i > 0 {
				require.Negative(t, Compare(prev, k), "key %d (%x) does not follow key %d (%x)", i, e.Key, i-1, prev.Raw)
				require.Negative(t, bytes.Compare(prevEnc, enc), "encoding of key %d (%x) does not follow key %d", i, e.Key, i-1)
			}
			back, err := p.DecodeComparable(nil, enc)
			require.NoError(t, err)
			require.True(t, bytes.Equal(e.Key, back.Raw), "key %d decodes back", i)
			prev = k
			prevEnc, enc = enc, prevEnc
		}
	})
}

// randRaw draws keys heavy in 00/FF, sometimes empty and sometimes very
// long.
func randRaw(rng *rand.Rand) []byte {
	var n int
	switch r := rng.IntN(1000); {
	case r < 2:
		n = 60000 + rng.IntN(10001)
	case r < 80:
		n = 0
	default:
		n = rng.IntN(10)
	}
	b := make([]byte, n)
	heavy := rng.IntN(2) == 0
	for i := range b {
		if heavy {
			b[i] = []byte{0x00, 0xFF, 0x01, 0xFE}[rng.IntN(4)]
		} else {
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

// TestOrderProperty checks bytes.Compare(enc a, enc b) ==
// Compare(a, b) (both return -1, 0 or 1) and the decode round trip, for decorated keys and for
// hand-made keys with equal tokens (hash collisions, as in Cassandra's
// ByteSourceComparisonTest.testDecoratedKeyPrefixes).
func TestOrderProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	tokens := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}
	randTokens := []RandomToken{{Min: true}, {}, {Lo: 1}, {Hi: 1 << 63}, {Hi: 0x7F, Lo: math.MaxUint64}, {Lo: 1 << 55}}
	for i := range 3000 {
		ra, rb := randRaw(rng), randRaw(rng)
		if rng.IntN(4) == 0 {
			rb = append(append([]byte{}, ra...), randRaw(rng)...)
		}
		for _, p := range []Partitioner{Murmur3, ByteOrdered, Random} {
			a, b := p.Decorate(ra), p.Decorate(rb)
			if i%2 == 0 {
				// Equal tokens: build the keys directly.
				switch p {
				case Murmur3:
					tok := tokens[rng.IntN(len(tokens))]
					a = Key{Partitioner: p, Token: tok, Raw: ra}
					b = Key{Partitioner: p, Token: tok, Raw: rb}
				case Random:
					tok := randTokens[rng.IntN(len(randTokens))]
					a = Key{Partitioner: p, RandomToken: tok, Raw: ra}
					b = Key{Partitioner: p, RandomToken: tok, Raw: rb}
				}
			}
			ea, eb := a.AppendComparable(nil), b.AppendComparable(nil)
			require.Equal(t, Compare(a, b), bytes.Compare(ea, eb), "%v %x %x", p, ra, rb)
			require.Equal(t, -Compare(a, b), Compare(b, a))
			if !bytes.Equal(ea, eb) {
				require.False(t, bytes.HasPrefix(eb, ea) || bytes.HasPrefix(ea, eb), "prefix-free")
			}
			back, err := p.DecodeComparable(nil, ea)
			require.NoError(t, err)
			require.Zero(t, Compare(a, back))
			require.True(t, bytes.Equal(ra, back.Raw))

			// Bounds of a's token enclose every key with that token.
			lo, hi := a.AppendBound(nil, false), a.AppendBound(nil, true)
			require.Negative(t, bytes.Compare(lo, ea))
			require.Positive(t, bytes.Compare(hi, ea))
		}
	}
	// Random tokens alone, against the encodings.
	for range 2000 {
		a := RandomToken{Hi: rng.Uint64() >> rng.IntN(64), Lo: rng.Uint64() >> rng.IntN(64)}
		b := RandomToken{Hi: rng.Uint64() >> rng.IntN(64), Lo: rng.Uint64() >> rng.IntN(64)}
		if rng.IntN(10) == 0 {
			a = RandomToken{Min: true}
		}
		ka, kb := Key{Partitioner: Random, RandomToken: a}, Key{Partitioner: Random, RandomToken: b}
		require.Equal(t, a.Compare(b), bytes.Compare(ka.AppendComparable(nil), kb.AppendComparable(nil)), "%+v %+v", a, b)
	}
}

func TestAppendKeepsPrefix(t *testing.T) {
	prefix := []byte("prefix")
	for _, p := range []Partitioner{Murmur3, ByteOrdered, Random} {
		k := p.Decorate([]byte{0, 'k', 0})
		want := k.AppendComparable(nil)
		got := k.AppendComparable(append([]byte{}, prefix...))
		assert.Equal(t, append(append([]byte{}, prefix...), want...), got, "%v", p)
		wantB := k.AppendBound(nil, true)
		gotB := k.AppendBound(append([]byte{}, prefix...), true)
		assert.Equal(t, append(append([]byte{}, prefix...), wantB...), gotB, "%v", p)
	}
}

func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	raw := bytes.Repeat([]byte{0, 1, 2, 0xFF, 0}, 40)
	slot := make([]byte, 0, 1024)
	var sinkKey Key
	var sinkByte byte
	for _, p := range []Partitioner{Murmur3, ByteOrdered, Random} {
		k := p.Decorate(raw)
		lazy := Key{Partitioner: p, Raw: raw}
		for name, f := range map[string]func(){
			"Decorate":         func() { sinkKey = p.Decorate(raw) },
			"HashByte":         func() { sinkByte += k.HashByte() },
			"HashByte/lazy":    func() { sinkByte += lazy.HashByte() },
			"AppendComparable": func() { slot = k.AppendComparable(slot[:0]) },
			"AppendBound":      func() { slot = k.AppendBound(slot[:0], false) },
			"Compare":          func() { sinkByte += byte(Compare(k, lazy)) },
		} {
			assert.Zero(t, testing.AllocsPerRun(100, f), "%v %s", p, name)
		}
	}
	_, _ = sinkKey, sinkByte
}

func BenchmarkDecorate(b *testing.B) {
	for _, n := range []int{16, 64, 4096} {
		raw := bytes.Repeat([]byte{7}, n)
		for _, p := range []Partitioner{Murmur3, ByteOrdered, Random} {
			b.Run("keylen="+strconv.Itoa(n)+"/partitioner="+p.String(), func(b *testing.B) {
				slot := make([]byte, 0, 2*n+32)
				b.ReportAllocs()
				b.SetBytes(int64(n))
				for b.Loop() {
					slot = p.Decorate(raw).AppendComparable(slot[:0])
				}
			})
		}
	}
}

// TestTokenBounds: the bounds made from a token value are the bounds of a
// key with that token, and they bracket exactly the keys of their token: a
// key sorts after the min bound and before the max bound of its own token,
// and on the right side of both bounds of any other token.
func TestTokenBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 8))
	var keys []Key
	for range 300 {
		raw := make([]byte, 1+r.IntN(12))
		for i := range raw {
			raw[i] = byte(r.IntN(256))
		}
		keys = append(keys, Murmur3.Decorate(raw), Random.Decorate(raw))
	}
	keys = append(keys, Murmur3.Decorate(nil), Random.Decorate(nil)) // minimum tokens
	bound := func(k Key, max bool) []byte {
		if k.Partitioner == Random {
			return k.RandomToken.AppendBound([]byte("dst"), max)[3:]
		}
		return AppendMurmur3Bound([]byte("dst"), k.Token, max)[3:]
	}
	for _, k := range keys {
		for _, max := range []bool{false, true} {
			require.Equal(t, k.AppendBound(nil, max), bound(k, max), "%v %x", k.Partitioner, k.Raw)
		}
	}
	for _, k := range keys {
		enc := k.AppendComparable(nil)
		for _, o := range keys {
			if o.Partitioner != k.Partitioner {
				continue
			}
			lo, hi := bound(o, false), bound(o, true)
			c := compareToken(k, o)
			require.Equal(t, c >= 0, bytes.Compare(enc, lo) > 0, "key %x vs min bound of %x", k.Raw, o.Raw)
			require.Equal(t, c <= 0, bytes.Compare(enc, hi) < 0, "key %x vs max bound of %x", k.Raw, o.Raw)
		}
	}
	// The ends of the Murmur3 ring: every key lies within them.
	lo, hi := AppendMurmur3Bound(nil, math.MinInt64, false), AppendMurmur3Bound(nil, math.MaxInt64, true)
	for _, k := range keys {
		if k.Partitioner == Murmur3 {
			enc := k.AppendComparable(nil)
			require.True(t, bytes.Compare(lo, enc) < 0 && bytes.Compare(enc, hi) < 0)
		}
	}
}

// compareToken orders two keys of one partitioner by token alone.
func compareToken(a, b Key) int {
	if a.Partitioner == Random {
		return a.RandomToken.Compare(b.RandomToken)
	}
	return cmp.Compare(a.Token, b.Token)
}

// md5Token computes the RandomPartitioner token with math/big, as Java's
// new BigInteger(digest).abs() does.
func md5Token(raw []byte) *big.Int {
	sum := md5.Sum(raw)
	x := new(big.Int).SetBytes(sum[:])
	if sum[0] >= 0x80 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return x.Abs(x)
}

func (t RandomToken) big() *big.Int {
	if t.Min {
		return big.NewInt(-1)
	}
	x := new(big.Int).SetUint64(t.Hi)
	x.Lsh(x, 64)
	return x.Or(x, new(big.Int).SetUint64(t.Lo))
}

func TestRandomToken(t *testing.T) {
	assert.True(t, Random.Decorate(nil).RandomToken.Min, "empty key gets MINIMUM (-1)")
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		raw := make([]byte, rng.IntN(40)+1)
		for i := range raw {
			raw[i] = byte(rng.Uint32())
		}
		k := Random.Decorate(raw)
		require.Equal(t, md5Token(raw), k.RandomToken.big(), "%x", raw)
	}
	// |-2^127| = 2^127 still fits.
	var buf [17]byte
	top := RandomToken{Hi: 1 << 63}
	assert.Equal(t, golden.Hex(t, "00 80 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"), top.twosComplement(&buf))
	assert.Equal(t, []byte{0}, RandomToken{}.twosComplement(&buf))
	assert.Equal(t, []byte{0xFF}, RandomToken{Min: true}.twosComplement(&buf))
	assert.Equal(t, []byte{0x00, 0x80}, RandomToken{Lo: 0x80}.twosComplement(&buf))

	// A typical MD5 token has 16 significant bytes: 40 FF 09 <16 bytes> 40 ...
	raw := []byte("key")
	sum := md5Token(raw).FillBytes(make([]byte, 16))
	enc := Random.Decorate(raw).AppendComparable(nil)
	want := append(append([]byte{0x40, 0xFF, 0x09}, sum...), 0x40, 'k', 'e', 'y', 0x00, 0x38)
	if sum[0] != 0 {
		assert.Equal(t, want, enc)
	}
	assert.Equal(t, golden.Hex(t, "40 7F 40 00 38"), Random.Decorate(nil).AppendComparable(nil), "empty key: token -1")
}

func TestDecodeComparable(t *testing.T) {
	for _, p := range []Partitioner{Murmur3, ByteOrdered, Random} {
		for _, raw := range [][]byte{nil, {0}, {0, 1}, []byte("ab"), bytes.Repeat([]byte{0}, 300)} {
			k := p.Decorate(raw)
			enc := k.AppendComparable(nil)
			got, err := p.DecodeComparable([]byte("pre"), enc)
			require.NoError(t, err, "%v %x", p, raw)
			assert.Zero(t, Compare(k, got), "%v %x", p, raw)
			assert.Equal(t, enc, got.AppendComparable(nil))
			assert.Equal(t, k.HashByte(), got.HashByte())
			assert.False(t, got.Hashed)
		}
	}
	_, err := Murmur3.DecodeComparable(nil, []byte{0x40})
	assert.Error(t, err)
	_, err = Random.DecodeComparable(nil, golden.Hex(t, "40 7E 40 00 38"))
	assert.Error(t, err, "token -2 is not a RandomPartitioner token")
	_, err = Partitioner(9).DecodeComparable(nil, nil)
	assert.ErrorIs(t, err, ErrUnknown)
}
