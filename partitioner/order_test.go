package partitioner

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bti-go/bti/internal/golden"
)

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
