package partitioner

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

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
