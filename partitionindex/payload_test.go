package partitionindex

import (
	"math/rand/v2"
	"testing"

	"github.com/bti-go/bti/internal/partitionpayload"
)

// leafPosition and decodePayload's leading case read what
// partitionpayload.Decode reads: every flags value 8..15, payloads of 9 to
// 16 bytes with random bytes (both signs of every position width), and
// decodePayload agrees with Decode on every flags value and length 0..16.
func TestLeafPosition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, rng.IntN(17))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		for flags := range byte(16) {
			wh, wok, wv, wok2 := partitionpayload.Decode(flags, b)
			h, ok, v, ok2 := decodePayload(flags, b)
			if h != wh || ok != wok || v != wv || ok2 != wok2 {
				t.Fatalf("flags %d, payload %x: decodePayload %d %v %d %v, Decode %d %v %d %v", flags, b, h, ok, v, ok2, wh, wok, wv, wok2)
			}
			if flags >= flagHasHashByte && len(b) > 8 {
				if got := leafPosition(flags, b); got != wv {
					t.Fatalf("flags %d, payload %x: leafPosition %d, Decode %d", flags, b, got, wv)
				}
			}
		}
	}
}
