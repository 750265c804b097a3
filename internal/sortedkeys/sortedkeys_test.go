package sortedkeys

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bti-go/bti/partitioner"
)

// TestInvertIsHashInverse checks the inverse against the forward function
// itself, for random states and for the edges of both lanes.
func TestInvertIsHashInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	states := [][2]uint64{{0, 0}, {math.MaxUint64, math.MaxUint64}, {1 << 63, 0}, {0, 1 << 63}}
	for range 100_000 {
		states = append(states, [2]uint64{rng.Uint64(), rng.Uint64()})
	}
	for _, s := range states {
		raw := Invert(s[0], s[1])
		h1, h2 := partitioner.Hash3x64_128(raw[:], 0)
		if h1 != s[0] || h2 != s[1] {
			t.Fatalf("Hash3x64_128(Invert(%#x, %#x) = %x) = (%#x, %#x)", s[0], s[1], raw, h1, h2)
		}
	}
}

// TestInvertCoversHighBytes makes sure the inverse property above was
// checked on raw keys with bytes >= 0x80, the bytes Cassandra's hash
// sign-extends in a tail: a 16-byte key has no tail, and this pins that
// such bytes in the block hash as plain unsigned bytes, as Invert assumes.
func TestInvertCoversHighBytes(t *testing.T) {
	raw := Invert(0x0123456789abcdef, 0xfedcba9876543210)
	high := 0
	for _, b := range raw {
		if b >= 0x80 {
			high++
		}
	}
	if high == 0 {
		t.Fatalf("%x has no byte >= 0x80; pick another state", raw)
	}
	if h1, h2 := partitioner.Hash3x64_128(raw[:], 0); h1 != 0x0123456789abcdef || h2 != 0xfedcba9876543210 {
		t.Fatalf("Hash3x64_128(%x) = (%#x, %#x)", raw, h1, h2)
	}
}

// TestKeyIsDecorated checks that Key's fields are what Decorate computes
// from its raw bytes, so the builder sees genuine Murmur3 keys.
func TestKeyIsDecorated(t *testing.T) {
	for _, s := range sets(t, [][2]int{{1, 3}, {1000, 1}, {100_000_000, 1}, {maxCount, 9}}) {
		var raw [KeyLen]byte
		for _, i := range []int{0, 1, s.Count() / 2, s.Count() - 2, s.Count() - 1} {
			if i < 0 || i >= s.Count() {
				continue
			}
			got := s.Key(i, &raw)
			want := partitioner.Murmur3.Decorate(bytes.Clone(raw[:]))
			if got.Token != want.Token || got.Hash2 != want.Hash2 || !got.Hashed || !bytes.Equal(got.Raw, want.Raw) {
				t.Errorf("set %+v key %d: %+v, Decorate gives %+v", s, i, got, want)
			}
			if m, ok := s.Miss(i, &raw); ok {
				want := partitioner.Murmur3.Decorate(bytes.Clone(raw[:]))
				if m.Token != want.Token || m.Hash2 != want.Hash2 {
					t.Errorf("set %+v miss %d: %+v, Decorate gives %+v", s, i, m, want)
				}
			}
		}
	}
}

// TestStreamIsStrictlyIncreasing walks whole sets, small and with tight
// strata, checking strict order under partitioner.Compare (so no
// duplicates), that every miss falls strictly between its neighbours, and
// the extreme tokens.
func TestStreamIsStrictlyIncreasing(t *testing.T) {
	for _, s := range sets(t, [][2]int{{1, 1}, {2, 5}, {200_000, 1}, {1 << 20, 7}}) {
		var prevRaw, raw, missRaw [KeyLen]byte
		var prev partitioner.Key
		misses := 0
		for i := range s.Count() {
			k := s.Key(i, &raw)
			if k.Token == math.MinInt64 {
				t.Fatalf("set %+v key %d has the empty key's token", s, i)
			}
			if i > 0 && partitioner.Compare(prev, k) >= 0 {
				t.Fatalf("set %+v: key %d (%d) is not above key %d (%d)", s, i, k.Token, i-1, prev.Token)
			}
			if i > 0 {
				if m, ok := s.Miss(i-1, &missRaw); ok {
					misses++
					if partitioner.Compare(prev, m) >= 0 || partitioner.Compare(m, k) >= 0 {
						t.Fatalf("set %+v: miss %d (%d) is not between %d and %d", s, i-1, m.Token, prev.Token, k.Token)
					}
				}
			}
			prevRaw = raw
			prev = k
			prev.Raw = prevRaw[:]
		}
		if m, ok := s.Miss(s.Count()-1, &missRaw); ok && m.Token <= prev.Token {
			t.Fatalf("set %+v: last miss %d is not above the last key %d", s, m.Token, prev.Token)
		}
		if s.Count() > 1 && misses < s.Count()/2 {
			t.Errorf("set %+v: only %d misses", s, misses)
		}
	}
}

// sets returns the sets of the given (count, seed) pairs.
func sets(t *testing.T, params [][2]int) []*Set {
	t.Helper()
	var out []*Set
	for _, p := range params {
		s, err := New(p[0], uint64(p[1]))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestNewRefusesCounts(t *testing.T) {
	counts := []int{0, -1}
	// One past the largest set, where an int can say it (not on 32-bit
	// platforms, where maxCount is math.MaxInt).
	if limit := maxCount; limit < math.MaxInt {
		counts = append(counts, limit+1)
	}
	for _, n := range counts {
		var ce *CountError
		if _, err := New(n, 1); !errors.As(err, &ce) || ce.Count != n {
			t.Errorf("New of %d keys: %v", n, err)
		}
	}
}

func TestPosIncreases(t *testing.T) {
	s := sets(t, [][2]int{{10_000, 1}})[0]
	for i := 1; i < s.Count(); i++ {
		if s.Pos(i) <= s.Pos(i-1) {
			t.Fatalf("Pos(%d) = %d <= Pos(%d) = %d", i, s.Pos(i), i-1, s.Pos(i-1))
		}
	}
}

// BenchmarkKey is the generator's own cost per key (Key and Pos), which
// the build-stream workloads' ns/key includes.
func BenchmarkKey(b *testing.B) {
	s, err := New(100_000_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	var raw [KeyLen]byte
	var sink int64
	i := 0
	for b.Loop() {
		sink += s.Key(i, &raw).Token + s.Pos(i)
		if i++; i == s.Count() {
			i = 0
		}
	}
	_ = sink
}
