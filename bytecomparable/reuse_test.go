package bytecomparable

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// AppendEscapedReusing must give exactly AppendEscaped's bytes whatever part
// of the previous key's output it copies: keys with long shared prefixes,
// prefixes ending inside and right after zero runs, shorter and longer keys.
func TestAppendEscapedReusing(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	gen := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = 0 // runs of zeros end at every kind of boundary
			case 1:
				b[i] = 0xFF
			default:
				b[i] = byte(r.Uint32())
			}
		}
		return b
	}
	var prev, prevOut []byte
	var prevMarks, marks []EscapeMark
	for iter := range 3000 {
		var b []byte
		switch {
		case prev == nil || iter%7 == 0:
			b = gen(r.IntN(3 * EscapeMarkEvery))
		default:
			// Share a random part of the previous key, then diverge.
			cut := r.IntN(len(prev) + 1)
			b = append(bytes.Clone(prev[:cut]), gen(r.IntN(2*EscapeMarkEvery))...)
		}
		shared := 0
		for shared < len(prev) && shared < len(b) && prev[shared] == b[shared] {
			shared++
		}
		prefix := []byte{0x40, 0x12}
		want := AppendEscaped(bytes.Clone(prefix), b)
		var got []byte
		got, marks = AppendEscapedReusing(bytes.Clone(prefix), b, prevOut, prevMarks, shared, marks)
		require.Equal(t, want, got, "iteration %d: %d bytes, %d shared", iter, len(b), shared)
		require.Len(t, marks, len(b)/EscapeMarkEvery)
		for j, m := range marks {
			full := AppendEscaped(nil, b[:(j+1)*EscapeMarkEvery])
			// The mark's output is the escaped prefix without its end marker.
			require.Equal(t, full[:len(full)-1], got[len(prefix):len(prefix)+m.Out], "mark %d", j)
			require.Equal(t, b[(j+1)*EscapeMarkEvery-1] == 0, m.Escaped, "mark %d", j)
		}
		prev, prevOut = b, got[len(prefix):]
		prevMarks, marks = marks, prevMarks
	}
}
