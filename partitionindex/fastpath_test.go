package partitionindex

import (
	"bytes"
	"math"
	"testing"

	"github.com/bti-go/bti/partitioner"
)

// putTokenPrefix writes exactly the start of a Murmur3 key's encoding.
func TestPutTokenPrefix(t *testing.T) {
	for _, raw := range [][]byte{{}, []byte("a"), []byte("partition key"), {0, 1, 0xFF}} {
		k := partitioner.Murmur3.Decorate(raw)
		for _, tok := range []int64{k.Token, 0, -1, 1, math.MinInt64, math.MaxInt64} {
			k.Token = tok
			var got [tokenPrefixLen]byte
			putTokenPrefix(&got, tok)
			if want := k.AppendComparable(nil)[:tokenPrefixLen]; !bytes.Equal(got[:], want) {
				t.Fatalf("token %d: prefix %x, encoding starts %x", tok, got, want)
			}
		}
	}
}
